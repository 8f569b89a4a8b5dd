//! The registry rendered as `list-verbs` publishes it: each verb's parameters, result fields and
//! examples, the error catalog and the envelope shapes.

use serde_json::{Map, Value};

use super::spec::{ParamSpec, VerbSpec};
use super::table::{find_verb, verb_names, verbs};
use crate::closest::{closest_match, echo_name};
use crate::error::{ErrorCode, Hint, VerbError};
use crate::{MIN_PROTOCOL_VERSION, PROTOCOL_VERSION};

/// `p.limit` is not written: `list-verbs` stays as clients know it, and a refusal names the limit.
fn param_doc(p: &ParamSpec) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), p.name.into());
    m.insert("type".into(), p.ty.as_str().into());
    if p.required {
        m.insert("required".into(), true.into());
    }
    m.insert("description".into(), p.description.into());
    if !p.accepted.is_empty() {
        m.insert("accepted".into(), p.accepted.into());
    }
    if let Some(d) = p.default {
        m.insert("default".into(), d.into());
    }
    Value::Object(m)
}

fn verb_doc(v: &VerbSpec) -> Value {
    let mut m = Map::new();
    m.insert("verb".into(), v.name.into());
    m.insert("description".into(), v.description.into());
    m.insert("params".into(), v.params.iter().map(param_doc).collect());
    if !v.returns.is_empty() {
        m.insert("returns".into(), v.returns.iter().map(param_doc).collect());
    }
    if !v.examples.is_empty() {
        m.insert("examples".into(), v.examples.into());
    }
    Value::Object(m)
}

/// The result of `list-verbs`: every verb (or the one named), the error catalog and the envelope
/// shapes. An unknown verb name is `unknown_verb` with a suggestion.
pub fn list_verbs(
    verb: Option<&str>,
    daemon_version: &str,
) -> Result<crate::verbs::list_verbs::Reply, VerbError> {
    let docs: Vec<Value> = match verb.filter(|v| !v.is_empty()) {
        None => verbs().iter().map(verb_doc).collect(),
        Some(name) => {
            let spec = find_verb(name).ok_or_else(|| {
                VerbError::new(
                    ErrorCode::UnknownVerb,
                    format!("unknown verb {}", echo_name(name)),
                )
                .with_hint(
                    Hint::new()
                        .param("verb")
                        .did_you_mean(closest_match(name, verb_names()))
                        .available(verb_names()),
                )
            })?;
            vec![verb_doc(spec)]
        }
    };
    let error_codes: Vec<Value> = ErrorCode::ALL
        .iter()
        .map(|c| {
            let mut m = Map::new();
            m.insert("code".into(), c.as_str().into());
            m.insert("description".into(), c.description().into());
            Value::Object(m)
        })
        .collect();
    let mut envelope = Map::new();
    envelope.insert(
        "transport".into(),
        "Newline-delimited JSON on the daemon's Unix socket: write one request object per line, read one response object per line, in order."
            .into(),
    );
    envelope.insert(
        "request".into(),
        r#"{"id":<any>,"verb":"<name>","params":{...}}"#.into(),
    );
    envelope.insert(
        "success".into(),
        r#"{"id":<echoed>,"result":{"type":"<result type>",...}}"#.into(),
    );
    envelope.insert(
        "failure".into(),
        r#"{"id":<echoed>,"error":{"code":"<stable code>","message":"...","hint":{...}}}"#.into(),
    );
    envelope.insert(
        "hint".into(),
        "Included with most errors. It can name the verb or CLI command that helps, the parameter at fault and the values it takes, the nearest spelling of what was asked for, and what does exist."
            .into(),
    );
    Ok(crate::verbs::list_verbs::Reply {
        version: PROTOCOL_VERSION,
        min_version: MIN_PROTOCOL_VERSION,
        daemon_version: daemon_version.to_owned(),
        verbs: docs,
        error_codes,
        envelope: Value::Object(envelope),
        ..Default::default()
    })
}
