//! Labels end to end: set-session-name (a display name; the identity name stays),
//! set-session-accent, set-workspace-name and set-workspace-order.

use serde_json::{json, Value};
use tuios_integration_tests::*;

fn session_row(conn: &mut JsonConn, name: &str) -> Value {
    let list = conn.ok("list-sessions", Value::Null);
    list["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .find(|s| s["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("session {name} not listed: {list}"))
}

fn info(conn: &mut JsonConn, session: &str) -> Value {
    let info = conn.ok("session-info", json!({"session": session}));
    assert_eq!(info["type"], "session_info", "{info}");
    info
}

fn workspace_list(conn: &mut JsonConn, session: &str) -> Value {
    conn.ok("list-workspaces", json!({"session": session}))
}

#[test]
fn set_session_name_sets_a_display_name_and_keeps_the_identity() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("work");
    let mut conn = daemon.conn();

    let r = conn.ok(
        "set-session-name",
        json!({"session": session, "name": "  Deploy 42  "}),
    );
    assert_eq!(r["type"], "session_name_set", "{r}");
    assert_eq!(r["session"], "work", "the identity name is reported: {r}");
    assert_eq!(r["display_name"], "Deploy 42", "{r}");

    let row = session_row(&mut conn, "work");
    assert_eq!(row["display_name"], "Deploy 42", "{row}");
    assert_eq!(row["name"], "work", "{row}");
    let i = info(&mut conn, "work");
    assert_eq!(i["display_name"], "Deploy 42", "{i}");
    assert_eq!(i["session_name"], "work", "{i}");

    // Still addressed by its original name, never by the display name.
    assert_eq!(conn.window_ids("work"), vec![window.clone()]);
    conn.ok(
        "send-text",
        json!({"session": "work", "window": window, "text": "echo still-$((40+2))\n"}),
    );
    conn.wait_for_text("work", &window, "still-42");
    conn.err_code(
        "list-windows",
        json!({"session": "Deploy 42"}),
        "session_not_found",
    );
    let names: Vec<Value> = conn.ok("list-sessions", Value::Null)["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|s| s["name"].clone())
        .collect();
    assert_eq!(names, vec![json!("work")]);
    conn.err_code(
        "kill-session",
        json!({"session": "Deploy 42"}),
        "session_not_found",
    );
    assert_eq!(info(&mut conn, "work")["display_name"], "Deploy 42");

    // Without a session: the most recently active one.
    let r = conn.ok("set-session-name", json!({"name": "Other"}));
    assert_eq!(r["session"], "work", "{r}");
    assert_eq!(r["display_name"], "Other", "{r}");

    // Empty (or left out) clears it.
    let r = conn.ok("set-session-name", json!({"session": "work", "name": ""}));
    assert_eq!(r["display_name"], "", "{r}");
    let row = session_row(&mut conn, "work");
    assert!(row.get("display_name").is_none(), "cleared: {row}");
    assert_eq!(info(&mut conn, "work")["display_name"], "");
    conn.ok(
        "set-session-name",
        json!({"session": "work", "name": "Again"}),
    );
    let r = conn.ok("set-session-name", json!({"session": "work"}));
    assert_eq!(r["display_name"], "", "{r}");

    conn.err_code(
        "set-session-name",
        json!({"session": "nope", "name": "x"}),
        "session_not_found",
    );
    let error = conn.err_code(
        "set-session-name",
        json!({"session": "work", "name": 5}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "name", "{error}");
}

#[test]
fn set_session_accent_takes_ansi_names_and_hex_and_refuses_others() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("paint");
    let mut conn = daemon.conn();

    let error = conn.err_code(
        "set-session-accent",
        json!({"session": session, "accent": "teal"}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "accent", "{error}");
    let accepted = strings(&error["hint"]["accepted"]);
    for want in ["cyan", "bright blue", "#rrggbb"] {
        assert!(
            accepted.iter().any(|a| a == want),
            "accepted should list {want}: {error}"
        );
    }
    for bad in ["#12345", "#a0b1cz", "dark red", "bright", "rgb(1,2,3)"] {
        conn.err_code(
            "set-session-accent",
            json!({"session": session, "accent": bad}),
            "invalid_params",
        );
    }
    // A refused accent records nothing.
    assert!(session_row(&mut conn, &session).get("accent").is_none());
    assert_eq!(info(&mut conn, &session)["accent"], "");

    // Recorded as sent, without the surrounding spaces: checked, not rewritten.
    for (given, stored) in [
        ("#a0b1c2", "#a0b1c2"),
        ("#A0B1C2", "#A0B1C2"),
        ("bright blue", "bright blue"),
        ("  Bright_Blue ", "Bright_Blue"),
        ("cyan", "cyan"),
        ("CYAN", "CYAN"),
    ] {
        let r = conn.ok(
            "set-session-accent",
            json!({"session": session, "accent": given}),
        );
        assert_eq!(r["type"], "session_accent_set", "{r}");
        assert_eq!(r["session"], "paint", "{r}");
        assert_eq!(r["accent"], stored, "{r}");
        assert_eq!(session_row(&mut conn, &session)["accent"], stored);
        assert_eq!(info(&mut conn, &session)["accent"], stored);
    }

    // Empty clears.
    let r = conn.ok(
        "set-session-accent",
        json!({"session": session, "accent": ""}),
    );
    assert_eq!(r["accent"], "", "{r}");
    assert!(session_row(&mut conn, &session).get("accent").is_none());
    assert_eq!(info(&mut conn, &session)["accent"], "");

    conn.err_code(
        "set-session-accent",
        json!({"session": "nope", "accent": "red"}),
        "session_not_found",
    );
}

#[test]
fn set_workspace_name_names_and_clears() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("named");
    let mut conn = daemon.conn();

    let r = conn.ok(
        "set-workspace-name",
        json!({"session": session, "workspace": 2, "name": "  logs "}),
    );
    assert_eq!(r["type"], "workspace_name_set", "{r}");
    assert_eq!(r["workspace"], 2, "{r}");
    assert_eq!(r["name"], "logs", "{r}");
    conn.ok(
        "set-workspace-name",
        json!({"session": session, "workspace": 9, "name": "scratch"}),
    );

    let ws = workspace_list(&mut conn, &session);
    assert_eq!(ws["workspaces"][1]["name"], "logs", "{ws}");
    assert_eq!(ws["workspaces"][8]["name"], "scratch", "{ws}");
    assert_eq!(ws["workspaces"][0]["name"], "", "{ws}");
    let i = info(&mut conn, &session);
    assert_eq!(
        i["workspace_names"],
        json!({"2": "logs", "9": "scratch"}),
        "{i}"
    );

    // An empty name (or none) clears it.
    conn.ok(
        "set-workspace-name",
        json!({"session": session, "workspace": 2, "name": ""}),
    );
    conn.ok(
        "set-workspace-name",
        json!({"session": session, "workspace": 9}),
    );
    let ws = workspace_list(&mut conn, &session);
    assert_eq!(ws["workspaces"][1]["name"], "", "{ws}");
    assert_eq!(ws["workspaces"][8]["name"], "", "{ws}");
    assert_eq!(info(&mut conn, &session)["workspace_names"], json!({}));

    // Validation.
    for params in [
        json!({"session": session, "name": "x"}),
        json!({"session": session, "workspace": 0, "name": "x"}),
    ] {
        let error = conn.err_code("set-workspace-name", params, "invalid_params");
        assert_eq!(error["hint"]["param"], "workspace", "{error}");
    }
    for n in [10, -1] {
        let error = conn.err_code(
            "set-workspace-name",
            json!({"session": session, "workspace": n, "name": "x"}),
            "invalid_params",
        );
        assert_eq!(error["hint"]["param"], "workspace", "{error}");
        let detail = error["hint"]["detail"].as_str().unwrap_or_default();
        assert!(
            detail.contains('1') && detail.contains('9'),
            "the range is in the detail: {error}"
        );
    }
    conn.err_code(
        "set-workspace-name",
        json!({"session": "nope", "workspace": 1, "name": "x"}),
        "session_not_found",
    );
    assert_eq!(info(&mut conn, &session)["workspace_names"], json!({}));
}

#[test]
fn set_workspace_order_is_sanitised() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("order");
    let mut conn = daemon.conn();

    // Repeats and numbers out of range are dropped.
    let r = conn.ok(
        "set-workspace-order",
        json!({"session": session, "order": [3, 3, 1, 99]}),
    );
    assert_eq!(r["type"], "workspace_order_set", "{r}");
    assert_eq!(r["workspace_order"], json!([3, 1]), "{r}");
    assert_eq!(workspace_list(&mut conn, &session)["order"], json!([3, 1]));
    assert_eq!(info(&mut conn, &session)["workspace_order"], json!([3, 1]));

    let r = conn.ok(
        "set-workspace-order",
        json!({"session": session, "order": [9, 0, 2, -4, 5]}),
    );
    assert_eq!(r["workspace_order"], json!([9, 2, 5]), "{r}");

    // An ascending list is the natural order: stored as null.
    let r = conn.ok(
        "set-workspace-order",
        json!({"session": session, "order": [1, 2, 5]}),
    );
    assert!(r["workspace_order"].is_null(), "{r}");
    assert!(workspace_list(&mut conn, &session)["order"].is_null());
    assert!(info(&mut conn, &session)["workspace_order"].is_null());
    // So does one that becomes ascending once sanitised.
    conn.ok(
        "set-workspace-order",
        json!({"session": session, "order": [2, 1]}),
    );
    let r = conn.ok(
        "set-workspace-order",
        json!({"session": session, "order": [4, 4, 12, 7]}),
    );
    assert!(r["workspace_order"].is_null(), "{r}");

    // Validation: required, non-empty, something in range, integers only.
    for params in [
        json!({"session": session}),
        json!({"session": session, "order": []}),
        json!({"session": session, "order": [0, 10, 99]}),
        json!({"session": session, "order": ["3"]}),
        json!({"session": session, "order": 3}),
    ] {
        let error = conn.err_code("set-workspace-order", params, "invalid_params");
        assert_eq!(error["hint"]["param"], "order", "{error}");
    }
    conn.err_code(
        "set-workspace-order",
        json!({"session": "nope", "order": [2, 1]}),
        "session_not_found",
    );
    assert!(workspace_list(&mut conn, &session)["order"].is_null());
}
