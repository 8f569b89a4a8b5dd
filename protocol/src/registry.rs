//! The verb registry: the table of every verb, its parameters, their types, required flags,
//! defaults and accepted values, and the keys of its reply. The table is generated from the
//! per-verb declarations in [`crate::verbs`]; the validator, `list-verbs` and the handlers'
//! accepted-value checks all read it, so what `list-verbs` advertises cannot drift from what the
//! daemon takes.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::closest::{closest_match, echo_name};
use crate::envelope::Request;
use crate::error::{ErrorCode, Hint, VerbError};
use crate::{MIN_PROTOCOL_VERSION, PROTOCOL_VERSION};

/// The type of a parameter or result field, as published by `list-verbs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    String,
    Int,
    Bool,
    StringList,
    IntList,
    /// Result fields only: parameters are never of these types.
    Float,
    Object,
    ObjectList,
}

impl ParamType {
    pub fn as_str(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Int => "int",
            ParamType::Bool => "bool",
            ParamType::StringList => "[]string",
            ParamType::IntList => "[]int",
            ParamType::Float => "float",
            ParamType::Object => "object",
            ParamType::ObjectList => "[]object",
        }
    }

    /// Human wording for type errors.
    fn expected(self) -> &'static str {
        match self {
            ParamType::String => "a string",
            ParamType::Int => "an integer",
            ParamType::Bool => "true or false",
            ParamType::StringList => "an array of strings",
            ParamType::IntList => "an array of integers",
            ParamType::Float => "a number",
            ParamType::Object => "an object",
            ParamType::ObjectList => "an array of objects",
        }
    }

    /// Whether a non-null JSON value has this type. Integers may be written as floats with no
    /// fractional part (`2.0`), since some JSON encoders emit every number that way.
    pub fn matches(self, value: &Value) -> bool {
        match self {
            ParamType::String => value.is_string(),
            ParamType::Int => as_int(value).is_some(),
            ParamType::Bool => value.is_boolean(),
            ParamType::StringList => value
                .as_array()
                .is_some_and(|a| a.iter().all(Value::is_string)),
            ParamType::IntList => value
                .as_array()
                .is_some_and(|a| a.iter().all(|v| as_int(v).is_some())),
            ParamType::Float => value.is_number(),
            ParamType::Object => value.is_object(),
            ParamType::ObjectList => value
                .as_array()
                .is_some_and(|a| a.iter().all(Value::is_object)),
        }
    }
}

impl std::fmt::Display for ParamType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A JSON number that is a whole number representable as i64.
pub(crate) fn int_value(value: &Value) -> Option<i64> {
    as_int(value)
}

fn as_int(value: &Value) -> Option<i64> {
    let n = value.as_number()?;
    if let Some(i) = n.as_i64() {
        return Some(i);
    }
    let f = n.as_f64()?;
    // 2^63 itself is out of range; the bounds are exact powers of two so the comparison is exact.
    const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
    (f.fract() == 0.0 && (-TWO_POW_63..TWO_POW_63).contains(&f)).then_some(f as i64)
}

/// One parameter (or result field) of a verb.
#[derive(Debug, Clone)]
pub struct ParamSpec {
    pub name: &'static str,
    pub ty: ParamType,
    pub required: bool,
    pub description: &'static str,
    /// The closed set of values the parameter takes; empty when open.
    pub accepted: &'static [&'static str],
    /// The default, in string form, when the parameter is omitted.
    pub default: Option<&'static str>,
}

/// One verb.
#[derive(Debug, Clone)]
pub struct VerbSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub params: &'static [ParamSpec],
    pub returns: &'static [ParamSpec],
    /// Complete request lines, each a valid call of this verb.
    pub examples: &'static [&'static str],
}

impl VerbSpec {
    pub fn param(&self, name: &str) -> Option<&'static ParamSpec> {
        self.params.iter().find(|p| p.name == name)
    }

    pub fn param_names(&self) -> Vec<&'static str> {
        self.params.iter().map(|p| p.name).collect()
    }
}

pub(crate) const fn param(
    name: &'static str,
    ty: ParamType,
    description: &'static str,
) -> ParamSpec {
    ParamSpec {
        name,
        ty,
        required: false,
        description,
        accepted: &[],
        default: None,
    }
}

pub(crate) const fn required(
    name: &'static str,
    ty: ParamType,
    description: &'static str,
) -> ParamSpec {
    ParamSpec {
        name,
        ty,
        required: true,
        description,
        accepted: &[],
        default: None,
    }
}

pub(crate) const fn with_default(
    name: &'static str,
    ty: ParamType,
    description: &'static str,
    default: &'static str,
) -> ParamSpec {
    ParamSpec {
        name,
        ty,
        required: false,
        description,
        accepted: &[],
        default: Some(default),
    }
}

pub use crate::verbs::common::{
    CAPTURE_SOURCES, FOCUS_DIRECTIONS, FOCUS_RELATIVE, SPLIT_DIRECTIONS,
};

/// Every verb, sorted by name.
pub fn verbs() -> &'static [VerbSpec] {
    crate::verbs::VERBS
}

pub fn find_verb(name: &str) -> Option<&'static VerbSpec> {
    verbs().iter().find(|v| v.name == name)
}

/// Every verb name, sorted.
pub fn verb_names() -> Vec<&'static str> {
    verbs().iter().map(|v| v.name).collect()
}

/// The accepted set `list-verbs` publishes for one parameter (empty when the parameter is open or
/// unknown). Handlers check values against this very slice.
pub fn accepted_of(verb: &str, param: &str) -> &'static [&'static str] {
    find_verb(verb)
        .and_then(|v| v.param(param))
        .map(|p| p.accepted)
        .unwrap_or(&[])
}

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
/// empty string, 0 and an empty list count as missing, as in the reference implementation).
/// Accepted values are left to the handlers, which check them in their documented order.
pub fn validate(req: &Request) -> Result<&'static VerbSpec, VerbError> {
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
    crate::limits::check_verb_params(spec.name, params)?;
    Ok(spec)
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

/// The params with each declared default filled in where the caller left the parameter out (or
/// sent null), so handlers see the default the registry publishes.
pub fn with_defaults(spec: &VerbSpec, params: &Value) -> Value {
    let mut map = match params {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    for p in spec.params {
        let Some(default) = p.default else { continue };
        if map.get(p.name).is_some_and(|v| !v.is_null()) {
            continue;
        }
        let value = match p.ty {
            ParamType::Bool => Value::Bool(default == "true"),
            ParamType::Int => default
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or(Value::Null),
            _ => Value::String(default.to_owned()),
        };
        map.insert(p.name.to_owned(), value);
    }
    Value::Object(map)
}

/// Rewrites whole-number floats (`3.0`) as integers so typed decoding accepts what `validate`
/// accepted.
fn normalize_numbers(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => {
            if let Some(i) = as_int(value) {
                *value = Value::from(i);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalize_numbers),
        Value::Object(map) => map.values_mut().for_each(normalize_numbers),
        _ => {}
    }
}

/// Decodes validated params into a typed struct. `Null` decodes as `{}`; any failure is
/// `invalid_params`.
pub fn decode<T: DeserializeOwned>(params: &Value) -> Result<T, VerbError> {
    let mut value = match params {
        Value::Null => Value::Object(Map::new()),
        other => other.clone(),
    };
    normalize_numbers(&mut value);
    serde_json::from_value(value).map_err(|e| {
        VerbError::new(
            ErrorCode::InvalidParams,
            format!("params could not be read: {e}"),
        )
        .with_hint(Hint::new().verb("list-verbs").detail(
            "list-verbs gives this verb's parameter schema, including each parameter's type.",
        ))
    })
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::parse_request;
    use serde_json::json;

    fn req(verb: &str, params: Value) -> Request {
        Request::new(Some(json!(1)), verb, params)
    }

    #[test]
    fn registry_is_sorted_and_complete() {
        let names = verb_names();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(names, sorted);
        assert_eq!(
            names,
            [
                "capture-pane",
                "close-window",
                "explain-agent-detect",
                "explain-agent-screen",
                "focus-window",
                "get-agent-state",
                "get-option",
                "hello",
                "kill-session",
                "list-options",
                "list-sessions",
                "list-themes",
                "list-verbs",
                "list-windows",
                "list-workspaces",
                "move-window",
                "new-session",
                "new-window",
                "resize",
                "resurrect",
                "run",
                "run-command",
                "select-workspace",
                "send-keys",
                "send-text",
                "session-info",
                "set-agent-state",
                "set-layout",
                "set-option",
                "set-session-accent",
                "set-session-name",
                "set-window",
                "set-workspace-name",
                "set-workspace-order",
                "split-window",
                "subscribe",
                "unsubscribe",
                "upgrade",
                "wait-for"
            ]
        );
        // The spec's 35 verbs and the extensions: new-session, resurrect, run, upgrade.
        assert_eq!(names.len(), 39);
        for v in verbs() {
            assert!(!v.description.is_empty(), "{}", v.name);
            assert!(!v.examples.is_empty(), "{} has no example", v.name);
            let mut seen = std::collections::HashSet::new();
            for p in v.params.iter().chain(v.returns) {
                assert!(!p.description.is_empty(), "{}.{}", v.name, p.name);
            }
            for p in v.params {
                assert!(seen.insert(p.name), "{} declares {} twice", v.name, p.name);
                if let Some(d) = p.default {
                    if !p.accepted.is_empty() {
                        assert!(
                            p.accepted.contains(&d),
                            "{}.{} default outside accepted",
                            v.name,
                            p.name
                        );
                    }
                }
            }
        }
        assert!(find_verb("new-window").is_some_and(|v| !v.returns.is_empty()));
        for name in [
            "new-window",
            "split-window",
            "focus-window",
            "move-window",
            "set-window",
            "select-workspace",
            "list-workspaces",
            "set-layout",
            "run-command",
            "list-options",
            "set-option",
            "list-themes",
            "get-option",
        ] {
            assert!(
                find_verb(name).is_some_and(|v| !v.returns.is_empty()),
                "{name} documents no returns"
            );
        }
        for v in verbs() {
            for p in v.params {
                assert!(
                    !matches!(
                        p.ty,
                        ParamType::Float | ParamType::Object | ParamType::ObjectList
                    ),
                    "{}.{} has a result-only type",
                    v.name,
                    p.name
                );
            }
        }
    }

    #[test]
    fn every_example_is_a_valid_request_for_its_verb() {
        for v in verbs() {
            for ex in v.examples {
                assert!(!ex.contains('\n'), "{ex} spans lines");
                let r = parse_request(ex).unwrap_or_else(|e| panic!("{ex}: {e:?}"));
                assert_eq!(r.verb, v.name, "{ex}");
                assert!(r.id.is_some(), "{ex}");
                assert_eq!(validate(&r).map(|s| s.name), Ok(v.name), "{ex}");
                for p in v.params.iter().filter(|p| p.required) {
                    assert!(
                        r.params.get(p.name).is_some_and(|x| !x.is_null()),
                        "{ex} lacks {}",
                        p.name
                    );
                }
                for p in v.params.iter().filter(|p| !p.accepted.is_empty()) {
                    if let Some(val) = r.params.get(p.name).and_then(Value::as_str) {
                        assert!(check_accepted(v.name, p.name, val).is_ok(), "{ex}");
                    }
                }
            }
        }
    }

    #[test]
    fn unknown_verb_suggests_and_lists() {
        let err = validate(&req("list-window", Value::Null)).unwrap_err();
        assert_eq!(err.code, ErrorCode::UnknownVerb);
        assert_eq!(err.message, "unknown verb list-window");
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("list-windows"));
        assert_eq!(err.hint.verb.as_deref(), Some("list-verbs"));
        assert_eq!(err.hint.command.as_deref(), Some("tuios list-verbs"));
        assert_eq!(err.hint.available, verb_names());
        assert!(err.hint.detail.is_some());

        let err = validate(&req("sendkeys", Value::Null)).unwrap_err();
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("send-keys"));

        let long = "z".repeat(500);
        let err = validate(&req(&long, Value::Null)).unwrap_err();
        assert!(err.message.ends_with("... (500 bytes)"));
        assert_eq!(err.hint.did_you_mean, None);
    }

    #[test]
    fn params_must_be_an_object() {
        for bad in [json!([1]), json!("x"), json!(3), json!(true)] {
            let err = validate(&req("list-sessions", bad)).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidParams);
            assert_eq!(err.hint.verb.as_deref(), Some("list-verbs"));
        }
        assert!(validate(&req("list-sessions", Value::Null)).is_ok());
        assert!(validate(&req("list-sessions", json!({}))).is_ok());
    }

    #[test]
    fn unknown_param_is_refused_with_a_hint() {
        let err = validate(&req("capture-pane", json!({"session": "s", "Lines": 3}))).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParams);
        assert_eq!(err.message, "verb capture-pane has no parameter Lines");
        assert_eq!(err.hint.param.as_deref(), Some("Lines"));
        assert_eq!(err.hint.verb.as_deref(), Some("list-verbs"));
        assert_eq!(
            err.hint.command.as_deref(),
            Some("tuios list-verbs capture-pane")
        );
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("lines"));
        assert_eq!(
            err.hint.accepted,
            [
                "session",
                "window",
                "source",
                "styled",
                "scrollback",
                "ansi",
                "lines",
                "start",
                "end"
            ]
        );
        assert!(err.hint.detail.is_some());

        // A verb without parameters refuses every key.
        let err = validate(&req("list-sessions", json!({"session": "x"}))).unwrap_err();
        assert_eq!(err.hint.param.as_deref(), Some("session"));
        assert!(err.hint.accepted.is_empty());
    }

    #[test]
    fn every_optional_param_accepts_null_and_required_ones_refuse_it() {
        for v in verbs() {
            let params: Map<String, Value> = v
                .params
                .iter()
                .map(|p| (p.name.to_owned(), Value::Null))
                .collect();
            let result = validate(&req(v.name, Value::Object(params)));
            match v.params.iter().find(|p| p.required) {
                None => assert!(result.is_ok(), "{}", v.name),
                Some(p) => {
                    let err = result.unwrap_err();
                    assert_eq!(err.code, ErrorCode::InvalidParams, "{}", v.name);
                    assert_eq!(err.hint.param.as_deref(), Some(p.name), "{}", v.name);
                    assert!(err.message.starts_with(&format!("{} is required", p.name)));
                }
            }
        }
    }

    #[test]
    fn defaults_are_filled_in_where_left_out() {
        let spec = find_verb("wait-for").unwrap();
        let filled = with_defaults(
            spec,
            &json!({"condition": "window-idle", "idle": null, "timeout": 5}),
        );
        assert_eq!(
            filled,
            json!({"condition": "window-idle", "source": "recent", "fresh": false, "idle": 500, "timeout": 5})
        );
        assert_eq!(
            with_defaults(find_verb("list-sessions").unwrap(), &Value::Null),
            json!({})
        );
        // Every declared default decodes to its declared type.
        for v in verbs() {
            let filled = with_defaults(v, &Value::Null);
            for p in v.params.iter().filter(|p| p.default.is_some()) {
                assert!(p.ty.matches(&filled[p.name]), "{}.{}", v.name, p.name);
            }
        }
    }

    #[test]
    fn types_are_checked() {
        let ok = [
            ("resize", json!({"width": 80, "height": 24})),
            ("resize", json!({"width": 80.0, "height": 24.0})),
            (
                "new-window",
                json!({"command": ["a", "b"], "focus": false, "workspace": 2}),
            ),
            ("new-window", json!({"command": []})),
            ("send-keys", json!({"keys": "x", "literal": true})),
        ];
        for (verb, params) in ok {
            assert!(
                validate(&req(verb, params.clone())).is_ok(),
                "{verb} {params}"
            );
        }
        let bad = [
            ("resize", json!({"width": "80"}), "width"),
            ("resize", json!({"width": 80.5}), "width"),
            ("resize", json!({"height": 1e30}), "height"),
            ("resize", json!({"height": true}), "height"),
            ("new-window", json!({"command": "make"}), "command"),
            ("new-window", json!({"command": ["a", 1]}), "command"),
            ("new-window", json!({"command": ["a", null]}), "command"),
            ("new-window", json!({"focus": "yes"}), "focus"),
            ("new-window", json!({"name": 5}), "name"),
            ("send-keys", json!({"keys": ["a"]}), "keys"),
            ("capture-pane", json!({"lines": {}}), "lines"),
        ];
        for (verb, params, param) in bad {
            let err = validate(&req(verb, params.clone())).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidParams, "{verb} {params}");
            assert_eq!(err.hint.param.as_deref(), Some(param), "{verb} {params}");
            assert_eq!(err.hint.verb.as_deref(), Some("list-verbs"));
            assert!(err.message.contains(param), "{}", err.message);
        }
        assert!(ParamType::IntList.matches(&json!([1, 2.0, -3])));
        assert!(!ParamType::IntList.matches(&json!([1, 2.5])));
        assert!(!ParamType::IntList.matches(&json!(1)));
    }

    #[test]
    fn decode_handles_null_and_whole_floats() {
        #[derive(serde::Deserialize, Debug, Default)]
        struct P {
            width: Option<i64>,
            list: Option<Vec<i64>>,
            name: Option<String>,
        }
        let p: P = decode(&Value::Null).unwrap();
        assert!(p.width.is_none() && p.list.is_none() && p.name.is_none());
        let p: P = decode(&json!({"width": 80.0, "list": [1.0, 2], "name": null})).unwrap();
        assert_eq!(p.width, Some(80));
        assert_eq!(p.list, Some(vec![1, 2]));
        assert_eq!(p.name, None);
        let err = decode::<P>(&json!({"width": "x"})).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParams);
        assert_eq!(err.hint.verb.as_deref(), Some("list-verbs"));
    }

    #[test]
    fn list_verbs_shape() {
        let out = serde_json::to_value(list_verbs(None, "0.1.0-test").unwrap()).unwrap();
        assert_eq!(out["type"], "verb_list");
        assert_eq!(out["version"], PROTOCOL_VERSION);
        assert_eq!(out["min_version"], MIN_PROTOCOL_VERSION);
        assert_eq!(out["daemon_version"], "0.1.0-test");
        let env = out["envelope"].as_object().unwrap();
        for k in ["transport", "request", "success", "failure", "hint"] {
            assert!(env[k].as_str().is_some_and(|s| !s.is_empty()), "{k}");
        }
        let codes: Vec<&str> = out["error_codes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["code"].as_str().unwrap())
            .collect();
        let want: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(codes, want);
        for c in out["error_codes"].as_array().unwrap() {
            assert!(c["description"].as_str().is_some_and(|d| !d.is_empty()));
        }

        let verbs_out = out["verbs"].as_array().unwrap();
        let names: Vec<&str> = verbs_out
            .iter()
            .map(|v| v["verb"].as_str().unwrap())
            .collect();
        assert_eq!(names, verb_names());
        for v in verbs_out {
            let name = v["verb"].as_str().unwrap();
            let spec = find_verb(name).unwrap();
            assert!(v["params"].is_array(), "{name} params always present");
            assert_eq!(v.get("returns").is_some(), !spec.returns.is_empty());
            assert_eq!(v.get("examples").is_some(), !spec.examples.is_empty());
            for p in v["params"].as_array().unwrap() {
                let pname = p["name"].as_str().unwrap();
                let ps = spec.param(pname).unwrap();
                assert!(["string", "int", "bool", "[]string", "[]int"]
                    .contains(&p["type"].as_str().unwrap()));
                assert_eq!(p.get("required").is_some(), ps.required);
                if ps.required {
                    assert_eq!(p["required"], true);
                }
                let published: Vec<&str> = p
                    .get("accepted")
                    .map(|a| {
                        a.as_array()
                            .unwrap()
                            .iter()
                            .map(|s| s.as_str().unwrap())
                            .collect()
                    })
                    .unwrap_or_default();
                assert_eq!(published, accepted_of(name, pname), "{name}.{pname}");
                assert_eq!(p.get("default").and_then(Value::as_str), ps.default);
            }
        }
        let cp = verbs_out
            .iter()
            .find(|v| v["verb"] == "capture-pane")
            .unwrap();
        let source = cp["params"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "source")
            .unwrap();
        assert_eq!(source["accepted"], json!(["visible", "recent"]));
        assert_eq!(source["default"], "visible");
        let ls = verbs_out
            .iter()
            .find(|v| v["verb"] == "list-sessions")
            .unwrap();
        assert_eq!(ls["params"], json!([]));
    }

    #[test]
    fn list_verbs_for_one_verb() {
        let out = serde_json::to_value(list_verbs(Some("resize"), "x").unwrap()).unwrap();
        let verbs_out = out["verbs"].as_array().unwrap();
        assert_eq!(verbs_out.len(), 1);
        assert_eq!(verbs_out[0]["verb"], "resize");
        assert_eq!(out["error_codes"].as_array().unwrap().len(), 13);
        assert_eq!(
            list_verbs(Some(""), "x").unwrap().verbs.len(),
            verbs().len()
        );

        let err = list_verbs(Some("capture-pain"), "x").unwrap_err();
        assert_eq!(err.code, ErrorCode::UnknownVerb);
        assert_eq!(err.hint.param.as_deref(), Some("verb"));
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("capture-pane"));
        assert_eq!(err.hint.available, verb_names());
    }

    #[test]
    fn new_verbs_publish_their_accepted_sets() {
        // Declared as crate::commands::COMMAND_NAMES, so it cannot drift from the command table.
        assert_eq!(
            accepted_of("run-command", "command"),
            crate::commands::command_names()
        );
        assert_eq!(accepted_of("focus-window", "relative"), ["next", "prev"]);
        assert_eq!(
            accepted_of("focus-window", "direction"),
            ["left", "right", "up", "down"]
        );
        assert_eq!(
            accepted_of("split-window", "direction"),
            ["horizontal", "vertical"]
        );
        // The option registry lives elsewhere; key stays open here.
        assert!(accepted_of("set-option", "key").is_empty());
        assert!(accepted_of("get-option", "key").is_empty());

        let err = check_accepted("run-command", "command", "SwitchWorkpace").unwrap_err();
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("SwitchWorkspace"));
        let err = check_accepted("split-window", "direction", "vertcal").unwrap_err();
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("vertical"));

        let required = |verb: &str| -> Vec<&str> {
            find_verb(verb)
                .unwrap()
                .params
                .iter()
                .filter(|p| p.required)
                .map(|p| p.name)
                .collect()
        };
        assert_eq!(required("select-workspace"), ["workspace"]);
        assert_eq!(required("move-window"), ["workspace"]);
        assert_eq!(required("split-window"), ["direction"]);
        assert_eq!(required("run-command"), ["command"]);
        assert_eq!(required("set-workspace-name"), ["workspace"]);
        assert_eq!(required("set-workspace-order"), ["order"]);
        assert_eq!(required("set-option"), ["key"]);
        assert_eq!(required("get-option"), ["key"]);
        for verb in [
            "set-window",
            "set-layout",
            "list-options",
            "list-themes",
            "focus-window",
        ] {
            assert!(required(verb).is_empty(), "{verb}");
        }
        let default = |verb: &str, p: &str| find_verb(verb).unwrap().param(p).unwrap().default;
        assert_eq!(default("move-window", "follow"), Some("false"));
        assert_eq!(default("set-layout", "equalize"), Some("false"));
        assert_eq!(default("set-layout", "rotate"), Some("false"));
        assert_eq!(default("set-layout", "tiling"), None);

        let types = [
            ("set-workspace-order", json!({"order": [3, 1.0, 2]}), true),
            ("set-workspace-order", json!({"order": ["3"]}), false),
            (
                "run-command",
                json!({"command": "Type", "args": ["hi"]}),
                true,
            ),
            (
                "run-command",
                json!({"command": "SwitchWorkspace", "args": [2]}),
                false,
            ),
            ("set-option", json!({"key": "k", "value": true}), false),
            (
                "set-window",
                json!({"name": null, "minimized": false}),
                true,
            ),
            ("set-layout", json!({"tiling": "on"}), false),
        ];
        for (verb, params, ok) in types {
            assert_eq!(
                validate(&req(verb, params.clone())).is_ok(),
                ok,
                "{verb} {params}"
            );
        }
    }

    #[test]
    fn accepted_values() {
        assert_eq!(accepted_of("capture-pane", "source"), CAPTURE_SOURCES);
        assert!(accepted_of("capture-pane", "nope").is_empty());
        assert!(accepted_of("nope", "source").is_empty());
        assert!(check_accepted("capture-pane", "source", "recent").is_ok());
        assert!(check_accepted("send-text", "text", "anything").is_ok());
        let err = check_accepted("capture-pane", "source", "visibel").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParams);
        assert_eq!(err.hint.param.as_deref(), Some("source"));
        assert_eq!(err.hint.accepted, ["visible", "recent"]);
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("visible"));
    }
}
