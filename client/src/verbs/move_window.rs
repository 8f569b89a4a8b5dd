//! `tuios move-window`: move a window to another workspace.
use std::path::Path;

use protocol::verbs::move_window::{Params, Reply, SPEC};

use super::target::WindowTarget;
use crate::failure::Failure;
use crate::output::short_id;

pub const NAME: Option<&str> = Some("move-window");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: WindowTarget,
    #[arg(value_name = "WORKSPACE")]
    pub workspace: i64,
    #[arg(long)]
    pub follow: bool,
}

/// The typed params this command sends; `follow` only when given (the verb's default is
/// false).
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        window: a.target.window.clone(),
        workspace: a.workspace,
        follow: a.follow.then_some(true),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

fn print(r: &Reply) -> String {
    let to = r.workspace;
    let mut out = format!(
        "moved window {} from workspace {} to {to}",
        short_id(&r.window_id),
        r.from_workspace
    );
    if r.current_workspace == to {
        out.push_str(&format!("; showing workspace {to}"));
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::sends;

    use serde_json::json;

    #[test]
    fn the_workspace_and_follow_are_sent() {
        assert_eq!(
            sends(&["move-window", "-s", "w", "-w", "build", "3", "--follow"]),
            json!({"session": "w", "window": "build", "workspace": 3, "follow": true})
        );
        assert_eq!(sends(&["move-window", "2"]), json!({"workspace": 2}));
    }

    #[test]
    fn the_move_says_whether_the_workspace_is_shown() {
        let moved = |current_workspace| Reply {
            window_id: "abcdef0123".into(),
            from_workspace: 1,
            workspace: 3,
            current_workspace,
            ..Default::default()
        };
        assert_eq!(
            print(&moved(3)),
            "moved window abcdef01 from workspace 1 to 3; showing workspace 3\n"
        );
        assert_eq!(
            print(&moved(1)),
            "moved window abcdef01 from workspace 1 to 3\n"
        );
    }
}
