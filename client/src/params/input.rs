//! Pane input and output: typing keys or text, running a command, capturing the pane.

use crate::cli::{CapturePaneArgs, RunArgs, SendKeysArgs, SendTextArgs};

use super::{window_target, Request};

pub fn send_keys(a: &SendKeysArgs) -> Request {
    let mut req = Request::new("send-keys");
    window_target(&mut req, &a.target);
    req.set("keys", a.keys.join(" "));
    req.set_flag("literal", a.literal);
    req.set_flag("raw", a.raw);
    req
}

/// `send-keys` as tmux reads its arguments: each argument is a key name or a string typed as
/// it is, so `send-keys 'echo hi' Enter` types the space. Arguments without spaces or commas
/// go together as key tokens; one holding either is sent literally. Several requests, in order.
pub fn send_keys_tmux(a: &SendKeysArgs) -> Vec<Request> {
    let has_separator = |k: &String| k.contains(|c: char| c == ',' || c.is_whitespace());
    if a.literal || a.raw || !a.keys.iter().any(has_separator) {
        return vec![send_keys(a)];
    }
    let mut out = Vec::new();
    let mut tokens: Vec<String> = Vec::new();
    let flush = |tokens: &mut Vec<String>, out: &mut Vec<Request>| {
        if !tokens.is_empty() {
            let mut req = Request::new("send-keys");
            window_target(&mut req, &a.target);
            req.set("keys", tokens.join(" "));
            out.push(req);
            tokens.clear();
        }
    };
    for k in &a.keys {
        if has_separator(k) {
            flush(&mut tokens, &mut out);
            let mut req = Request::new("send-keys");
            window_target(&mut req, &a.target);
            req.set("keys", k.clone());
            req.set("literal", true);
            out.push(req);
        } else {
            tokens.push(k.clone());
        }
    }
    flush(&mut tokens, &mut out);
    out
}

pub fn send_text(a: &SendTextArgs) -> Request {
    let mut req = Request::new("send-text");
    window_target(&mut req, &a.target);
    req.set("text", a.text.clone());
    req
}

pub fn capture_pane(a: &CapturePaneArgs) -> Request {
    let mut req = Request::new("capture-pane");
    window_target(&mut req, &a.target);
    // -S is the older spelling of source=recent; sending the source keeps the reply's
    // `source` field truthful about what was captured.
    let source = match (a.source, a.scrollback) {
        (Some(s), _) => Some(s.as_str()),
        (None, true) => Some("recent"),
        (None, false) => None,
    };
    req.set_opt("source", source);
    req.set_flag("styled", a.styled);
    req.set_opt("lines", a.lines);
    req.set_opt("start", a.start);
    req.set_opt("end", a.end);
    req
}

pub fn run(a: &RunArgs) -> Request {
    let mut req = Request::new("run");
    window_target(&mut req, &a.target);
    req.set("command", a.command.join(" "));
    req.set_opt("timeout", a.timeout);
    req
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use crate::params::tests::{build, params, parse};
    use crate::verbs::VerbCommand;
    use clap::Parser;
    use serde_json::json;
    use serde_json::Value;

    #[test]
    fn send_keys_joins_arguments_and_maps_flags() {
        assert_eq!(
            params(&["send-keys", "-s", "work", "-w", "2", "ls", "Enter"]),
            json!({"session": "work", "window": "2", "keys": "ls Enter"})
        );
        assert_eq!(
            params(&["send-keys", "--literal", "--raw", "a,b"]),
            json!({"keys": "a,b", "literal": true, "raw": true})
        );
        assert_eq!(
            params(&["send-keys", "-l", "x"]),
            json!({"keys": "x", "literal": true})
        );
    }

    #[test]
    fn send_text_keeps_text_verbatim() {
        assert_eq!(
            params(&["send-text", "-s", "w", "echo a, b\n"]),
            json!({"session": "w", "text": "echo a, b\n"})
        );
    }

    #[test]
    fn capture_pane_maps_sources_and_slices() {
        assert_eq!(params(&["capture-pane"]), json!({}));
        assert_eq!(build(&["capture-pane"]).params_value(), None);
        assert_eq!(params(&["capture-pane", "-S"]), json!({"source": "recent"}));
        assert_eq!(
            params(&[
                "capture-pane",
                "--source",
                "visible",
                "--ansi",
                "--lines",
                "5"
            ]),
            json!({"source": "visible", "styled": true, "lines": 5})
        );
        assert_eq!(
            params(&[
                "capture-pane",
                "-w",
                "abc",
                "--styled",
                "--start",
                "2",
                "--end",
                "4"
            ]),
            json!({"window": "abc", "styled": true, "start": 2, "end": 4})
        );
        let both = Cli::try_parse_from(["tuios", "capture-pane", "--source", "visible", "-S"]);
        assert!(both.is_err(), "--source and -S contradict each other");
    }

    #[test]
    fn send_keys_arguments_with_spaces_are_typed_as_they_are() {
        let Command::Verb(VerbCommand::SendKeys(a)) =
            parse(&["send-keys", "-s", "w", "echo hi", "C-m", "ls", "a,b"])
        else {
            panic!("send-keys")
        };
        let sent: Vec<Value> = send_keys_tmux(&a)
            .into_iter()
            .map(|r| Value::Object(r.params))
            .collect();
        assert_eq!(
            sent,
            [
                json!({"session": "w", "keys": "echo hi", "literal": true}),
                json!({"session": "w", "keys": "C-m ls"}),
                json!({"session": "w", "keys": "a,b", "literal": true}),
            ]
        );
        let Command::Verb(VerbCommand::SendKeys(a)) = parse(&["send-keys", "ls", "Enter"]) else {
            panic!("send-keys")
        };
        assert_eq!(send_keys_tmux(&a), vec![send_keys(&a)]);
    }
}
