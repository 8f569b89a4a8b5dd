//! Option and theme verbs: the options table, one value, a change, and the themes.

use serde_json::Value;

use super::format::{b, i, plain, s};
use super::table;

/// `tuios list-options`: PATH TYPE DEFAULT [SESSION] DESCRIPTION. The SESSION column appears
/// only when the session set something; the description carries accepted values and ranges.
pub fn options_table(result: &Value) -> String {
    let options = result
        .get("options")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let with_session = options.iter().any(|o| o.get("session_value").is_some());
    let rows: Vec<Vec<String>> = options
        .iter()
        .map(|o| {
            let default = match s(o, "default") {
                "" => "\"\"".to_string(),
                d => d.to_string(),
            };
            let mut desc = s(o, "description").to_string();
            if let Some(acc) = o.get("accepted").and_then(Value::as_array) {
                let list: Vec<String> = acc.iter().map(plain).collect();
                desc.push_str(&format!(" [{}]", list.join("|")));
            }
            match (o.get("min"), o.get("max")) {
                (Some(min), Some(max)) => {
                    desc.push_str(&format!(" [{}..{}]", plain(min), plain(max)))
                }
                (Some(min), None) => desc.push_str(&format!(" [min {}]", plain(min))),
                (None, Some(max)) => desc.push_str(&format!(" [max {}]", plain(max))),
                (None, None) => {}
            }
            if let Some(dep) = o.get("deprecated").filter(|d| !d.is_null()) {
                desc = format!("DEPRECATED ({}): {desc}", plain(dep));
            }
            let mut row = vec![s(o, "path").to_string(), s(o, "type").to_string(), default];
            if with_session {
                row.push(
                    o.get("session_value")
                        .map(|v| match plain(v).as_str() {
                            "" => "\"\"".to_string(),
                            t => t.to_string(),
                        })
                        .unwrap_or_else(|| "-".to_string()),
                );
            }
            row.push(desc);
            row
        })
        .collect();
    if with_session {
        table(
            &["PATH", "TYPE", "DEFAULT", "SESSION", "DESCRIPTION"],
            &rows,
        )
    } else {
        table(&["PATH", "TYPE", "DEFAULT", "DESCRIPTION"], &rows)
    }
}

/// `tuios get-option`: the bare value, so `$(tuios get-option theme)` works.
pub fn option_value(result: &Value) -> String {
    format!("{}\n", s(result, "value"))
}

pub fn option_set(result: &Value) -> String {
    let mut out = format!("{} = {}", s(result, "key"), s(result, "value"));
    if b(result, "applied") {
        out.push_str(" (applied)");
    }
    out.push('\n');
    let reason = s(result, "reason");
    if !b(result, "applied") && !reason.is_empty() {
        out.push_str(&format!("note: {reason}\n"));
    }
    if let Some(dep) = result.get("deprecated").and_then(Value::as_str) {
        out.push_str(&format!("note: deprecated: {dep}\n"));
    }
    out
}

/// `tuios list-themes`: the palette of a named theme with each colour's contrast against the
/// background, and/or the matching ids one per line.
pub fn themes(result: &Value) -> String {
    let mut out = String::new();
    if let Some(p) = result.get("palette") {
        let shade = if b(p, "dark") { "dark" } else { "light" };
        out.push_str(&format!(
            "{} ({}), {shade}, background {}\n",
            s(p, "id"),
            s(p, "display_name"),
            s(p, "bg")
        ));
        let rows: Vec<Vec<String>> = p
            .get("swatches")
            .and_then(Value::as_array)
            .map(|sw| {
                sw.iter()
                    .map(|c| {
                        let ratio = c.get("ratio").and_then(Value::as_f64).unwrap_or(0.0);
                        let floor = c.get("floor").and_then(Value::as_f64).unwrap_or(0.0);
                        vec![
                            s(c, "name").to_string(),
                            s(c, "hex").to_string(),
                            format!("{ratio:.2}"),
                            format!("{floor:.1}"),
                            if b(c, "passes") { "yes" } else { "no" }.to_string(),
                        ]
                    })
                    .collect()
            })
            .unwrap_or_default();
        out.push_str(&table(
            &["COLOUR", "HEX", "CONTRAST", "MIN", "LEGIBLE"],
            &rows,
        ));
    }
    if let Some(ids) = result.get("themes").and_then(Value::as_array) {
        if !out.is_empty() {
            out.push('\n');
        }
        if ids.is_empty() {
            out.push_str("no themes match\n");
        }
        for id in ids {
            out.push_str(&plain(id));
            out.push('\n');
        }
        if b(result, "truncated") {
            out.push_str(&format!(
                "(showing {} of {}; narrow the list with --filter)\n",
                ids.len(),
                i(result, "matched")
            ));
        }
    }
    if let Some(problems) = result.get("problems").and_then(Value::as_array) {
        for p in problems {
            out.push_str(&format!("note: {}\n", plain(p)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::columns;
    use serde_json::json;

    #[test]
    fn options_table_adds_the_session_column_only_when_set() {
        let row = |path: &str, session: Option<&str>| {
            let mut r = json!({"path": path, "type": "string", "default": "",
                "description": "D.", "accepted": ["a", "b"]});
            if let Some(v) = session {
                r["session_value"] = json!(v);
            }
            r
        };
        let plain_t = options_table(&json!({"options": [row("x.y", None)]}));
        assert_eq!(
            plain_t,
            "PATH  TYPE    DEFAULT  DESCRIPTION\nx.y   string  \"\"       D. [a|b]\n"
        );
        let with = options_table(&json!({"options": [row("x.y", Some("b")), row("x.z", None)]}));
        let lines: Vec<Vec<&str>> = with.lines().map(columns).collect();
        assert_eq!(
            lines[0],
            ["PATH", "TYPE", "DEFAULT", "SESSION", "DESCRIPTION"]
        );
        assert_eq!(lines[1], ["x.y", "string", "\"\"", "b", "D.", "[a|b]"]);
        assert_eq!(lines[2], ["x.z", "string", "\"\"", "-", "D.", "[a|b]"]);
        assert_eq!(
            option_value(&json!({"key": "k", "value": "thick"})),
            "thick\n"
        );
        assert_eq!(
            option_set(&json!({"key": "k", "value": "v", "applied": false, "reason": "r"})),
            "k = v\nnote: r\n"
        );
        assert_eq!(
            option_set(&json!({"key": "k", "value": "v", "applied": true})),
            "k = v (applied)\n"
        );
    }

    #[test]
    fn themes_list_ids_or_describe_a_palette() {
        assert_eq!(
            themes(&json!({"themes": ["a", "b"], "matched": 2, "total": 9})),
            "a\nb\n"
        );
        assert!(
            themes(&json!({"themes": ["a"], "matched": 150, "truncated": true}))
                .ends_with("(showing 1 of 150; narrow the list with --filter)\n")
        );
        assert_eq!(themes(&json!({"themes": []})), "no themes match\n");
        let palette = themes(&json!({"palette": {
            "id": "d", "display_name": "D", "dark": true, "bg": "#000000",
            "swatches": [{"name": "fg", "hex": "#ffffff", "ratio": 21.0, "floor": 4.5, "passes": true}]
        }}));
        let lines: Vec<&str> = palette.lines().collect();
        assert_eq!(lines[0], "d (D), dark, background #000000");
        assert_eq!(
            columns(lines[1]),
            ["COLOUR", "HEX", "CONTRAST", "MIN", "LEGIBLE"]
        );
        assert_eq!(columns(lines[2]), ["fg", "#ffffff", "21.00", "4.5", "yes"]);
    }
}
