//! Agent verbs: setting and reading the agent state, and explaining how it was found.

use crate::cli::{ExplainAgentScreenArgs, SetAgentStateArgs, WindowTarget};

use super::{window_target, Request};

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

#[cfg(test)]
mod tests {
    use crate::params::tests::{params, refused};
    use serde_json::json;

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
}
