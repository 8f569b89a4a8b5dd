//! `tuios list-windows`: the windows of a session, one row each.
use std::path::Path;

use protocol::verbs::common::WindowRow;
use protocol::verbs::list_windows::{Params, Reply, SPEC};

use crate::failure::Failure;
use crate::output::table;

pub const NAME: Option<&str> = Some("list-windows");
pub const ALIASES: &[&str] = &[];

pub type Args = super::target::SessionOnly;

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    a.params()
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

fn print(r: &Reply) -> String {
    windows_table(&r.windows)
}

/// One row per window; ids are shortened to a prefix, which the window target rules accept as
/// long as it is unique. Public because run-command's ListWindows answers with the same rows.
pub fn windows_table(windows: &[WindowRow]) -> String {
    if windows.is_empty() {
        return "no windows\n".to_string();
    }
    let rows: Vec<Vec<String>> = windows
        .iter()
        .map(|w| {
            let mut flags = String::new();
            if w.focused {
                flags.push('*');
            }
            if w.minimized {
                flags.push('m');
            }
            vec![
                w.index.to_string(),
                w.window_id.chars().take(8).collect(),
                w.workspace.to_string(),
                format!("{}x{}", w.width, w.height),
                flags,
                w.agent_state.clone(),
                w.display_name.clone(),
            ]
        })
        .collect();
    table(
        &["INDEX", "ID", "WS", "SIZE", "FLAGS", "AGENT", "NAME"],
        &rows,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::{parse, sent};
    use crate::verbs::VerbCommand;
    use serde_json::json;

    fn args(argv: &[&str]) -> Args {
        match parse(argv) {
            VerbCommand::ListWindows(a) => a,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_session_is_all_it_sends() {
        assert_eq!(
            sent(&params(&args(&["list-windows", "-s", "a"]))),
            json!({"session": "a"})
        );
        assert_eq!(sent(&params(&args(&["list-windows"]))), json!({}));
    }

    #[test]
    fn windows_table_marks_focus() {
        let reply = Reply {
            windows: vec![WindowRow {
                window_id: "0123456789abcdef".into(),
                index: 0,
                workspace: 1,
                width: 80,
                height: 24,
                focused: true,
                agent_state: "none".into(),
                display_name: "sh".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(
            print(&reply)
                .lines()
                .nth(1)
                .unwrap()
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["0", "01234567", "1", "80x24", "*", "none", "sh"]
        );
        assert_eq!(print(&Reply::default()), "no windows\n");
    }

    /// Names a program or a client chose reach the table escaped: typed_reply escapes before
    /// the reply is decoded.
    #[test]
    fn control_characters_in_names_are_escaped() {
        let row = serde_json::to_value(WindowRow {
            display_name: "\x1b[2J\u{9d}0;x\x07".into(),
            ..Default::default()
        })
        .unwrap();
        let result = json!({"type": "window_list", "windows": [row], "total": 1,
            "focused_index": 0, "focused_window_id": "", "current_workspace": 1,
            "workspace_windows": [1]});
        let reply: Reply = crate::verbs::typed_reply(SPEC.name, &result).unwrap();
        let text = print(&reply);
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{text:?}"
        );
        assert!(text.contains("\\x1b[2J\\u{9d}0;x\\x07"), "{text}");
    }
}
