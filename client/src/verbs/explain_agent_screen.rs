//! `tuios explain-agent-screen`: what a harness's screen rules make of a window.
use std::path::Path;

use protocol::verbs::explain_agent_screen::{Params, Reply, SPEC};
use serde::Deserialize;
use serde_json::Value;

use super::explain_agent_detect::{header, text_or_list};
use super::target::WindowTarget;
use crate::failure::Failure;
use crate::output::table;

pub const NAME: Option<&str> = Some("explain-agent-screen");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: WindowTarget,
    #[arg(long, value_name = "ID")]
    pub harness: Option<String>,
    #[arg(long, value_name = "N")]
    pub lines: Option<i64>,
}

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        window: a.target.window.clone(),
        harness: a.harness.clone(),
        lines: a.lines,
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

/// Keys of a screen rule that say why it did not match, in the order worth reading.
const RULE_MISSES: [&str; 6] = [
    "missing",
    "missing_regex",
    "none_of",
    "blocked",
    "blocked_regex",
    "empty",
];

/// The fixed keys of a screen rule. The reply carries each rule as a free-form object (its
/// reasons vary), so they are read here; the reasons are read by name from the object.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Rule {
    index: i64,
    state: String,
    priority: i64,
    matched: bool,
}

/// Why a rule did not match: each reason key it holds, with its text unless it is a flag.
fn why_not(rule: &Value) -> String {
    let why: Vec<String> = RULE_MISSES
        .iter()
        .filter_map(|k| {
            rule.get(*k)
                .filter(|v| !v.is_null() && **v != false)
                .map(|v| match v {
                    Value::Bool(true) => k.to_string(),
                    other => format!("{k}: {}", text_or_list(other)),
                })
        })
        .collect();
    why.join("; ")
}

/// The rows read, then each rule and what kept it from matching.
fn print(r: &Reply) -> String {
    let mut out = header(&r.window_id, &r.state, &r.source, &r.harness_id);
    out.push_str(&format!("last {} rows:\n", r.lines));
    for row in &r.tail {
        out.push_str(&format!("  | {row}\n"));
    }
    if r.rules.is_empty() {
        out.push_str("no screen rules apply\n");
        return out;
    }
    if r.enabled == Some(false) {
        out.push_str("screen rules are switched off for this harness\n");
    }
    let rows: Vec<Vec<String>> = r
        .rules
        .iter()
        .map(|v| {
            let rule = Rule::deserialize(v).unwrap_or_default();
            vec![
                rule.index.to_string(),
                rule.state,
                rule.priority.to_string(),
                if rule.matched { "yes" } else { "no" }.to_string(),
                why_not(v),
            ]
        })
        .collect();
    out.push_str(&table(
        &["RULE", "STATE", "PRIORITY", "MATCHED", "WHY NOT"],
        &rows,
    ));
    if r.rule >= 0 {
        out.push_str(&format!(
            "verdict: rule {}, state {}\n",
            r.rule,
            r.rule_state.as_deref().unwrap_or("")
        ));
    } else {
        out.push_str("verdict: no rule matched\n");
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
    fn explain_agent_screen_maps_harness_and_lines() {
        let VerbCommand::ExplainAgentScreen(a) = parse(&[
            "explain-agent-screen",
            "--harness",
            "codex",
            "--lines",
            "10",
        ]) else {
            panic!("explain-agent-screen")
        };
        assert_eq!(
            crate::verbs::params_value(&params(&a)),
            Some(json!({"harness": "codex", "lines": 10}))
        );
    }

    #[test]
    fn the_screen_explanation_shows_rows_rules_and_verdict() {
        let screen = print(&Reply {
            window_id: "abcdef0123".into(),
            harness_id: "codex".into(),
            state: "working".into(),
            source: "screen".into(),
            lines: 2,
            tail: vec!["a".into(), "b".into()],
            enabled: Some(true),
            rules: vec![json!({"index": 0, "state": "needs_input", "priority": 5,
                "matched": false, "missing": ["Allow?"], "empty": true})],
            matched: false,
            rule: -1,
            ..Default::default()
        });
        assert!(screen.contains("last 2 rows:\n  | a\n  | b\n"), "{screen}");
        assert!(screen.contains("missing: Allow?; empty"), "{screen}");
        assert!(screen.ends_with("verdict: no rule matched\n"), "{screen}");
    }
}
