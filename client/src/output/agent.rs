//! Agent verbs: the agent state, and the explanations of detection and screen rules.

use serde_json::Value;

use super::format::{b, i, plain, s, short_id};
use super::{format_local_time, table};

/// A string or a list of strings as one piece of text.
fn text_or_list(v: &Value) -> String {
    match v {
        Value::Array(items) => items.iter().map(plain).collect::<Vec<_>>().join(", "),
        other => plain(other),
    }
}

pub fn agent_state_set(result: &Value) -> String {
    let state = s(result, "state");
    let source = s(result, "source");
    if b(result, "applied") {
        format!("agent state {state} (source {source})\n")
    } else {
        format!(
            "not applied: a source ranked above {source} holds the window; its state stays {state}\n"
        )
    }
}

/// `tuios get-agent-state`: one line, with when and by whom the state was set.
pub fn agent_state(result: &Value) -> String {
    let mut out = format!(
        "window {}: {} (source {}",
        short_id(s(result, "window_id")),
        s(result, "state"),
        s(result, "source")
    );
    let harness = s(result, "harness_id");
    if !harness.is_empty() {
        out.push_str(&format!(", harness {harness}"));
    }
    // Nanoseconds on the wire; the time is shown to the minute.
    let at = i(result, "agent_state_at");
    if at > 0 {
        out.push_str(&format!(
            ", since {}",
            format_local_time(at / 1_000_000_000)
        ));
    }
    out.push(')');
    let message = s(result, "message");
    if !message.is_empty() {
        out.push_str(&format!(": {message}"));
    }
    out.push('\n');
    out
}

fn agent_header(result: &Value) -> String {
    let harness = s(result, "harness_id");
    format!(
        "window {}: state {} (source {}), harness {}\n",
        short_id(s(result, "window_id")),
        s(result, "state"),
        s(result, "source"),
        if harness.is_empty() { "-" } else { harness }
    )
}

/// `tuios explain-agent-detect`: the foreground process, the verdict, and each manifest's
/// reason.
pub fn agent_detect(result: &Value) -> String {
    let mut out = agent_header(result);
    if !b(result, "running") {
        out.push_str(&format!("no foreground process: {}\n", s(result, "reason")));
        return out;
    }
    if let Some(p) = result.get("process") {
        let argv = p.get("argv").map(text_or_list).unwrap_or_default();
        out.push_str(&format!("process: {} [{argv}]", s(p, "comm")));
        let exe = s(p, "exe");
        if !exe.is_empty() {
            out.push_str(&format!(" exe {exe}"));
        }
        out.push('\n');
    }
    if b(result, "matched") {
        let by = match s(result, "matched_harness") {
            "" => "the name list".to_string(),
            h => format!("manifest {h}"),
        };
        out.push_str(&format!(
            "agent: yes, by {} ({by})\n",
            s(result, "matched_rule")
        ));
    } else {
        out.push_str("agent: no\n");
    }
    if let Some(note) = result.get("note").and_then(Value::as_str) {
        out.push_str(&format!("note: {note}\n"));
    }
    let manifests = result
        .get("manifests")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if !manifests.is_empty() {
        let rows: Vec<Vec<String>> = manifests
            .iter()
            .map(|m| {
                let why = m
                    .get("rule")
                    .or_else(|| m.get("reason"))
                    .map(text_or_list)
                    .unwrap_or_default();
                vec![
                    s(m, "id").to_string(),
                    if b(m, "matched") { "yes" } else { "no" }.to_string(),
                    why,
                ]
            })
            .collect();
        out.push_str(&table(&["MANIFEST", "MATCHED", "RULE OR REASON"], &rows));
    }
    out
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

/// `tuios explain-agent-screen`: the rows read, then each rule and what kept it from matching.
pub fn agent_screen(result: &Value) -> String {
    let mut out = agent_header(result);
    let tail = result
        .get("tail")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    out.push_str(&format!("last {} rows:\n", i(result, "lines")));
    for row in &tail {
        out.push_str(&format!("  | {}\n", plain(row)));
    }
    let rules = result
        .get("rules")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if rules.is_empty() {
        out.push_str("no screen rules apply\n");
        return out;
    }
    if result.get("enabled").is_some_and(|e| e == false) {
        out.push_str("screen rules are switched off for this harness\n");
    }
    let rows: Vec<Vec<String>> = rules
        .iter()
        .map(|r| {
            let why: Vec<String> = RULE_MISSES
                .iter()
                .filter_map(|k| {
                    r.get(*k)
                        .filter(|v| !v.is_null() && *v != false)
                        .map(|v| match v {
                            Value::Bool(true) => k.to_string(),
                            other => format!("{k}: {}", text_or_list(other)),
                        })
                })
                .collect();
            vec![
                i(r, "index").to_string(),
                s(r, "state").to_string(),
                i(r, "priority").to_string(),
                if b(r, "matched") { "yes" } else { "no" }.to_string(),
                why.join("; "),
            ]
        })
        .collect();
    out.push_str(&table(
        &["RULE", "STATE", "PRIORITY", "MATCHED", "WHY NOT"],
        &rows,
    ));
    match result.get("rule").and_then(Value::as_i64) {
        Some(n) if n >= 0 => out.push_str(&format!(
            "verdict: rule {n}, state {}\n",
            s(result, "rule_state")
        )),
        _ => out.push_str("verdict: no rule matched\n"),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn agent_results_read_as_sentences() {
        assert_eq!(
            agent_state_set(&json!({"state": "done", "source": "report", "applied": true})),
            "agent state done (source report)\n"
        );
        assert!(
            agent_state_set(&json!({"state": "working", "source": "stall",
            "applied": false}))
            .starts_with("not applied: ")
        );
        assert_eq!(
            agent_state(&json!({"window_id": "abcdef0123", "state": "needs_input",
                "source": "report", "harness_id": "claude-code", "agent_state_at": 0,
                "message": "approve"})),
            "window abcdef01: needs_input (source report, harness claude-code): approve\n"
        );
        let detect = agent_detect(&json!({
            "window_id": "abcdef0123", "state": "none", "source": "report", "harness_id": "",
            "running": true, "matched": true, "matched_rule": "comm=claude",
            "matched_harness": "claude-code",
            "process": {"comm": "claude", "argv": ["claude", "-p"], "exe": "/bin/claude"},
            "manifests": [{"id": "aider", "matched": false, "reason": "comm is claude"},
                          {"id": "claude-code", "matched": true, "rule": "comm=claude"}]
        }));
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
        let idle = agent_detect(&json!({"window_id": "w", "running": false, "reason": "gone"}));
        assert!(idle.ends_with("no foreground process: gone\n"), "{idle}");
        let screen = agent_screen(&json!({
            "window_id": "abcdef0123", "harness_id": "codex", "state": "working",
            "source": "screen", "lines": 2, "tail": ["a", "b"], "enabled": true,
            "rules": [{"index": 0, "state": "needs_input", "priority": 5, "matched": false,
                       "missing": ["Allow?"], "empty": true}],
            "matched": false, "rule": -1
        }));
        assert!(screen.contains("last 2 rows:\n  | a\n  | b\n"), "{screen}");
        assert!(screen.contains("missing: Allow?; empty"), "{screen}");
        assert!(screen.ends_with("verdict: no rule matched\n"), "{screen}");
    }
}
