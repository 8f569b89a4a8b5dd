//! Formatting shared by the human renderers: escaping, field access, tables, times.

use std::borrow::Cow;

use serde_json::Value;

/// The one escaping helper for human output: a string holding a control character (C0, ESC,
/// DEL, C1) or an invisible or bidi character comes back with each written as a visible escape
/// (`\x1b`, `\n`, `\u{9b}`; backslashes doubled so the form is unambiguous); any other string
/// comes back unchanged.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    let visible = protocol::lumen::visible_controls(text);
    // visible_controls only adds characters: same length after undoing the doubled
    // backslashes means nothing was escaped.
    if visible.len() == text.len() + text.matches('\\').count() {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(visible)
    }
}

/// `value` with every string in it (object keys too) passed through [`escape_controls`]: what
/// the human renderers get, so no renderer can forget a field.
pub fn escape_value(value: &Value) -> Value {
    match value {
        Value::String(t) => Value::String(escape_controls(t).into_owned()),
        Value::Array(items) => Value::Array(items.iter().map(escape_value).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (escape_controls(k).into_owned(), escape_value(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Quote a word for a POSIX shell only when it needs it, so printed commands can be pasted.
pub use protocol::shell::quote_if_needed as shell_quote;

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

/// Window ids in one-line messages: the same prefix list-windows shows, which still targets it.
pub fn short_id(id: &str) -> String {
    id.chars().take(8).collect()
}

/// Unix seconds as local `YYYY-MM-DD HH:MM`; zero or unknown prints `-`.
pub fn format_local_time(unix_secs: i64) -> String {
    if unix_secs <= 0 {
        return "-".to_string();
    }
    let Some(t) = crate::clock::local(unix_secs) else {
        return unix_secs.to_string();
    };
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}",
        t.year, t.month, t.day, t.hour, t.minute
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::windows_table;
    use serde_json::json;

    #[test]
    fn controls_are_escaped_plain_text_is_not() {
        assert!(matches!(
            escape_controls("plain é 名前 C:\\x"),
            Cow::Borrowed(_)
        ));
        assert_eq!(escape_controls("\x1b]2;x\x07"), "\\x1b]2;x\\x07");
        assert_eq!(escape_controls("a\u{9b}31m"), "a\\u{9b}31m");
        assert_eq!(escape_controls("del\x7f"), "del\\x7f");
        assert_eq!(escape_controls("two\nrows"), "two\\nrows");
        assert_eq!(escape_controls("\\\x1b"), "\\\\\\x1b");
        let v = escape_value(
            &json!({"windows": [{"display_name": "\x1b[31mX", "n": 1}], "\x1bk": "v"}),
        );
        assert_eq!(
            v,
            json!({"windows": [{"display_name": "\\x1b[31mX", "n": 1}], "\\x1bk": "v"})
        );
        let table = windows_table(&escape_value(
            &json!({"windows": [{"display_name": "\x1b[2J\u{9d}0;x\x07"}]}),
        ));
        assert!(
            !table.chars().any(|c| c.is_control() && c != '\n'),
            "{table:?}"
        );
    }

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
}
