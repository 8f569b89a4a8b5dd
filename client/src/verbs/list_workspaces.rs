//! `tuios list-workspaces`: the workspaces of a session, in the order they are shown.
use std::path::Path;

use protocol::verbs::list_workspaces::{Params, Reply, SPEC};
use serde::Deserialize;

use crate::failure::Failure;
use crate::output::table;

pub const NAME: Option<&str> = Some("list-workspaces");
pub const ALIASES: &[&str] = &[];

pub type Args = super::target::SessionOnly;

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    a.params()
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

/// The keys of a workspace row the table shows. The reply type leaves its rows free-form, so
/// they are read here; a missing or odd key reads as its zero value.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WorkspaceLine {
    workspace: i64,
    name: String,
    window_count: i64,
    current: bool,
}

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
fn display_order(order: Option<&[i64]>, all: &[i64]) -> Vec<i64> {
    let mut out: Vec<i64> = Vec::new();
    for &n in order.into_iter().flatten() {
        if all.contains(&n) && !out.contains(&n) {
            out.push(n);
        }
    }
    let mut rest: Vec<i64> = all.iter().filter(|n| !out.contains(n)).copied().collect();
    rest.sort_unstable();
    out.extend(rest);
    out
}

/// One row per workspace, in display order.
fn print(r: &Reply) -> String {
    let rows_in: Vec<WorkspaceLine> = r
        .workspaces
        .iter()
        .map(|w| WorkspaceLine::deserialize(w).unwrap_or_default())
        .collect();
    let numbers: Vec<i64> = rows_in.iter().map(|w| w.workspace).collect();
    let order = display_order(r.order.as_deref(), &numbers);
    let rows: Vec<Vec<String>> = order
        .iter()
        .filter_map(|n| rows_in.iter().find(|w| w.workspace == *n))
        .map(|w| {
            vec![
                w.workspace.to_string(),
                cell(&w.name),
                w.window_count.to_string(),
                if w.current { "yes" } else { "no" }.to_string(),
            ]
        })
        .collect();
    table(&["WS", "NAME", "WINDOWS", "CURRENT"], &rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::{parse, sent};
    use crate::verbs::VerbCommand;
    use serde_json::json;

    fn columns(line: &str) -> Vec<&str> {
        line.split_whitespace().collect()
    }

    #[test]
    fn the_session_is_all_it_sends() {
        let VerbCommand::ListWorkspaces(a) = parse(&["list-workspaces", "-s", "w"]) else {
            panic!("list-workspaces parses");
        };
        assert_eq!(sent(&params(&a)), json!({"session": "w"}));
    }

    #[test]
    fn workspaces_follow_the_display_order() {
        let ws = |n: i64, name: &str, count: i64, current: bool| {
            json!({"workspace": n, "name": name, "window_count": count, "current": current,
                   "focused_window_id": ""})
        };
        let reply = Reply {
            current_workspace: 2,
            order: Some(vec![3, 1]),
            workspaces: vec![
                ws(1, "", 2, false),
                ws(2, "logs", 1, true),
                ws(3, "", 0, false),
            ],
            ..Default::default()
        };
        let t = print(&reply);
        let lines: Vec<Vec<&str>> = t.lines().map(columns).collect();
        assert_eq!(lines[0], ["WS", "NAME", "WINDOWS", "CURRENT"]);
        assert_eq!(lines[1], ["3", "-", "0", "no"]);
        assert_eq!(lines[2], ["1", "-", "2", "no"]);
        assert_eq!(lines[3], ["2", "logs", "1", "yes"]);
        let natural = print(&Reply {
            workspaces: vec![ws(2, "", 0, false), ws(1, "", 0, true)],
            order: None,
            ..Default::default()
        });
        assert_eq!(natural.lines().nth(1).map(columns).unwrap()[0], "1");
    }
}
