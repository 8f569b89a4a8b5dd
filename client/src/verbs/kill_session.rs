//! `tuios kill-session NAME`: end a session and every program in it.
use std::path::Path;

use protocol::verbs::kill_session::{Params, Reply, SPEC};

use crate::failure::Failure;
use crate::output::escape_controls;

pub const NAME: Option<&str> = Some("kill-session");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    pub session: String,
}

pub fn params(a: &Args) -> Params {
    Params {
        session: a.session.clone(),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    // No --json: the reply is a bare acknowledgement.
    super::verb(socket, SPEC.name, &params(&a), false, |r| {
        print(r, &a.session)
    })
}

/// The reply only acknowledges; the session named on the command line is what ended.
fn print(_: &Reply, session: &str) -> String {
    format!("killed session {}\n", escape_controls(session))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_session_is_sent_as_given_and_printed_escaped() {
        let a = Args {
            session: "a b".into(),
        };
        assert_eq!(
            super::super::params_value(&params(&a)),
            Some(json!({"session": "a b"}))
        );
        assert_eq!(print(&Reply::default(), "x\x1b"), "killed session x\\x1b\n");
    }
}
