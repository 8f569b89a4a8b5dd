//! `tuios list-verbs`: the protocol as the daemon describes it, every verb or one.
use std::path::Path;

use protocol::verbs::list_verbs::{Params, Reply, SPEC};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

use crate::failure::Failure;
use crate::output::table;

pub const NAME: Option<&str> = Some("list-verbs");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    pub verb: Option<String>,
    /// Print the daemon's verb_list result as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn params(a: &Args) -> Params {
    Params {
        verb: a.verb.clone(),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    let one_verb = a.verb.is_some();
    super::verb(socket, SPEC.name, &params(&a), a.json, |r| {
        print(r, one_verb)
    })
}

// The reply carries each verb and error code as a free-form object; these are the keys printed.
// Every key is optional, as it was when read one by one.

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct VerbDoc {
    verb: String,
    description: String,
    params: Vec<ParamDoc>,
    returns: Vec<ParamDoc>,
    examples: Vec<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ParamDoc {
    name: String,
    #[serde(rename = "type")]
    ty: String,
    required: bool,
    description: String,
    accepted: Vec<Value>,
    default: Value,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ErrorCodeDoc {
    code: String,
    description: String,
}

/// Each free-form row read as `T`; a row of another shape reads as an empty one.
fn rows<T: DeserializeOwned + Default>(values: &[Value]) -> Vec<T> {
    values
        .iter()
        .map(|v| T::deserialize(v).unwrap_or_default())
        .collect()
}

/// A JSON scalar as text: strings without their quotes.
fn plain(v: &Value) -> String {
    v.as_str()
        .map(str::to_string)
        .unwrap_or_else(|| v.to_string())
}

/// The version line, each verb with params and examples, and the error codes when every verb
/// was listed.
fn print(r: &Reply, one_verb: bool) -> String {
    let mut out = format!(
        "Control protocol version {} (daemon {}, oldest supported {})\n",
        r.version, r.daemon_version, r.min_version
    );
    for verb in rows::<VerbDoc>(&r.verbs) {
        out.push('\n');
        out.push_str(&verb.verb);
        out.push('\n');
        out.push_str(&format!("  {}\n", verb.description));
        if !verb.params.is_empty() {
            out.push_str("  params:\n");
            for p in &verb.params {
                out.push_str(&param_line(p));
            }
        }
        if !verb.returns.is_empty() {
            out.push_str("  returns:\n");
            for p in &verb.returns {
                out.push_str(&param_line(p));
            }
        }
        if !verb.examples.is_empty() {
            out.push_str("  examples:\n");
            for e in &verb.examples {
                out.push_str(&format!("    {}\n", plain(e)));
            }
        }
    }
    if !one_verb {
        let codes = rows::<ErrorCodeDoc>(&r.error_codes);
        if !codes.is_empty() {
            out.push_str("\nerror codes:\n");
            let rows: Vec<Vec<String>> = codes
                .into_iter()
                .map(|c| vec![format!("  {}", c.code), c.description])
                .collect();
            let t = table(&["", ""], &rows);
            // Drop the blank header line the table helper always writes.
            out.push_str(t.split_once('\n').map_or("", |(_, rest)| rest));
        }
    }
    out
}

fn param_line(p: &ParamDoc) -> String {
    let mut head = format!("    {} ({}", p.name, p.ty);
    if p.required {
        head.push_str(", required");
    }
    head.push(')');
    let mut out = if p.description.is_empty() {
        format!("{head}\n")
    } else {
        format!("{head}: {}\n", p.description)
    };
    if !p.accepted.is_empty() {
        let list: Vec<String> = p.accepted.iter().map(plain).collect();
        out.push_str(&format!("        one of: {}\n", list.join(", ")));
    }
    match &p.default {
        Value::String(d) if !d.is_empty() => {
            out.push_str(&format!("        default: {d}\n"));
        }
        Value::Null | Value::String(_) => {}
        v => out.push_str(&format!("        default: {v}\n")),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn verb_list_shows_params_and_codes() {
        let reply = Reply {
            version: 1,
            min_version: 1,
            daemon_version: "0.1.0".into(),
            verbs: vec![json!({
                "verb": "capture-pane", "description": "Capture a pane.",
                "params": [
                    {"name": "source", "type": "string", "description": "Buffer.",
                     "accepted": ["visible", "recent"], "default": "visible"},
                    {"name": "keys", "type": "string", "required": true, "description": "K."}
                ],
                "examples": ["{\"id\":1,\"verb\":\"capture-pane\"}"]
            })],
            error_codes: vec![json!({"code": "internal", "description": "Unexpected."})],
            ..Default::default()
        };
        let all = print(&reply, false);
        assert!(all.starts_with("Control protocol version 1 (daemon 0.1.0, oldest supported 1)\n"));
        assert!(all.contains("    source (string): Buffer.\n        one of: visible, recent\n        default: visible\n"));
        assert!(all.contains("    keys (string, required): K.\n"));
        assert!(all.contains("    {\"id\":1,\"verb\":\"capture-pane\"}\n"));
        assert!(all.contains("error codes:\n  internal  Unexpected.\n"));
        assert!(!print(&reply, true).contains("error codes"));
    }

    #[test]
    fn list_verbs_names_the_verb() {
        let params = |verb: Option<&str>| {
            super::super::params_value(&super::params(&Args {
                verb: verb.map(str::to_string),
                json: false,
            }))
        };
        assert_eq!(
            params(Some("send-keys")),
            Some(json!({"verb": "send-keys"}))
        );
        assert_eq!(params(None), None);
    }
}
