//! `tuios get-option` (alias get-config): one option's value in effect.
use std::path::Path;

use protocol::verbs::get_option::{Params, Reply, SPEC};

use super::target::SessionTarget;
use crate::failure::Failure;

pub const NAME: Option<&str> = Some("get-option");
pub const ALIASES: &[&str] = &["get-config"];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: SessionTarget,
    #[arg(value_name = "KEY")]
    pub key: String,
}

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        key: a.key.clone(),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

/// The bare value, so `$(tuios get-option theme)` works.
fn print(r: &Reply) -> String {
    format!("{}\n", r.value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::parse;
    use crate::verbs::VerbCommand;
    use serde_json::json;

    #[test]
    fn get_config_is_get_option_and_prints_the_bare_value() {
        let VerbCommand::GetOption(a) = parse(&["get-config", "-s", "w", "theme"]) else {
            panic!("get-option")
        };
        assert_eq!(
            crate::verbs::params_value(&params(&a)),
            Some(json!({"session": "w", "key": "theme"}))
        );
        let reply = Reply {
            key: "k".into(),
            value: "thick".into(),
            ..Default::default()
        };
        assert_eq!(print(&reply), "thick\n");
    }
}
