//! `tuios send-text`: text written to a window exactly as given.
use std::path::Path;

use protocol::verbs::send_text::{Params, Reply, SPEC};

use super::target::WindowTarget;
use crate::failure::Failure;

pub const NAME: Option<&str> = Some("send-text");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: WindowTarget,
    #[arg(value_name = "TEXT")]
    pub text: String,
}

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        window: a.target.window.clone(),
        text: a.text.clone(),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

/// The reply only acknowledges: nothing to say.
fn print(_: &Reply) -> String {
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::parse;
    use crate::verbs::VerbCommand;
    use serde_json::json;

    #[test]
    fn send_text_keeps_text_verbatim() {
        let VerbCommand::SendText(a) = parse(&["send-text", "-s", "w", "echo a, b\n"]) else {
            panic!("send-text")
        };
        assert_eq!(
            crate::verbs::params_value(&params(&a)),
            Some(json!({"session": "w", "text": "echo a, b\n"}))
        );
        assert_eq!(print(&Reply::default()), "");
    }
}
