//! Window verbs: listing, creating, changing and capturing windows, and the layout.

use serde_json::Value;

use super::format::{b, i, s, short_id};
use super::{shell_quote, table};

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

pub fn window_closed(target: Option<&str>) -> String {
    match target.filter(|t| !t.is_empty()) {
        Some(t) => format!("closed window {}\n", shell_quote(t)),
        None => "closed the focused window\n".to_string(),
    }
}

/// `set-window`: the window as it stands after the change.
pub fn window_set(result: &Value) -> String {
    let state = if b(result, "minimized") {
        "minimized"
    } else {
        "not minimized"
    };
    let name = match result.get("custom_name").and_then(Value::as_str) {
        Some(n) => format!("named {n:?}"),
        None => format!("no name of its own (title {:?})", s(result, "title")),
    };
    format!(
        "window {}: {name}, {state}\n",
        short_id(s(result, "window_id"))
    )
}

/// `focus-window`: which window has the focus now, and on which workspace.
pub fn focused(result: &Value) -> String {
    let id = s(result, "focused_window_id");
    let ws = i(result, "current_workspace");
    if id.is_empty() {
        return format!("no window has the focus; showing workspace {ws}\n");
    }
    match result.get("window") {
        Some(w) => format!(
            "focused window {} ({}) on workspace {ws}\n",
            short_id(id),
            s(w, "display_name")
        ),
        None => format!("focused window {} on workspace {ws}\n", short_id(id)),
    }
}

pub fn window_moved(result: &Value) -> String {
    let to = i(result, "workspace");
    let current = i(result, "current_workspace");
    let mut out = format!(
        "moved window {} from workspace {} to {to}",
        short_id(s(result, "window_id")),
        i(result, "from_workspace")
    );
    if current == to {
        out.push_str(&format!("; showing workspace {to}"));
    }
    out.push('\n');
    out
}

pub fn window_split(result: &Value) -> String {
    let direction = s(result, "direction");
    let id = s(result, "window_id");
    let mut out = if id.is_empty() {
        format!("split {direction}")
    } else {
        format!("split {direction}: new window {}", short_id(id))
    };
    if let Some(name) = result.get("name").and_then(Value::as_str) {
        out.push_str(&format!(" ({name})"));
    }
    out.push('\n');
    if let Some(note) = result.get("note").and_then(Value::as_str) {
        out.push_str(&format!("note: {note}\n"));
    }
    out
}

pub fn layout_set(result: &Value) -> String {
    let mut out = format!(
        "{}, layout {}",
        s(result, "tiling_mode"),
        s(result, "layout_mode")
    );
    if let Some(r) = result.get("master_ratio").and_then(Value::as_f64) {
        out.push_str(&format!(", master ratio {r:.2}"));
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::workspace_selected;
    use serde_json::json;

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
    fn window_changes_are_one_line() {
        assert_eq!(
            focused(
                &json!({"focused_window_id": "0123456789", "current_workspace": 2,
                "window": {"display_name": "build"}})
            ),
            "focused window 01234567 (build) on workspace 2\n"
        );
        assert_eq!(
            focused(&json!({"focused_window_id": "", "current_workspace": 3})),
            "no window has the focus; showing workspace 3\n"
        );
        assert_eq!(
            window_moved(&json!({"window_id": "abcdef0123", "from_workspace": 1,
                "workspace": 3, "current_workspace": 3})),
            "moved window abcdef01 from workspace 1 to 3; showing workspace 3\n"
        );
        assert_eq!(
            window_moved(&json!({"window_id": "abcdef0123", "from_workspace": 1,
                "workspace": 3, "current_workspace": 1})),
            "moved window abcdef01 from workspace 1 to 3\n"
        );
        assert_eq!(
            window_set(&json!({"window_id": "abcdef0123", "custom_name": "logs",
                "title": "sh", "minimized": true})),
            "window abcdef01: named \"logs\", minimized\n"
        );
        assert_eq!(
            window_set(&json!({"window_id": "abcdef0123", "title": "sh", "minimized": false})),
            "window abcdef01: no name of its own (title \"sh\"), not minimized\n"
        );
        assert_eq!(window_closed(Some("my logs")), "closed window 'my logs'\n");
        assert_eq!(window_closed(None), "closed the focused window\n");
        assert_eq!(
            workspace_selected(&json!({"current_workspace": 2, "window_count": 1,
                "focused_window_id": "abcdef0123"})),
            "showing workspace 2 (1 window), focused window abcdef01\n"
        );
        assert_eq!(
            window_split(&json!({"direction": "vertical", "window_id": "",
                "note": "call list-windows"})),
            "split vertical\nnote: call list-windows\n"
        );
    }
}
