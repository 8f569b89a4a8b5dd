//! `tuios select-workspace`: show another workspace.
use std::path::Path;

use protocol::verbs::select_workspace::{Params, Reply, SPEC};

use super::target::SessionTarget;
use crate::failure::Failure;
use crate::output::short_id;

pub const NAME: Option<&str> = Some("select-workspace");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: SessionTarget,
    #[arg(value_name = "WORKSPACE")]
    pub workspace: i64,
}

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        workspace: a.workspace,
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

fn print(r: &Reply) -> String {
    let ws = r.current_workspace;
    match r.window_count {
        0 => format!("showing workspace {ws} (no windows)\n"),
        n => {
            let focus = if r.focused_window_id.is_empty() {
                String::new()
            } else {
                format!(", focused window {}", short_id(&r.focused_window_id))
            };
            format!(
                "showing workspace {ws} ({n} window{}){focus}\n",
                if n == 1 { "" } else { "s" }
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::{parse, sent};
    use crate::verbs::VerbCommand;
    use serde_json::json;

    #[test]
    fn the_workspace_is_sent() {
        let VerbCommand::SelectWorkspace(a) = parse(&["select-workspace", "4"]) else {
            panic!("select-workspace parses");
        };
        assert_eq!(sent(&params(&a)), json!({"workspace": 4}));
    }

    #[test]
    fn the_shown_workspace_is_one_line() {
        let shown = |window_count, focused_window_id: &str| Reply {
            current_workspace: 2,
            window_count,
            focused_window_id: focused_window_id.into(),
            ..Default::default()
        };
        assert_eq!(
            print(&shown(1, "abcdef0123")),
            "showing workspace 2 (1 window), focused window abcdef01\n"
        );
        assert_eq!(print(&shown(3, "")), "showing workspace 2 (3 windows)\n");
        assert_eq!(print(&shown(0, "")), "showing workspace 2 (no windows)\n");
    }
}
