//! `tuios send-keys`: keys or text typed into a window, reading its arguments as tmux does.
use std::path::Path;

use protocol::verbs::send_keys::{Params, Reply, SPEC};
use serde_json::Value;

use super::target::WindowTarget;
use crate::failure::Failure;
use crate::json_client::JsonClient;

pub const NAME: Option<&str> = Some("send-keys");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: WindowTarget,
    /// Key names (Enter, C-c, M-x, ...) or text; as in tmux, an argument holding a space or a
    /// comma is typed as it is.
    #[arg(required = true, value_name = "KEYS")]
    pub keys: Vec<String>,
    /// Send the arguments as text, key names included (tmux's -l).
    #[arg(short = 'l', long)]
    pub literal: bool,
    #[arg(short = 'r', long)]
    pub raw: bool,
}

/// The typed params of the first request this command sends (the only one unless an argument
/// is split off to be typed as it is; see [`requests`]).
// Only the command table reads it (in tests): `run` sends every request `requests` makes.
#[cfg_attr(not(test), allow(dead_code))]
pub fn params(a: &Args) -> Params {
    requests(a).into_iter().next().unwrap_or_else(|| joined(a))
}

/// One request with every argument, joined with spaces as key tokens.
fn joined(a: &Args) -> Params {
    Params {
        literal: a.literal.then_some(true),
        raw: a.raw.then_some(true),
        ..to_window(a, a.keys.join(" "))
    }
}

/// A request for `keys` to the window `a` names, no flags set.
fn to_window(a: &Args, keys: String) -> Params {
    Params {
        session: a.target.session.clone(),
        window: a.target.window.clone(),
        keys,
        literal: None,
        raw: None,
    }
}

/// `send-keys` as tmux reads its arguments: each argument is a key name or a string typed as
/// it is, so `send-keys 'echo hi' Enter` types the space. Arguments without spaces or commas
/// go together as key tokens; one holding either is sent literally. Several requests, in order.
fn requests(a: &Args) -> Vec<Params> {
    let has_separator = |k: &String| k.contains(|c: char| c == ',' || c.is_whitespace());
    if a.literal || a.raw || !a.keys.iter().any(has_separator) {
        return vec![joined(a)];
    }
    let mut out = Vec::new();
    let mut tokens: Vec<&str> = Vec::new();
    let flush = |tokens: &mut Vec<&str>, out: &mut Vec<Params>| {
        if !tokens.is_empty() {
            out.push(to_window(a, tokens.join(" ")));
            tokens.clear();
        }
    };
    for k in &a.keys {
        if has_separator(k) {
            flush(&mut tokens, &mut out);
            out.push(Params {
                literal: Some(true),
                ..to_window(a, k.clone())
            });
        } else {
            tokens.push(k);
        }
    }
    flush(&mut tokens, &mut out);
    out
}

/// Every request on one connection, in order; `--json` prints the last reply.
pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    let mut client = JsonClient::connect(socket)?;
    let mut last = Value::Null;
    for p in requests(&a) {
        last = client.call(SPEC.name, super::params_value(&p).as_ref())?;
    }
    if a.target.json {
        crate::print_json(&last)
    } else {
        // The reply is a bare acknowledgement: nothing to print once it reads as one.
        super::typed_reply::<Reply>(SPEC.name, &last)?;
        Ok(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::parse;
    use crate::verbs::VerbCommand;
    use serde_json::json;

    fn args(argv: &[&str]) -> Args {
        match parse(argv) {
            VerbCommand::SendKeys(a) => a,
            other => panic!("{other:?}"),
        }
    }

    fn sent(argv: &[&str]) -> Value {
        crate::verbs::params_value(&params(&args(argv))).unwrap_or(json!({}))
    }

    #[test]
    fn send_keys_joins_arguments_and_maps_flags() {
        assert_eq!(
            sent(&["send-keys", "-s", "work", "-w", "2", "ls", "Enter"]),
            json!({"session": "work", "window": "2", "keys": "ls Enter"})
        );
        assert_eq!(
            sent(&["send-keys", "--literal", "--raw", "a,b"]),
            json!({"keys": "a,b", "literal": true, "raw": true})
        );
        assert_eq!(
            sent(&["send-keys", "-l", "x"]),
            json!({"keys": "x", "literal": true})
        );
    }

    #[test]
    fn send_keys_arguments_with_spaces_are_typed_as_they_are() {
        let a = args(&["send-keys", "-s", "w", "echo hi", "C-m", "ls", "a,b"]);
        let sent: Vec<Value> = requests(&a)
            .iter()
            .map(|p| crate::verbs::params_value(p).unwrap_or(json!({})))
            .collect();
        assert_eq!(
            sent,
            [
                json!({"session": "w", "keys": "echo hi", "literal": true}),
                json!({"session": "w", "keys": "C-m ls"}),
                json!({"session": "w", "keys": "a,b", "literal": true}),
            ]
        );
        let a = args(&["send-keys", "ls", "Enter"]);
        assert_eq!(requests(&a), vec![joined(&a)]);
    }
}
