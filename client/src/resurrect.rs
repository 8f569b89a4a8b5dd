//! `tuios resurrect [NAME]` and the saved-session part of `tuios ls`.

use std::path::Path;

use serde_json::{json, Value};

use crate::cli::ResurrectArgs;
use crate::failure::Failure;
use crate::json_client::JsonClient;
use crate::output;

/// Restore saved sessions into the running daemon. Returns the text to print and the exit
/// status: 1 when a saved session could not be restored (running already, or unreadable).
pub fn run(socket: &Path, args: &ResurrectArgs) -> Result<(String, i32), Failure> {
    let req = crate::params::resurrect(args.session.as_deref());
    let result = JsonClient::connect(socket)?.call(req.verb, req.params_value().as_ref())?;
    let failed = !list(&result, "failed").is_empty() || !list(&result, "unreadable").is_empty();
    let text = if args.json {
        let text = serde_json::to_string_pretty(&result)
            .map_err(|e| Failure::msg(format!("cannot render JSON: {e}")))?;
        format!("{text}\n")
    } else {
        report(&output::escape_value(&result))
    };
    Ok((text, i32::from(failed)))
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// What `resurrect` did, for a person.
fn report(result: &Value) -> String {
    let mut out = String::new();
    for s in list(result, "sessions") {
        let n = s.get("windows").and_then(Value::as_u64).unwrap_or(0);
        out.push_str(&format!(
            "restored session {} ({n} window{})\n",
            text(s, "name"),
            if n == 1 { "" } else { "s" }
        ));
        for note in list(s, "notes") {
            out.push_str(&format!("  {}\n", note.as_str().unwrap_or("")));
        }
    }
    for f in list(result, "failed") {
        out.push_str(&format!(
            "not restored: {}: {}\n",
            text(f, "name"),
            text(f, "reason")
        ));
    }
    out.push_str(&unreadable_lines(result));
    if out.is_empty() {
        out.push_str("no saved sessions to restore\n");
    }
    out
}

fn unreadable_lines(result: &Value) -> String {
    let rows = list(result, "unreadable");
    if rows.is_empty() {
        return String::new();
    }
    let mut out = String::from("unreadable saved sessions (left as they are):\n");
    for u in rows {
        out.push_str(&format!("  {}: {}\n", text(u, "file"), text(u, "reason")));
    }
    out
}

/// The part of `tuios ls` after the live sessions: saved ones that are not running, and saved
/// files that cannot be read. Empty when there are none. `result` is already escaped.
pub fn saved_section(result: &Value) -> String {
    section(result, "\nsaved, not running (tuios resurrect NAME):\n")
}

/// `tuios ls` with no daemon running: the sessions saved in the state directory (read with the
/// daemon's own reader), which a daemon restores when it starts. Empty when there are none.
pub fn offline_section() -> String {
    let Some(dir) = daemon::paths::sessions_dir() else {
        return String::new();
    };
    let mut saved = Vec::new();
    let mut unreadable = Vec::new();
    for entry in actors::session::saved::scan(&dir) {
        match entry.session {
            Ok(s) => saved.push(json!({
                "name": s.name,
                "window_count": s.windows.len(),
                "saved_at": s.saved_at,
            })),
            Err(reason) => unreadable.push(json!({
                "file": entry.file.display().to_string(),
                "reason": reason,
            })),
        }
    }
    let result = output::escape_value(&json!({"saved": saved, "unreadable": unreadable}));
    section(
        &result,
        "saved (no daemon is running; starting one restores them: tuios new -d NAME):\n",
    )
}

fn section(result: &Value, heading: &str) -> String {
    let saved = list(result, "saved");
    let mut out = String::new();
    if !saved.is_empty() {
        out.push_str(heading);
        let rows: Vec<Vec<String>> = saved
            .iter()
            .map(|s| {
                vec![
                    text(s, "name").to_string(),
                    s.get("window_count")
                        .and_then(Value::as_u64)
                        .unwrap_or(0)
                        .to_string(),
                    output::format_local_time(
                        s.get("saved_at").and_then(Value::as_i64).unwrap_or(0),
                    ),
                ]
            })
            .collect();
        out.push_str(&output::table(&["NAME", "WINDOWS", "SAVED"], &rows));
    }
    let bad = unreadable_lines(result);
    if !bad.is_empty() {
        if !out.is_empty() || heading.starts_with('\n') {
            out.push('\n');
        }
        out.push_str(&bad);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ls_shows_saved_and_unreadable_apart() {
        let result = json!({
            "sessions": [],
            "saved": [{"name": "old", "window_count": 2, "saved_at": 0}],
            "unreadable": [{"file": "/s/bad.json", "reason": "the file ends early"}],
        });
        let text = saved_section(&result);
        assert!(text.contains("saved, not running"), "{text}");
        assert!(text.contains("old"), "{text}");
        assert!(text.contains("/s/bad.json: the file ends early"), "{text}");
        assert_eq!(saved_section(&json!({"sessions": []})), "");
    }

    #[test]
    fn report_lists_notes() {
        let result = json!({
            "sessions": [{"name": "w", "windows": 1, "notes": ["window x: vim was not run again"]}],
            "failed": [],
            "unreadable": [],
        });
        assert_eq!(
            report(&result),
            "restored session w (1 window)\n  window x: vim was not run again\n"
        );
        assert_eq!(report(&json!({})), "no saved sessions to restore\n");
    }
}
