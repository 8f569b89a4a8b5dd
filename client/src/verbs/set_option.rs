//! `tuios set-option` (alias set-config): one option set for a session.
use std::path::Path;

use protocol::verbs::set_option::{Params, Reply, SPEC};

use super::target::SessionTarget;
use crate::failure::Failure;

pub const NAME: Option<&str> = Some("set-option");
pub const ALIASES: &[&str] = &["set-config"];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: SessionTarget,
    #[arg(value_name = "KEY")]
    pub key: String,
    #[arg(value_name = "VALUE")]
    pub value: String,
}

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        key: a.key.clone(),
        value: Some(a.value.clone()),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

/// `KEY = VALUE`, whether it took effect at once, and why not or what replaced a deprecated key.
fn print(r: &Reply) -> String {
    let mut out = format!("{} = {}", r.key, r.value);
    if r.applied {
        out.push_str(" (applied)");
    }
    out.push('\n');
    match r.reason.as_deref() {
        Some(reason) if !r.applied && !reason.is_empty() => {
            out.push_str(&format!("note: {reason}\n"))
        }
        _ => {}
    }
    if let Some(dep) = &r.deprecated {
        out.push_str(&format!("note: deprecated: {dep}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::params_sent as sent;
    use crate::verbs::testing::refused;

    use serde_json::json;

    #[test]
    fn set_option_sends_key_and_value_even_an_empty_one() {
        assert_eq!(
            sent(&["set-config", "theme", ""]),
            Some(json!({"key": "theme", "value": ""}))
        );
        assert_eq!(
            sent(&[
                "set-option",
                "-s",
                "w",
                "appearance.border_style",
                "rounded"
            ]),
            Some(json!({"session": "w", "key": "appearance.border_style", "value": "rounded"}))
        );
        assert_eq!(
            refused(&["set-option", "theme"]),
            clap::error::ErrorKind::MissingRequiredArgument
        );
    }

    #[test]
    fn a_change_says_whether_it_applied() {
        let reply = |applied: bool, reason: Option<&str>| Reply {
            key: "k".into(),
            value: "v".into(),
            applied,
            reason: reason.map(String::from),
            ..Default::default()
        };
        assert_eq!(print(&reply(false, Some("r"))), "k = v\nnote: r\n");
        assert_eq!(print(&reply(true, None)), "k = v (applied)\n");
        let deprecated = Reply {
            deprecated: Some("use x.y".into()),
            ..reply(true, None)
        };
        assert_eq!(
            print(&deprecated),
            "k = v (applied)\nnote: deprecated: use x.y\n"
        );
    }
}
