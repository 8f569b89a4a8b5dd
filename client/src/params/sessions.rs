//! Session verbs: listing, creating, killing and labelling sessions.

use crate::cli::{NewArgs, SessionTarget, SetSessionAccentArgs};

use super::{session_target, Request};

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

pub fn session_info(t: &SessionTarget) -> Request {
    let mut req = Request::new("session-info");
    session_target(&mut req, t);
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

pub fn set_session_accent(a: &SetSessionAccentArgs) -> Request {
    let mut req = Request::new("set-session-accent");
    session_target(&mut req, &a.target);
    req.set_opt("accent", a.accent.clone());
    req
}

#[cfg(test)]
mod tests {
    use crate::params::tests::params;
    use serde_json::json;

    #[test]
    fn session_commands_map_the_session() {
        assert_eq!(params(&["session-info"]), json!({}));
        assert_eq!(params(&["kill-session", "a b"]), json!({"session": "a b"}));
        assert_eq!(params(&["ls"]), json!({}));
        assert_eq!(
            params(&["list-verbs", "send-keys"]),
            json!({"verb": "send-keys"})
        );
        assert_eq!(
            params(&["set-session-accent", "-s", "w", "bright blue"]),
            json!({"session": "w", "accent": "bright blue"})
        );
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
    }
}
