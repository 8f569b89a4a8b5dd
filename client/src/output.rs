//! Human-readable rendering of verb results. Pure functions from JSON to text.
//!
//! Results carry strings a program or another client chose (titles, names, messages). Human
//! output passes them through [`escape_controls`] first (see [`escape_value`]), so none can
//! drive the terminal of whoever runs the command; `--json` output is printed as received.

use std::borrow::Cow;

use serde_json::Value;

/// The one escaping helper for human output: a string holding a control character (C0, ESC,
/// DEL, C1) or an invisible or bidi character comes back with each written as a visible escape
/// (`\x1b`, `\n`, `\u{9b}`; backslashes doubled so the form is unambiguous); any other string
/// comes back unchanged.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    let visible = protocol::lumen::visible_controls(text);
    // visible_controls only adds characters: same length after undoing the doubled
    // backslashes means nothing was escaped.
    if visible.len() == text.len() + text.matches('\\').count() {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(visible)
    }
}

/// `value` with every string in it (object keys too) passed through [`escape_controls`]: what
/// the human renderers get, so no renderer can forget a field.
pub fn escape_value(value: &Value) -> Value {
    match value {
        Value::String(t) => Value::String(escape_controls(t).into_owned()),
        Value::Array(items) => Value::Array(items.iter().map(escape_value).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (escape_controls(k).into_owned(), escape_value(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn i(v: &Value, key: &str) -> i64 {
    v.get(key).and_then(Value::as_i64).unwrap_or(0)
}

fn b(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// Quote a word for a POSIX shell only when it needs it, so printed commands can be pasted.
pub use protocol::shell::quote_if_needed as shell_quote;

/// Left-aligned columns separated by two spaces; the last column is not padded.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: Vec<&str>| {
        let last = cells.len().saturating_sub(1);
        let mut text = String::new();
        for (n, cell) in cells.iter().enumerate() {
            text.push_str(cell);
            if n < last {
                let pad = widths[n] - cell.chars().count() + 2;
                text.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(header.to_vec());
    for row in rows {
        line(row.iter().map(String::as_str).collect());
    }
    out
}

/// `tuios ls`: one row per session.
pub fn sessions_table(sessions: &[Value]) -> String {
    if sessions.is_empty() {
        return "no sessions\n".to_string();
    }
    let rows: Vec<Vec<String>> = sessions
        .iter()
        .map(|sess| {
            vec![
                s(sess, "name").to_string(),
                i(sess, "window_count").to_string(),
                format!("{}x{}", i(sess, "width"), i(sess, "height")),
                format_local_time(i(sess, "created")),
                if b(sess, "attached") { "yes" } else { "no" }.to_string(),
            ]
        })
        .collect();
    table(&["NAME", "WINDOWS", "SIZE", "CREATED", "ATTACHED"], &rows)
}

/// `tuios list-windows`: one row per window; ids are shortened to a prefix, which the window
/// target rules accept as long as it is unique.
pub fn windows_table(result: &Value) -> String {
    let windows = result
        .get("windows")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if windows.is_empty() {
        return "no windows\n".to_string();
    }
    let rows: Vec<Vec<String>> = windows
        .iter()
        .map(|w| {
            let id = s(w, "window_id");
            let mut flags = String::new();
            if b(w, "focused") {
                flags.push('*');
            }
            if b(w, "minimized") {
                flags.push('m');
            }
            vec![
                i(w, "index").to_string(),
                id.chars().take(8).collect(),
                i(w, "workspace").to_string(),
                format!("{}x{}", i(w, "width"), i(w, "height")),
                flags,
                s(w, "agent_state").to_string(),
                s(w, "display_name").to_string(),
            ]
        })
        .collect();
    table(
        &["INDEX", "ID", "WS", "SIZE", "FLAGS", "AGENT", "NAME"],
        &rows,
    )
}

/// Any result object as `key: value` lines, `type` left out. Used where no richer form exists.
pub fn key_values(result: &Value) -> String {
    reply_lines(None, result)
}

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

pub fn window_created(result: &Value) -> String {
    format!(
        "created window {} ({}) on workspace {}\n",
        s(result, "window_id"),
        s(result, "name"),
        i(result, "workspace")
    )
}

pub fn resized(result: &Value) -> String {
    format!(
        "resized to {}x{}\n",
        i(result, "width"),
        i(result, "height")
    )
}

/// Window ids in one-line messages: the same prefix list-windows shows, which still targets it.
fn short_id(id: &str) -> String {
    id.chars().take(8).collect()
}

/// An optional text shown in a table cell: `-` for empty, so columns stay splittable.
fn cell(text: &str) -> String {
    if text.is_empty() {
        "-".to_string()
    } else {
        text.to_string()
    }
}

/// A JSON scalar as plain text (strings unquoted).
fn plain(v: &Value) -> String {
    match v {
        Value::String(t) => t.clone(),
        other => other.to_string(),
    }
}

/// The result with the given keys left out, or `None` when nothing else is left.
fn without(result: &Value, keys: &[&str]) -> Option<Value> {
    let obj = result.as_object()?;
    let rest: serde_json::Map<String, Value> = obj
        .iter()
        .filter(|(k, _)| !keys.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (!rest.is_empty()).then_some(Value::Object(rest))
}

pub fn window_closed(target: Option<&str>) -> String {
    match target.filter(|t| !t.is_empty()) {
        Some(t) => format!("closed window {}\n", shell_quote(t)),
        None => "closed the focused window\n".to_string(),
    }
}

/// `set-window`: the window as it stands after the change.
pub fn window_set(result: &Value) -> String {
    let state = if b(result, "minimized") {
        "minimized"
    } else {
        "not minimized"
    };
    let name = match result.get("custom_name").and_then(Value::as_str) {
        Some(n) => format!("named {n:?}"),
        None => format!("no name of its own (title {:?})", s(result, "title")),
    };
    format!(
        "window {}: {name}, {state}\n",
        short_id(s(result, "window_id"))
    )
}

/// `focus-window`: which window has the focus now, and on which workspace.
pub fn focused(result: &Value) -> String {
    let id = s(result, "focused_window_id");
    let ws = i(result, "current_workspace");
    if id.is_empty() {
        return format!("no window has the focus; showing workspace {ws}\n");
    }
    match result.get("window") {
        Some(w) => format!(
            "focused window {} ({}) on workspace {ws}\n",
            short_id(id),
            s(w, "display_name")
        ),
        None => format!("focused window {} on workspace {ws}\n", short_id(id)),
    }
}

pub fn window_moved(result: &Value) -> String {
    let to = i(result, "workspace");
    let current = i(result, "current_workspace");
    let mut out = format!(
        "moved window {} from workspace {} to {to}",
        short_id(s(result, "window_id")),
        i(result, "from_workspace")
    );
    if current == to {
        out.push_str(&format!("; showing workspace {to}"));
    }
    out.push('\n');
    out
}

pub fn window_split(result: &Value) -> String {
    let direction = s(result, "direction");
    let id = s(result, "window_id");
    let mut out = if id.is_empty() {
        format!("split {direction}")
    } else {
        format!("split {direction}: new window {}", short_id(id))
    };
    if let Some(name) = result.get("name").and_then(Value::as_str) {
        out.push_str(&format!(" ({name})"));
    }
    out.push('\n');
    if let Some(note) = result.get("note").and_then(Value::as_str) {
        out.push_str(&format!("note: {note}\n"));
    }
    out
}

pub fn layout_set(result: &Value) -> String {
    let mut out = format!(
        "{}, layout {}",
        s(result, "tiling_mode"),
        s(result, "layout_mode")
    );
    if let Some(r) = result.get("master_ratio").and_then(Value::as_f64) {
        out.push_str(&format!(", master ratio {r:.2}"));
    }
    out.push('\n');
    out
}

/// Workspace numbers in the order they are shown: the stored order first, the rest ascending,
/// as the daemon describes set-workspace-order.
fn display_order(order: Option<&Vec<Value>>, all: &[i64]) -> Vec<i64> {
    let mut out: Vec<i64> = Vec::new();
    for n in order.into_iter().flatten().filter_map(Value::as_i64) {
        if all.contains(&n) && !out.contains(&n) {
            out.push(n);
        }
    }
    let mut rest: Vec<i64> = all.iter().filter(|n| !out.contains(n)).copied().collect();
    rest.sort_unstable();
    out.extend(rest);
    out
}

/// `tuios list-workspaces`: one row per workspace, in display order.
pub fn workspaces_table(result: &Value) -> String {
    let rows_in = result
        .get("workspaces")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let numbers: Vec<i64> = rows_in.iter().map(|w| i(w, "workspace")).collect();
    let order = display_order(result.get("order").and_then(Value::as_array), &numbers);
    let rows: Vec<Vec<String>> = order
        .iter()
        .filter_map(|n| rows_in.iter().find(|w| i(w, "workspace") == *n))
        .map(|w| {
            vec![
                i(w, "workspace").to_string(),
                cell(s(w, "name")),
                i(w, "window_count").to_string(),
                if b(w, "current") { "yes" } else { "no" }.to_string(),
            ]
        })
        .collect();
    table(&["WS", "NAME", "WINDOWS", "CURRENT"], &rows)
}

pub fn workspace_selected(result: &Value) -> String {
    let ws = i(result, "current_workspace");
    let id = s(result, "focused_window_id");
    match i(result, "window_count") {
        0 => format!("showing workspace {ws} (no windows)\n"),
        n => {
            let focus = if id.is_empty() {
                String::new()
            } else {
                format!(", focused window {}", short_id(id))
            };
            format!(
                "showing workspace {ws} ({n} window{}){focus}\n",
                if n == 1 { "" } else { "s" }
            )
        }
    }
}

pub fn workspace_named(result: &Value) -> String {
    let ws = i(result, "workspace");
    match s(result, "name") {
        "" => format!("workspace {ws}: name cleared\n"),
        name => format!("workspace {ws} named {name:?}\n"),
    }
}

pub fn workspace_order_set(result: &Value) -> String {
    match result.get("workspace_order").and_then(Value::as_array) {
        Some(order) => {
            let list: Vec<String> = order.iter().map(plain).collect();
            format!("workspace order: {}\n", list.join(" "))
        }
        None => "workspace order: natural (1, 2, 3, ...)\n".to_string(),
    }
}

pub fn session_name_set(result: &Value) -> String {
    let session = shell_quote(s(result, "session"));
    match s(result, "display_name") {
        "" => format!("session {session}: display name cleared\n"),
        name => format!("session {session} displays as {name:?}\n"),
    }
}

pub fn session_accent_set(result: &Value) -> String {
    let session = shell_quote(s(result, "session"));
    match s(result, "accent") {
        "" => format!("session {session}: accent cleared\n"),
        accent => format!("session {session} accent {accent}\n"),
    }
}

/// `tuios run-command --list`: the vocabulary, one command per row.
pub fn command_vocabulary(commands: &[protocol::commands::CommandSpec]) -> String {
    let rows: Vec<Vec<String>> = commands
        .iter()
        .map(|c| {
            vec![
                c.usage(),
                if c.runner == protocol::commands::Runner::Daemon {
                    "yes"
                } else {
                    "no"
                }
                .to_string(),
                c.description.to_string(),
            ]
        })
        .collect();
    table(&["COMMAND", "HEADLESS", "DESCRIPTION"], &rows)
}

/// The vocabulary as JSON, for `run-command --list --json`.
pub fn command_vocabulary_json(commands: &[protocol::commands::CommandSpec]) -> Value {
    Value::Array(
        commands
            .iter()
            .map(|c| {
                serde_json::json!({
                    "name": c.name,
                    "usage": c.usage(),
                    "min_args": c.min_args,
                    "max_args": c.max_args,
                    "headless": c.runner == protocol::commands::Runner::Daemon,
                    "description": c.description,
                })
            })
            .collect(),
    )
}

/// `tuios run-command`: the data a command returned (a window table for ListWindows), or
/// one line saying it ran.
pub fn command_result(result: &Value) -> String {
    let Some(data) = without(result, &["type", "command", "routed"]) else {
        let by = if b(result, "routed") {
            " in the attached client"
        } else {
            ""
        };
        return format!("ran {}{by}\n", s(result, "command"));
    };
    if data.get("windows").is_some_and(Value::is_array) {
        windows_table(&data)
    } else {
        key_values(&data)
    }
}

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

/// A string or a list of strings as one piece of text.
fn text_or_list(v: &Value) -> String {
    match v {
        Value::Array(items) => items.iter().map(plain).collect::<Vec<_>>().join(", "),
        other => plain(other),
    }
}

pub fn agent_state_set(result: &Value) -> String {
    let state = s(result, "state");
    let source = s(result, "source");
    if b(result, "applied") {
        format!("agent state {state} (source {source})\n")
    } else {
        format!(
            "not applied: a source ranked above {source} holds the window; its state stays {state}\n"
        )
    }
}

/// `tuios get-agent-state`: one line, with when and by whom the state was set.
pub fn agent_state(result: &Value) -> String {
    let mut out = format!(
        "window {}: {} (source {}",
        short_id(s(result, "window_id")),
        s(result, "state"),
        s(result, "source")
    );
    let harness = s(result, "harness_id");
    if !harness.is_empty() {
        out.push_str(&format!(", harness {harness}"));
    }
    // Nanoseconds on the wire; the time is shown to the minute.
    let at = i(result, "agent_state_at");
    if at > 0 {
        out.push_str(&format!(
            ", since {}",
            format_local_time(at / 1_000_000_000)
        ));
    }
    out.push(')');
    let message = s(result, "message");
    if !message.is_empty() {
        out.push_str(&format!(": {message}"));
    }
    out.push('\n');
    out
}

fn agent_header(result: &Value) -> String {
    let harness = s(result, "harness_id");
    format!(
        "window {}: state {} (source {}), harness {}\n",
        short_id(s(result, "window_id")),
        s(result, "state"),
        s(result, "source"),
        if harness.is_empty() { "-" } else { harness }
    )
}

/// `tuios explain-agent-detect`: the foreground process, the verdict, and each manifest's
/// reason.
pub fn agent_detect(result: &Value) -> String {
    let mut out = agent_header(result);
    if !b(result, "running") {
        out.push_str(&format!("no foreground process: {}\n", s(result, "reason")));
        return out;
    }
    if let Some(p) = result.get("process") {
        let argv = p.get("argv").map(text_or_list).unwrap_or_default();
        out.push_str(&format!("process: {} [{argv}]", s(p, "comm")));
        let exe = s(p, "exe");
        if !exe.is_empty() {
            out.push_str(&format!(" exe {exe}"));
        }
        out.push('\n');
    }
    if b(result, "matched") {
        let by = match s(result, "matched_harness") {
            "" => "the name list".to_string(),
            h => format!("manifest {h}"),
        };
        out.push_str(&format!(
            "agent: yes, by {} ({by})\n",
            s(result, "matched_rule")
        ));
    } else {
        out.push_str("agent: no\n");
    }
    if let Some(note) = result.get("note").and_then(Value::as_str) {
        out.push_str(&format!("note: {note}\n"));
    }
    let manifests = result
        .get("manifests")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if !manifests.is_empty() {
        let rows: Vec<Vec<String>> = manifests
            .iter()
            .map(|m| {
                let why = m
                    .get("rule")
                    .or_else(|| m.get("reason"))
                    .map(text_or_list)
                    .unwrap_or_default();
                vec![
                    s(m, "id").to_string(),
                    if b(m, "matched") { "yes" } else { "no" }.to_string(),
                    why,
                ]
            })
            .collect();
        out.push_str(&table(&["MANIFEST", "MATCHED", "RULE OR REASON"], &rows));
    }
    out
}

/// Keys of a screen rule that say why it did not match, in the order worth reading.
const RULE_MISSES: [&str; 6] = [
    "missing",
    "missing_regex",
    "none_of",
    "blocked",
    "blocked_regex",
    "empty",
];

/// `tuios explain-agent-screen`: the rows read, then each rule and what kept it from matching.
pub fn agent_screen(result: &Value) -> String {
    let mut out = agent_header(result);
    let tail = result
        .get("tail")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    out.push_str(&format!("last {} rows:\n", i(result, "lines")));
    for row in &tail {
        out.push_str(&format!("  | {}\n", plain(row)));
    }
    let rules = result
        .get("rules")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if rules.is_empty() {
        out.push_str("no screen rules apply\n");
        return out;
    }
    if result.get("enabled").is_some_and(|e| e == false) {
        out.push_str("screen rules are switched off for this harness\n");
    }
    let rows: Vec<Vec<String>> = rules
        .iter()
        .map(|r| {
            let why: Vec<String> = RULE_MISSES
                .iter()
                .filter_map(|k| {
                    r.get(*k)
                        .filter(|v| !v.is_null() && *v != false)
                        .map(|v| match v {
                            Value::Bool(true) => k.to_string(),
                            other => format!("{k}: {}", text_or_list(other)),
                        })
                })
                .collect();
            vec![
                i(r, "index").to_string(),
                s(r, "state").to_string(),
                i(r, "priority").to_string(),
                if b(r, "matched") { "yes" } else { "no" }.to_string(),
                why.join("; "),
            ]
        })
        .collect();
    out.push_str(&table(
        &["RULE", "STATE", "PRIORITY", "MATCHED", "WHY NOT"],
        &rows,
    ));
    match result.get("rule").and_then(Value::as_i64) {
        Some(n) if n >= 0 => out.push_str(&format!(
            "verdict: rule {n}, state {}\n",
            s(result, "rule_state")
        )),
        _ => out.push_str("verdict: no rule matched\n"),
    }
    out
}

/// `tuios hello`: one line with the daemon's build, pid and protocol range.
pub fn hello(result: &Value) -> String {
    let n = i(result, "sessions");
    format!(
        "tuios daemon {} (pid {}), protocol {} (serves {} to {}), {n} session{}\n",
        s(result, "daemon_version"),
        i(result, "pid"),
        i(result, "protocol"),
        i(result, "min_protocol"),
        i(result, "protocol"),
        if n == 1 { "" } else { "s" }
    )
}

/// `tuios wait-for`: "matched", plus what matched when the condition says more than yes.
pub fn wait_result(result: &Value) -> String {
    let detail = match s(result, "condition") {
        "window-output" => result
            .get("match")
            .and_then(Value::as_str)
            .map(|m| format!("match {m:?}")),
        "window-exit" => match (result.get("exit_code"), result.get("signal")) {
            (Some(code), _) => Some(format!("exit code {code}")),
            (None, Some(sig)) => Some(format!("signal {sig}")),
            // Closed before its exit status was known.
            (None, None) => None,
        },
        "window-idle" => Some(format!("idle for {} ms", i(result, "idle_ms"))),
        "agent-state" => result
            .get("state")
            .and_then(Value::as_str)
            .map(|st| format!("agent state {st}")),
        "session-exists" => Some(format!("session {}", shell_quote(s(result, "session")))),
        _ => None,
    };
    match detail {
        Some(d) => format!("matched: {d}\n"),
        None => "matched\n".to_string(),
    }
}

/// The stderr note once `tuios subscribe` is streaming.
pub fn subscribed(result: &Value) -> String {
    format!("subscribed (seq {})\n", i(result, "seq"))
}

/// capture-pane prints the content as is; a terminal gets a final newline so the prompt does
/// not land on the last row, a pipe gets exactly what the pane holds.
pub fn capture(content: &str, stdout_is_tty: bool) -> String {
    let mut out = content.to_string();
    if stdout_is_tty && !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// `tuios list-verbs`: the version line, each verb with params and examples, and the error
/// codes when every verb was listed.
pub fn verb_list(result: &Value, one_verb: bool) -> String {
    let mut out = format!(
        "Control protocol version {} (daemon {}, oldest supported {})\n",
        i(result, "version"),
        s(result, "daemon_version"),
        i(result, "min_version")
    );
    let empty = Vec::new();
    let verbs = result
        .get("verbs")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    for verb in verbs {
        out.push('\n');
        out.push_str(s(verb, "verb"));
        out.push('\n');
        out.push_str(&format!("  {}\n", s(verb, "description")));
        let params = verb
            .get("params")
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        if !params.is_empty() {
            out.push_str("  params:\n");
            for p in params {
                out.push_str(&param_line(p));
            }
        }
        let returns = verb
            .get("returns")
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        if !returns.is_empty() {
            out.push_str("  returns:\n");
            for r in returns {
                out.push_str(&param_line(r));
            }
        }
        let examples = verb
            .get("examples")
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        if !examples.is_empty() {
            out.push_str("  examples:\n");
            for e in examples {
                let text = e
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| e.to_string());
                out.push_str(&format!("    {text}\n"));
            }
        }
    }
    if !one_verb {
        let codes = result
            .get("error_codes")
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        if !codes.is_empty() {
            out.push_str("\nerror codes:\n");
            let rows: Vec<Vec<String>> = codes
                .iter()
                .map(|c| {
                    vec![
                        format!("  {}", s(c, "code")),
                        s(c, "description").to_string(),
                    ]
                })
                .collect();
            let t = table(&["", ""], &rows);
            // Drop the blank header line the table helper always writes.
            out.push_str(t.split_once('\n').map_or("", |(_, rest)| rest));
        }
    }
    out
}

fn param_line(p: &Value) -> String {
    let mut head = format!("    {} ({}", s(p, "name"), s(p, "type"));
    if b(p, "required") {
        head.push_str(", required");
    }
    head.push(')');
    let desc = s(p, "description");
    let mut out = if desc.is_empty() {
        format!("{head}\n")
    } else {
        format!("{head}: {desc}\n")
    };
    if let Some(acc) = p.get("accepted").and_then(Value::as_array) {
        if !acc.is_empty() {
            let list: Vec<String> = acc
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| v.to_string())
                })
                .collect();
            out.push_str(&format!("        one of: {}\n", list.join(", ")));
        }
    }
    match p.get("default") {
        Some(Value::String(d)) if !d.is_empty() => {
            out.push_str(&format!("        default: {d}\n"));
        }
        Some(v) if !v.is_null() && !v.is_string() => {
            out.push_str(&format!("        default: {v}\n"));
        }
        _ => {}
    }
    out
}

/// What `tuios new` prints after creating a session.
pub fn session_created(name: &str) -> String {
    let q = shell_quote(name);
    let mut out = format!("created session {}\n", escape_controls(name));
    out.push_str(&format!(
        "drive it with:\n\
         \x20 tuios send-text -s {q} 'echo hello'\n\
         \x20 tuios send-keys -s {q} Enter\n\
         \x20 tuios capture-pane -s {q}\n\
         \x20 tuios list-windows -s {q}\n\
         stop it with: tuios kill-session {q}\n"
    ));
    out
}

/// Unix seconds as local `YYYY-MM-DD HH:MM`; zero or unknown prints `-`.
pub fn format_local_time(unix_secs: i64) -> String {
    if unix_secs <= 0 {
        return "-".to_string();
    }
    let Some(t) = crate::clock::local(unix_secs) else {
        return unix_secs.to_string();
    };
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}",
        t.year, t.month, t.day, t.hour, t.minute
    )
}

#[cfg(test)]
mod tests {

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

    use super::*;
    use serde_json::json;

    #[test]
    fn controls_are_escaped_plain_text_is_not() {
        assert!(matches!(
            escape_controls("plain é 名前 C:\\x"),
            Cow::Borrowed(_)
        ));
        assert_eq!(escape_controls("\x1b]2;x\x07"), "\\x1b]2;x\\x07");
        assert_eq!(escape_controls("a\u{9b}31m"), "a\\u{9b}31m");
        assert_eq!(escape_controls("del\x7f"), "del\\x7f");
        assert_eq!(escape_controls("two\nrows"), "two\\nrows");
        assert_eq!(escape_controls("\\\x1b"), "\\\\\\x1b");
        let v = escape_value(
            &json!({"windows": [{"display_name": "\x1b[31mX", "n": 1}], "\x1bk": "v"}),
        );
        assert_eq!(
            v,
            json!({"windows": [{"display_name": "\\x1b[31mX", "n": 1}], "\\x1bk": "v"})
        );
        let table = windows_table(&escape_value(
            &json!({"windows": [{"display_name": "\x1b[2J\u{9d}0;x\x07"}]}),
        ));
        assert!(
            !table.chars().any(|c| c.is_control() && c != '\n'),
            "{table:?}"
        );
    }

    #[test]
    fn quoting_only_when_needed() {
        assert_eq!(shell_quote("work-1"), "work-1");
        assert_eq!(shell_quote("my work"), "'my work'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn tables_align_columns() {
        let t = table(
            &["NAME", "N"],
            &[
                vec!["a".into(), "1".into()],
                vec!["long".into(), "22".into()],
            ],
        );
        assert_eq!(t, "NAME  N\na     1\nlong  22\n");
    }

    #[test]
    fn session_table_has_the_documented_columns() {
        let t = sessions_table(&[json!({
            "name": "work", "window_count": 2, "width": 80, "height": 24,
            "created": 0, "attached": false
        })]);
        let mut lines = t.lines();
        assert_eq!(
            lines.next().unwrap().split_whitespace().collect::<Vec<_>>(),
            ["NAME", "WINDOWS", "SIZE", "CREATED", "ATTACHED"]
        );
        assert_eq!(
            lines.next().unwrap().split_whitespace().collect::<Vec<_>>(),
            ["work", "2", "80x24", "-", "no"]
        );
        assert_eq!(sessions_table(&[]), "no sessions\n");
    }

    #[test]
    fn capture_adds_a_newline_only_for_terminals() {
        assert_eq!(capture("a\nb", false), "a\nb");
        assert_eq!(capture("a\nb", true), "a\nb\n");
        assert_eq!(capture("a\n", true), "a\n");
        assert_eq!(capture("", true), "");
    }

    #[test]
    fn verb_list_shows_params_and_codes() {
        let result = json!({
            "type": "verb_list", "version": 1, "min_version": 1, "daemon_version": "0.1.0",
            "verbs": [{
                "verb": "capture-pane", "description": "Capture a pane.",
                "params": [
                    {"name": "source", "type": "string", "description": "Buffer.",
                     "accepted": ["visible", "recent"], "default": "visible"},
                    {"name": "keys", "type": "string", "required": true, "description": "K."}
                ],
                "examples": ["{\"id\":1,\"verb\":\"capture-pane\"}"]
            }],
            "error_codes": [{"code": "internal", "description": "Unexpected."}]
        });
        let all = verb_list(&result, false);
        assert!(all.starts_with("Control protocol version 1 (daemon 0.1.0, oldest supported 1)\n"));
        assert!(all.contains("    source (string): Buffer.\n        one of: visible, recent\n        default: visible\n"));
        assert!(all.contains("    keys (string, required): K.\n"));
        assert!(all.contains("    {\"id\":1,\"verb\":\"capture-pane\"}\n"));
        assert!(all.contains("error codes:\n  internal  Unexpected.\n"));
        assert!(!verb_list(&result, true).contains("error codes"));
    }

    #[test]
    fn wait_results_say_what_matched() {
        assert_eq!(
            wait_result(&json!({"type": "wait_result", "condition": "window-output",
                "matched": true, "match": "MARK-42\nx"})),
            "matched: match \"MARK-42\\nx\"\n"
        );
        assert_eq!(
            wait_result(&json!({"condition": "window-exit", "matched": true, "exit_code": 0})),
            "matched: exit code 0\n"
        );
        assert_eq!(
            wait_result(&json!({"condition": "window-exit", "matched": true, "signal": 9})),
            "matched: signal 9\n"
        );
        assert_eq!(
            wait_result(&json!({"condition": "window-exit", "matched": true})),
            "matched\n"
        );
        assert_eq!(
            wait_result(&json!({"condition": "window-idle", "idle_ms": 500})),
            "matched: idle for 500 ms\n"
        );
        assert_eq!(
            wait_result(&json!({"condition": "session-exists", "session": "my work"})),
            "matched: session 'my work'\n"
        );
        assert_eq!(
            subscribed(&json!({"type": "subscribed", "seq": 7})),
            "subscribed (seq 7)\n"
        );
    }

    #[test]
    fn windows_table_marks_focus() {
        let t = windows_table(&json!({"windows": [{
            "window_id": "0123456789abcdef", "index": 0, "workspace": 1, "width": 80,
            "height": 24, "focused": true, "agent_state": "none", "display_name": "sh"
        }]}));
        assert_eq!(
            t.lines()
                .nth(1)
                .unwrap()
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["0", "01234567", "1", "80x24", "*", "none", "sh"]
        );
    }

    #[test]
    fn created_session_message_quotes_names() {
        let text = session_created("my work");
        assert!(text.starts_with("created session my work\n"));
        assert!(text.contains("tuios capture-pane -s 'my work'"));
    }
    fn columns(line: &str) -> Vec<&str> {
        line.split_whitespace().collect()
    }

    #[test]
    fn workspaces_follow_the_display_order() {
        let ws = |n: i64, name: &str, count: i64, current: bool| {
            json!({"workspace": n, "name": name, "window_count": count, "current": current,
                   "focused_window_id": ""})
        };
        let result = json!({
            "type": "workspace_list", "current_workspace": 2, "order": [3, 1],
            "workspaces": [ws(1, "", 2, false), ws(2, "logs", 1, true), ws(3, "", 0, false)]
        });
        let t = workspaces_table(&result);
        let lines: Vec<Vec<&str>> = t.lines().map(columns).collect();
        assert_eq!(lines[0], ["WS", "NAME", "WINDOWS", "CURRENT"]);
        assert_eq!(lines[1], ["3", "-", "0", "no"]);
        assert_eq!(lines[2], ["1", "-", "2", "no"]);
        assert_eq!(lines[3], ["2", "logs", "1", "yes"]);
        let natural = workspaces_table(
            &json!({"workspaces": [ws(2, "", 0, false), ws(1, "", 0, true)], "order": null}),
        );
        assert_eq!(natural.lines().nth(1).map(columns).unwrap()[0], "1");
    }

    #[test]
    fn window_changes_are_one_line() {
        assert_eq!(
            focused(
                &json!({"focused_window_id": "0123456789", "current_workspace": 2,
                "window": {"display_name": "build"}})
            ),
            "focused window 01234567 (build) on workspace 2\n"
        );
        assert_eq!(
            focused(&json!({"focused_window_id": "", "current_workspace": 3})),
            "no window has the focus; showing workspace 3\n"
        );
        assert_eq!(
            window_moved(&json!({"window_id": "abcdef0123", "from_workspace": 1,
                "workspace": 3, "current_workspace": 3})),
            "moved window abcdef01 from workspace 1 to 3; showing workspace 3\n"
        );
        assert_eq!(
            window_moved(&json!({"window_id": "abcdef0123", "from_workspace": 1,
                "workspace": 3, "current_workspace": 1})),
            "moved window abcdef01 from workspace 1 to 3\n"
        );
        assert_eq!(
            window_set(&json!({"window_id": "abcdef0123", "custom_name": "logs",
                "title": "sh", "minimized": true})),
            "window abcdef01: named \"logs\", minimized\n"
        );
        assert_eq!(
            window_set(&json!({"window_id": "abcdef0123", "title": "sh", "minimized": false})),
            "window abcdef01: no name of its own (title \"sh\"), not minimized\n"
        );
        assert_eq!(window_closed(Some("my logs")), "closed window 'my logs'\n");
        assert_eq!(window_closed(None), "closed the focused window\n");
        assert_eq!(
            workspace_selected(&json!({"current_workspace": 2, "window_count": 1,
                "focused_window_id": "abcdef0123"})),
            "showing workspace 2 (1 window), focused window abcdef01\n"
        );
        assert_eq!(
            window_split(&json!({"direction": "vertical", "window_id": "",
                "note": "call list-windows"})),
            "split vertical\nnote: call list-windows\n"
        );
    }

    #[test]
    fn labels_say_what_was_set_or_cleared() {
        assert_eq!(
            workspace_named(&json!({"workspace": 2, "name": "logs"})),
            "workspace 2 named \"logs\"\n"
        );
        assert_eq!(
            workspace_named(&json!({"workspace": 2, "name": ""})),
            "workspace 2: name cleared\n"
        );
        assert_eq!(
            workspace_order_set(&json!({"workspace_order": [3, 1, 2]})),
            "workspace order: 3 1 2\n"
        );
        assert!(workspace_order_set(&json!({"workspace_order": null})).contains("natural"));
        assert_eq!(
            session_name_set(&json!({"session": "work", "display_name": "Deploy 42"})),
            "session work displays as \"Deploy 42\"\n"
        );
        assert_eq!(
            session_accent_set(&json!({"session": "my work", "accent": ""})),
            "session 'my work': accent cleared\n"
        );
    }

    #[test]
    fn command_results_show_their_data() {
        assert_eq!(
            command_result(&json!({"type": "command_result", "command": "NextWindow",
                "routed": false})),
            "ran NextWindow\n"
        );
        assert_eq!(
            command_result(&json!({"type": "command_result", "command": "NewWindow",
                "routed": false, "window_id": "w1", "name": "logs"})),
            "name: logs\nwindow_id: w1\n"
        );
        let t = command_result(&json!({"command": "ListWindows", "routed": false,
            "windows": [{"window_id": "0123456789", "index": 0, "workspace": 1}]}));
        assert!(t.starts_with("INDEX"), "{t}");
        let vocab = command_vocabulary(protocol::commands::commands());
        let split = vocab
            .lines()
            .find(|l| l.starts_with("SwitchWorkspace "))
            .expect("SwitchWorkspace is listed");
        assert!(split.contains(" yes "), "{split}");
        assert_eq!(
            vocab.lines().count(),
            protocol::commands::commands().len() + 1
        );
        let json = command_vocabulary_json(protocol::commands::commands());
        assert_eq!(json[0]["name"], protocol::commands::commands()[0].name);
    }

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

    #[test]
    fn hello_is_one_line() {
        assert_eq!(
            hello(&json!({"type": "hello", "protocol": 1, "min_protocol": 1,
                "daemon_version": "0.1.0", "pid": 42, "sessions": 1})),
            "tuios daemon 0.1.0 (pid 42), protocol 1 (serves 1 to 1), 1 session\n"
        );
    }
    #[test]
    fn agent_results_read_as_sentences() {
        assert_eq!(
            agent_state_set(&json!({"state": "done", "source": "report", "applied": true})),
            "agent state done (source report)\n"
        );
        assert!(
            agent_state_set(&json!({"state": "working", "source": "stall",
            "applied": false}))
            .starts_with("not applied: ")
        );
        assert_eq!(
            agent_state(&json!({"window_id": "abcdef0123", "state": "needs_input",
                "source": "report", "harness_id": "claude-code", "agent_state_at": 0,
                "message": "approve"})),
            "window abcdef01: needs_input (source report, harness claude-code): approve\n"
        );
        let detect = agent_detect(&json!({
            "window_id": "abcdef0123", "state": "none", "source": "report", "harness_id": "",
            "running": true, "matched": true, "matched_rule": "comm=claude",
            "matched_harness": "claude-code",
            "process": {"comm": "claude", "argv": ["claude", "-p"], "exe": "/bin/claude"},
            "manifests": [{"id": "aider", "matched": false, "reason": "comm is claude"},
                          {"id": "claude-code", "matched": true, "rule": "comm=claude"}]
        }));
        assert!(
            detect.contains("process: claude [claude, -p] exe /bin/claude\n"),
            "{detect}"
        );
        assert!(
            detect.contains("agent: yes, by comm=claude (manifest claude-code)\n"),
            "{detect}"
        );
        assert!(
            detect.contains("claude-code  yes      comm=claude\n"),
            "{detect}"
        );
        let idle = agent_detect(&json!({"window_id": "w", "running": false, "reason": "gone"}));
        assert!(idle.ends_with("no foreground process: gone\n"), "{idle}");
        let screen = agent_screen(&json!({
            "window_id": "abcdef0123", "harness_id": "codex", "state": "working",
            "source": "screen", "lines": 2, "tail": ["a", "b"], "enabled": true,
            "rules": [{"index": 0, "state": "needs_input", "priority": 5, "matched": false,
                       "missing": ["Allow?"], "empty": true}],
            "matched": false, "rule": -1
        }));
        assert!(screen.contains("last 2 rows:\n  | a\n  | b\n"), "{screen}");
        assert!(screen.contains("missing: Allow?; empty"), "{screen}");
        assert!(screen.ends_with("verdict: no rule matched\n"), "{screen}");
        assert_eq!(
            wait_result(&json!({"condition": "agent-state", "state": "done"})),
            "matched: agent state done\n"
        );
    }
}
