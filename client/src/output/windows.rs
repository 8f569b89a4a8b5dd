//! Window output still shared with other commands: the window table run-command shows.

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
