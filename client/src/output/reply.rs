//! Generic replies: any result as `key: value` lines.

use serde_json::Value;

/// Any result object as `key: value` lines, `type` left out. Used where no richer form exists.
pub fn key_values(result: &Value) -> String {
    let Some(obj) = result.as_object() else {
        return format!("{result}\n");
    };
    let mut out = String::new();
    for (k, v) in obj.iter().filter(|(k, _)| k.as_str() != "type") {
        let text = match v {
            Value::String(t) => t.clone(),
            other => other.to_string(),
        };
        out.push_str(&format!("{k}: {text}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_key_but_the_type_in_order() {
        assert_eq!(
            key_values(&json!({"type": "t", "b": 1, "a": "x"})),
            "a: x\nb: 1\n"
        );
    }
}
