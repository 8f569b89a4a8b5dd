//! The daemon and its protocol: `hello` and `list-verbs`.

use serde_json::Value;

use super::format::{b, i, s};
use super::table;

/// `tuios hello`: one line with the daemon's build, pid and protocol range.
pub fn hello(result: &Value) -> String {
    let n = i(result, "sessions");
    format!(
        "tuios daemon {} (pid {}), protocol {} (serves {} to {}), {n} session{}\n",
        s(result, "daemon_version"),
        i(result, "pid"),
        i(result, "protocol"),
        i(result, "min_protocol"),
        i(result, "protocol"),
        if n == 1 { "" } else { "s" }
    )
}

/// `tuios list-verbs`: the version line, each verb with params and examples, and the error
/// codes when every verb was listed.
pub fn verb_list(result: &Value, one_verb: bool) -> String {
    let mut out = format!(
        "Control protocol version {} (daemon {}, oldest supported {})\n",
        i(result, "version"),
        s(result, "daemon_version"),
        i(result, "min_version")
    );
    let empty = Vec::new();
    let verbs = result
        .get("verbs")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    for verb in verbs {
        out.push('\n');
        out.push_str(s(verb, "verb"));
        out.push('\n');
        out.push_str(&format!("  {}\n", s(verb, "description")));
        let params = verb
            .get("params")
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        if !params.is_empty() {
            out.push_str("  params:\n");
            for p in params {
                out.push_str(&param_line(p));
            }
        }
        let returns = verb
            .get("returns")
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        if !returns.is_empty() {
            out.push_str("  returns:\n");
            for r in returns {
                out.push_str(&param_line(r));
            }
        }
        let examples = verb
            .get("examples")
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        if !examples.is_empty() {
            out.push_str("  examples:\n");
            for e in examples {
                let text = e
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| e.to_string());
                out.push_str(&format!("    {text}\n"));
            }
        }
    }
    if !one_verb {
        let codes = result
            .get("error_codes")
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        if !codes.is_empty() {
            out.push_str("\nerror codes:\n");
            let rows: Vec<Vec<String>> = codes
                .iter()
                .map(|c| {
                    vec![
                        format!("  {}", s(c, "code")),
                        s(c, "description").to_string(),
                    ]
                })
                .collect();
            let t = table(&["", ""], &rows);
            // Drop the blank header line the table helper always writes.
            out.push_str(t.split_once('\n').map_or("", |(_, rest)| rest));
        }
    }
    out
}

fn param_line(p: &Value) -> String {
    let mut head = format!("    {} ({}", s(p, "name"), s(p, "type"));
    if b(p, "required") {
        head.push_str(", required");
    }
    head.push(')');
    let desc = s(p, "description");
    let mut out = if desc.is_empty() {
        format!("{head}\n")
    } else {
        format!("{head}: {desc}\n")
    };
    if let Some(acc) = p.get("accepted").and_then(Value::as_array) {
        if !acc.is_empty() {
            let list: Vec<String> = acc
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| v.to_string())
                })
                .collect();
            out.push_str(&format!("        one of: {}\n", list.join(", ")));
        }
    }
    match p.get("default") {
        Some(Value::String(d)) if !d.is_empty() => {
            out.push_str(&format!("        default: {d}\n"));
        }
        Some(v) if !v.is_null() && !v.is_string() => {
            out.push_str(&format!("        default: {v}\n"));
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn verb_list_shows_params_and_codes() {
        let result = json!({
            "type": "verb_list", "version": 1, "min_version": 1, "daemon_version": "0.1.0",
            "verbs": [{
                "verb": "capture-pane", "description": "Capture a pane.",
                "params": [
                    {"name": "source", "type": "string", "description": "Buffer.",
                     "accepted": ["visible", "recent"], "default": "visible"},
                    {"name": "keys", "type": "string", "required": true, "description": "K."}
                ],
                "examples": ["{\"id\":1,\"verb\":\"capture-pane\"}"]
            }],
            "error_codes": [{"code": "internal", "description": "Unexpected."}]
        });
        let all = verb_list(&result, false);
        assert!(all.starts_with("Control protocol version 1 (daemon 0.1.0, oldest supported 1)\n"));
        assert!(all.contains("    source (string): Buffer.\n        one of: visible, recent\n        default: visible\n"));
        assert!(all.contains("    keys (string, required): K.\n"));
        assert!(all.contains("    {\"id\":1,\"verb\":\"capture-pane\"}\n"));
        assert!(all.contains("error codes:\n  internal  Unexpected.\n"));
        assert!(!verb_list(&result, true).contains("error codes"));
    }

    #[test]
    fn hello_is_one_line() {
        assert_eq!(
            hello(&json!({"type": "hello", "protocol": 1, "min_protocol": 1,
                "daemon_version": "0.1.0", "pid": 42, "sessions": 1})),
            "tuios daemon 0.1.0 (pid 42), protocol 1 (serves 1 to 1), 1 session\n"
        );
    }
}
