//! Workspace verbs: the workspace table, switching, names and order.

use serde_json::Value;

use super::format::{b, i, plain, s, short_id};
use super::table;

/// An optional text shown in a table cell: `-` for empty, so columns stay splittable.
fn cell(text: &str) -> String {
    if text.is_empty() {
        "-".to_string()
    } else {
        text.to_string()
    }
}

/// Workspace numbers in the order they are shown: the stored order first, the rest ascending,
/// as the daemon describes set-workspace-order.
fn display_order(order: Option<&Vec<Value>>, all: &[i64]) -> Vec<i64> {
    let mut out: Vec<i64> = Vec::new();
    for n in order.into_iter().flatten().filter_map(Value::as_i64) {
        if all.contains(&n) && !out.contains(&n) {
            out.push(n);
        }
    }
    let mut rest: Vec<i64> = all.iter().filter(|n| !out.contains(n)).copied().collect();
    rest.sort_unstable();
    out.extend(rest);
    out
}

/// `tuios list-workspaces`: one row per workspace, in display order.
pub fn workspaces_table(result: &Value) -> String {
    let rows_in = result
        .get("workspaces")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let numbers: Vec<i64> = rows_in.iter().map(|w| i(w, "workspace")).collect();
    let order = display_order(result.get("order").and_then(Value::as_array), &numbers);
    let rows: Vec<Vec<String>> = order
        .iter()
        .filter_map(|n| rows_in.iter().find(|w| i(w, "workspace") == *n))
        .map(|w| {
            vec![
                i(w, "workspace").to_string(),
                cell(s(w, "name")),
                i(w, "window_count").to_string(),
                if b(w, "current") { "yes" } else { "no" }.to_string(),
            ]
        })
        .collect();
    table(&["WS", "NAME", "WINDOWS", "CURRENT"], &rows)
}

pub fn workspace_selected(result: &Value) -> String {
    let ws = i(result, "current_workspace");
    let id = s(result, "focused_window_id");
    match i(result, "window_count") {
        0 => format!("showing workspace {ws} (no windows)\n"),
        n => {
            let focus = if id.is_empty() {
                String::new()
            } else {
                format!(", focused window {}", short_id(id))
            };
            format!(
                "showing workspace {ws} ({n} window{}){focus}\n",
                if n == 1 { "" } else { "s" }
            )
        }
    }
}

pub fn workspace_named(result: &Value) -> String {
    let ws = i(result, "workspace");
    match s(result, "name") {
        "" => format!("workspace {ws}: name cleared\n"),
        name => format!("workspace {ws} named {name:?}\n"),
    }
}

pub fn workspace_order_set(result: &Value) -> String {
    match result.get("workspace_order").and_then(Value::as_array) {
        Some(order) => {
            let list: Vec<String> = order.iter().map(plain).collect();
            format!("workspace order: {}\n", list.join(" "))
        }
        None => "workspace order: natural (1, 2, 3, ...)\n".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::columns;
    use serde_json::json;

    #[test]
    fn workspaces_follow_the_display_order() {
        let ws = |n: i64, name: &str, count: i64, current: bool| {
            json!({"workspace": n, "name": name, "window_count": count, "current": current,
                   "focused_window_id": ""})
        };
        let result = json!({
            "type": "workspace_list", "current_workspace": 2, "order": [3, 1],
            "workspaces": [ws(1, "", 2, false), ws(2, "logs", 1, true), ws(3, "", 0, false)]
        });
        let t = workspaces_table(&result);
        let lines: Vec<Vec<&str>> = t.lines().map(columns).collect();
        assert_eq!(lines[0], ["WS", "NAME", "WINDOWS", "CURRENT"]);
        assert_eq!(lines[1], ["3", "-", "0", "no"]);
        assert_eq!(lines[2], ["1", "-", "2", "no"]);
        assert_eq!(lines[3], ["2", "logs", "1", "yes"]);
        let natural = workspaces_table(
            &json!({"workspaces": [ws(2, "", 0, false), ws(1, "", 0, true)], "order": null}),
        );
        assert_eq!(natural.lines().nth(1).map(columns).unwrap()[0], "1");
    }

    #[test]
    fn labels_say_what_was_set_or_cleared() {
        assert_eq!(
            workspace_named(&json!({"workspace": 2, "name": "logs"})),
            "workspace 2 named \"logs\"\n"
        );
        assert_eq!(
            workspace_named(&json!({"workspace": 2, "name": ""})),
            "workspace 2: name cleared\n"
        );
        assert_eq!(
            workspace_order_set(&json!({"workspace_order": [3, 1, 2]})),
            "workspace order: 3 1 2\n"
        );
        assert!(workspace_order_set(&json!({"workspace_order": null})).contains("natural"));
    }
}
