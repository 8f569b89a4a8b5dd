//! `run-command`: the command vocabulary and what a command returned.

use serde_json::Value;

use super::format::{b, s};
use super::{key_values, table, windows_table};

/// The result with the given keys left out, or `None` when nothing else is left.
fn without(result: &Value, keys: &[&str]) -> Option<Value> {
    let obj = result.as_object()?;
    let rest: serde_json::Map<String, Value> = obj
        .iter()
        .filter(|(k, _)| !keys.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (!rest.is_empty()).then_some(Value::Object(rest))
}

/// `tuios run-command --list`: the vocabulary, one command per row.
pub fn command_vocabulary(commands: &[protocol::commands::CommandSpec]) -> String {
    let rows: Vec<Vec<String>> = commands
        .iter()
        .map(|c| {
            vec![
                c.usage(),
                if c.runner == protocol::commands::Runner::Daemon {
                    "yes"
                } else {
                    "no"
                }
                .to_string(),
                c.description.to_string(),
            ]
        })
        .collect();
    table(&["COMMAND", "HEADLESS", "DESCRIPTION"], &rows)
}

/// The vocabulary as JSON, for `run-command --list --json`.
pub fn command_vocabulary_json(commands: &[protocol::commands::CommandSpec]) -> Value {
    Value::Array(
        commands
            .iter()
            .map(|c| {
                serde_json::json!({
                    "name": c.name,
                    "usage": c.usage(),
                    "min_args": c.min_args,
                    "max_args": c.max_args,
                    "headless": c.runner == protocol::commands::Runner::Daemon,
                    "description": c.description,
                })
            })
            .collect(),
    )
}

/// `tuios run-command`: the data a command returned (a window table for ListWindows), or
/// one line saying it ran.
pub fn command_result(result: &Value) -> String {
    let Some(data) = without(result, &["type", "command", "routed"]) else {
        let by = if b(result, "routed") {
            " in the attached client"
        } else {
            ""
        };
        return format!("ran {}{by}\n", s(result, "command"));
    };
    if data.get("windows").is_some_and(Value::is_array) {
        windows_table(&data)
    } else {
        key_values(&data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn command_results_show_their_data() {
        assert_eq!(
            command_result(&json!({"type": "command_result", "command": "NextWindow",
                "routed": false})),
            "ran NextWindow\n"
        );
        assert_eq!(
            command_result(&json!({"type": "command_result", "command": "NewWindow",
                "routed": false, "window_id": "w1", "name": "logs"})),
            "name: logs\nwindow_id: w1\n"
        );
        let t = command_result(&json!({"command": "ListWindows", "routed": false,
            "windows": [{"window_id": "0123456789", "index": 0, "workspace": 1}]}));
        assert!(t.starts_with("INDEX"), "{t}");
        let vocab = command_vocabulary(protocol::commands::commands());
        let split = vocab
            .lines()
            .find(|l| l.starts_with("SwitchWorkspace "))
            .expect("SwitchWorkspace is listed");
        assert!(split.contains(" yes "), "{split}");
        assert_eq!(
            vocab.lines().count(),
            protocol::commands::commands().len() + 1
        );
        let json = command_vocabulary_json(protocol::commands::commands());
        assert_eq!(json[0]["name"], protocol::commands::commands()[0].name);
    }
}
