//! `tuios set-session-accent`: the accent colour clients use for a session.
use std::path::Path;

use protocol::verbs::set_session_accent::{Params, Reply, SPEC};

use super::target::SessionTarget;
use crate::failure::Failure;
use crate::output::shell_quote;

pub const NAME: Option<&str> = Some("set-session-accent");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: SessionTarget,
    #[arg(value_name = "ACCENT")]
    pub accent: Option<String>,
}

pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        accent: a.accent.clone(),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

fn print(r: &Reply) -> String {
    let session = shell_quote(&r.session);
    match r.accent.as_str() {
        "" => format!("session {session}: accent cleared\n"),
        accent => format!("session {session} accent {accent}\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_accent_is_shown_and_an_empty_one_as_cleared() {
        let reply = |session: &str, accent: &str| Reply {
            session: session.into(),
            accent: accent.into(),
            ..Default::default()
        };
        assert_eq!(
            print(&reply("my work", "")),
            "session 'my work': accent cleared\n"
        );
        assert_eq!(print(&reply("work", "cyan")), "session work accent cyan\n");
    }
}
