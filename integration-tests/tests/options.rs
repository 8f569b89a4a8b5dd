//! Options and themes end to end: list-options, set-option, get-option, list-themes, the
//! options the daemon itself applies (scrollback length, shell), and user themes read from
//! `$XDG_CONFIG_HOME/tuios/themes` without a restart.

use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use tuios_integration_tests::*;

fn option_rows(result: &Value) -> Vec<Value> {
    result["options"].as_array().expect("options array").clone()
}

fn paths(result: &Value) -> Vec<String> {
    option_rows(result)
        .iter()
        .map(|r| r["path"].as_str().expect("path").to_string())
        .collect()
}

fn get(conn: &mut JsonConn, session: &str, key: &str) -> Value {
    let r = conn.ok("get-option", json!({"session": session, "key": key}));
    assert_eq!(r["type"], "option", "{r}");
    r
}

/// The user themes directory the daemon reads: the harness points XDG_CONFIG_HOME at
/// `<test dir>/config`.
fn themes_dir(daemon: &TestDaemon) -> PathBuf {
    daemon.dir().join("config").join("tuios").join("themes")
}

fn theme_ids(result: &Value) -> Vec<String> {
    strings(&result["themes"])
}

#[test]
fn list_options_lists_and_filters() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();

    // Options exist without any session.
    let all = conn.ok("list-options", Value::Null);
    assert_eq!(all["type"], "option_list", "{all}");
    let rows = option_rows(&all);
    assert!(!rows.is_empty(), "{all}");
    assert_eq!(all["total"], rows.len(), "{all}");
    let all_paths = paths(&all);
    let mut sorted = all_paths.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(
        all_paths, sorted,
        "rows are sorted by path, without repeats"
    );
    let sections = strings(&all["sections"]);
    let mut sorted_sections = sections.clone();
    sorted_sections.sort();
    sorted_sections.dedup();
    assert_eq!(sections, sorted_sections, "{all}");
    for r in &rows {
        for key in ["path", "type", "section", "description", "default"] {
            assert!(r[key].is_string(), "row without {key}: {r}");
        }
        assert!(
            ["bool", "int", "string"].contains(&r["type"].as_str().unwrap()),
            "{r}"
        );
        assert!(
            sections.iter().any(|s| s == r["section"].as_str().unwrap()),
            "{r}"
        );
        assert!(r.get("session_value").is_none(), "no session: {r}");
    }
    for want in [
        "appearance.border_style",
        "appearance.scrollback_lines",
        "appearance.preferred_shell",
        "appearance.theme",
    ] {
        assert!(all_paths.iter().any(|p| p == want), "{want} not listed");
    }
    let border = rows
        .iter()
        .find(|r| r["path"] == "appearance.border_style")
        .unwrap();
    assert!(
        strings(&border["accepted"]).contains(&"rounded".to_string()),
        "{border}"
    );
    let scroll = rows
        .iter()
        .find(|r| r["path"] == "appearance.scroll_lines")
        .unwrap();
    assert!(scroll["min"].is_i64() && scroll["max"].is_i64(), "{scroll}");

    // section is exact.
    let dock = conn.ok("list-options", json!({"section": "dock"}));
    let dock_rows = option_rows(&dock);
    assert!(!dock_rows.is_empty(), "{dock}");
    assert_eq!(dock["total"], dock_rows.len(), "{dock}");
    assert!(dock_rows.iter().all(|r| r["section"] == "dock"), "{dock}");
    assert_eq!(
        dock_rows.len(),
        rows.iter().filter(|r| r["section"] == "dock").count()
    );

    // prefix matches the start of a path.
    let scroll = conn.ok("list-options", json!({"prefix": "appearance.scroll"}));
    assert_eq!(
        paths(&scroll),
        vec![
            "appearance.scroll_lines",
            "appearance.scrollback_lines",
            "appearance.scrollbar.style",
            "appearance.scrollbar.thumb",
            "appearance.scrollbar.tint",
            "appearance.scrollbar.track"
        ],
        "{scroll}"
    );
    // Both filters apply together.
    let both = conn.ok(
        "list-options",
        json!({"section": "appearance", "prefix": "appearance.border"}),
    );
    let both_paths = paths(&both);
    assert!(!both_paths.is_empty(), "{both}");
    assert!(
        both_paths
            .iter()
            .all(|p| p.starts_with("appearance.border")),
        "{both}"
    );
    let none = conn.err_code(
        "list-options",
        json!({"section": "dock", "prefix": "appearance.border"}),
        "option_not_found",
    );
    assert!(none["hint"]["available"].is_array(), "{none}");

    // No match: option_not_found naming the filter, with the sections there are.
    let error = conn.err_code(
        "list-options",
        json!({"section": "apperance"}),
        "option_not_found",
    );
    assert_eq!(error["hint"]["param"], "section", "{error}");
    assert_eq!(error["hint"]["did_you_mean"], "appearance", "{error}");
    assert_eq!(strings(&error["hint"]["available"]), sections, "{error}");
    let error = conn.err_code(
        "list-options",
        json!({"prefix": "zzz."}),
        "option_not_found",
    );
    assert_eq!(error["hint"]["param"], "prefix", "{error}");

    // A named session must exist; a session's own values show as session_value.
    conn.err_code(
        "list-options",
        json!({"session": "nope"}),
        "session_not_found",
    );
    let session = daemon.new_session("opts");
    conn.ok(
        "set-option",
        json!({"session": session, "key": "appearance.border_style", "value": "double"}),
    );
    let listed = conn.ok(
        "list-options",
        json!({"session": session, "prefix": "appearance.border_style"}),
    );
    assert_eq!(listed["options"][0]["session_value"], "double", "{listed}");
    assert_eq!(listed["options"][0]["default"], "rounded", "{listed}");
    // Without a session name: the most recently active session.
    let listed = conn.ok("list-options", json!({"prefix": "appearance.border_style"}));
    assert_eq!(listed["options"][0]["session_value"], "double", "{listed}");
}

#[test]
fn set_option_and_get_option_round_trip() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("opts");
    let mut conn = daemon.conn();

    // Unset: the default, from the default.
    let r = get(&mut conn, &session, "appearance.dockbar_position");
    assert_eq!(r["key"], "appearance.dockbar_position", "{r}");
    assert_eq!(r["value"], "bottom", "{r}");
    assert_eq!(r["source"], "default", "{r}");
    assert_eq!(r["default"], "bottom", "{r}");
    assert_eq!(r["option_type"], "string", "{r}");

    let r = conn.ok(
        "set-option",
        json!({"session": session, "key": "appearance.dockbar_position", "value": "top"}),
    );
    assert_eq!(r["type"], "option_set", "{r}");
    assert_eq!(r["key"], "appearance.dockbar_position", "{r}");
    assert_eq!(r["value"], "top", "{r}");
    assert_eq!(r["applied"], false, "no client is attached: {r}");
    assert!(
        r["reason"].as_str().is_some_and(|s| !s.is_empty()),
        "applied false says why: {r}"
    );
    let r = get(&mut conn, &session, "appearance.dockbar_position");
    assert_eq!(r["value"], "top", "{r}");
    assert_eq!(r["source"], "session", "{r}");
    assert_eq!(r["default"], "bottom", "{r}");

    // Every type round-trips.
    for (key, value, ty) in [
        ("appearance.show_clock", "true", "bool"),
        ("appearance.scroll_lines", "7", "int"),
        ("appearance.border_focused_color", "#A0B1C2", "string"),
        ("appearance.theme", "dracula", "string"),
        ("notifications.duration", "3600", "int"),
    ] {
        let r = conn.ok(
            "set-option",
            json!({"session": session, "key": key, "value": value}),
        );
        assert_eq!(r["key"], key, "{r}");
        let g = get(&mut conn, &session, key);
        assert_eq!(g["value"], r["value"], "{g}");
        assert_eq!(g["source"], "session", "{g}");
        assert_eq!(g["option_type"], ty, "{g}");
    }
    // An empty value unsets a colour.
    conn.ok(
        "set-option",
        json!({"session": session, "key": "appearance.border_focused_color", "value": ""}),
    );
    assert_eq!(
        get(&mut conn, &session, "appearance.border_focused_color")["value"],
        ""
    );

    // Options are per session.
    let other = daemon.new_session("other");
    let r = get(&mut conn, &other, "appearance.dockbar_position");
    assert_eq!(r["source"], "default", "{r}");

    // A bare key is looked up under appearance.
    let r = conn.ok(
        "set-option",
        json!({"session": session, "key": "border_style", "value": "thick"}),
    );
    assert_eq!(r["key"], "appearance.border_style", "{r}");
    let r = get(&mut conn, &session, "border_style");
    assert_eq!(r["key"], "appearance.border_style", "{r}");
    assert_eq!(r["value"], "thick", "{r}");
    assert_eq!(r["source"], "session", "{r}");
    assert_eq!(
        get(&mut conn, &session, "appearance.border_style")["value"],
        "thick"
    );

    // Without a session name: the most recently active session.
    let r = conn.ok("get-option", json!({"key": "dockbar_position"}));
    assert_eq!(r["type"], "option", "{r}");

    // Missing key; unknown session.
    for params in [
        json!({"session": session}),
        json!({"session": session, "key": ""}),
    ] {
        let error = conn.err_code("set-option", params.clone(), "invalid_params");
        assert_eq!(error["hint"]["param"], "key", "{error}");
        let error = conn.err_code("get-option", params, "invalid_params");
        assert_eq!(error["hint"]["param"], "key", "{error}");
    }
    conn.err_code(
        "set-option",
        json!({"session": "nope", "key": "appearance.border_style", "value": "thick"}),
        "session_not_found",
    );
    conn.err_code(
        "get-option",
        json!({"session": "nope", "key": "appearance.border_style"}),
        "session_not_found",
    );
    // value is a string, never a JSON literal.
    let error = conn.err_code(
        "set-option",
        json!({"session": session, "key": "appearance.show_clock", "value": true}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "value", "{error}");
}

#[test]
fn unknown_and_policy_only_keys_are_refused() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("opts");
    let mut conn = daemon.conn();
    let all_paths = paths(&conn.ok("list-options", Value::Null));

    for (verb, params) in [
        (
            "set-option",
            json!({"session": session, "key": "appearance.border_stlye", "value": "thick"}),
        ),
        (
            "get-option",
            json!({"session": session, "key": "appearance.border_stlye"}),
        ),
    ] {
        let error = conn.err_code(verb, params, "option_not_found");
        assert_eq!(error["hint"]["param"], "key", "{error}");
        assert_eq!(error["hint"]["verb"], "list-options", "{error}");
        assert_eq!(
            error["hint"]["did_you_mean"], "appearance.border_style",
            "{error}"
        );
        assert_eq!(
            strings(&error["hint"]["available"]),
            all_paths,
            "available is every option path: {error}"
        );
    }
    let error = conn.err_code(
        "set-option",
        json!({"session": session, "key": "no.such.thing", "value": "1"}),
        "option_not_found",
    );
    assert!(error["hint"]["available"].is_array(), "{error}");
    // A bare key that does not resolve is suggested as its appearance path.
    let error = conn.err_code(
        "get-option",
        json!({"session": session, "key": "scrollback_line"}),
        "option_not_found",
    );
    assert_eq!(
        error["hint"]["did_you_mean"], "appearance.scrollback_lines",
        "{error}"
    );

    // The focus-return chord lives only in the user policy file.
    for key in [
        "lumen.focus_return_chord",
        "focus_return_chord",
        "appearance.focus_return_chord",
    ] {
        let error = conn.err(
            "set-option",
            json!({"session": session, "key": key, "value": "ctrl+q"}),
        );
        assert_eq!(error["code"], "option_not_found", "{key}: {error}");
        assert_eq!(error["hint"]["param"], "key", "{error}");
        let detail = error["hint"]["detail"].as_str().unwrap_or_default();
        assert!(
            detail.contains("policy.toml"),
            "{key}: the hint should name the policy file: {error}"
        );
    }
}

#[test]
fn bad_values_are_refused_and_nothing_is_recorded() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("opts");
    let mut conn = daemon.conn();

    let cases = [
        // A closed set (exact, case-sensitive).
        ("appearance.border_style", "wavy"),
        ("appearance.border_style", "Rounded"),
        ("appearance.dockbar_position", "left"),
        // Booleans.
        ("appearance.show_clock", "maybe"),
        ("appearance.dock_workspace_tabs", ""),
        // Integers: not a number, outside the range.
        ("appearance.scroll_lines", "many"),
        ("appearance.scroll_lines", "0"),
        ("appearance.scroll_lines", "51"),
        ("appearance.scroll_lines", "2.5"),
        ("appearance.scrollback_lines", "99"),
        ("appearance.max_fps", "99999999999999999999999"),
        // Colours.
        ("appearance.border_focused_color", "reddish"),
        ("appearance.border_focused_color", "#12345"),
        ("appearance.border_unfocused_color", "#gggggg"),
        // A theme that does not exist.
        ("appearance.theme", "no_such_theme"),
    ];
    for (key, value) in cases {
        let error = conn.err_code(
            "set-option",
            json!({"session": session, "key": key, "value": value}),
            "invalid_params",
        );
        assert_eq!(error["hint"]["param"], "value", "{key}={value:?}: {error}");
        assert!(
            error["hint"]["detail"]
                .as_str()
                .is_some_and(|d| !d.is_empty()),
            "{key}={value:?}: {error}"
        );
    }
    let error = conn.err(
        "set-option",
        json!({"session": session, "key": "appearance.border_style", "value": "dubble"}),
    );
    assert_eq!(error["hint"]["did_you_mean"], "double", "{error}");
    assert!(
        strings(&error["hint"]["accepted"]).contains(&"rounded".to_string()),
        "{error}"
    );
    let error = conn.err(
        "set-option",
        json!({"session": session, "key": "appearance.theme", "value": "draculla"}),
    );
    assert_eq!(error["hint"]["did_you_mean"], "dracula", "{error}");
    assert_eq!(error["hint"]["verb"], "list-themes", "{error}");

    for (key, _) in cases {
        let r = get(&mut conn, &session, key);
        assert_eq!(
            r["source"], "default",
            "a refused value records nothing: {r}"
        );
    }

    // The other spellings of a bool are fine.
    for value in ["on", "off", "yes", "no", "1", "0", "TRUE", "Disabled"] {
        conn.ok(
            "set-option",
            json!({"session": session, "key": "appearance.show_clock", "value": value}),
        );
    }
}

#[test]
fn every_listed_option_takes_its_default() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("defaults");
    let mut conn = daemon.conn();
    let rows = option_rows(&conn.ok("list-options", json!({"session": session})));
    // As in the reference, an option whose default is empty but whose closed set lacks ""
    // cannot be set back to its default.
    let unreachable = |r: &Value| {
        r["default"] == "" && r["accepted"].is_array() && r["path"] != "appearance.scrollbar.tint"
    };
    for r in &rows {
        let path = r["path"].as_str().unwrap();
        let default = r["default"].as_str().unwrap();
        if unreachable(r) {
            conn.err_code(
                "set-option",
                json!({"session": session, "key": path, "value": default}),
                "invalid_params",
            );
            continue;
        }
        let set = conn.ok(
            "set-option",
            json!({"session": session, "key": path, "value": default}),
        );
        assert_eq!(set["key"], path, "{set}");
        let g = get(&mut conn, &session, path);
        assert_eq!(g["value"], default, "{g}");
        assert_eq!(g["source"], "session", "{g}");
        assert_eq!(g["default"], default, "{g}");
        assert_eq!(g["option_type"], r["type"], "{g}");
    }
    let listed = option_rows(&conn.ok("list-options", json!({"session": session})));
    for r in listed {
        if unreachable(&r) {
            assert!(r.get("session_value").is_none(), "{r}");
            continue;
        }
        assert_eq!(r["session_value"], r["default"], "{r}");
    }
}

// ---- options the daemon applies -------------------------------------------------------------

fn number_lines(content: &str) -> Vec<u32> {
    content
        .lines()
        .filter_map(|l| l.trim().parse::<u32>().ok())
        .collect()
}

#[test]
fn scrollback_lines_applies_to_windows_created_after_the_change() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("scroll");
    let mut conn = daemon.conn();
    let command = json!(["/bin/sh", "-c", "seq 1 300; exec sleep 1000"]);

    let before = conn.new_window_id(&session, json!({"command": command}));
    conn.ok(
        "set-option",
        json!({"session": session, "key": "appearance.scrollback_lines", "value": "100"}),
    );
    let after = conn.new_window_id(&session, json!({"command": command}));

    for window in [&before, &after] {
        conn.wait_for_capture(&session, window, "the line 300", DEADLINE, |c| {
            number_lines(c).contains(&300).then_some(())
        });
    }
    let height = conn.ok("list-windows", json!({"session": session}))["windows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["window_id"] == after.as_str())
        .and_then(|w| w["height"].as_u64())
        .expect("window height") as usize;

    let small = conn.capture(&session, &after, json!({"source": "recent"}));
    let rows = small.lines().count();
    assert!(
        rows <= 100 + height,
        "a window made after scrollback_lines=100 keeps at most 100 rows plus its {height}-row screen, got {rows}:\n{small}"
    );
    let numbers = number_lines(&small);
    assert!(numbers.contains(&300), "{small}");
    assert!(
        !numbers.contains(&1),
        "the first lines fell out of the short scrollback:\n{small}"
    );

    let big = conn.capture(&session, &before, json!({"source": "recent"}));
    let numbers = number_lines(&big);
    assert_eq!(
        numbers,
        (1..=300).collect::<Vec<u32>>(),
        "a window made before the change keeps its longer scrollback"
    );
}

/// The shell's `$0`, as it prints it between `zero=` and `=end`. Typed-ahead input can share
/// a line with the prompt, so look at every `zero=` and skip the echoed command (`zero=$0`).
fn shell_zero(conn: &mut JsonConn, session: &str, window: &str) -> String {
    conn.ok(
        "send-text",
        json!({"session": session, "window": window, "text": "echo \"zero=$0=end\"\n"}),
    );
    conn.wait_for_capture(session, window, "the shell's $0", DEADLINE, |c| {
        c.match_indices("zero=").find_map(|(at, _)| {
            let rest = &c[at + "zero=".len()..];
            let value = &rest[..rest.find("=end")?];
            (!value.is_empty() && !value.contains(['$', '\n'])).then(|| value.to_string())
        })
    })
}

#[test]
fn preferred_shell_applies_to_new_windows() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("shells");
    let mut conn = daemon.conn();

    // A shell of our own that announces itself, then becomes /bin/sh: proves which program
    // the daemon ran, whatever $SHELL says.
    let script = daemon.dir().join("announcing-shell");
    std::fs::write(
        &script,
        "#!/bin/sh\necho \"announce-$((40+2))\"\nexec /bin/sh\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let script_str = script.to_str().unwrap();

    let plain = conn.new_window_id(&session, json!({"name": "plain"}));
    let r = conn.ok(
        "set-option",
        json!({"session": session, "key": "appearance.preferred_shell", "value": script_str}),
    );
    assert_eq!(r["value"], script_str, "{r}");
    let custom = conn.new_window_id(&session, json!({"name": "custom"}));
    conn.wait_for_text(&session, &custom, "announce-42");
    let zero = shell_zero(&mut conn, &session, &custom);
    assert!(zero.ends_with("sh"), "{zero}");
    // The window made before the change still runs the old shell.
    let zero_plain = shell_zero(&mut conn, &session, &plain);
    assert!(zero_plain.ends_with("sh"), "{zero_plain}");
    let old = conn.capture(&session, &plain, json!({"source": "recent"}));
    assert!(!old.contains("announce-42"), "{old}");

    // /bin/sh by name.
    conn.ok(
        "set-option",
        json!({"session": session, "key": "preferred_shell", "value": "/bin/sh"}),
    );
    let sh = conn.new_window_id(&session, json!({"name": "sh"}));
    let zero = shell_zero(&mut conn, &session, &sh);
    assert!(zero.ends_with("sh"), "$0 of the /bin/sh window: {zero}");
    let text = conn.capture(&session, &sh, json!({"source": "recent"}));
    assert!(!text.contains("announce-42"), "{text}");
}

// ---- themes ---------------------------------------------------------------------------------

#[test]
fn list_themes_lists_filters_and_describes() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();

    let all = conn.ok("list-themes", Value::Null);
    assert_eq!(all["type"], "theme_list", "{all}");
    let ids = theme_ids(&all);
    // The catalogue is larger than one answer lists (100 ids), so it says it was cut.
    let total = all["total"].as_u64().unwrap_or(0) as usize;
    assert!(total >= 330, "the built-in catalogue: {all}");
    assert_eq!(all["matched"], total, "{all}");
    assert_eq!(ids.len(), total.min(100), "{all}");
    assert_eq!(all["truncated"], true, "{all}");
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "{all}");
    assert!(ids.contains(&"dracula".to_string()), "{all}");
    assert_eq!(
        all["themes_dir"],
        themes_dir(&daemon).to_str().unwrap(),
        "{all}"
    );
    assert!(all.get("session").is_none(), "no session yet: {all}");
    assert!(all.get("problems").is_none(), "{all}");

    // filter: case-insensitive substring of the id.
    let dark = conn.ok("list-themes", json!({"filter": "DARK"}));
    let dark_ids = theme_ids(&dark);
    assert!(!dark_ids.is_empty(), "{dark}");
    assert!(dark_ids.iter().all(|id| id.contains("dark")), "{dark}");
    assert_eq!(dark["matched"], dark_ids.len(), "{dark}");
    assert_eq!(dark["total"], total, "{dark}");
    let none = conn.ok("list-themes", json!({"filter": "zzzz-nothing"}));
    assert_eq!(none["matched"], 0, "{none}");
    assert_eq!(none["themes"], json!([]), "{none}");

    // theme: its palette, each colour with its contrast against the background.
    let d = conn.ok("list-themes", json!({"theme": "dracula"}));
    assert!(
        d.get("themes").is_none(),
        "a named theme alone lists none: {d}"
    );
    let palette = &d["palette"];
    assert_eq!(palette["id"], "dracula", "{d}");
    for key in ["bg", "fg", "cursor"] {
        let hex = palette[key].as_str().unwrap_or_default();
        assert!(
            hex.len() == 7 && hex.starts_with('#'),
            "{key} is #rrggbb: {d}"
        );
    }
    let swatches = palette["swatches"].as_array().expect("swatches");
    let names: Vec<&str> = swatches
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 18, "{d}");
    assert_eq!(&names[..3], ["fg", "cursor", "black"], "{d}");
    assert_eq!(names[17], "bright_white", "{d}");
    for s in swatches {
        assert!(s["hex"].is_string(), "{s}");
        assert!(s["ratio"].as_f64().is_some_and(|r| r >= 1.0), "{s}");
        assert!(s["floor"].is_number(), "{s}");
        assert_eq!(
            s["passes"],
            s["ratio"].as_f64().unwrap() >= s["floor"].as_f64().unwrap(),
            "{s}"
        );
    }
    // theme and filter together: the palette and the list.
    let both = conn.ok("list-themes", json!({"theme": "nord", "filter": "nord"}));
    assert_eq!(both["palette"]["id"], "nord", "{both}");
    assert!(theme_ids(&both).contains(&"nord".to_string()), "{both}");

    // Unknown theme.
    let error = conn.err_code(
        "list-themes",
        json!({"theme": "draculla"}),
        "option_not_found",
    );
    assert_eq!(error["hint"]["param"], "theme", "{error}");
    assert_eq!(error["hint"]["did_you_mean"], "dracula", "{error}");

    // With a session: its active theme and where it comes from.
    conn.err_code(
        "list-themes",
        json!({"session": "nope"}),
        "session_not_found",
    );
    let session = daemon.new_session("themed");
    let r = conn.ok("list-themes", json!({"session": session}));
    assert_eq!(r["session"], "themed", "{r}");
    assert_eq!(r["active"], "", "{r}");
    assert_eq!(r["active_source"], "default", "{r}");
    conn.ok(
        "set-option",
        json!({"session": session, "key": "theme", "value": "nord"}),
    );
    let r = conn.ok("list-themes", Value::Null);
    assert_eq!(r["session"], "themed", "{r}");
    assert_eq!(r["active"], "nord", "{r}");
    assert_eq!(r["active_source"], "session", "{r}");
}

#[test]
fn user_themes_appear_without_a_restart() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("custom");
    let mut conn = daemon.conn();
    let before = conn.ok("list-themes", Value::Null);
    let total = before["total"].as_u64().unwrap();
    assert!(!theme_ids(&before).contains(&"mytheme".to_string()));
    let error = conn.err_code(
        "set-option",
        json!({"session": session, "key": "appearance.theme", "value": "mytheme"}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "value", "{error}");

    // The daemon creates the directory on its first read.
    let dir = themes_dir(&daemon);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("mytheme.json"),
        r##"{"fg":"#ffffff","bg":"#000000"}"##,
    )
    .unwrap();

    // The catalogue lists 100 ids at most, so look the new one up by filter.
    let after = conn.ok("list-themes", json!({"filter": "mytheme"}));
    assert!(
        theme_ids(&after).contains(&"mytheme".to_string()),
        "{after}"
    );
    assert_eq!(after["total"], total + 1, "{after}");
    let mine = conn.ok("list-themes", json!({"theme": "mytheme"}));
    assert_eq!(mine["palette"]["fg"], "#ffffff", "{mine}");
    assert_eq!(mine["palette"]["bg"], "#000000", "{mine}");
    assert_eq!(mine["palette"]["dark"], true, "{mine}");
    let r = conn.ok(
        "set-option",
        json!({"session": session, "key": "appearance.theme", "value": "mytheme"}),
    );
    assert_eq!(r["value"], "mytheme", "{r}");
    assert_eq!(get(&mut conn, &session, "theme")["value"], "mytheme");

    // A broken file is reported, and the rest still loads.
    std::fs::write(dir.join("broken.json"), "{ this is not json").unwrap();
    let r = conn.ok("list-themes", json!({"filter": "my"}));
    let problems = strings(&r["problems"]);
    assert_eq!(problems.len(), 1, "{r}");
    assert!(problems[0].contains("broken.json"), "{r}");
    assert!(theme_ids(&r).contains(&"mytheme".to_string()), "{r}");
    assert!(!theme_ids(&r).contains(&"broken".to_string()), "{r}");
    conn.err_code(
        "set-option",
        json!({"session": session, "key": "appearance.theme", "value": "broken"}),
        "invalid_params",
    );

    // Removing the file removes the theme, again without a restart.
    std::fs::remove_file(dir.join("mytheme.json")).unwrap();
    let r = conn.ok("list-themes", json!({"filter": "my"}));
    assert!(!theme_ids(&r).contains(&"mytheme".to_string()), "{r}");
}
