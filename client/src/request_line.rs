//! The request line every JSON command sends, and the params of `tuios call` (raw JSON).

use serde_json::Value;

/// Parse the PARAMS-JSON argument of `tuios call`: absent means no params; anything given
/// must be a JSON object (or null), since that is all the envelope accepts.
pub fn call_params(text: Option<&str>) -> Result<Option<Value>, String> {
    let Some(text) = text else { return Ok(None) };
    if text.trim().is_empty() {
        return Ok(None);
    }
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("PARAMS-JSON is not valid JSON: {e}"))?;
    match value {
        Value::Null => Ok(None),
        Value::Object(_) => Ok(Some(value)),
        other => Err(format!(
            "PARAMS-JSON must be a JSON object such as {{\"session\":\"work\"}}, not {}",
            json_kind(&other)
        )),
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

/// The whole request line (newline included) every JSON command sends; always `id` 1, since
/// each connection carries one request.
pub fn request_line(verb: &str, params: Option<&Value>) -> String {
    let req = protocol::envelope::RequestLine::new(
        Some(Value::from(1)),
        verb,
        params.cloned().unwrap_or(Value::Null),
    );
    let mut line = req.to_line();
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn call_params_accepts_objects_only() {
        assert_eq!(call_params(None), Ok(None));
        assert_eq!(call_params(Some("  ")), Ok(None));
        assert_eq!(call_params(Some("null")), Ok(None));
        assert_eq!(
            call_params(Some(r#"{"session":"w"}"#)),
            Ok(Some(json!({"session": "w"})))
        );
        assert!(call_params(Some("[1]")).unwrap_err().contains("an array"));
        assert!(call_params(Some("{")).is_err());
    }

    #[test]
    fn request_line_is_one_json_line() {
        assert_eq!(
            request_line("list-windows", Some(&json!({"session": "w"}))),
            "{\"id\":1,\"verb\":\"list-windows\",\"params\":{\"session\":\"w\"}}\n"
        );
        assert_eq!(
            request_line("hello", None),
            "{\"id\":1,\"verb\":\"hello\"}\n"
        );
    }
}
