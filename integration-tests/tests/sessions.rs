//! Sessions: list-sessions, session-info, list-windows, kill-session, and session errors.

use serde_json::{json, Value};
use tuios_integration_tests::*;

fn session_names(conn: &mut JsonConn) -> Vec<String> {
    let list = conn.ok("list-sessions", Value::Null);
    assert_eq!(list["type"], "session_list", "{list}");
    list["sessions"]
        .as_array()
        .unwrap_or_else(|| panic!("sessions is not an array: {list}"))
        .iter()
        .map(|s| s["name"].as_str().expect("session name").to_string())
        .collect()
}

#[test]
fn list_sessions_lists_every_session_oldest_first() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    assert!(
        session_names(&mut conn).is_empty(),
        "a fresh daemon holds no sessions"
    );
    daemon.new_session("alpha");
    daemon.new_session("beta");
    assert_eq!(session_names(&mut conn), ["alpha", "beta"]);

    let list = conn.ok("list-sessions", Value::Null);
    let alpha = &list["sessions"][0];
    assert_eq!(alpha["window_count"], 1, "{alpha}");
    assert_eq!(alpha["attached"], false, "{alpha}");
    assert!(
        alpha["id"].as_str().is_some_and(|id| !id.is_empty()),
        "{alpha}"
    );
    assert!(alpha["created"].as_u64().is_some_and(|t| t > 0), "{alpha}");
    assert!(alpha["last_active"].as_u64().is_some(), "{alpha}");
    assert!(alpha["width"].as_u64().is_some_and(|w| w > 0), "{alpha}");
    assert!(alpha["height"].as_u64().is_some_and(|h| h > 0), "{alpha}");
}

#[test]
fn session_info_reports_the_session() {
    let daemon = TestDaemon::start();
    daemon.new_session("work");
    let mut conn = daemon.conn();
    let info = conn.ok("session-info", json!({"session": "work"}));
    assert_eq!(info["type"], "session_info", "{info}");
    assert_eq!(info["session_name"], "work", "{info}");
    assert!(
        info["session_id"].as_str().is_some_and(|id| !id.is_empty()),
        "{info}"
    );
    assert_eq!(info["window_count"], 1, "{info}");
    assert_eq!(info["current_workspace"], 1, "{info}");
    assert_eq!(info["num_workspaces"], 9, "{info}");
    assert_eq!(info["tui_attached"], false, "{info}");
    assert!(info["width"].as_u64().is_some_and(|w| w > 0), "{info}");
    assert!(info["height"].as_u64().is_some_and(|h| h > 0), "{info}");

    // Without a session name: the most recently active one.
    daemon.new_session("later");
    let info = conn.ok("session-info", Value::Null);
    assert_eq!(info["session_name"], "later", "{info}");
}

#[test]
fn list_windows_lists_the_windows() {
    let daemon = TestDaemon::start();
    daemon.new_session("work");
    let mut conn = daemon.conn();
    let list = conn.ok("list-windows", json!({"session": "work"}));
    assert_eq!(list["type"], "window_list", "{list}");
    assert_eq!(list["total"], 1, "{list}");
    assert_eq!(list["current_workspace"], 1, "{list}");
    let first = &list["windows"][0];
    let id = first["window_id"].as_str().expect("window_id");
    assert_eq!(first["index"], 0, "{first}");
    assert_eq!(first["workspace"], 1, "{first}");
    assert_eq!(first["minimized"], false, "{first}");
    assert!(
        first["pty_id"].as_str().is_some_and(|p| !p.is_empty()),
        "{first}"
    );
    assert!(
        first["title"].is_string() && first["display_name"].is_string(),
        "{first}"
    );
    assert_eq!(first["focused"], true, "{first}");
    assert_eq!(list["focused_window_id"], id, "{list}");
    assert_eq!(list["focused_index"], 0, "{list}");
    let per_ws = list["workspace_windows"]
        .as_array()
        .expect("workspace_windows");
    assert_eq!(per_ws.len(), 9, "{list}");
    assert_eq!(per_ws[0], 1, "{list}");

    let second = conn.new_window_id("work", json!({"name": "second", "workspace": 2}));
    let list = conn.ok("list-windows", json!({"session": "work"}));
    assert_eq!(list["total"], 2, "{list}");
    assert_eq!(list["windows"][1]["window_id"], second.as_str(), "{list}");
    assert_eq!(list["windows"][1]["index"], 1, "{list}");
    assert_eq!(list["windows"][1]["custom_name"], "second", "{list}");
    assert_eq!(list["windows"][1]["display_name"], "second", "{list}");
    assert_eq!(list["workspace_windows"][1], 1, "{list}");
}

#[test]
fn kill_session_removes_only_that_session() {
    let daemon = TestDaemon::start();
    daemon.new_session("doomed");
    daemon.new_session("keeper");
    let mut conn = daemon.conn();
    let window = conn.first_window("doomed");
    let ok = conn.ok("kill-session", json!({"session": "doomed"}));
    assert_eq!(ok["type"], "ok", "{ok}");
    assert_eq!(session_names(&mut conn), ["keeper"]);
    conn.err_code(
        "capture-pane",
        json!({"session": "doomed", "window": window}),
        "session_not_found",
    );
    // The other session still works.
    assert_eq!(
        conn.ok("session-info", json!({"session": "keeper"}))["session_name"],
        "keeper"
    );
    // A killed session's name is free again.
    daemon.new_session("doomed");
    assert_eq!(session_names(&mut conn), ["keeper", "doomed"]);
}

#[test]
fn kill_session_never_guesses() {
    let daemon = TestDaemon::start();
    daemon.new_session("work");
    let mut conn = daemon.conn();
    let error = conn.err_code("kill-session", Value::Null, "invalid_params");
    assert_eq!(error["hint"]["param"], "session", "{error}");
    conn.err_code("kill-session", json!({"session": ""}), "invalid_params");
    let error = conn.err_code(
        "kill-session",
        json!({"session": "wrok"}),
        "session_not_found",
    );
    assert_eq!(error["hint"]["did_you_mean"], "work", "{error}");
    assert_eq!(session_names(&mut conn), ["work"], "nothing was killed");
}

#[test]
fn session_not_found_lists_the_sessions() {
    let daemon = TestDaemon::start();
    daemon.new_session("alpha");
    daemon.new_session("beta");
    let mut conn = daemon.conn();
    for verb in [
        "session-info",
        "list-windows",
        "capture-pane",
        "new-window",
        "close-window",
    ] {
        let error = conn.err_code(verb, json!({"session": "alpah"}), "session_not_found");
        assert_eq!(
            strings(&error["hint"]["available"]),
            ["alpha", "beta"],
            "{verb}: {error}"
        );
        assert_eq!(error["hint"]["did_you_mean"], "alpha", "{verb}: {error}");
        assert_eq!(error["hint"]["param"], "session", "{verb}: {error}");
    }
    let error = conn.err_code(
        "send-text",
        json!({"session": "gamma", "text": "x"}),
        "session_not_found",
    );
    assert!(error["hint"].get("did_you_mean").is_none(), "{error}");
}

#[test]
fn no_session_at_all_is_session_not_found() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    for verb in ["session-info", "list-windows", "capture-pane"] {
        let error = conn.err_code(verb, Value::Null, "session_not_found");
        assert!(
            error["hint"]["command"].as_str().is_some(),
            "{verb}: {error}"
        );
    }
}

#[test]
fn the_most_recently_active_session_is_the_default() {
    let daemon = TestDaemon::start();
    daemon.new_session("a");
    daemon.new_session("b");
    let mut conn = daemon.conn();
    let default =
        |conn: &mut JsonConn| conn.ok("session-info", Value::Null)["session_name"].clone();
    assert_eq!(default(&mut conn), "b");
    conn.ok("list-windows", json!({"session": "a"}));
    assert_eq!(
        default(&mut conn),
        "a",
        "a verb on a session makes it the most recent"
    );
    conn.ok("capture-pane", json!({"session": "b"}));
    assert_eq!(default(&mut conn), "b");
}
