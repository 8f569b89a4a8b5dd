//! `tuios session-info`: one session described, a `key: value` line per reply key.
use std::path::Path;

use protocol::verbs::session_info::{Params, Reply, SPEC};
use serde_json::Value;

use crate::failure::Failure;

pub const NAME: Option<&str> = Some("session-info");
pub const ALIASES: &[&str] = &[];

// Its own copy of the session-only flags (list-windows and list-workspaces share cli.rs's).
pub type Args = super::target::SessionOnly;

pub fn params(a: &Args) -> Params {
    a.params()
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

/// The reply's keys in the order the verb declares them (`SPEC.returns`), each value as JSON
/// writes it (strings unquoted), so a float or a map prints as it came over the wire.
fn print(r: &Reply) -> String {
    let Ok(Value::Object(fields)) = serde_json::to_value(r) else {
        return String::new();
    };
    let mut out = String::new();
    for p in SPEC.returns {
        let Some(v) = fields.get(p.name) else {
            continue;
        };
        let text = match v {
            Value::String(t) => t.clone(),
            other => other.to_string(),
        };
        out.push_str(&format!("{}: {text}\n", p.name));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::target::SessionTarget;
    use serde_json::json;

    #[test]
    fn the_reply_follows_its_declared_keys() {
        let reply = Reply {
            session_name: "w".into(),
            session_id: "id".into(),
            workspace_names: json!({"2": "logs"}).as_object().unwrap().clone(),
            width: 80,
            master_ratio: 0.5,
            ..Default::default()
        };
        let text = print(&reply);
        let keys: Vec<&str> = text.lines().map(|l| l.split(':').next().unwrap()).collect();
        let declared: Vec<&str> = SPEC.returns.iter().map(|p| p.name).collect();
        assert_eq!(keys, declared);
        assert!(
            text.starts_with("session_name: w\nsession_id: id\n"),
            "{text}"
        );
        assert!(
            text.contains("workspace_names: {\"2\":\"logs\"}\n"),
            "{text}"
        );
        assert!(text.contains("workspace_order: null\n"), "{text}");
        assert!(text.contains("master_ratio: 0.5\nwidth: 80\n"), "{text}");
        assert!(!text.contains("session_info"));
    }

    #[test]
    fn no_reply_key_goes_unprinted() {
        let Value::Object(fields) = serde_json::to_value(Reply::default()).unwrap() else {
            panic!("the reply is an object");
        };
        for key in fields.keys().filter(|k| k.as_str() != "type") {
            assert!(
                SPEC.returns.iter().any(|p| p.name == key.as_str()),
                "session-info does not declare {key}"
            );
        }
    }

    #[test]
    fn the_session_is_sent_only_when_given() {
        let a = |session: Option<&str>| Args {
            target: SessionTarget {
                session: session.map(str::to_string),
                json: false,
            },
        };
        assert_eq!(super::super::params_value(&params(&a(None))), None);
        assert_eq!(
            super::super::params_value(&params(&a(Some("w")))),
            Some(json!({"session": "w"}))
        );
    }
}
