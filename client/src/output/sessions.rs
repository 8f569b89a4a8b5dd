//! Session verbs: `ls`, `new`, and the session labels.

use serde_json::Value;

use super::format::{b, i, s};
use super::{escape_controls, format_local_time, shell_quote, table};

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

pub fn session_accent_set(result: &Value) -> String {
    let session = shell_quote(s(result, "session"));
    match s(result, "accent") {
        "" => format!("session {session}: accent cleared\n"),
        accent => format!("session {session} accent {accent}\n"),
    }
}

/// What `tuios new` prints after creating a session.
pub fn session_created(name: &str) -> String {
    let q = shell_quote(name);
    let mut out = format!("created session {}\n", escape_controls(name));
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
    fn created_session_message_quotes_names() {
        let text = session_created("my work");
        assert!(text.starts_with("created session my work\n"));
        assert!(text.contains("tuios capture-pane -s 'my work'"));
    }

    #[test]
    fn a_cleared_accent_is_said_so() {
        assert_eq!(
            session_accent_set(&json!({"session": "my work", "accent": ""})),
            "session 'my work': accent cleared\n"
        );
    }
}
