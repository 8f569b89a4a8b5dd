//! Request and response lines of the JSON verb protocol.
//!
//! A request is one JSON object per line: `{"id":any?, "verb":string, "params":object?}`. A response
//! echoes the id exactly as sent (absent when absent) and carries either `result` or `error`.

use serde::Serialize;
use serde_json::Value;

use crate::error::{ErrorCode, Hint, VerbError};
use crate::registry::table::verb_names;

/// One parsed request line, as sent: the id, the verb's name and its params as JSON. The
/// decoded, typed request is [`crate::verbs::Request`].
#[derive(Debug, Clone, PartialEq)]
pub struct RequestLine {
    /// `None` when the request had no `id`; `Some(Value::Null)` for an explicit `null`.
    pub id: Option<Value>,
    pub verb: String,
    /// The params object, or `Null` when absent or null. Any other JSON type is kept as is so that
    /// validation can report it as `invalid_params`.
    pub params: Value,
}

impl RequestLine {
    pub fn new(id: Option<Value>, verb: impl Into<String>, params: Value) -> Self {
        RequestLine {
            id,
            verb: verb.into(),
            params,
        }
    }

    /// The request as one compact line (no trailing newline), key order `id`, `verb`, `params`;
    /// `id` and `params` are left out when absent / null. For clients.
    pub fn to_line(&self) -> String {
        #[derive(Serialize)]
        struct Keys<'a> {
            #[serde(skip_serializing_if = "Option::is_none")]
            id: &'a Option<Value>,
            verb: &'a str,
            #[serde(skip_serializing_if = "Value::is_null")]
            params: &'a Value,
        }
        to_line(&Keys {
            id: &self.id,
            verb: &self.verb,
            params: &self.params,
        })
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

fn malformed(reason: impl std::fmt::Display) -> (Option<Value>, VerbError) {
    (
        None,
        VerbError::invalid_request(format!("malformed JSON request: {reason}")),
    )
}

/// Parses one request line. Surrounding whitespace is ignored (the caller skips blank lines).
///
/// Errors carry the id to echo: a line that is not a JSON object, or whose `verb` is not a string,
/// is answered without an id and without a hint (we cannot trust anything in it); a request with a
/// missing or empty `verb` echoes its id and gets a hint listing every verb.
pub fn parse_request(line: &str) -> Result<RequestLine, (Option<Value>, VerbError)> {
    let value: Value = match serde_json::from_str(line.trim()) {
        Ok(v) => v,
        Err(e) => return Err(malformed(e)),
    };
    let Value::Object(mut obj) = value else {
        return Err(malformed(format!(
            "expected a JSON object, got {}",
            json_kind(&value)
        )));
    };
    let verb = match obj.remove("verb") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(malformed(format!(
                "\"verb\" must be a string, got {}",
                json_kind(&other)
            )))
        }
    };
    let id = obj.remove("id");
    let params = obj.remove("params").unwrap_or(Value::Null);
    if verb.is_empty() {
        let err = VerbError::new(ErrorCode::InvalidRequest, "the request names no verb: \"verb\" is missing or empty")
            .with_hint(
                Hint::new()
                    .verb("list-verbs")
                    .param("verb")
                    .available(verb_names())
                    .detail(r#"Send one object per line, shaped like {"id":1,"verb":"list-verbs","params":{}}."#),
            );
        return Err((id, err));
    }
    Ok(RequestLine { id, verb, params })
}

/// Parses one request line as it came off the socket. Like [`parse_request`], except that a line
/// that is not valid UTF-8 is refused naming the field that holds the bad bytes (`params.text`,
/// `verb`), rather than decoded with replacement characters that would then be typed into a
/// window or compared against names. The id is echoed when it can be read.
pub fn parse_request_bytes(line: &[u8]) -> Result<RequestLine, (Option<Value>, VerbError)> {
    let bad_at = match std::str::from_utf8(line) {
        Ok(text) => return parse_request(text),
        Err(e) => e.valid_up_to(),
    };
    // The valid prefix tells where the bad bytes sit; the lossy decode, only which id to echo.
    let prefix = std::str::from_utf8(&line[..bad_at]).unwrap_or_default();
    let field = json_path_at(prefix);
    let id = serde_json::from_str::<Value>(String::from_utf8_lossy(line).trim())
        .ok()
        .and_then(|v| match v {
            Value::Object(mut obj) => obj.remove("id"),
            _ => None,
        });
    let err = match field.as_deref() {
        Some(path) if path.starts_with("params.") => {
            let param = path["params.".len()..]
                .split(['.', '['])
                .next()
                .unwrap_or_default();
            VerbError::new(
                ErrorCode::InvalidParams,
                format!("parameter {path} is not valid UTF-8 (byte {bad_at} of the line)"),
            )
            .with_hint(Hint::new().param(param).detail(
                "JSON text must be UTF-8. To send arbitrary bytes to a window, use send-keys with raw hex tokens.",
            ))
        }
        Some(path) => VerbError::invalid_request(format!(
            "malformed JSON request: {path} is not valid UTF-8 (byte {bad_at} of the line)"
        )),
        None => VerbError::invalid_request(format!(
            "malformed JSON request: the line is not valid UTF-8 (byte {bad_at})"
        )),
    };
    Err((id, err))
}

/// Where in a JSON document the end of `prefix` falls, as a path (`params.command[2]`, `verb`,
/// `params.text (a key)`); None outside any string. `prefix` is a valid-UTF-8 start of a JSON
/// text that stops inside a string.
fn json_path_at(prefix: &str) -> Option<String> {
    enum Nesting {
        /// In an object: the last key read, and whether the next string is a key.
        Object {
            key: Option<String>,
            expect_key: bool,
        },
        Array {
            index: usize,
        },
    }
    let mut stack: Vec<Nesting> = Vec::new();
    let mut in_string: Option<String> = None;
    let mut escaped = false;
    for c in prefix.chars() {
        if let Some(buf) = in_string.as_mut() {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                let s = in_string.take().unwrap_or_default();
                if let Some(Nesting::Object { key, expect_key }) = stack.last_mut() {
                    if *expect_key {
                        *key = Some(s);
                        *expect_key = false;
                    }
                }
            } else if buf.len() < 256 {
                buf.push(c);
            }
            continue;
        }
        match c {
            '"' => in_string = Some(String::new()),
            '{' => stack.push(Nesting::Object {
                key: None,
                expect_key: true,
            }),
            '[' => stack.push(Nesting::Array { index: 0 }),
            '}' | ']' => {
                stack.pop();
            }
            ',' => match stack.last_mut() {
                Some(Nesting::Object { key, expect_key }) => {
                    *key = None;
                    *expect_key = true;
                }
                Some(Nesting::Array { index }) => *index += 1,
                None => {}
            },
            _ => {}
        }
    }
    in_string.as_ref()?;
    let mut path = String::new();
    let mut in_key = false;
    for (i, frame) in stack.iter().enumerate() {
        let last = i + 1 == stack.len();
        match frame {
            Nesting::Object { key, expect_key } => {
                if last && *expect_key {
                    in_key = true;
                    break;
                }
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&crate::closest::echo_name(key.as_deref().unwrap_or("?")));
            }
            Nesting::Array { index } => path.push_str(&format!("[{index}]")),
        }
    }
    if path.is_empty() {
        return Some(if in_key {
            "a key".to_owned()
        } else {
            "the request".to_owned()
        });
    }
    if in_key {
        path.push_str(" (a key)");
    }
    Some(path)
}

fn to_line<T: Serialize>(value: &T) -> String {
    // Serializing JSON values and plain structs of them cannot fail; fall back to the fixed line
    // the protocol reserves for an encoding failure rather than panic on a connection task.
    serde_json::to_string(value).unwrap_or_else(|_| {
        r#"{"error":{"code":"internal","message":"the response could not be encoded"}}"#.to_owned()
    })
}

/// A success response line: `{"id":..,"result":..}` (id left out when the request had none).
/// Compact, without a trailing newline.
pub fn success_line(id: &Option<Value>, result: &Value) -> String {
    #[derive(Serialize)]
    struct SuccessLine<'a> {
        #[serde(skip_serializing_if = "Option::is_none")]
        id: &'a Option<Value>,
        result: &'a Value,
    }
    to_line(&SuccessLine { id, result })
}

/// A failure response line: `{"id":..,"error":{"code","message","hint"?}}`.
pub fn failure_line(id: &Option<Value>, err: &VerbError) -> String {
    #[derive(Serialize)]
    struct FailureLine<'a> {
        #[serde(skip_serializing_if = "Option::is_none")]
        id: &'a Option<Value>,
        error: &'a VerbError,
    }
    to_line(&FailureLine { id, error: err })
}

/// An event line of a subscription stream (compact, no trailing newline).
pub fn event_line(event: &Value) -> String {
    to_line(event)
}

/// One line read back by a client.
#[derive(Debug, Clone, PartialEq)]
pub enum Response {
    Success {
        id: Option<Value>,
        result: Value,
    },
    Failure {
        id: Option<Value>,
        error: VerbError,
    },
    /// A subscription event (an object with a top-level `type` and no `result`/`error`).
    Event(Value),
}

/// Parses a line a daemon wrote (client side).
pub fn parse_response(line: &str) -> Result<Response, String> {
    let value: Value = serde_json::from_str(line.trim())
        .map_err(|e| format!("the daemon sent a line that is not JSON: {e}"))?;
    let Value::Object(mut obj) = value else {
        return Err("the daemon sent a line that is not a JSON object".to_owned());
    };
    let id = obj.remove("id");
    if let Some(result) = obj.remove("result") {
        return Ok(Response::Success { id, result });
    }
    if let Some(error) = obj.remove("error") {
        return VerbError::from_json(&error)
            .map(|error| Response::Failure { id, error })
            .ok_or_else(|| format!("the daemon sent an error this client cannot read: {error}"));
    }
    if obj.contains_key("type") {
        if let Some(id) = id {
            obj.insert("id".into(), id);
        }
        return Ok(Response::Event(Value::Object(obj)));
    }
    Err("the daemon sent a line with neither result, error nor event type".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_of_every_kind_are_kept() {
        for (line, want) in [
            (r#"{"id":1,"verb":"list-sessions"}"#, Some(json!(1))),
            (r#"{"id":"abc","verb":"list-sessions"}"#, Some(json!("abc"))),
            (
                r#"{"id":{"k":[1,2]},"verb":"list-sessions"}"#,
                Some(json!({"k":[1,2]})),
            ),
            (r#"{"id":null,"verb":"list-sessions"}"#, Some(Value::Null)),
            (r#"{"verb":"list-sessions"}"#, None),
            (r#"{"id":2.5,"verb":"list-sessions"}"#, Some(json!(2.5))),
        ] {
            let req = parse_request(line).unwrap();
            assert_eq!(req.id, want, "{line}");
            assert_eq!(req.verb, "list-sessions");
            assert_eq!(req.params, Value::Null);
        }
    }

    #[test]
    fn ids_are_echoed_as_sent() {
        let result = json!({"type": "ok"});
        assert_eq!(
            success_line(&Some(json!(7)), &result),
            r#"{"id":7,"result":{"type":"ok"}}"#
        );
        assert_eq!(
            success_line(&Some(json!("x")), &result),
            r#"{"id":"x","result":{"type":"ok"}}"#
        );
        assert_eq!(
            success_line(&Some(Value::Null), &result),
            r#"{"id":null,"result":{"type":"ok"}}"#
        );
        assert_eq!(success_line(&None, &result), r#"{"result":{"type":"ok"}}"#);
        let err = VerbError::internal("boom");
        assert_eq!(
            failure_line(&Some(json!([1])), &err),
            r#"{"id":[1],"error":{"code":"internal","message":"boom"}}"#
        );
        assert_eq!(
            failure_line(&None, &err),
            r#"{"error":{"code":"internal","message":"boom"}}"#
        );
        assert_eq!(event_line(&json!({"seq": 1})), r#"{"seq":1}"#);
    }

    #[test]
    fn params_are_kept() {
        let req = parse_request(r#"  {"id":1,"verb":"send-keys","params":{"keys":"ls,Enter"}}  "#)
            .unwrap();
        assert_eq!(req.params, json!({"keys": "ls,Enter"}));
        let req = parse_request(r#"{"verb":"send-keys","params":null}"#).unwrap();
        assert_eq!(req.params, Value::Null);
        // Not an object: kept for the validator to refuse with invalid_params.
        let req = parse_request(r#"{"verb":"send-keys","params":[1]}"#).unwrap();
        assert_eq!(req.params, json!([1]));
    }

    #[test]
    fn leading_whitespace_and_newline() {
        let req = parse_request("\t \r\n {\"id\":3,\"verb\":\"hello\"}\r\n").unwrap();
        assert_eq!(req.verb, "hello");
    }

    #[test]
    fn malformed_lines_have_no_id_and_no_hint() {
        for line in [
            "",
            "not json",
            r#"{"id":1,"verb":"list-sessions""#,
            r#"[{"id":1,"verb":"list-sessions"}]"#,
            r#"{"id":1,"verb":5}"#,
            r#"{"id":1,"verb":["a"]}"#,
            "42",
            r#"{"id":1} trailing"#,
        ] {
            let (id, err) = parse_request(line).unwrap_err();
            assert_eq!(id, None, "{line}");
            assert_eq!(err.code, ErrorCode::InvalidRequest);
            assert!(
                err.message.starts_with("malformed JSON request: "),
                "{}",
                err.message
            );
            assert!(err.hint.is_empty());
        }
    }

    #[test]
    fn missing_verb_echoes_id_and_hints() {
        for line in [
            r#"{"id":9}"#,
            r#"{"id":9,"verb":""}"#,
            r#"{"id":9,"verb":null,"params":{}}"#,
        ] {
            let (id, err) = parse_request(line).unwrap_err();
            assert_eq!(id, Some(json!(9)));
            assert_eq!(err.code, ErrorCode::InvalidRequest);
            assert_eq!(err.hint.param.as_deref(), Some("verb"));
            assert_eq!(err.hint.verb.as_deref(), Some("list-verbs"));
            assert_eq!(err.hint.available, verb_names());
            assert!(err.hint.detail.is_some());
        }
    }

    #[test]
    fn request_line_round_trips() {
        let req = RequestLine::new(Some(json!(1)), "capture-pane", json!({"lines": 5}));
        assert_eq!(
            req.to_line(),
            r#"{"id":1,"verb":"capture-pane","params":{"lines":5}}"#
        );
        assert_eq!(parse_request(&req.to_line()).unwrap(), req);
        let bare = RequestLine::new(None, "list-sessions", Value::Null);
        assert_eq!(bare.to_line(), r#"{"verb":"list-sessions"}"#);
    }

    #[test]
    fn invalid_utf8_names_the_field() {
        let (id, err) = parse_request_bytes(
            b"{\"id\":4,\"verb\":\"send-text\",\"params\":{\"text\":\"a\xffb\"}}",
        )
        .unwrap_err();
        assert_eq!(id, Some(json!(4)));
        assert_eq!(err.code, ErrorCode::InvalidParams);
        assert_eq!(err.hint.param.as_deref(), Some("text"));
        assert!(err.message.contains("params.text"), "{}", err.message);

        let (_, err) = parse_request_bytes(
            b"{\"verb\":\"new-window\",\"params\":{\"command\":[\"a\",\"b\\\"\xc3\"]}}",
        )
        .unwrap_err();
        assert_eq!(err.hint.param.as_deref(), Some("command"));
        assert!(err.message.contains("params.command[1]"), "{}", err.message);

        let (id, err) = parse_request_bytes(b"{\"id\":1,\"verb\":\"li\xffst\"}").unwrap_err();
        assert_eq!(id, Some(json!(1)));
        assert_eq!(err.code, ErrorCode::InvalidRequest);
        assert!(
            err.message.contains("verb is not valid UTF-8"),
            "{}",
            err.message
        );

        let (_, err) =
            parse_request_bytes(b"{\"verb\":\"x\",\"params\":{\"k\xff\":1}}").unwrap_err();
        assert!(err.message.contains("params (a key)"), "{}", err.message);

        let (_, err) = parse_request_bytes(b"\xff").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest);

        // Valid UTF-8 goes through the ordinary parser.
        let req =
            parse_request_bytes("{\"verb\":\"hello\",\"params\":{\"client\":\"é\"}}".as_bytes())
                .unwrap();
        assert_eq!(req.params, json!({"client": "é"}));
    }

    #[test]
    fn responses_parse() {
        let ok = parse_response(&success_line(&Some(json!(1)), &json!({"type":"ok"}))).unwrap();
        assert_eq!(
            ok,
            Response::Success {
                id: Some(json!(1)),
                result: json!({"type":"ok"})
            }
        );
        let err = VerbError::invalid_params("keys", "bad");
        let failed = parse_response(&failure_line(&None, &err)).unwrap();
        assert_eq!(
            failed,
            Response::Failure {
                id: None,
                error: err
            }
        );
        let ev = parse_response(r#"{"seq":3,"type":"bell","session":"s"}"#).unwrap();
        assert_eq!(
            ev,
            Response::Event(json!({"seq":3,"type":"bell","session":"s"}))
        );
        assert!(parse_response("{}").is_err());
        assert!(parse_response("nope").is_err());
    }
}
