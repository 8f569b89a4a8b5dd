//! `tuios new-window`: open a window in a session, in this directory unless told otherwise.
use std::path::Path;

use protocol::verbs::new_window::{Params, Reply, SPEC};

use super::target::SessionTarget;
use crate::failure::Failure;

pub const NAME: Option<&str> = Some("new-window");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: SessionTarget,
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
    /// Program and arguments to run instead of a shell (after `--`); no shell parsing.
    #[arg(last = true, value_name = "ARGV")]
    pub command: Vec<String>,
    #[arg(long, value_name = "N")]
    pub workspace: Option<i64>,
    /// Directory to start in (default: this one, as tmux does).
    #[arg(short = 'c', long, value_name = "DIR")]
    pub cwd: Option<String>,
    /// Extra environment for the window, NAME=value; repeat for more.
    #[arg(short = 'e', long, value_name = "NAME=VALUE")]
    pub env: Vec<String>,
    /// Create the window without moving focus to it.
    #[arg(long)]
    pub no_focus: bool,
    #[arg(long)]
    pub remain: bool,
}

/// The typed params this command sends, before the client's directory is added (`run` adds
/// it; leaving it out here keeps these independent of where the tests run). Flags whose verb
/// default is what the user left them at are not sent.
pub fn params(a: &Args) -> Params {
    let non_empty = |v: &Vec<String>| (!v.is_empty()).then(|| v.clone());
    Params {
        session: a.target.session.clone(),
        name: a.name.clone(),
        workspace: a.workspace,
        cwd: a.cwd.clone(),
        focus: a.no_focus.then_some(false),
        command: non_empty(&a.command),
        remain: a.remain.then_some(true),
        env: non_empty(&a.env),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    let mut p = params(&a);
    p.cwd = super::client_cwd(p.cwd);
    super::verb(socket, SPEC.name, &p, a.target.json, print)
}

fn print(r: &Reply) -> String {
    format!(
        "created window {} ({}) on workspace {}\n",
        r.window_id, r.name, r.workspace
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
            VerbCommand::NewWindow(a) => a,
            other => panic!("{other:?}"),
        }
    }

    fn sends(argv: &[&str]) -> serde_json::Value {
        sent(&params(&args(argv)))
    }

    #[test]
    fn new_window_maps_argv_and_focus() {
        assert_eq!(
            sends(&[
                "new-window",
                "-s",
                "w",
                "build",
                "--workspace",
                "2",
                "--cwd",
                "/tmp",
                "--no-focus",
                "--remain",
                "--",
                "sh",
                "-c",
                "echo a; sleep 1"
            ]),
            json!({
                "session": "w", "name": "build", "command": ["sh", "-c", "echo a; sleep 1"],
                "workspace": 2, "cwd": "/tmp", "focus": false, "remain": true
            })
        );
        assert_eq!(sends(&["new-window"]), json!({}));
        assert_eq!(
            sends(&["new-window", "--", "htop"]),
            json!({"command": ["htop"]})
        );
        assert_eq!(
            sends(&["new-window", "-c", "/srv", "-e", "X=y"]),
            json!({"cwd": "/srv", "env": ["X=y"]})
        );
    }

    #[test]
    fn the_client_directory_is_sent_unless_one_is_named() {
        assert_eq!(
            crate::verbs::client_cwd(Some("/srv".into())).as_deref(),
            Some("/srv")
        );
        let here = std::env::current_dir().unwrap();
        assert_eq!(
            crate::verbs::client_cwd(None),
            Some(here.to_string_lossy().into_owned())
        );
    }

    #[test]
    fn a_created_window_is_one_line() {
        let reply = Reply {
            window_id: "0123456789".into(),
            name: "build".into(),
            workspace: 2,
            ..Default::default()
        };
        assert_eq!(
            print(&reply),
            "created window 0123456789 (build) on workspace 2\n"
        );
    }
}
