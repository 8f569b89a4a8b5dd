//! Waits and events: what `wait-for` matched, and the `subscribe` acknowledgement.

use serde_json::Value;

use super::format::{i, s};
use super::shell_quote;

/// `tuios wait-for`: "matched", plus what matched when the condition says more than yes.
pub fn wait_result(result: &Value) -> String {
    let detail = match s(result, "condition") {
        "window-output" => result
            .get("match")
            .and_then(Value::as_str)
            .map(|m| format!("match {m:?}")),
        "window-exit" => match (result.get("exit_code"), result.get("signal")) {
            (Some(code), _) => Some(format!("exit code {code}")),
            (None, Some(sig)) => Some(format!("signal {sig}")),
            // Closed before its exit status was known.
            (None, None) => None,
        },
        "window-idle" => Some(format!("idle for {} ms", i(result, "idle_ms"))),
        "agent-state" => result
            .get("state")
            .and_then(Value::as_str)
            .map(|st| format!("agent state {st}")),
        "session-exists" => Some(format!("session {}", shell_quote(s(result, "session")))),
        _ => None,
    };
    match detail {
        Some(d) => format!("matched: {d}\n"),
        None => "matched\n".to_string(),
    }
}

/// The stderr note once `tuios subscribe` is streaming.
pub fn subscribed(result: &Value) -> String {
    format!("subscribed (seq {})\n", i(result, "seq"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wait_results_say_what_matched() {
        assert_eq!(
            wait_result(&json!({"type": "wait_result", "condition": "window-output",
                "matched": true, "match": "MARK-42\nx"})),
            "matched: match \"MARK-42\\nx\"\n"
        );
        assert_eq!(
            wait_result(&json!({"condition": "window-exit", "matched": true, "exit_code": 0})),
            "matched: exit code 0\n"
        );
        assert_eq!(
            wait_result(&json!({"condition": "window-exit", "matched": true, "signal": 9})),
            "matched: signal 9\n"
        );
        assert_eq!(
            wait_result(&json!({"condition": "window-exit", "matched": true})),
            "matched\n"
        );
        assert_eq!(
            wait_result(&json!({"condition": "window-idle", "idle_ms": 500})),
            "matched: idle for 500 ms\n"
        );
        assert_eq!(
            wait_result(&json!({"condition": "session-exists", "session": "my work"})),
            "matched: session 'my work'\n"
        );
        assert_eq!(
            wait_result(&json!({"condition": "agent-state", "state": "done"})),
            "matched: agent state done\n"
        );
        assert_eq!(
            subscribed(&json!({"type": "subscribed", "seq": 7})),
            "subscribed (seq 7)\n"
        );
    }
}
