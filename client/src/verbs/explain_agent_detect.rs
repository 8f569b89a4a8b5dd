//! `tuios explain-agent-detect`: why a window was or was not recognised as running an agent.
use std::path::Path;

use protocol::verbs::explain_agent_detect::{Params, Reply, SPEC};
use serde::Deserialize;
use serde_json::Value;

use crate::failure::Failure;
use crate::output::short_id;
use crate::output::table;

pub const NAME: Option<&str> = Some("explain-agent-detect");
pub const ALIASES: &[&str] = &[];

pub type Args = super::target::WindowOnly;

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    a.params()
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

/// A string or a list of strings as one piece of text.
pub(super) fn text_or_list(v: &Value) -> String {
    let plain = |v: &Value| match v {
        Value::String(t) => t.clone(),
        other => other.to_string(),
    };
    match v {
        Value::Array(items) => items.iter().map(plain).collect::<Vec<_>>().join(", "),
        other => plain(other),
    }
}

/// The first line of both explanations: the window, its state and its harness.
pub(super) fn header(window_id: &str, state: &str, source: &str, harness_id: &str) -> String {
    format!(
        "window {}: state {state} (source {source}), harness {}\n",
        short_id(window_id),
        if harness_id.is_empty() {
            "-"
        } else {
            harness_id
        }
    )
}

/// What this command shows of the foreground process. The reply carries it, and each
/// manifest's verdict, as free-form objects, so they are read here.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Process {
    comm: String,
    argv: Option<Value>,
    exe: String,
}

/// One manifest's verdict on the process: whether it matched, by which rule, or why not.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ManifestVerdict {
    id: String,
    matched: bool,
    rule: Option<Value>,
    reason: Option<Value>,
}

/// The foreground process, the verdict, and each manifest's reason.
fn print(r: &Reply) -> String {
    let mut out = header(&r.window_id, &r.state, &r.source, &r.harness_id);
    if !r.running {
        out.push_str(&format!(
            "no foreground process: {}\n",
            r.reason.as_deref().unwrap_or("")
        ));
        return out;
    }
    if let Some(p) = &r.process {
        let p = Process::deserialize(p).unwrap_or_default();
        let argv = p.argv.as_ref().map(text_or_list).unwrap_or_default();
        out.push_str(&format!("process: {} [{argv}]", p.comm));
        if !p.exe.is_empty() {
            out.push_str(&format!(" exe {}", p.exe));
        }
        out.push('\n');
    }
    if r.matched {
        let by = match r.matched_harness.as_deref().unwrap_or("") {
            "" => "the name list".to_string(),
            h => format!("manifest {h}"),
        };
        out.push_str(&format!(
            "agent: yes, by {} ({by})\n",
            r.matched_rule.as_deref().unwrap_or("")
        ));
    } else {
        out.push_str("agent: no\n");
    }
    if let Some(note) = &r.note {
        out.push_str(&format!("note: {note}\n"));
    }
    if let Some(t) = &r.transcript {
        let text = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or("");
        if t.get("joined").and_then(Value::as_bool) == Some(true) {
            out.push_str(&format!("transcript: {}\n", text("path")));
        } else {
            out.push_str(&format!("transcript: none ({})\n", text("reason")));
        }
    }
    let manifests = r.manifests.as_deref().unwrap_or_default();
    if !manifests.is_empty() {
        let rows: Vec<Vec<String>> = manifests
            .iter()
            .map(|m| {
                let m = ManifestVerdict::deserialize(m).unwrap_or_default();
                let why = m.rule.or(m.reason).map(|w| text_or_list(&w));
                vec![
                    m.id,
                    if m.matched { "yes" } else { "no" }.to_string(),
                    why.unwrap_or_default(),
                ]
            })
            .collect();
        out.push_str(&table(&["MANIFEST", "MATCHED", "RULE OR REASON"], &rows));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::parse;
    use crate::verbs::VerbCommand;
    use serde_json::json;

    #[test]
    fn explain_agent_detect_sends_only_the_target() {
        let VerbCommand::ExplainAgentDetect(a) = parse(&["explain-agent-detect"]) else {
            panic!("explain-agent-detect")
        };
        assert_eq!(crate::verbs::params_value(&params(&a)), None);
    }

    #[test]
    fn detection_reads_as_sentences_and_a_table() {
        let detect = print(&Reply {
            window_id: "abcdef0123".into(),
            state: "none".into(),
            source: "report".into(),
            running: true,
            matched: true,
            matched_rule: Some("comm=claude".into()),
            matched_harness: Some("claude-code".into()),
            process: Some(json!({"comm": "claude", "argv": ["claude", "-p"],
                "exe": "/bin/claude"})),
            manifests: Some(vec![
                json!({"id": "aider", "matched": false, "reason": "comm is claude"}),
                json!({"id": "claude-code", "matched": true, "rule": "comm=claude"}),
            ]),
            transcript: Some(json!({"joined": true, "path": "/h/s.jsonl", "offset": 9})),
            ..Default::default()
        });
        assert!(detect.contains("transcript: /h/s.jsonl\n"), "{detect}");
        assert!(
            detect.contains("process: claude [claude, -p] exe /bin/claude\n"),
            "{detect}"
        );
        assert!(
            detect.contains("agent: yes, by comm=claude (manifest claude-code)\n"),
            "{detect}"
        );
        assert!(
            detect.contains("claude-code  yes      comm=claude\n"),
            "{detect}"
        );
        let idle = print(&Reply {
            window_id: "w".into(),
            running: false,
            reason: Some("gone".into()),
            ..Default::default()
        });
        assert!(idle.ends_with("no foreground process: gone\n"), "{idle}");
    }
}
