//! Pure mapping from parsed arguments to verb params. No I/O, so every mapping is unit tested.

use serde_json::{Map, Value};

use crate::cli::{
    CapturePaneArgs, FocusWindowArgs, GetOptionArgs, ListOptionsArgs, ListThemesArgs,
    MoveWindowArgs, NewWindowArgs, ResizeArgs, RunCommandArgs, SelectWorkspaceArgs, SendKeysArgs,
    SendTextArgs, SessionTarget, SetLayoutArgs, SetOptionArgs, SetSessionAccentArgs,
    SetSessionNameArgs, SetWindowArgs, SetWorkspaceNameArgs, SetWorkspaceOrderArgs,
    SplitWindowArgs, SubscribeArgs, WaitForArgs, WindowTarget,
};

/// A verb name and its params object, ready to be sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub verb: &'static str,
    pub params: Map<String, Value>,
}

impl Request {
    fn new(verb: &'static str) -> Self {
        Request {
            verb,
            params: Map::new(),
        }
    }

    fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.params.insert(key.to_string(), value.into());
    }

    fn set_opt(&mut self, key: &str, value: Option<impl Into<Value>>) {
        if let Some(v) = value {
            self.set(key, v);
        }
    }

    /// Booleans whose protocol default is false are only sent when set, so requests stay minimal.
    fn set_flag(&mut self, key: &str, on: bool) {
        if on {
            self.set(key, true);
        }
    }

    /// The params as a JSON value, or `None` when there are none (the envelope omits them).
    pub fn params_value(&self) -> Option<Value> {
        if self.params.is_empty() {
            None
        } else {
            Some(Value::Object(self.params.clone()))
        }
    }
}

fn session_target(req: &mut Request, t: &SessionTarget) {
    req.set_opt("session", t.session.clone());
}

fn window_target(req: &mut Request, t: &WindowTarget) {
    req.set_opt("session", t.session.clone());
    req.set_opt("window", t.window.clone());
}

pub fn list_sessions() -> Request {
    Request::new("list-sessions")
}

pub fn kill_session(name: &str) -> Request {
    let mut req = Request::new("kill-session");
    req.set("session", name);
    req
}

pub fn list_verbs(verb: Option<&str>) -> Request {
    let mut req = Request::new("list-verbs");
    req.set_opt("verb", verb);
    req
}

pub fn send_keys(a: &SendKeysArgs) -> Request {
    let mut req = Request::new("send-keys");
    window_target(&mut req, &a.target);
    req.set("keys", a.keys.join(" "));
    req.set_flag("literal", a.literal);
    req.set_flag("raw", a.raw);
    req
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

pub fn list_windows(t: &SessionTarget) -> Request {
    let mut req = Request::new("list-windows");
    session_target(&mut req, t);
    req
}

pub fn session_info(t: &SessionTarget) -> Request {
    let mut req = Request::new("session-info");
    session_target(&mut req, t);
    req
}

pub fn new_window(a: &NewWindowArgs) -> Request {
    let mut req = Request::new("new-window");
    session_target(&mut req, &a.target);
    req.set_opt("name", a.name.clone());
    if !a.command.is_empty() {
        req.set("command", a.command.clone());
    }
    req.set_opt("workspace", a.workspace);
    req.set_opt("cwd", a.cwd.clone());
    if a.no_focus {
        req.set("focus", false);
    }
    req.set_flag("remain", a.remain);
    req
}

pub fn resize(a: &ResizeArgs) -> Request {
    let mut req = Request::new("resize");
    window_target(&mut req, &a.target);
    req.set("width", a.width);
    req.set("height", a.height);
    req
}

pub fn wait_for(a: &WaitForArgs) -> Request {
    let mut req = Request::new("wait-for");
    req.set("condition", a.condition.clone());
    window_target(&mut req, &a.target);
    req.set_opt("pattern", a.pattern.clone());
    req.set_opt("source", a.source.map(|s| s.as_str()));
    req.set_flag("fresh", a.fresh);
    req.set_opt("idle", a.idle);
    req.set_opt("timeout", a.timeout);
    req
}

pub fn subscribe(a: &SubscribeArgs) -> Request {
    let mut req = Request::new("subscribe");
    req.set_opt("session", a.session.clone());
    req.set_opt("window", a.window.clone());
    if !a.types.is_empty() {
        req.set("types", a.types.clone());
    }
    req.set_opt("queue", a.queue);
    req
}

pub fn close_window(t: &WindowTarget) -> Request {
    let mut req = Request::new("close-window");
    window_target(&mut req, t);
    req
}

pub fn set_window(a: &SetWindowArgs) -> Request {
    let mut req = Request::new("set-window");
    window_target(&mut req, &a.target);
    // An empty --name is sent as is: it clears the window's own name.
    req.set_opt("name", a.name.clone());
    let minimized = match (a.minimize, a.restore) {
        (true, _) => Some(true),
        (false, true) => Some(false),
        (false, false) => None,
    };
    req.set_opt("minimized", minimized);
    req
}

pub fn focus_window(a: &FocusWindowArgs) -> Request {
    let mut req = Request::new("focus-window");
    session_target(&mut req, &a.target);
    req.set_opt("window", a.window.clone());
    req.set_opt("relative", a.relative.clone());
    req.set_opt("direction", a.direction.clone());
    req
}

pub fn move_window(a: &MoveWindowArgs) -> Request {
    let mut req = Request::new("move-window");
    window_target(&mut req, &a.target);
    req.set("workspace", a.workspace);
    req.set_flag("follow", a.follow);
    req
}

pub fn split_window(a: &SplitWindowArgs) -> Request {
    let mut req = Request::new("split-window");
    window_target(&mut req, &a.target);
    req.set("direction", a.direction.clone());
    req.set_opt("name", a.name.clone());
    req
}

pub fn set_layout(a: &SetLayoutArgs) -> Request {
    let mut req = Request::new("set-layout");
    session_target(&mut req, &a.target);
    req.set_opt("tiling", a.tiling);
    req.set_flag("equalize", a.equalize);
    req.set_flag("rotate", a.rotate);
    req
}

pub fn list_workspaces(t: &SessionTarget) -> Request {
    let mut req = Request::new("list-workspaces");
    session_target(&mut req, t);
    req
}

pub fn select_workspace(a: &SelectWorkspaceArgs) -> Request {
    let mut req = Request::new("select-workspace");
    session_target(&mut req, &a.target);
    req.set("workspace", a.workspace);
    req
}

pub fn set_workspace_name(a: &SetWorkspaceNameArgs) -> Request {
    let mut req = Request::new("set-workspace-name");
    session_target(&mut req, &a.target);
    req.set("workspace", a.workspace);
    req.set_opt("name", a.name.clone());
    req
}

pub fn set_workspace_order(a: &SetWorkspaceOrderArgs) -> Request {
    let mut req = Request::new("set-workspace-order");
    session_target(&mut req, &a.target);
    req.set("order", a.order.clone());
    req
}

pub fn set_session_name(a: &SetSessionNameArgs) -> Request {
    let mut req = Request::new("set-session-name");
    session_target(&mut req, &a.target);
    req.set_opt("name", a.name.clone());
    req
}

pub fn set_session_accent(a: &SetSessionAccentArgs) -> Request {
    let mut req = Request::new("set-session-accent");
    session_target(&mut req, &a.target);
    req.set_opt("accent", a.accent.clone());
    req
}

/// `None` for `--list`, which is answered locally without a request.
pub fn run_command(a: &RunCommandArgs) -> Option<Request> {
    let command = a.command.clone()?;
    let mut req = Request::new("run-command");
    session_target(&mut req, &a.target);
    req.set("command", command);
    if !a.args.is_empty() {
        req.set("args", a.args.clone());
    }
    Some(req)
}

pub fn list_options(a: &ListOptionsArgs) -> Request {
    let mut req = Request::new("list-options");
    session_target(&mut req, &a.target);
    req.set_opt("prefix", a.prefix.clone());
    req.set_opt("section", a.section.clone());
    req
}

pub fn get_option(a: &GetOptionArgs) -> Request {
    let mut req = Request::new("get-option");
    session_target(&mut req, &a.target);
    req.set("key", a.key.clone());
    req
}

pub fn set_option(a: &SetOptionArgs) -> Request {
    let mut req = Request::new("set-option");
    session_target(&mut req, &a.target);
    req.set("key", a.key.clone());
    req.set("value", a.value.clone());
    req
}

pub fn list_themes(a: &ListThemesArgs) -> Request {
    let mut req = Request::new("list-themes");
    session_target(&mut req, &a.target);
    req.set_opt("theme", a.theme.clone());
    req.set_opt("filter", a.filter.clone());
    req
}

/// Always states our protocol version, so a daemon that cannot serve us says so here.
pub fn hello() -> Request {
    let mut req = Request::new("hello");
    req.set("client", "tuios");
    req.set("version", env!("CARGO_PKG_VERSION"));
    req.set("protocol", protocol::PROTOCOL_VERSION);
    req
}

/// Parse the PARAMS-JSON argument of `tuios call`: absent means no params; anything given
/// must be a JSON object (or null), since that is all the envelope accepts.
pub fn call_params(text: Option<&str>) -> Result<Option<Value>, String> {
    let Some(text) = text else { return Ok(None) };
    if text.trim().is_empty() {
        return Ok(None);
    }
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("PARAMS-JSON is not valid JSON: {e}"))?;
    match value {
        Value::Null => Ok(None),
        Value::Object(_) => Ok(Some(value)),
        other => Err(format!(
            "PARAMS-JSON must be a JSON object such as {{\"session\":\"work\"}}, not {}",
            json_kind(&other)
        )),
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The whole request line (newline included) every JSON command sends; always `id` 1, since
/// each connection carries one request.
pub fn request_line(verb: &str, params: Option<&Value>) -> String {
    let req = protocol::envelope::Request::new(
        Some(Value::from(1)),
        verb,
        params.cloned().unwrap_or(Value::Null),
    );
    let mut line = req.to_line();
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::{FromArgMatches, Parser};
    use serde_json::json;

    fn parse(args: &[&str]) -> Command {
        let mut argv = vec!["tuios"];
        argv.extend_from_slice(args);
        // Through cli::command(), the same path main takes, registry help and all.
        let matches = crate::cli::command()
            .try_get_matches_from(argv)
            .expect("arguments parse");
        Cli::from_arg_matches(&matches)
            .expect("matches convert")
            .command
    }

    fn build(args: &[&str]) -> Request {
        match parse(args) {
            Command::Ls(_) => list_sessions(),
            Command::KillSession(a) => kill_session(&a.session),
            Command::ListVerbs(a) => list_verbs(a.verb.as_deref()),
            Command::SendKeys(a) => send_keys(&a),
            Command::SendText(a) => send_text(&a),
            Command::CapturePane(a) => capture_pane(&a),
            Command::ListWindows(a) => list_windows(&a.target),
            Command::NewWindow(a) => new_window(&a),
            Command::SessionInfo(a) => session_info(&a.target),
            Command::Resize(a) => resize(&a),
            Command::WaitFor(a) => wait_for(&a),
            Command::Subscribe(a) => subscribe(&a),
            other => panic!("not a verb command: {other:?}"),
        }
    }

    fn params(args: &[&str]) -> Value {
        Value::Object(build(args).params)
    }

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
    fn new_window_maps_argv_and_focus() {
        assert_eq!(
            params(&[
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
        assert_eq!(params(&["new-window"]), json!({}));
        assert_eq!(
            params(&["new-window", "--", "htop"]),
            json!({"command": ["htop"]})
        );
    }

    #[test]
    fn session_commands_map_the_session() {
        assert_eq!(
            params(&["list-windows", "-s", "a"]),
            json!({"session": "a"})
        );
        assert_eq!(params(&["session-info"]), json!({}));
        assert_eq!(params(&["kill-session", "a b"]), json!({"session": "a b"}));
        assert_eq!(params(&["ls"]), json!({}));
        assert_eq!(
            params(&["list-verbs", "send-keys"]),
            json!({"verb": "send-keys"})
        );
        assert_eq!(
            params(&["resize", "-w", "1", "100", "30"]),
            json!({"window": "1", "width": 100, "height": 30})
        );
    }

    #[test]
    fn wait_for_maps_every_flag() {
        assert_eq!(
            params(&["wait-for", "window-idle"]),
            json!({"condition": "window-idle"})
        );
        assert_eq!(
            params(&[
                "wait-for",
                "window-output",
                "-s",
                "w",
                "-w",
                "build",
                "--pattern",
                "MARK-[0-9]+",
                "--source",
                "visible",
                "--fresh",
                "--idle",
                "250",
                "--timeout",
                "10000",
                "--json"
            ]),
            json!({
                "condition": "window-output", "session": "w", "window": "build",
                "pattern": "MARK-[0-9]+", "source": "visible", "fresh": true,
                "idle": 250, "timeout": 10000
            })
        );
        let missing = crate::cli::command().try_get_matches_from(["tuios", "wait-for"]);
        assert!(missing.is_err(), "CONDITION is required");
    }

    #[test]
    fn subscribe_splits_types_on_commas() {
        assert_eq!(params(&["subscribe"]), json!({}));
        assert_eq!(build(&["subscribe", "-q"]).params_value(), None);
        assert_eq!(
            params(&[
                "subscribe",
                "-s",
                "w",
                "-w",
                "1",
                "--types",
                "window-created,window-closed",
                "--types",
                "bell",
                "--queue",
                "16"
            ]),
            json!({
                "session": "w", "window": "1",
                "types": ["window-created", "window-closed", "bell"], "queue": 16
            })
        );
        let typo = crate::cli::command().try_get_matches_from([
            "tuios",
            "subscribe",
            "--types",
            "window-created,windw-closed",
        ]);
        assert!(
            typo.is_err(),
            "event types are checked against the registry"
        );
    }

    #[test]
    fn every_sent_param_is_declared_by_the_registry() {
        let samples: &[&[&str]] = &[
            &["ls"],
            &["kill-session", "x"],
            &["list-verbs", "hello"],
            &["send-keys", "-s", "s", "-w", "w", "-l", "-r", "k"],
            &["send-text", "-s", "s", "-w", "w", "t"],
            &[
                "capture-pane",
                "-s",
                "s",
                "-w",
                "w",
                "--source",
                "recent",
                "--styled",
                "--lines",
                "1",
                "--start",
                "1",
                "--end",
                "2",
            ],
            &["list-windows", "-s", "s"],
            &[
                "new-window",
                "-s",
                "s",
                "n",
                "--workspace",
                "1",
                "--cwd",
                "/",
                "--no-focus",
                "--remain",
                "--",
                "true",
            ],
            &["session-info", "-s", "s"],
            &["resize", "-s", "s", "-w", "w", "1", "1"],
            &[
                "wait-for",
                "window-output",
                "-s",
                "s",
                "-w",
                "w",
                "--pattern",
                "x",
                "--source",
                "recent",
                "--fresh",
                "--idle",
                "1",
                "--timeout",
                "1",
            ],
            &[
                "subscribe",
                "-s",
                "s",
                "-w",
                "w",
                "--types",
                "bell",
                "--queue",
                "1",
            ],
        ];
        for args in samples {
            let req = build(args);
            let verb = protocol::registry::find_verb(req.verb)
                .unwrap_or_else(|| panic!("{} is not a registry verb", req.verb));
            for key in req.params.keys() {
                assert!(
                    verb.params.iter().any(|p| p.name == key.as_str()),
                    "{} sends undeclared param {key}",
                    req.verb
                );
            }
        }
    }

    #[test]
    fn call_params_accepts_objects_only() {
        assert_eq!(call_params(None), Ok(None));
        assert_eq!(call_params(Some("  ")), Ok(None));
        assert_eq!(call_params(Some("null")), Ok(None));
        assert_eq!(
            call_params(Some(r#"{"session":"w"}"#)),
            Ok(Some(json!({"session": "w"})))
        );
        assert!(call_params(Some("[1]")).unwrap_err().contains("an array"));
        assert!(call_params(Some("{")).is_err());
    }

    #[test]
    fn request_line_is_one_json_line() {
        assert_eq!(
            request_line("list-windows", Some(&json!({"session": "w"}))),
            "{\"id\":1,\"verb\":\"list-windows\",\"params\":{\"session\":\"w\"}}\n"
        );
        assert_eq!(
            request_line("hello", None),
            "{\"id\":1,\"verb\":\"hello\"}\n"
        );
    }
}
