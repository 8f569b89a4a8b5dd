//! Generic replies: any result, or a verb's reply, as `key: value` lines.

use serde_json::Value;

/// A verb's reply as `key: value` lines, in the order the verb declares its reply keys
/// (`returns`), with any key it does not declare after them; `type` left out. What a verb
/// without a renderer of its own prints.
pub fn verb_reply(verb: &str, result: &Value) -> String {
    reply_lines(protocol::registry::find_verb(verb), result)
}

fn reply_lines(spec: Option<&protocol::registry::VerbSpec>, result: &Value) -> String {
    let Some(obj) = result.as_object() else {
        return format!("{result}\n");
    };
    let declared: Vec<&str> = spec
        .map(|s| s.returns.iter().map(|p| p.name).collect())
        .unwrap_or_default();
    let rank = |k: &str| {
        declared
            .iter()
            .position(|d| *d == k)
            .unwrap_or(declared.len())
    };
    let mut keys: Vec<&String> = obj.keys().filter(|k| k.as_str() != "type").collect();
    // Stable: undeclared keys keep their (alphabetical) order after the declared ones.
    keys.sort_by_key(|k| rank(k));
    let mut out = String::new();
    for k in keys {
        let text = match &obj[k.as_str()] {
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
    fn a_reply_without_a_renderer_follows_its_declared_keys() {
        let reply = json!({
            "type": "session_info",
            "zzz_extra": 1,
            "width": 80,
            "session_name": "w",
            "session_id": "id",
            "workspace_names": {"2": "logs"},
        });
        let text = verb_reply("session-info", &reply);
        let keys: Vec<&str> = text.lines().map(|l| l.split(':').next().unwrap()).collect();
        // session-info declares session_name, session_id, ... width; undeclared keys come last.
        assert_eq!(
            keys,
            [
                "session_name",
                "session_id",
                "workspace_names",
                "width",
                "zzz_extra"
            ]
        );
        assert!(
            text.contains("workspace_names: {\"2\":\"logs\"}\n"),
            "{text}"
        );
        assert!(!text.contains("session_info"));
        // An unknown verb still prints every key.
        assert_eq!(
            verb_reply("no-such-verb", &json!({"b": 1, "a": "x"})),
            "a: x\nb: 1\n"
        );
    }
}
