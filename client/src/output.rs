//! Human-readable rendering of verb results. Pure functions from JSON to text.

use serde_json::Value;

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn i(v: &Value, key: &str) -> i64 {
    v.get(key).and_then(Value::as_i64).unwrap_or(0)
}

fn b(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// Quote a word for a POSIX shell only when it needs it, so printed commands can be pasted.
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Left-aligned columns separated by two spaces; the last column is not padded.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: Vec<&str>| {
        let last = cells.len().saturating_sub(1);
        let mut text = String::new();
        for (n, cell) in cells.iter().enumerate() {
            text.push_str(cell);
            if n < last {
                let pad = widths[n] - cell.chars().count() + 2;
                text.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(header.to_vec());
    for row in rows {
        line(row.iter().map(String::as_str).collect());
    }
    out
}

/// `tuios ls`: one row per session.
pub fn sessions_table(sessions: &[Value]) -> String {
    if sessions.is_empty() {
        return "no sessions\n".to_string();
    }
    let rows: Vec<Vec<String>> = sessions
        .iter()
        .map(|sess| {
            vec![
                s(sess, "name").to_string(),
                i(sess, "window_count").to_string(),
                format!("{}x{}", i(sess, "width"), i(sess, "height")),
                format_local_time(i(sess, "created")),
                if b(sess, "attached") { "yes" } else { "no" }.to_string(),
            ]
        })
        .collect();
    table(&["NAME", "WINDOWS", "SIZE", "CREATED", "ATTACHED"], &rows)
}

/// `tuios list-windows`: one row per window; ids are shortened to a prefix, which the window
/// target rules accept as long as it is unique.
pub fn windows_table(result: &Value) -> String {
    let windows = result
        .get("windows")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if windows.is_empty() {
        return "no windows\n".to_string();
    }
    let rows: Vec<Vec<String>> = windows
        .iter()
        .map(|w| {
            let id = s(w, "window_id");
            let mut flags = String::new();
            if b(w, "focused") {
                flags.push('*');
            }
            if b(w, "minimized") {
                flags.push('m');
            }
            vec![
                i(w, "index").to_string(),
                id.chars().take(8).collect(),
                i(w, "workspace").to_string(),
                format!("{}x{}", i(w, "width"), i(w, "height")),
                flags,
                s(w, "agent_state").to_string(),
                s(w, "display_name").to_string(),
            ]
        })
        .collect();
    table(
        &["INDEX", "ID", "WS", "SIZE", "FLAGS", "AGENT", "NAME"],
        &rows,
    )
}

/// Any result object as `key: value` lines, `type` left out. Used where no richer form exists.
pub fn key_values(result: &Value) -> String {
    let Some(obj) = result.as_object() else {
        return format!("{result}\n");
    };
    let mut out = String::new();
    for (k, v) in obj.iter().filter(|(k, _)| k.as_str() != "type") {
        let text = match v {
            Value::String(t) => t.clone(),
            other => other.to_string(),
        };
        out.push_str(&format!("{k}: {text}\n"));
    }
    out
}

pub fn window_created(result: &Value) -> String {
    format!(
        "created window {} ({}) on workspace {}\n",
        s(result, "window_id"),
        s(result, "name"),
        i(result, "workspace")
    )
}

pub fn resized(result: &Value) -> String {
    format!(
        "resized to {}x{}\n",
        i(result, "width"),
        i(result, "height")
    )
}

/// capture-pane prints the content as is; a terminal gets a final newline so the prompt does
/// not land on the last row, a pipe gets exactly what the pane holds.
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

pub fn capture(content: &str, stdout_is_tty: bool) -> String {
    let mut out = content.to_string();
    if stdout_is_tty && !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out
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

/// What `tuios new` prints after creating a session.
pub fn session_created(name: &str, attached_requested: bool) -> String {
    let q = shell_quote(name);
    let mut out = format!("created session {name}\n");
    if attached_requested {
        out.push_str(
            "note: `tuios attach` (the full-screen client) is not available in this build yet; \
             the session runs headless\n",
        );
    }
    out.push_str(&format!(
        "drive it with:\n\
         \x20 tuios send-text -s {q} 'echo hello'\n\
         \x20 tuios send-keys -s {q} Enter\n\
         \x20 tuios capture-pane -s {q}\n\
         \x20 tuios list-windows -s {q}\n\
         stop it with: tuios kill-session {q}\n"
    ));
    out
}

/// Unix seconds as local `YYYY-MM-DD HH:MM`; zero or unknown prints `-`.
pub fn format_local_time(unix_secs: i64) -> String {
    if unix_secs <= 0 {
        return "-".to_string();
    }
    let t = unix_secs as libc::time_t;
    // SAFETY: an all-zero `tm` is a valid value of that plain C struct, and localtime_r only
    // reads `t` and writes into `tm`, both live for the call.
    let local = unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        (!libc::localtime_r(&t, &mut tm).is_null()).then_some(tm)
    };
    let Some(tm) = local else {
        return unix_secs.to_string();
    };
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn quoting_only_when_needed() {
        assert_eq!(shell_quote("work-1"), "work-1");
        assert_eq!(shell_quote("my work"), "'my work'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn tables_align_columns() {
        let t = table(
            &["NAME", "N"],
            &[
                vec!["a".into(), "1".into()],
                vec!["long".into(), "22".into()],
            ],
        );
        assert_eq!(t, "NAME  N\na     1\nlong  22\n");
    }

    #[test]
    fn session_table_has_the_documented_columns() {
        let t = sessions_table(&[json!({
            "name": "work", "window_count": 2, "width": 80, "height": 24,
            "created": 0, "attached": false
        })]);
        let mut lines = t.lines();
        assert_eq!(
            lines.next().unwrap().split_whitespace().collect::<Vec<_>>(),
            ["NAME", "WINDOWS", "SIZE", "CREATED", "ATTACHED"]
        );
        assert_eq!(
            lines.next().unwrap().split_whitespace().collect::<Vec<_>>(),
            ["work", "2", "80x24", "-", "no"]
        );
        assert_eq!(sessions_table(&[]), "no sessions\n");
    }

    #[test]
    fn capture_adds_a_newline_only_for_terminals() {
        assert_eq!(capture("a\nb", false), "a\nb");
        assert_eq!(capture("a\nb", true), "a\nb\n");
        assert_eq!(capture("a\n", true), "a\n");
        assert_eq!(capture("", true), "");
    }

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
            subscribed(&json!({"type": "subscribed", "seq": 7})),
            "subscribed (seq 7)\n"
        );
    }

    #[test]
    fn windows_table_marks_focus() {
        let t = windows_table(&json!({"windows": [{
            "window_id": "0123456789abcdef", "index": 0, "workspace": 1, "width": 80,
            "height": 24, "focused": true, "agent_state": "none", "display_name": "sh"
        }]}));
        assert_eq!(
            t.lines()
                .nth(1)
                .unwrap()
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["0", "01234567", "1", "80x24", "*", "none", "sh"]
        );
    }

    #[test]
    fn created_session_message_quotes_names() {
        let text = session_created("my work", true);
        assert!(text.starts_with("created session my work\n"));
        assert!(text.contains("not available in this build yet"));
        assert!(text.contains("tuios capture-pane -s 'my work'"));
        assert!(!session_created("w", false).contains("not available"));
    }
}
