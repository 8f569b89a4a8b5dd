//! Stable error codes, the optional hint object, and the error a verb returns.

use std::fmt;

use serde::de::{self, Deserializer};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

/// The stable error codes of the verb protocol. Scripts branch on these strings, so they never
/// change; the variant order is the catalog order `list-verbs` publishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    InvalidRequest,
    UnknownVerb,
    InvalidParams,
    SessionNotFound,
    WindowNotFound,
    NoWindows,
    PtyNotFound,
    NeedsClient,
    OptionNotFound,
    CommandFailed,
    Timeout,
    ProtocolMismatch,
    Internal,
}

impl ErrorCode {
    /// Every code, in catalog order.
    pub const ALL: [ErrorCode; 13] = [
        ErrorCode::InvalidRequest,
        ErrorCode::UnknownVerb,
        ErrorCode::InvalidParams,
        ErrorCode::SessionNotFound,
        ErrorCode::WindowNotFound,
        ErrorCode::NoWindows,
        ErrorCode::PtyNotFound,
        ErrorCode::NeedsClient,
        ErrorCode::OptionNotFound,
        ErrorCode::CommandFailed,
        ErrorCode::Timeout,
        ErrorCode::ProtocolMismatch,
        ErrorCode::Internal,
    ];

    /// The code as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::UnknownVerb => "unknown_verb",
            ErrorCode::InvalidParams => "invalid_params",
            ErrorCode::SessionNotFound => "session_not_found",
            ErrorCode::WindowNotFound => "window_not_found",
            ErrorCode::NoWindows => "no_windows",
            ErrorCode::PtyNotFound => "pty_not_found",
            ErrorCode::NeedsClient => "needs_client",
            ErrorCode::OptionNotFound => "option_not_found",
            ErrorCode::CommandFailed => "command_failed",
            ErrorCode::Timeout => "timeout",
            ErrorCode::ProtocolMismatch => "protocol_mismatch",
            ErrorCode::Internal => "internal",
        }
    }

    /// The wire string back to a code; `None` for a string this build does not know.
    pub fn parse(s: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// One sentence saying what the code means, as published by `list-verbs`.
    pub fn description(self) -> &'static str {
        match self {
            ErrorCode::InvalidRequest => {
                "The line is not a usable request envelope, or the verb cannot be used in the connection's current state."
            }
            ErrorCode::UnknownVerb => {
                "There is no verb by that name. The hint offers the nearest spelling and lists every verb."
            }
            ErrorCode::InvalidParams => {
                "A parameter is missing, has the wrong type, or holds a value outside its accepted set. The hint names it."
            }
            ErrorCode::SessionNotFound => {
                "No live session has that name. The hint lists the sessions that exist."
            }
            ErrorCode::WindowNotFound => {
                "The window target matches no window. The hint lists the windows that can be addressed."
            }
            ErrorCode::NoWindows => "The session exists but has no window to act on.",
            ErrorCode::PtyNotFound => {
                "The window's process has already exited, so it has no live terminal to use."
            }
            ErrorCode::NeedsClient => {
                "The verb needs an attached client to draw the screen, and no client is attached."
            }
            ErrorCode::OptionNotFound => {
                "There is no option with that path. The hint offers the nearest path and lists them all; list-options describes each."
            }
            ErrorCode::CommandFailed => {
                "The verb was handed to the attached client, and the client reported a failure."
            }
            ErrorCode::Timeout => "A wait-for condition was not met before its timeout ran out.",
            ErrorCode::ProtocolMismatch => {
                "The caller speaks a protocol version outside the range this daemon serves."
            }
            ErrorCode::Internal => "Something failed inside the daemon that the caller could not have caused.",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ErrorCode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ErrorCode::parse(s).ok_or_else(|| format!("unknown error code {s:?}"))
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        ErrorCode::parse(&s).ok_or_else(|| de::Error::custom(format!("unknown error code {s:?}")))
    }
}

/// Optional guidance attached to an error: what to call, which parameter was wrong, what exists.
/// Every field is optional; an all-empty hint is never sent. Field order is the wire order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Hint {
    /// A protocol verb that resolves or explains the failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verb: Option<String>,
    /// An exact CLI command to run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The offending parameter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    /// The closed set of values `param` takes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub accepted: Vec<String>,
    /// The closest existing name to what was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub did_you_mean: Option<String>,
    /// What does exist (sessions, windows, verbs, ...).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub available: Vec<String>,
    /// One sentence of context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

fn strings<I>(items: I) -> Vec<String>
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    items.into_iter().map(|s| s.as_ref().to_owned()).collect()
}

impl Hint {
    pub fn new() -> Self {
        Hint::default()
    }

    /// True when no field would be serialized.
    pub fn is_empty(&self) -> bool {
        self.verb.is_none()
            && self.command.is_none()
            && self.param.is_none()
            && self.accepted.is_empty()
            && self.did_you_mean.is_none()
            && self.available.is_empty()
            && self.detail.is_none()
    }

    pub fn verb(mut self, verb: impl Into<String>) -> Self {
        self.verb = Some(verb.into());
        self
    }

    pub fn command(mut self, command: impl Into<String>) -> Self {
        self.command = Some(command.into());
        self
    }

    pub fn param(mut self, param: impl Into<String>) -> Self {
        self.param = Some(param.into());
        self
    }

    pub fn accepted<I>(mut self, accepted: I) -> Self
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        self.accepted = strings(accepted);
        self
    }

    /// Takes an `Option` so the result of `closest_match` can be passed straight in.
    pub fn did_you_mean(mut self, suggestion: Option<String>) -> Self {
        self.did_you_mean = suggestion;
        self
    }

    pub fn available<I>(mut self, available: I) -> Self
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        self.available = strings(available);
        self
    }

    pub fn detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }
}

/// The failure of one verb call: a stable code, a human message, and an optional hint.
#[derive(Debug, Clone, PartialEq)]
pub struct VerbError {
    pub code: ErrorCode,
    pub message: String,
    pub hint: Hint,
}

impl VerbError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        VerbError {
            code,
            message: message.into(),
            hint: Hint::default(),
        }
    }

    pub fn with_hint(mut self, hint: Hint) -> Self {
        self.hint = hint;
        self
    }

    /// `invalid_params` naming the parameter at fault in the hint.
    pub fn invalid_params(param: &str, message: impl Into<String>) -> Self {
        VerbError::new(ErrorCode::InvalidParams, message).with_hint(Hint::new().param(param))
    }

    /// `invalid_request` without a hint.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        VerbError::new(ErrorCode::InvalidRequest, message)
    }

    /// `internal` without a hint.
    pub fn internal(message: impl Into<String>) -> Self {
        VerbError::new(ErrorCode::Internal, message)
    }

    /// The `error` object of a failure response: `{"code","message","hint"?}`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut obj = serde_json::Map::new();
        obj.insert("code".into(), self.code.as_str().into());
        obj.insert("message".into(), self.message.clone().into());
        if !self.hint.is_empty() {
            // A Hint holds only strings and string lists, so conversion cannot fail.
            obj.insert(
                "hint".into(),
                serde_json::to_value(&self.hint).unwrap_or(serde_json::Value::Null),
            );
        }
        serde_json::Value::Object(obj)
    }

    /// Reads an `error` object back (client side). `None` when it is not one, or when its code is
    /// not one this build knows.
    pub fn from_json(value: &serde_json::Value) -> Option<VerbError> {
        let obj = value.as_object()?;
        let code = ErrorCode::parse(obj.get("code")?.as_str()?)?;
        let message = obj
            .get("message")
            .and_then(|m| m.as_str())
            .unwrap_or_default()
            .to_owned();
        let hint = match obj.get("hint") {
            Some(h) if !h.is_null() => serde_json::from_value(h.clone()).ok()?,
            _ => Hint::default(),
        };
        Some(VerbError {
            code,
            message,
            hint,
        })
    }
}

/// Serializes as the wire `error` object, keeping the key order `code`, `message`, `hint`.
impl Serialize for VerbError {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let with_hint = !self.hint.is_empty();
        let mut st = serializer.serialize_struct("VerbError", if with_hint { 3 } else { 2 })?;
        st.serialize_field("code", &self.code)?;
        st.serialize_field("message", &self.message)?;
        if with_hint {
            st.serialize_field("hint", &self.hint)?;
        } else {
            st.skip_field("hint")?;
        }
        st.end()
    }
}

impl fmt::Display for VerbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for VerbError {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn codes_round_trip_in_catalog_order() {
        let names: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            names,
            [
                "invalid_request",
                "unknown_verb",
                "invalid_params",
                "session_not_found",
                "window_not_found",
                "no_windows",
                "pty_not_found",
                "needs_client",
                "option_not_found",
                "command_failed",
                "timeout",
                "protocol_mismatch",
                "internal"
            ]
        );
        for code in ErrorCode::ALL {
            assert_eq!(ErrorCode::parse(code.as_str()), Some(code));
            assert_eq!(serde_json::to_value(code).unwrap(), json!(code.as_str()));
            let back: ErrorCode = serde_json::from_value(json!(code.as_str())).unwrap();
            assert_eq!(back, code);
            assert!(!code.description().is_empty());
        }
        assert_eq!(ErrorCode::parse("nope"), None);
    }

    #[test]
    fn empty_hint_is_omitted() {
        let err = VerbError::internal("boom");
        assert_eq!(
            serde_json::to_string(&err).unwrap(),
            r#"{"code":"internal","message":"boom"}"#
        );
        assert_eq!(
            err.to_json(),
            json!({"code": "internal", "message": "boom"})
        );
    }

    #[test]
    fn hint_serializes_in_wire_order_and_skips_empty_fields() {
        let hint = Hint::new()
            .detail("d")
            .available(["a", "b"])
            .did_you_mean(Some("x".into()))
            .accepted(Vec::<String>::new())
            .param("p")
            .command("tuios ls")
            .verb("list-verbs");
        assert_eq!(
            serde_json::to_string(&hint).unwrap(),
            r#"{"verb":"list-verbs","command":"tuios ls","param":"p","did_you_mean":"x","available":["a","b"],"detail":"d"}"#
        );
        assert!(!hint.is_empty());
        assert!(Hint::new().did_you_mean(None).is_empty());
    }

    #[test]
    fn error_json_round_trips() {
        let err = VerbError::invalid_params("keys", "bad key")
            .with_hint(Hint::new().param("keys").accepted(["a"]).detail("why"));
        let line = serde_json::to_string(&err).unwrap();
        assert_eq!(
            line,
            r#"{"code":"invalid_params","message":"bad key","hint":{"param":"keys","accepted":["a"],"detail":"why"}}"#
        );
        assert_eq!(VerbError::from_json(&err.to_json()), Some(err.clone()));
        assert_eq!(err.to_string(), "invalid_params: bad key");
        assert_eq!(
            VerbError::from_json(&json!({"code": "what", "message": "x"})),
            None
        );
    }
}
