//! `tuios set-workspace-name`: name a workspace, or clear its name.
use std::path::Path;

use protocol::verbs::set_workspace_name::{Params, Reply, SPEC};

use super::target::SessionTarget;
use crate::failure::Failure;

pub const NAME: Option<&str> = Some("set-workspace-name");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: SessionTarget,
    #[arg(value_name = "WORKSPACE")]
    pub workspace: i64,
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
}

/// The typed params this command sends; no name clears it.
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        workspace: a.workspace,
        name: a.name.clone(),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

fn print(r: &Reply) -> String {
    let ws = r.workspace;
    match r.name.as_str() {
        "" => format!("workspace {ws}: name cleared\n"),
        name => format!("workspace {ws} named {name:?}\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::sends;

    use serde_json::json;

    #[test]
    fn the_workspace_and_its_name_are_sent() {
        assert_eq!(
            sends(&["set-workspace-name", "2", "logs"]),
            json!({"workspace": 2, "name": "logs"})
        );
        assert_eq!(sends(&["set-workspace-name", "2"]), json!({"workspace": 2}));
    }

    #[test]
    fn the_name_is_shown_quoted_or_as_cleared() {
        let named = |name: &str| Reply {
            workspace: 2,
            name: name.into(),
            ..Default::default()
        };
        assert_eq!(print(&named("logs")), "workspace 2 named \"logs\"\n");
        assert_eq!(print(&named("")), "workspace 2: name cleared\n");
    }
}
