//! Window output still shared with other commands: the window table run-command shows, and
//! capture-pane's text.

use protocol::verbs::common::WindowRow;
use serde_json::Value;

/// run-command's ListWindows data: list-windows' rows, drawn as list-windows draws them. The
/// data is untyped there, so a row missing a key shows that key's zero value.
pub fn windows_table(result: &Value) -> String {
    let rows: Vec<WindowRow> = result
        .get("windows")
        .and_then(Value::as_array)
        .map(|rows| rows.iter().map(window_row).collect())
        .unwrap_or_default();
    crate::verbs::list_windows::windows_table(&rows)
}

/// A row's keys over a default row, so what is missing reads as zero rather than failing.
fn window_row(row: &Value) -> WindowRow {
    let mut full = serde_json::to_value(WindowRow::default()).unwrap_or_default();
    if let (Some(full), Some(row)) = (full.as_object_mut(), row.as_object()) {
        full.extend(row.clone());
    }
    serde_json::from_value(full).unwrap_or_default()
}

/// capture-pane prints the content as is; a terminal gets a final newline so the prompt does
/// not land on the last row, a pipe gets exactly what the pane holds.
pub fn capture(content: &str, stdout_is_tty: bool) -> String {
    let mut out = content.to_string();
    if stdout_is_tty && !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn capture_adds_a_newline_only_for_terminals() {
        assert_eq!(capture("a\nb", false), "a\nb");
        assert_eq!(capture("a\nb", true), "a\nb\n");
        assert_eq!(capture("a\n", true), "a\n");
        assert_eq!(capture("", true), "");
    }

    #[test]
    fn a_partial_row_still_shows() {
        let t = windows_table(&json!({"windows": [{"window_id": "0123456789", "index": 2}]}));
        assert_eq!(
            t.lines()
                .nth(1)
                .map(|l| l.split_whitespace().collect::<Vec<_>>()),
            Some(vec!["2", "01234567", "0", "0x0"])
        );
    }
}
