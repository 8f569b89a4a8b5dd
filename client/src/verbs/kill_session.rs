//! `tuios kill-session NAME`: end a session and every program in it; with `--tree`, every
//! process its windows started, daemonised ones included.
use std::path::Path;

use protocol::verbs::kill_session::{Params, Reply, SPEC};

use crate::failure::Failure;
use crate::output::escape_controls;

pub const NAME: Option<&str> = Some("kill-session");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    pub session: String,
    /// End every process the windows started, including those that called setsid (daemons).
    #[arg(long)]
    pub tree: bool,
}

pub fn params(a: &Args) -> Params {
    Params {
        session: a.session.clone(),
        tree: a.tree.then_some(true),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    // No --json: the reply only counts what ended.
    super::verb(socket, SPEC.name, &params(&a), false, |r| {
        print(r, &a.session)
    })
}

/// The session named on the command line is what ended; the reply adds how many processes.
fn print(r: &Reply, session: &str) -> String {
    match r.ended {
        Some(n) => format!(
            "killed session {}; {n} processes ended\n",
            escape_controls(session)
        ),
        None => format!("killed session {}\n", escape_controls(session)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_session_is_sent_as_given_and_printed_escaped() {
        let a = Args {
            session: "a b".into(),
            tree: false,
        };
        assert_eq!(
            super::super::params_value(&params(&a)),
            Some(json!({"session": "a b"}))
        );
        assert_eq!(print(&Reply::default(), "x\x1b"), "killed session x\\x1b\n");
        let tree = Args {
            session: "w".into(),
            tree: true,
        };
        assert_eq!(
            super::super::params_value(&params(&tree)),
            Some(json!({"session": "w", "tree": true}))
        );
        let ended = Reply {
            ended: Some(2),
            ..Reply::default()
        };
        assert_eq!(print(&ended, "w"), "killed session w; 2 processes ended\n");
    }
}
