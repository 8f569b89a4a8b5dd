//! Workspaces, focus and window flags end to end: list-workspaces, select-workspace,
//! move-window, set-window, focus-window, the client-only verbs (split-window, set-layout,
//! directional focus) on a headless daemon, the events these verbs publish, focus repair when
//! the focused window closes, and the verb set `list-verbs` publishes.

use serde_json::{json, Value};
use std::collections::BTreeSet;
use tuios_integration_tests::*;

/// Verbs a headless daemon refuses with `needs_client`, whatever their parameters.
const CLIENT_VERBS: [&str; 2] = ["set-layout", "split-window"];

fn list(conn: &mut JsonConn, session: &str) -> Value {
    conn.ok("list-windows", json!({"session": session}))
}

fn row(conn: &mut JsonConn, session: &str, id: &str) -> Value {
    let l = list(conn, session);
    l["windows"]
        .as_array()
        .expect("windows array")
        .iter()
        .find(|w| w["window_id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("window {id} not listed: {l}"))
}

fn focused(conn: &mut JsonConn, session: &str) -> String {
    list(conn, session)["focused_window_id"]
        .as_str()
        .expect("focused_window_id")
        .to_string()
}

fn current_workspace(conn: &mut JsonConn, session: &str) -> i64 {
    list(conn, session)["current_workspace"]
        .as_i64()
        .expect("current_workspace")
}

fn workspaces(conn: &mut JsonConn, session: &str) -> Value {
    let ws = conn.ok("list-workspaces", json!({"session": session}));
    assert_eq!(ws["type"], "workspace_list", "{ws}");
    ws
}

/// A needs_client refusal that tells the caller to attach to this session.
fn assert_needs_client(error: &Value, session: &str) {
    assert_eq!(error["code"], "needs_client", "{error}");
    assert_eq!(
        error["hint"]["command"],
        format!("tuios attach {session}").as_str(),
        "{error}"
    );
}

/// An out-of-range workspace: invalid_params on `workspace` whose detail gives the range.
fn assert_workspace_range_error(error: &Value) {
    assert_eq!(error["code"], "invalid_params", "{error}");
    assert_eq!(error["hint"]["param"], "workspace", "{error}");
    let detail = error["hint"]["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains('1') && detail.contains('9'),
        "the detail should give the range 1 to 9: {error}"
    );
}

// ---- events -------------------------------------------------------------------------------

/// A connection subscribed to the events of `types` in `session`.
fn subscribed(daemon: &TestDaemon, session: &str, types: &[&str]) -> JsonConn {
    let mut sub = daemon.conn();
    sub.subscribe(json!({"session": session, "types": types}));
    sub
}

/// The next line of a subscribed connection; it must be an event (no id, a type).
/// The connection's read timeout is the deadline.
fn next_event(sub: &mut JsonConn) -> Value {
    let line = sub.read_line();
    assert!(
        line.get("id").is_none() && line["type"].is_string() && line.get("result").is_none(),
        "expected an event line, got {line}"
    );
    assert!(line["seq"].as_u64().is_some_and(|s| s > 0), "{line}");
    line
}

/// The next event, checked to be `kind` about `window` (skip the window check with "").
fn expect_event(sub: &mut JsonConn, kind: &str, session: &str, window: &str) -> Value {
    let event = next_event(sub);
    assert_eq!(event["type"], kind, "expected {kind}, got {event}");
    assert_eq!(event["session"], session, "{event}");
    if !window.is_empty() {
        assert_eq!(event["window"], window, "{event}");
    }
    event
}

// ---- list-verbs ---------------------------------------------------------------------------

#[test]
fn list_verbs_lists_the_35_verbs_of_the_spec() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let listed: Vec<String> = conn.ok("list-verbs", Value::Null)["verbs"]
        .as_array()
        .expect("verbs")
        .iter()
        .map(|v| v["verb"].as_str().expect("verb name").to_string())
        .collect();
    assert_eq!(
        without_extensions(&listed),
        SPEC_VERBS,
        "list-verbs must list exactly the spec's verbs and the extensions"
    );
}

/// Send one request on a connection that may carry events, and return its response.
fn call_skipping_events(conn: &mut JsonConn, verb: &str, params: Value) -> Value {
    let id = conn.send_request(verb, params);
    conn.read_response(&id).0
}

#[test]
fn every_verb_works_headless_or_needs_a_client() {
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("headless");
    daemon.new_session("doomed");
    let mut conn = daemon.conn();
    let spare = conn.new_window_id(&session, json!({"name": "spare", "focus": false}));
    let s = session.as_str();
    let casts = daemon.dir().join("casts").display().to_string();

    let calls: Vec<(&str, Value)> = vec![
        ("capture-pane", json!({"session": s})),
        ("close-window", json!({"session": s, "window": spare})),
        (
            "explain-agent-detect",
            json!({"session": s, "window": first}),
        ),
        (
            "explain-agent-screen",
            json!({"session": s, "window": first}),
        ),
        ("focus-window", json!({"session": s, "window": first})),
        ("get-agent-state", json!({"session": s, "window": first})),
        (
            "get-option",
            json!({"session": s, "key": "appearance.border_style"}),
        ),
        ("hello", json!({"client": "workspaces-test"})),
        ("kill-session", json!({"session": "doomed"})),
        ("list-options", json!({"session": s})),
        ("list-sessions", json!({})),
        ("list-themes", json!({"session": s})),
        ("list-verbs", json!({"verb": "move-window"})),
        ("list-windows", json!({"session": s})),
        ("list-workspaces", json!({"session": s})),
        ("move-window", json!({"session": s, "workspace": 2})),
        ("new-session", json!({"name": "extra"})),
        ("new-window", json!({"session": s, "focus": false})),
        (
            "record-start",
            json!({"session": s, "window": first, "path": casts}),
        ),
        ("record-stop", json!({"session": s, "window": first})),
        (
            "resize",
            json!({"session": s, "window": first, "width": 90, "height": 30}),
        ),
        ("resurrect", json!({})),
        (
            "search",
            json!({"session": s, "window": first, "pattern": "."}),
        ),
        (
            "run",
            json!({"session": s, "window": first, "command": "true"}),
        ),
        (
            "run-command",
            json!({"session": s, "command": "ListWindows"}),
        ),
        ("select-workspace", json!({"session": s, "workspace": 1})),
        (
            "send-keys",
            json!({"session": s, "window": first, "keys": "Enter"}),
        ),
        (
            "send-text",
            json!({"session": s, "window": first, "text": "\n"}),
        ),
        ("session-info", json!({"session": s})),
        (
            "set-agent-state",
            json!({"session": s, "window": first, "state": "idle"}),
        ),
        ("set-layout", json!({"session": s, "tiling": true})),
        (
            "set-option",
            json!({"session": s, "key": "appearance.show_clock", "value": "true"}),
        ),
        (
            "set-session-accent",
            json!({"session": s, "accent": "cyan"}),
        ),
        ("set-session-name", json!({"session": s, "name": "Head"})),
        ("set-window", json!({"session": s, "name": "renamed"})),
        (
            "set-workspace-name",
            json!({"session": s, "workspace": 2, "name": "two"}),
        ),
        (
            "set-workspace-order",
            json!({"session": s, "order": [2, 1]}),
        ),
        (
            "split-window",
            json!({"session": s, "direction": "vertical"}),
        ),
        // Only asks whether the binary on disk could take over: a real upgrade would close
        // this test's connections.
        ("upgrade", json!({"check": true})),
        (
            "wait-for",
            json!({"condition": "session-exists", "session": s, "timeout": 5000}),
        ),
    ];
    // subscribe and unsubscribe run on a connection of their own, below.
    let mut covered: BTreeSet<&str> = calls.iter().map(|(v, _)| *v).collect();
    covered.insert("subscribe");
    covered.insert("unsubscribe");
    let listed: BTreeSet<String> = conn.ok("list-verbs", Value::Null)["verbs"]
        .as_array()
        .expect("verbs")
        .iter()
        .map(|v| v["verb"].as_str().expect("verb").to_string())
        .collect();
    assert_eq!(
        covered
            .iter()
            .map(|v| v.to_string())
            .collect::<BTreeSet<_>>(),
        listed,
        "the table must cover exactly the listed verbs"
    );

    for (verb, params) in calls {
        let resp = conn.call(verb, params.clone());
        if CLIENT_VERBS.contains(&verb) {
            assert_needs_client(&resp["error"], s);
        } else {
            assert!(
                resp["result"]["type"].is_string() && resp.get("error").is_none(),
                "{verb} {params} should work on a headless daemon: {resp}"
            );
        }
    }

    let mut events = daemon.conn();
    let resp = call_skipping_events(&mut events, "subscribe", json!({"session": s}));
    assert_eq!(resp["result"]["type"], "subscribed", "{resp}");
    let resp = call_skipping_events(&mut events, "unsubscribe", json!({}));
    assert_eq!(resp["result"]["type"], "unsubscribed", "{resp}");
}

#[test]
fn client_only_verbs_check_their_params_then_need_a_client() {
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("tiles");
    let mut conn = daemon.conn();
    let before = list(&mut conn, &session);

    // split-window: direction is required and checked against its set before anything else.
    let error = conn.err_code(
        "split-window",
        json!({"session": session}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "direction", "{error}");
    assert_eq!(
        error["hint"]["accepted"],
        json!(["horizontal", "vertical"]),
        "{error}"
    );
    let error = conn.err_code(
        "split-window",
        json!({"session": session, "direction": "vertcal"}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "direction", "{error}");
    assert_eq!(error["hint"]["did_you_mean"], "vertical", "{error}");
    conn.err_code(
        "split-window",
        json!({"session": "nope", "direction": "vertical"}),
        "session_not_found",
    );
    conn.err_code(
        "split-window",
        json!({"session": session, "window": "no-such-window", "direction": "vertical"}),
        "window_not_found",
    );
    for params in [
        json!({"session": session, "direction": "horizontal"}),
        json!({"session": session, "direction": "vertical", "window": first, "name": "half"}),
    ] {
        let error = conn.err("split-window", params);
        assert_needs_client(&error, &session);
    }

    // set-layout: something must be asked for.
    let error = conn.err_code("set-layout", json!({"session": session}), "invalid_params");
    assert_eq!(error["hint"]["param"], "tiling", "{error}");
    let error = conn.err_code(
        "set-layout",
        json!({"session": session, "equalize": false, "rotate": false}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "tiling", "{error}");
    for params in [
        json!({"session": session, "tiling": true}),
        json!({"session": session, "tiling": false}),
        json!({"session": session, "equalize": true}),
        json!({"session": session, "rotate": true}),
        json!({"session": session, "layout": "scrolling"}),
    ] {
        let error = conn.err("set-layout", params);
        assert_needs_client(&error, &session);
    }

    // focus-window by direction: the value is checked, then a client is needed.
    let error = conn.err_code(
        "focus-window",
        json!({"session": session, "direction": "diagonal"}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "direction", "{error}");
    assert_eq!(
        error["hint"]["accepted"],
        json!(["left", "right", "up", "down"]),
        "{error}"
    );
    for dir in ["left", "right", "up", "down"] {
        let error = conn.err(
            "focus-window",
            json!({"session": session, "direction": dir}),
        );
        assert_needs_client(&error, &session);
    }

    // None of the refusals changed anything.
    let after = list(&mut conn, &session);
    assert_eq!(before["total"], after["total"], "{after}");
    assert_eq!(
        before["focused_window_id"], after["focused_window_id"],
        "{after}"
    );
    assert_eq!(
        before["current_workspace"], after["current_workspace"],
        "{after}"
    );
}

// ---- list-workspaces / select-workspace -----------------------------------------------------

#[test]
fn list_workspaces_describes_all_nine() {
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("ws");
    let mut conn = daemon.conn();
    let third = conn.new_window_id(&session, json!({"workspace": 3, "focus": false}));

    let ws = workspaces(&mut conn, &session);
    assert_eq!(ws["current_workspace"], 1, "{ws}");
    assert!(ws["order"].is_null(), "natural order is null: {ws}");
    let rows = ws["workspaces"].as_array().expect("workspaces");
    assert_eq!(rows.len(), 9, "{ws}");
    for (i, r) in rows.iter().enumerate() {
        let n = i as i64 + 1;
        assert_eq!(r["workspace"], n, "{r}");
        assert_eq!(r["name"], "", "{r}");
        assert_eq!(r["current"], n == 1, "{r}");
        let (count, focus) = match n {
            1 => (1, first.as_str()),
            3 => (1, third.as_str()),
            _ => (0, ""),
        };
        assert_eq!(r["window_count"], count, "{r}");
        assert_eq!(r["focused_window_id"], focus, "{r}");
    }

    // Without a session name: the most recently active session.
    let ws = conn.ok("list-workspaces", Value::Null);
    assert_eq!(ws["workspaces"].as_array().map(Vec::len), Some(9), "{ws}");
    conn.err_code(
        "list-workspaces",
        json!({"session": "nope"}),
        "session_not_found",
    );
}

#[test]
fn select_workspace_switches_and_restores_that_workspace_focus() {
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("sel");
    let mut conn = daemon.conn();
    let on_four = conn.new_window_id(&session, json!({"workspace": 4, "focus": false}));

    // A workspace without windows: the focus stays where it was.
    let r = conn.ok(
        "select-workspace",
        json!({"session": session, "workspace": 2}),
    );
    assert_eq!(r["type"], "workspace_selected", "{r}");
    assert_eq!(r["current_workspace"], 2, "{r}");
    assert_eq!(r["window_count"], 0, "{r}");
    assert_eq!(r["focused_window_id"], first.as_str(), "{r}");
    assert_eq!(current_workspace(&mut conn, &session), 2);

    // A workspace with a recorded focus: the focus moves there.
    let r = conn.ok(
        "select-workspace",
        json!({"session": session, "workspace": 4}),
    );
    assert_eq!(r["current_workspace"], 4, "{r}");
    assert_eq!(r["window_count"], 1, "{r}");
    assert_eq!(r["focused_window_id"], on_four.as_str(), "{r}");
    assert_eq!(focused(&mut conn, &session), on_four);

    let r = conn.ok(
        "select-workspace",
        json!({"session": session, "workspace": 1}),
    );
    assert_eq!(r["focused_window_id"], first.as_str(), "{r}");
    let ws = workspaces(&mut conn, &session);
    assert_eq!(ws["current_workspace"], 1, "{ws}");
    assert_eq!(ws["workspaces"][0]["current"], true, "{ws}");
    assert_eq!(ws["workspaces"][3]["current"], false, "{ws}");

    // Validation: missing or 0 is required-missing; outside 1..9 gives the range.
    for params in [
        json!({"session": session}),
        json!({"session": session, "workspace": 0}),
    ] {
        let error = conn.err_code("select-workspace", params, "invalid_params");
        assert_eq!(error["hint"]["param"], "workspace", "{error}");
    }
    for n in [10, 99, -1] {
        let error = conn.err(
            "select-workspace",
            json!({"session": session, "workspace": n}),
        );
        assert_workspace_range_error(&error);
    }
    let error = conn.err_code(
        "select-workspace",
        json!({"session": session, "workspace": "2"}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "workspace", "{error}");
    conn.err_code(
        "select-workspace",
        json!({"session": "nope", "workspace": 2}),
        "session_not_found",
    );
    assert_eq!(current_workspace(&mut conn, &session), 1);
}

// ---- move-window ----------------------------------------------------------------------------

#[test]
fn move_window_moves_and_optionally_follows() {
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("mv");
    let mut conn = daemon.conn();
    let second = conn.new_window_id(&session, json!({"name": "second"}));

    // By name, without following: the view stays on workspace 1.
    let r = conn.ok(
        "move-window",
        json!({"session": session, "window": "second", "workspace": 5}),
    );
    assert_eq!(r["type"], "window_moved", "{r}");
    assert_eq!(r["window_id"], second.as_str(), "{r}");
    assert_eq!(r["from_workspace"], 1, "{r}");
    assert_eq!(r["workspace"], 5, "{r}");
    assert_eq!(r["current_workspace"], 1, "{r}");
    assert_eq!(row(&mut conn, &session, &second)["workspace"], 5);
    assert_eq!(current_workspace(&mut conn, &session), 1);
    let ws = workspaces(&mut conn, &session);
    assert_eq!(ws["workspaces"][0]["window_count"], 1, "{ws}");
    assert_eq!(ws["workspaces"][4]["window_count"], 1, "{ws}");

    // The focused window (no target) with follow: the view goes with it.
    conn.ok("focus-window", json!({"session": session, "window": first}));
    let r = conn.ok(
        "move-window",
        json!({"session": session, "workspace": 7, "follow": true}),
    );
    assert_eq!(r["window_id"], first.as_str(), "{r}");
    assert_eq!(r["from_workspace"], 1, "{r}");
    assert_eq!(r["workspace"], 7, "{r}");
    assert_eq!(r["current_workspace"], 7, "{r}");
    let l = list(&mut conn, &session);
    assert_eq!(l["current_workspace"], 7, "{l}");
    assert_eq!(l["focused_window_id"], first.as_str(), "{l}");
    assert_eq!(l["workspace_windows"][6], 1, "{l}");

    // Validation.
    for params in [
        json!({"session": session, "window": first}),
        json!({"session": session, "window": first, "workspace": 0}),
    ] {
        let error = conn.err_code("move-window", params, "invalid_params");
        assert_eq!(error["hint"]["param"], "workspace", "{error}");
    }
    for n in [10, -3] {
        let error = conn.err(
            "move-window",
            json!({"session": session, "window": first, "workspace": n}),
        );
        assert_workspace_range_error(&error);
    }
    conn.err_code(
        "move-window",
        json!({"session": session, "window": "ghost", "workspace": 2}),
        "window_not_found",
    );
    conn.err_code(
        "move-window",
        json!({"session": "nope", "workspace": 2}),
        "session_not_found",
    );
    assert_eq!(row(&mut conn, &session, &first)["workspace"], 7);
}

// ---- set-window -----------------------------------------------------------------------------

#[test]
fn set_window_renames_minimizes_and_restores() {
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("setw");
    let mut conn = daemon.conn();
    let title = row(&mut conn, &session, &first)["title"]
        .as_str()
        .expect("title")
        .to_string();

    let r = conn.ok(
        "set-window",
        json!({"session": session, "window": first, "name": "  logs  "}),
    );
    assert_eq!(r["type"], "window_set", "{r}");
    assert_eq!(r["window_id"], first.as_str(), "{r}");
    assert_eq!(
        r["custom_name"], "logs",
        "surrounding spaces are dropped: {r}"
    );
    assert_eq!(r["display_name"], "logs", "{r}");
    assert_eq!(r["minimized"], false, "{r}");
    let listed = row(&mut conn, &session, &first);
    assert_eq!(listed["custom_name"], "logs", "{listed}");
    // Now addressable by its name.
    let r = conn.ok(
        "set-window",
        json!({"session": session, "window": "logs", "minimized": true}),
    );
    assert_eq!(r["minimized"], true, "{r}");
    assert_eq!(row(&mut conn, &session, &first)["minimized"], true);

    // Both at once; an empty name clears the custom name.
    let r = conn.ok(
        "set-window",
        json!({"session": session, "window": first, "name": "", "minimized": false}),
    );
    assert_eq!(r["minimized"], false, "{r}");
    assert!(r.get("custom_name").is_none(), "name cleared: {r}");
    assert_eq!(r["display_name"], title.as_str(), "{r}");
    let listed = row(&mut conn, &session, &first);
    assert!(listed.get("custom_name").is_none(), "{listed}");
    assert_eq!(listed["minimized"], false, "{listed}");

    // Nothing to set (absent or null both count as not given).
    for params in [
        json!({"session": session, "window": first}),
        json!({"session": session, "window": first, "name": null, "minimized": null}),
    ] {
        let error = conn.err_code("set-window", params, "invalid_params");
        assert_eq!(error["hint"]["param"], "name", "{error}");
    }
    conn.err_code(
        "set-window",
        json!({"session": session, "window": "ghost", "name": "x"}),
        "window_not_found",
    );
    let error = conn.err_code(
        "set-window",
        json!({"session": session, "minimized": "yes"}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "minimized", "{error}");
}

// ---- focus-window ---------------------------------------------------------------------------

#[test]
fn focus_window_by_target_and_by_step() {
    let daemon = TestDaemon::start();
    let (session, a) = daemon.session_with_window("focus");
    let mut conn = daemon.conn();
    let b = conn.new_window_id(&session, json!({"name": "b"}));
    let c = conn.new_window_id(&session, json!({"name": "c"}));
    let far = conn.new_window_id(
        &session,
        json!({"name": "far", "workspace": 6, "focus": false}),
    );
    // A minimized window still counts when stepping.
    conn.ok(
        "set-window",
        json!({"session": session, "window": b, "minimized": true}),
    );

    // By target: focus and the window's workspace.
    let r = conn.ok("focus-window", json!({"session": session, "window": "far"}));
    assert_eq!(r["type"], "focus", "{r}");
    assert_eq!(r["focused_window_id"], far.as_str(), "{r}");
    assert_eq!(r["current_workspace"], 6, "{r}");
    assert_eq!(r["window"]["window_id"], far.as_str(), "{r}");
    assert_eq!(r["window"]["focused"], true, "{r}");
    assert_eq!(current_workspace(&mut conn, &session), 6);

    // By index, as list-windows prints it.
    let r = conn.ok("focus-window", json!({"session": session, "window": "0"}));
    assert_eq!(r["focused_window_id"], a.as_str(), "{r}");
    assert_eq!(r["current_workspace"], 1, "{r}");

    // Stepping through workspace 1 (a, b, c), wrapping both ways; far is not on it.
    let mut step = |relative: &str| -> String {
        let r = conn.ok(
            "focus-window",
            json!({"session": session, "relative": relative}),
        );
        assert_eq!(r["current_workspace"], 1, "{r}");
        r["focused_window_id"]
            .as_str()
            .expect("focused")
            .to_string()
    };
    assert_eq!(step("next"), b);
    assert_eq!(step("next"), c);
    assert_eq!(step("next"), a);
    assert_eq!(step("prev"), c);
    assert_eq!(step("prev"), b);
    assert_eq!(focused(&mut conn, &session), b);

    // Exactly one way of naming the window.
    let error = conn.err_code(
        "focus-window",
        json!({"session": session}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "window", "{error}");
    let error = conn.err_code(
        "focus-window",
        json!({"session": session, "window": "", "relative": ""}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "window", "{error}");
    for params in [
        json!({"session": session, "window": a, "relative": "next"}),
        json!({"session": session, "window": a, "direction": "left"}),
        json!({"session": session, "relative": "next", "direction": "left"}),
    ] {
        let error = conn.err_code("focus-window", params, "invalid_params");
        assert_eq!(error["hint"]["param"], "window", "{error}");
    }
    let error = conn.err_code(
        "focus-window",
        json!({"session": session, "relative": "sideways"}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "relative", "{error}");
    assert_eq!(
        error["hint"]["accepted"],
        json!(["next", "prev"]),
        "{error}"
    );
    conn.err_code(
        "focus-window",
        json!({"session": session, "window": "ghost"}),
        "window_not_found",
    );
    assert_eq!(focused(&mut conn, &session), b, "refusals change nothing");

    // Stepping on a workspace without windows.
    conn.ok(
        "select-workspace",
        json!({"session": session, "workspace": 8}),
    );
    conn.err_code(
        "focus-window",
        json!({"session": session, "relative": "next"}),
        "no_windows",
    );
}

// ---- events ---------------------------------------------------------------------------------

#[test]
fn workspace_and_window_verbs_publish_their_events() {
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("events");
    let mut conn = daemon.conn();
    let mut sub = subscribed(
        &daemon,
        &session,
        &[
            "workspace-switched",
            "window-moved",
            "window-focused",
            "window-minimized",
            "window-restored",
            "window-retitled",
        ],
    );
    let s = session.as_str();
    let first_pty = row(&mut conn, s, &first)["pty_id"]
        .as_str()
        .expect("pty_id")
        .to_string();

    // select-workspace -> workspace-switched (no window focus there to restore).
    conn.ok("select-workspace", json!({"session": s, "workspace": 2}));
    let e = expect_event(&mut sub, "workspace-switched", s, "");
    assert_eq!(e["workspace"], 2, "{e}");
    conn.ok("select-workspace", json!({"session": s, "workspace": 1}));
    let e = expect_event(&mut sub, "workspace-switched", s, "");
    assert_eq!(e["workspace"], 1, "{e}");

    // move-window -> window-moved with the new workspace.
    conn.ok(
        "move-window",
        json!({"session": s, "window": first, "workspace": 3}),
    );
    let e = expect_event(&mut sub, "window-moved", s, &first);
    assert_eq!(e["workspace"], 3, "{e}");
    assert_eq!(e["pty_id"], first_pty.as_str(), "{e}");

    // A focused new window -> window-focused.
    let second = conn.new_window_id(s, json!({"name": "second"}));
    expect_event(&mut sub, "window-focused", s, &second);

    // focus-window across workspaces -> workspace-switched, then window-focused.
    conn.ok("focus-window", json!({"session": s, "window": first}));
    let e = expect_event(&mut sub, "workspace-switched", s, "");
    assert_eq!(e["workspace"], 3, "{e}");
    let e = expect_event(&mut sub, "window-focused", s, &first);
    assert_eq!(e["pty_id"], first_pty.as_str(), "{e}");

    // set-window minimized true / false.
    conn.ok(
        "set-window",
        json!({"session": s, "window": second, "minimized": true}),
    );
    expect_event(&mut sub, "window-minimized", s, &second);
    conn.ok(
        "set-window",
        json!({"session": s, "window": second, "minimized": false}),
    );
    expect_event(&mut sub, "window-restored", s, &second);

    // set-window name -> window-retitled carrying the new name; clearing it drops the title.
    conn.ok(
        "set-window",
        json!({"session": s, "window": second, "name": "build logs"}),
    );
    let e = expect_event(&mut sub, "window-retitled", s, &second);
    assert_eq!(e["title"], "build logs", "{e}");
    conn.ok(
        "set-window",
        json!({"session": s, "window": second, "name": ""}),
    );
    let e = expect_event(&mut sub, "window-retitled", s, &second);
    assert!(e.get("title").is_none(), "a cleared name has no title: {e}");

    // move-window with follow -> window-moved, then workspace-switched.
    conn.ok(
        "move-window",
        json!({"session": s, "window": second, "workspace": 9, "follow": true}),
    );
    let e = expect_event(&mut sub, "window-moved", s, &second);
    assert_eq!(e["workspace"], 9, "{e}");
    let e = expect_event(&mut sub, "workspace-switched", s, "");
    assert_eq!(e["workspace"], 9, "{e}");
    // The second window holds workspace 9's focus, so the switch moves the focus to it.
    expect_event(&mut sub, "window-focused", s, &second);

    // A no-op (selecting the current workspace) publishes nothing: the next event is the
    // one caused after it.
    conn.ok("select-workspace", json!({"session": s, "workspace": 9}));
    conn.ok("select-workspace", json!({"session": s, "workspace": 4}));
    let e = expect_event(&mut sub, "workspace-switched", s, "");
    assert_eq!(e["workspace"], 4, "{e}");
}

/// The name-change form of window-retitled is `session, window, title` without `pty_id`:
/// that absence is what tells it from a title the program set (the PTY form, which carries
/// one), so a subscriber can tell a user's name from a program's title.
#[test]
fn a_name_change_retitle_event_has_no_pty_id() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("retitle");
    let mut conn = daemon.conn();
    let mut sub = subscribed(&daemon, &session, &["window-retitled"]);
    conn.ok(
        "set-window",
        json!({"session": session, "window": window, "name": "named"}),
    );
    let e = expect_event(&mut sub, "window-retitled", &session, &window);
    assert_eq!(e["title"], "named", "{e}");
    assert!(
        e.get("pty_id").is_none(),
        "a window-retitled event for a name change carries no pty_id: {e}"
    );
}

// ---- focus repair ---------------------------------------------------------------------------

#[test]
fn closing_the_focused_window_focuses_the_first_visible_one_on_its_workspace() {
    let daemon = TestDaemon::start();
    let (session, elsewhere) = daemon.session_with_window("repair");
    let s = session.as_str();
    let mut conn = daemon.conn();
    // Window order: elsewhere (ws 2), hidden (ws 1, minimized), visible (ws 1), doomed (ws 1).
    conn.ok(
        "move-window",
        json!({"session": s, "window": elsewhere, "workspace": 2}),
    );
    let hidden = conn.new_window_id(s, json!({"name": "hidden", "workspace": 1}));
    let visible = conn.new_window_id(s, json!({"name": "visible", "workspace": 1}));
    let doomed = conn.new_window_id(s, json!({"name": "doomed", "workspace": 1}));
    conn.ok(
        "set-window",
        json!({"session": s, "window": hidden, "minimized": true}),
    );
    assert_eq!(focused(&mut conn, s), doomed);

    let mut sub = subscribed(&daemon, s, &["window-closed", "window-focused"]);
    conn.ok("close-window", json!({"session": s, "window": doomed}));
    expect_event(&mut sub, "window-closed", s, &doomed);
    expect_event(&mut sub, "window-focused", s, &visible);
    let l = list(&mut conn, s);
    assert_eq!(l["focused_window_id"], visible.as_str(), "{l}");
    assert_eq!(l["current_workspace"], 1, "{l}");
    let ws = workspaces(&mut conn, s);
    assert_eq!(
        ws["workspaces"][0]["focused_window_id"],
        visible.as_str(),
        "{ws}"
    );

    // Only a minimized window left on the workspace: nothing is focused.
    conn.ok("close-window", json!({"session": s, "window": visible}));
    expect_event(&mut sub, "window-closed", s, &visible);
    let l = list(&mut conn, s);
    assert_eq!(l["focused_window_id"], "", "{l}");
    assert_eq!(l["focused_index"], -1, "{l}");
    assert_eq!(l["total"], 2, "{l}");

    // Closing a window that is not focused leaves the focus alone.
    conn.ok("focus-window", json!({"session": s, "window": hidden}));
    expect_event(&mut sub, "window-focused", s, &hidden);
    conn.ok("close-window", json!({"session": s, "window": elsewhere}));
    expect_event(&mut sub, "window-closed", s, &elsewhere);
    assert_eq!(focused(&mut conn, s), hidden);
}
