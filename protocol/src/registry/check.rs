//! Checking requests against the registry: the verb, the shape and types of its params, the
//! required ones, the limits they declare, and (for the handlers) a value against a parameter's
//! accepted set.

use serde_json::Value;

use super::spec::{as_int, Limit, ParamSpec, VerbSpec};
use super::table::{accepted_of, find_verb, verb_names};
use crate::closest::{closest_match, echo_name};
use crate::envelope::RequestLine;
use crate::error::{ErrorCode, Hint, VerbError};
use crate::limits;

/// Checks `value` against the published accepted set of `verb`'s `param` (a no-op for an open
/// parameter). The error is `invalid_params` naming the parameter, its accepted values and the
/// nearest spelling. Handlers call it in their own check order.
pub fn check_accepted(verb: &str, param: &str, value: &str) -> Result<(), VerbError> {
    let accepted = accepted_of(verb, param);
    if accepted.is_empty() || accepted.contains(&value) {
        return Ok(());
    }
    Err(VerbError::new(
        ErrorCode::InvalidParams,
        format!(
            "{param} {} is not one of: {}",
            quote(value),
            accepted.join(", ")
        ),
    )
    .with_hint(
        Hint::new()
            .verb("list-verbs")
            .param(param)
            .accepted(accepted)
            .did_you_mean(closest_match(value, accepted.iter().copied())),
    ))
}

/// A caller's value, bounded and quoted for a message.
fn quote(value: &str) -> String {
    format!("{:?}", echo_name(value))
}

fn unknown_verb(name: &str) -> VerbError {
    VerbError::new(
        ErrorCode::UnknownVerb,
        format!("unknown verb {}", echo_name(name)),
    )
    .with_hint(
        Hint::new()
            .verb("list-verbs")
            .command("tuios list-verbs")
            .did_you_mean(closest_match(name, verb_names()))
            .available(verb_names())
            .detail("list-verbs describes every verb with its parameters and example requests."),
    )
}

fn describe_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a fractional number",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Validates a request against the registry, in this order: the verb exists; `params` is an object
/// (or absent/null); every key is a declared parameter (exact, case-sensitive); every non-null
/// declared value has its declared type; every required parameter is given (absent, null, an
/// empty string, 0 and an empty list count as missing, as in the reference implementation);
/// every given value keeps the limit its parameter declares, in declaration order. Accepted
/// values are left to the handlers, which check them in their documented order.
pub fn validate(req: &RequestLine) -> Result<&'static VerbSpec, VerbError> {
    let spec = find_verb(&req.verb).ok_or_else(|| unknown_verb(&req.verb))?;
    let params = match &req.params {
        Value::Null => return Ok(spec),
        Value::Object(map) => map,
        other => {
            return Err(VerbError::new(
                ErrorCode::InvalidParams,
                format!("params must be a JSON object, got {}", describe_kind(other)),
            )
            .with_hint(
                Hint::new()
                    .verb("list-verbs")
                    .command(format!("tuios list-verbs {}", spec.name))
                    .detail("list-verbs gives this verb's parameter schema, including each parameter's type."),
            ));
        }
    };
    let names = spec.param_names();
    for key in params.keys() {
        if spec.param(key).is_none() {
            return Err(VerbError::new(
                ErrorCode::InvalidParams,
                format!("verb {} has no parameter {}", spec.name, echo_name(key)),
            )
            .with_hint(
                Hint::new()
                    .param(key.as_str())
                    .verb("list-verbs")
                    .command(format!("tuios list-verbs {}", spec.name))
                    .did_you_mean(closest_match(key, names.iter().copied()))
                    .accepted(&names)
                    .detail("A parameter the verb does not know is refused, not ignored, so a call never reports success for something it did not do."),
            ));
        }
    }
    for p in spec.params {
        match params.get(p.name) {
            None | Some(Value::Null) => {}
            Some(v) if p.ty.matches(v) => {}
            Some(v) => {
                return Err(VerbError::new(
                    ErrorCode::InvalidParams,
                    format!(
                        "parameter {} must be {}, got {}",
                        p.name,
                        p.ty.expected(),
                        describe_kind(v)
                    ),
                )
                .with_hint(
                    Hint::new()
                        .param(p.name)
                        .verb("list-verbs")
                        .command(format!("tuios list-verbs {}", spec.name))
                        .detail(format!(
                            "{} takes a value of type {}.",
                            p.name,
                            p.ty.as_str()
                        )),
                ));
            }
        }
    }
    for p in spec.params.iter().filter(|p| p.required) {
        if params.get(p.name).is_none_or(is_zero) {
            return Err(missing(spec, p));
        }
    }
    for p in spec.params {
        if let (Some(limit), Some(value)) = (p.limit, params.get(p.name)) {
            check_limit(p.name, limit, value)?;
        }
    }
    Ok(spec)
}

/// Holds a value of the declared type to its parameter's limit; the refusal is worded by
/// [`crate::limits`], as for the binary protocol. Null (left out) passes.
fn check_limit(param: &str, limit: Limit, value: &Value) -> Result<(), VerbError> {
    match limit {
        Limit::Cols => as_int(value).map_or(Ok(()), |n| limits::check_cols(param, n).map(drop)),
        Limit::Rows => as_int(value).map_or(Ok(()), |n| limits::check_rows(param, n).map(drop)),
        Limit::Name => value
            .as_str()
            .map_or(Ok(()), |s| limits::check_name(param, s)),
        Limit::Bytes(max, name) => value
            .as_str()
            .map_or(Ok(()), |s| limits::check_len(param, s, max, name)),
    }
}

/// A value the reference implementation cannot tell from an omitted one.
fn is_zero(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Number(_) => as_int(value) == Some(0),
        _ => false,
    }
}

/// The error for a required parameter that was not given: its description says what it takes.
fn missing(spec: &VerbSpec, p: &ParamSpec) -> VerbError {
    let mut hint = Hint::new().param(p.name).verb("list-verbs");
    // A missing session is best answered with the sessions there are.
    hint = if p.name == "session" {
        hint.command("tuios ls")
    } else {
        hint.command(format!("tuios list-verbs {}", spec.name))
    };
    if !p.accepted.is_empty() {
        hint = hint.accepted(p.accepted);
    }
    VerbError::new(
        ErrorCode::InvalidParams,
        format!("{} is required: {}", p.name, p.description),
    )
    .with_hint(hint)
}
