//! `tuios set-session-name`: the name clients display for a session.
use std::path::Path;

use protocol::verbs::set_session_name::{Params, Reply, SPEC};

use super::target::SessionTarget;
use crate::failure::Failure;
use crate::output::shell_quote;

pub const NAME: Option<&str> = Some("set-session-name");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: SessionTarget,
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
}

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        name: a.name.clone(),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

fn print(r: &Reply) -> String {
    let session = shell_quote(&r.session);
    match r.display_name.as_str() {
        "" => format!("session {session}: display name cleared\n"),
        name => format!("session {session} displays as {name:?}\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::sends;

    use serde_json::json;

    #[test]
    fn the_name_is_sent_and_none_clears_it() {
        assert_eq!(
            sends(&["set-session-name", "Deploy 42"]),
            json!({"name": "Deploy 42"})
        );
        assert_eq!(sends(&["set-session-name"]), json!({}));
    }

    #[test]
    fn a_name_is_shown_quoted_and_an_empty_one_as_cleared() {
        let reply = |session: &str, display_name: &str| Reply {
            session: session.into(),
            display_name: display_name.into(),
            ..Default::default()
        };
        assert_eq!(
            print(&reply("work", "Deploy 42")),
            "session work displays as \"Deploy 42\"\n"
        );
        assert_eq!(
            print(&reply("my work", "")),
            "session 'my work': display name cleared\n"
        );
    }
}
