//! Waits and events: `wait-for` and `subscribe`.

use crate::cli::{SubscribeArgs, WaitForArgs};

use super::{window_target, Request};

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

#[cfg(test)]
mod tests {
    use crate::params::tests::{build, params, refused};
    use serde_json::json;

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
    fn wait_for_agent_state_joins_and_checks_its_states() {
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
}
