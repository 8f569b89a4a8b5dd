//! Pure mapping from parsed arguments to verb params. No I/O, so every mapping is unit tested.

use serde_json::{Map, Value};

use crate::cli::{
    CapturePaneArgs, ExplainAgentScreenArgs, FocusWindowArgs, GetOptionArgs, ListOptionsArgs,
    ListThemesArgs, MoveWindowArgs, NewArgs, NewWindowArgs, ResizeArgs, RunArgs, RunCommandArgs,
    SelectWorkspaceArgs, SendKeysArgs, SendTextArgs, SessionTarget, SetAgentStateArgs,
    SetLayoutArgs, SetOptionArgs, SetSessionAccentArgs, SetSessionNameArgs, SetWindowArgs,
    SetWorkspaceNameArgs, SetWorkspaceOrderArgs, SplitWindowArgs, SubscribeArgs, WaitForArgs,
    WindowTarget,
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

/// `session-info` of the most recently active session (what `attach` without a name picks).
pub fn session_info_default() -> Request {
    Request::new("session-info")
}

pub fn list_sessions() -> Request {
    Request::new("list-sessions")
}

pub fn kill_session(name: &str) -> Request {
    let mut req = Request::new("kill-session");
    req.set("session", name);
    req
}

pub fn resurrect(session: Option<&str>) -> Request {
    let mut req = Request::new("resurrect");
    req.set_opt("session", session);
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
    if !a.env.is_empty() {
        req.set("env", a.env.clone());
    }
    if a.no_focus {
        req.set("focus", false);
    }
    req.set_flag("remain", a.remain);
    req
}

pub fn new_session(a: &NewArgs) -> Request {
    let mut req = Request::new("new-session");
    req.set_opt("name", a.name.clone());
    req.set_opt("width", a.width);
    req.set_opt("height", a.height);
    req.set_opt("cwd", a.cwd.clone());
    if !a.env.is_empty() {
        req.set("env", a.env.clone());
    }
    if !a.command.is_empty() {
        req.set("command", a.command.clone());
    }
    req
}

pub fn run(a: &RunArgs) -> Request {
    let mut req = Request::new("run");
    window_target(&mut req, &a.target);
    req.set("command", a.command.join(" "));
    req.set_opt("timeout", a.timeout);
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
    if !a.until.is_empty() {
        req.set("until", a.until.join(","));
    }
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
    req.set("direction", a.axis());
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

pub fn set_agent_state(a: &SetAgentStateArgs) -> Request {
    let mut req = Request::new("set-agent-state");
    window_target(&mut req, &a.target);
    req.set("state", a.state.clone());
    req.set_opt("message", a.message.clone());
    req.set_opt("source", a.source.clone());
    req.set_opt("harness", a.harness.clone());
    req
}

pub fn get_agent_state(t: &WindowTarget) -> Request {
    let mut req = Request::new("get-agent-state");
    window_target(&mut req, t);
    req
}

pub fn explain_agent_detect(t: &WindowTarget) -> Request {
    let mut req = Request::new("explain-agent-detect");
    window_target(&mut req, t);
    req
}

pub fn explain_agent_screen(a: &ExplainAgentScreenArgs) -> Request {
    let mut req = Request::new("explain-agent-screen");
    window_target(&mut req, &a.target);
    req.set_opt("harness", a.harness.clone());
    req.set_opt("lines", a.lines);
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
            Command::Resurrect(a) => resurrect(a.session.as_deref()),
            Command::Upgrade => Request::new("upgrade"),
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
            Command::CloseWindow(a) => close_window(&a.target),
            Command::SetWindow(a) => set_window(&a),
            Command::FocusWindow(a) => focus_window(&a),
            Command::MoveWindow(a) => move_window(&a),
            Command::SplitWindow(a) => split_window(&a),
            Command::SetLayout(a) => set_layout(&a),
            Command::ListWorkspaces(a) => list_workspaces(&a.target),
            Command::SelectWorkspace(a) => select_workspace(&a),
            Command::SetWorkspaceName(a) => set_workspace_name(&a),
            Command::SetWorkspaceOrder(a) => set_workspace_order(&a),
            Command::SetSessionName(a) => set_session_name(&a),
            Command::SetSessionAccent(a) => set_session_accent(&a),
            Command::Run(a) => run_command(&a).expect("a command, not --list"),
            Command::ListOptions(a) => list_options(&a),
            Command::GetOption(a) => get_option(&a),
            Command::SetOption(a) => set_option(&a),
            Command::ListThemes(a) => list_themes(&a),
            Command::SetAgentState(a) => set_agent_state(&a),
            Command::GetAgentState(a) => get_agent_state(&a.target),
            Command::ExplainAgentDetect(a) => explain_agent_detect(&a.target),
            Command::ExplainAgentScreen(a) => explain_agent_screen(&a),
            Command::Hello(_) => hello(),
            Command::New(a) => new_session(&a),
            Command::RunAndWait(a) => run(&a),
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

    fn refused(args: &[&str]) -> clap::error::ErrorKind {
        let mut argv = vec!["tuios"];
        argv.extend_from_slice(args);
        crate::cli::command()
            .try_get_matches_from(argv)
            .expect_err("arguments are refused")
            .kind()
    }

    #[test]
    fn window_commands_map_their_flags() {
        assert_eq!(
            params(&["close-window", "-s", "w", "-w", "build"]),
            json!({"session": "w", "window": "build"})
        );
        assert_eq!(build(&["kill-window"]).params_value(), None);
        assert_eq!(
            params(&["set-window", "-w", "1", "--name", "logs", "--minimize"]),
            json!({"window": "1", "name": "logs", "minimized": true})
        );
        assert_eq!(
            params(&["set-window", "--restore"]),
            json!({"minimized": false})
        );
        // An empty name is how the window's own name is cleared.
        assert_eq!(params(&["set-window", "--name", ""]), json!({"name": ""}));
        assert_eq!(
            refused(&["set-window"]),
            clap::error::ErrorKind::MissingRequiredArgument
        );
        assert_eq!(
            refused(&["set-window", "--minimize", "--restore"]),
            clap::error::ErrorKind::ArgumentConflict
        );
        assert_eq!(
            params(&["move-window", "-s", "w", "-w", "build", "3", "--follow"]),
            json!({"session": "w", "window": "build", "workspace": 3, "follow": true})
        );
        assert_eq!(params(&["move-window", "2"]), json!({"workspace": 2}));
        assert_eq!(
            params(&["split-window", "vertical", "-w", "a", "--name", "tests"]),
            json!({"direction": "vertical", "window": "a", "name": "tests"})
        );
        assert_eq!(
            refused(&["split-window", "sideways"]),
            clap::error::ErrorKind::InvalidValue
        );
    }

    #[test]
    fn focus_window_takes_exactly_one_way_of_naming() {
        assert_eq!(
            params(&["focus-window", "build"]),
            json!({"window": "build"})
        );
        assert_eq!(
            params(&["focus-window", "-s", "w", "--relative", "prev"]),
            json!({"session": "w", "relative": "prev"})
        );
        assert_eq!(
            params(&["focus-window", "--direction", "left"]),
            json!({"direction": "left"})
        );
        assert_eq!(
            refused(&["focus-window"]),
            clap::error::ErrorKind::MissingRequiredArgument
        );
        assert_eq!(
            refused(&["focus-window", "1", "--relative", "next"]),
            clap::error::ErrorKind::ArgumentConflict
        );
        assert_eq!(
            refused(&["focus-window", "--relative", "forward"]),
            clap::error::ErrorKind::InvalidValue
        );
    }

    #[test]
    fn set_layout_needs_a_change() {
        assert_eq!(
            params(&["set-layout", "--tiling", "false"]),
            json!({"tiling": false})
        );
        assert_eq!(
            params(&["set-layout", "-s", "w", "--equalize", "--rotate"]),
            json!({"session": "w", "equalize": true, "rotate": true})
        );
        assert_eq!(
            refused(&["set-layout"]),
            clap::error::ErrorKind::MissingRequiredArgument
        );
        assert_eq!(
            refused(&["set-layout", "--tiling", "on"]),
            clap::error::ErrorKind::InvalidValue
        );
    }

    #[test]
    fn workspace_and_label_commands_map_their_arguments() {
        assert_eq!(
            params(&["list-workspaces", "-s", "w"]),
            json!({"session": "w"})
        );
        assert_eq!(params(&["select-workspace", "4"]), json!({"workspace": 4}));
        assert_eq!(
            params(&["set-workspace-name", "2", "logs"]),
            json!({"workspace": 2, "name": "logs"})
        );
        assert_eq!(
            params(&["set-workspace-name", "2"]),
            json!({"workspace": 2})
        );
        assert_eq!(
            params(&["set-workspace-order", "3", "1", "2"]),
            json!({"order": [3, 1, 2]})
        );
        assert_eq!(
            params(&["set-workspace-order", "-s", "w", "3,1"]),
            json!({"session": "w", "order": [3, 1]})
        );
        assert_eq!(
            refused(&["set-workspace-order", "x"]),
            clap::error::ErrorKind::ValueValidation
        );
        assert_eq!(
            params(&["set-session-name", "Deploy 42"]),
            json!({"name": "Deploy 42"})
        );
        assert_eq!(params(&["set-session-name"]), json!({}));
        assert_eq!(
            params(&["set-session-accent", "-s", "w", "bright blue"]),
            json!({"session": "w", "accent": "bright blue"})
        );
    }

    #[test]
    fn run_command_sends_name_and_string_args() {
        assert_eq!(
            params(&["run-command", "-s", "w", "SwitchWorkspace", "2"]),
            json!({"session": "w", "command": "SwitchWorkspace", "args": ["2"]})
        );
        assert_eq!(
            params(&[
                "run-command",
                "NewWindow",
                "logs",
                "--",
                "tail",
                "-f",
                "app.log"
            ]),
            json!({"command": "NewWindow", "args": ["logs", "tail", "-f", "app.log"]})
        );
        assert_eq!(
            params(&["run-command", "ListWindows"]),
            json!({"command": "ListWindows"})
        );
        match parse(&["run-command", "--list"]) {
            Command::Run(a) => assert_eq!(run_command(&a), None),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            refused(&["run-command"]),
            clap::error::ErrorKind::MissingRequiredArgument
        );
        assert_eq!(
            refused(&["run-command", "switchworkspace", "2"]),
            clap::error::ErrorKind::InvalidValue
        );
    }

    #[test]
    fn option_and_theme_commands_map_their_arguments() {
        assert_eq!(
            params(&["list-options", "appearance.sidebar", "--section", "sidebar"]),
            json!({"prefix": "appearance.sidebar", "section": "sidebar"})
        );
        assert_eq!(params(&["list-options"]), json!({}));
        assert_eq!(
            params(&["get-config", "-s", "w", "theme"]),
            json!({"session": "w", "key": "theme"})
        );
        assert_eq!(
            params(&["set-config", "theme", ""]),
            json!({"key": "theme", "value": ""})
        );
        assert_eq!(
            params(&[
                "set-option",
                "-s",
                "w",
                "appearance.border_style",
                "rounded"
            ]),
            json!({"session": "w", "key": "appearance.border_style", "value": "rounded"})
        );
        assert_eq!(
            refused(&["set-option", "theme"]),
            clap::error::ErrorKind::MissingRequiredArgument
        );
        assert_eq!(
            params(&["list-themes", "dracula", "--filter", "dark"]),
            json!({"theme": "dracula", "filter": "dark"})
        );
        assert_eq!(
            params(&["hello", "--json"]),
            json!({
                "client": "tuios", "version": env!("CARGO_PKG_VERSION"),
                "protocol": protocol::PROTOCOL_VERSION
            })
        );
    }

    #[test]
    fn agent_commands_map_their_flags() {
        assert_eq!(
            params(&["set-agent-state", "done"]),
            json!({"state": "done"})
        );
        assert_eq!(
            params(&[
                "set-agent-state",
                "-s",
                "w",
                "-w",
                "%3",
                "needs_input",
                "-m",
                "approve the edit",
                "--source",
                "screen",
                "--harness",
                "claude-code"
            ]),
            json!({
                "session": "w", "window": "%3", "state": "needs_input",
                "message": "approve the edit", "source": "screen", "harness": "claude-code"
            })
        );
        assert_eq!(
            refused(&["set-agent-state", "busy"]),
            clap::error::ErrorKind::InvalidValue
        );
        assert_eq!(
            refused(&["set-agent-state", "done", "--source", "detect"]),
            clap::error::ErrorKind::InvalidValue,
            "detect is a source the daemon sets, not one a caller may claim"
        );
        assert_eq!(
            params(&["get-agent-state", "-w", "a"]),
            json!({"window": "a"})
        );
        assert_eq!(params(&["explain-agent-detect"]), json!({}));
        assert_eq!(
            params(&[
                "explain-agent-screen",
                "--harness",
                "codex",
                "--lines",
                "10"
            ]),
            json!({"harness": "codex", "lines": 10})
        );
        assert_eq!(
            params(&[
                "wait-for",
                "agent-state",
                "--until",
                "idle,done",
                "--until",
                "errored"
            ]),
            json!({"condition": "agent-state", "until": "idle,done,errored"})
        );
        assert_eq!(
            refused(&["wait-for", "agent-state", "--until", "idle,dnoe"]),
            clap::error::ErrorKind::InvalidValue
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
            &["close-window", "-s", "s", "-w", "w"],
            &[
                "set-window",
                "-s",
                "s",
                "-w",
                "w",
                "--name",
                "n",
                "--minimize",
            ],
            &["focus-window", "-s", "s", "w"],
            &["focus-window", "--relative", "next"],
            &["focus-window", "--direction", "up"],
            &["move-window", "-s", "s", "-w", "w", "2", "--follow"],
            &[
                "split-window",
                "-s",
                "s",
                "-w",
                "w",
                "horizontal",
                "--name",
                "n",
            ],
            &[
                "set-layout",
                "-s",
                "s",
                "--tiling",
                "true",
                "--equalize",
                "--rotate",
            ],
            &["list-workspaces", "-s", "s"],
            &["select-workspace", "-s", "s", "1"],
            &["set-workspace-name", "-s", "s", "1", "n"],
            &["set-workspace-order", "-s", "s", "2", "1"],
            &["set-session-name", "-s", "s", "n"],
            &["set-session-accent", "-s", "s", "cyan"],
            &["run-command", "-s", "s", "Type", "x"],
            &["list-options", "-s", "s", "p", "--section", "x"],
            &["get-option", "-s", "s", "k"],
            &["set-option", "-s", "s", "k", "v"],
            &["list-themes", "-s", "s", "t", "--filter", "f"],
            &[
                "set-agent-state",
                "-s",
                "s",
                "-w",
                "w",
                "needs_input",
                "-m",
                "m",
                "--source",
                "osc",
                "--harness",
                "h",
            ],
            &["get-agent-state", "-s", "s", "-w", "w"],
            &["explain-agent-detect", "-s", "s", "-w", "w"],
            &[
                "explain-agent-screen",
                "-s",
                "s",
                "-w",
                "w",
                "--harness",
                "h",
                "--lines",
                "3",
            ],
            &["wait-for", "agent-state", "--until", "idle,done"],
            &["hello"],
            &["resurrect", "work"],
            &[
                "new", "-d", "n", "-c", "/tmp", "-e", "A=1", "--width", "90", "--height", "30",
                "--", "top",
            ],
            &[
                "run",
                "-s",
                "s",
                "-w",
                "w",
                "--timeout",
                "5",
                "--",
                "ls",
                "-l",
            ],
            &["upgrade"],
        ];
        let mut covered = Vec::new();
        for args in samples {
            let req = build(args);
            covered.push(req.verb);
            let verb = protocol::registry::find_verb(req.verb)
                .unwrap_or_else(|| panic!("{} is not a registry verb", req.verb));
            for key in req.params.keys() {
                assert!(
                    verb.params.iter().any(|p| p.name == key.as_str()),
                    "{} sends undeclared param {key}",
                    req.verb
                );
            }
            // And the request decodes into the verb's typed params, as the daemon decodes it:
            // types, required params and limits all hold.
            let line = protocol::envelope::parse_request(
                request_line(req.verb, req.params_value().as_ref()).trim_end(),
            )
            .expect("the request line parses");
            let typed = protocol::verbs::Request::parse(&line)
                .unwrap_or_else(|e| panic!("{args:?}: the daemon would refuse it: {e:?}"));
            assert_eq!(typed.verb(), req.verb);
        }
        // Every verb-backed subcommand is sampled, so a new one cannot skip this check.
        for sub in crate::cli::command().get_subcommands() {
            if let Some(verb) = Command::verb_of(sub.get_name()) {
                assert!(covered.contains(&verb), "no sample for {}", sub.get_name());
            }
        }
    }

    #[test]
    fn send_keys_arguments_with_spaces_are_typed_as_they_are() {
        let Command::SendKeys(a) = parse(&["send-keys", "-s", "w", "echo hi", "C-m", "ls", "a,b"])
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
        let Command::SendKeys(a) = parse(&["send-keys", "ls", "Enter"]) else {
            panic!("send-keys")
        };
        assert_eq!(send_keys_tmux(&a), vec![send_keys(&a)]);
    }

    #[test]
    fn split_window_takes_tmux_h_and_v() {
        assert_eq!(
            params(&["split-window", "-h"]),
            json!({"direction": "vertical"})
        );
        assert_eq!(
            params(&["split-window", "-v", "-w", "2"]),
            json!({"direction": "horizontal", "window": "2"})
        );
        assert_eq!(
            params(&["split-window", "horizontal"]),
            json!({"direction": "horizontal"})
        );
        for refused in [
            &["split-window"][..],
            &["split-window", "-h", "-v"],
            &["split-window", "-h", "vertical"],
        ] {
            assert!(
                crate::cli::command()
                    .try_get_matches_from(std::iter::once("tuios").chain(refused.iter().copied()))
                    .is_err(),
                "{refused:?}"
            );
        }
        // --help is still help.
        let err = crate::cli::command()
            .try_get_matches_from(["tuios", "split-window", "--help"])
            .unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::DisplayHelp);
    }

    #[test]
    fn new_session_and_run_map_their_flags() {
        assert_eq!(
            params(&["new", "-d", "ci", "-c", "/tmp", "-e", "A=1", "-e", "B=2", "--", "top", "-b"]),
            json!({"name": "ci", "cwd": "/tmp", "env": ["A=1", "B=2"], "command": ["top", "-b"]})
        );
        assert_eq!(
            params(&["run", "-w", "2", "--", "printf", "'%s\\n'", "-x"]),
            json!({"window": "2", "command": "printf '%s\\n' -x"})
        );
        assert_eq!(
            params(&["new-window", "-c", "/srv", "-e", "X=y"]),
            json!({"cwd": "/srv", "env": ["X=y"]})
        );
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
