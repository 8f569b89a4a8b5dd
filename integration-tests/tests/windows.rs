//! Windows: new-window (name, workspace, cwd, focus, command), close-window, and the
//! window-level errors (window_not_found, no_windows, pty_not_found).

use serde_json::{json, Value};
use std::time::Duration;
use tuios_integration_tests::*;

fn window_row(conn: &mut JsonConn, session: &str, id: &str) -> Option<Value> {
    let list = conn.ok("list-windows", json!({"session": session}));
    list["windows"]
        .as_array()
        .expect("windows")
        .iter()
        .find(|w| w["window_id"] == id)
        .cloned()
}

#[test]
fn new_window_takes_name_workspace_and_focus() {
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("work");
    let mut conn = daemon.conn();

    let created = conn.new_window(&session, json!({"name": "editor", "workspace": 3}));
    let id = created["window_id"]
        .as_str()
        .expect("window_id")
        .to_string();
    assert_eq!(created["name"], "editor", "{created}");
    assert_eq!(created["workspace"], 3, "{created}");
    assert_eq!(created["focused"], true, "{created}");
    assert!(
        created["pty_id"].as_str().is_some_and(|p| !p.is_empty()),
        "{created}"
    );

    let list = conn.ok("list-windows", json!({"session": session}));
    assert_eq!(list["total"], 2, "{list}");
    assert_eq!(
        list["focused_window_id"],
        id.as_str(),
        "focus follows a new window: {list}"
    );
    assert_eq!(list["current_workspace"], 3, "{list}");
    let row = window_row(&mut conn, &session, &id).expect("new window listed");
    assert_eq!(row["workspace"], 3, "{row}");
    assert_eq!(row["custom_name"], "editor", "{row}");
    assert_eq!(row["focused"], true, "{row}");

    // focus:false leaves the focus where it was.
    let quiet = conn.new_window(
        &session,
        json!({"name": "bg", "workspace": 5, "focus": false}),
    );
    assert_eq!(quiet["focused"], false, "{quiet}");
    let list = conn.ok("list-windows", json!({"session": session}));
    assert_eq!(list["focused_window_id"], id.as_str(), "{list}");
    assert_eq!(list["current_workspace"], 3, "{list}");
    let bg = quiet["window_id"].as_str().unwrap();
    assert_eq!(window_row(&mut conn, &session, bg).unwrap()["workspace"], 5);

    // Without a workspace the window lands on the current one.
    let here = conn.new_window_id(&session, Value::Null);
    assert_eq!(
        window_row(&mut conn, &session, &here).unwrap()["workspace"],
        3
    );
    assert_ne!(first, here);

    // Windows are addressable by name.
    let content = conn.capture(&session, "editor", Value::Null);
    assert!(content.lines().count() > 0);
}

#[test]
fn new_window_starts_in_the_given_cwd() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("work");
    let dir = daemon.dir().join("some-cwd");
    std::fs::create_dir(&dir).unwrap();
    let dir = dir.canonicalize().unwrap();
    let dir_str = dir.to_str().unwrap();
    let mut conn = daemon.conn();
    let id = conn.new_window_id(&session, json!({"name": "here", "cwd": dir_str}));
    conn.ok(
        "send-text",
        json!({"session": session, "window": id, "text": "pwd\n"}),
    );
    // Only pwd's output holds the path (the prompt is `$ ` or `# `, never the cwd).
    conn.wait_for_text(&session, &id, dir_str);
}

#[test]
fn new_window_refuses_unusable_places() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let missing = daemon.dir().join("does-not-exist");
    let error = conn.err_code(
        "new-window",
        json!({"session": session, "cwd": missing.to_str().unwrap()}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "cwd", "{error}");
    let file = daemon.dir().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let error = conn.err_code(
        "new-window",
        json!({"session": session, "cwd": file.to_str().unwrap()}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "cwd", "{error}");
    for ws in [10, 99, -1] {
        let error = conn.err_code(
            "new-window",
            json!({"session": session, "workspace": ws}),
            "invalid_params",
        );
        assert_eq!(
            error["hint"]["param"], "workspace",
            "workspace {ws}: {error}"
        );
    }
    let error = conn.err_code(
        "new-window",
        json!({"session": session, "command": [""]}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "command", "{error}");
    let error = conn.err_code(
        "new-window",
        json!({"session": session, "command": ["/nonexistent/program-xyz"]}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "command", "{error}");
    assert_eq!(
        conn.window_ids(&session).len(),
        1,
        "a refused new-window created a window"
    );
}

#[test]
fn new_window_command_is_exec_verbatim() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let id = conn.new_window_id(
        &session,
        json!({"command": ["/bin/sh", "-c", "echo hi; sleep 100"]}),
    );
    conn.wait_for_line(&session, &id, "hi");

    // No shell ever sees the arguments: spaces, quotes, $ and globs arrive untouched.
    let id = conn.new_window_id(
        &session,
        json!({"command": [
            "/bin/sh", "-c", "printf '<%s>\\n' \"$@\"; sleep 100", "argv0",
            "a b", "$HOME", "*", "'q'"
        ]}),
    );
    let content = conn.wait_for_text(&session, &id, "<'q'>");
    for line in ["<a b>", "<$HOME>", "<*>", "<'q'>"] {
        assert!(
            content.lines().any(|l| l.trim() == line),
            "{line} missing:\n{content}"
        );
    }
}

#[test]
fn a_command_window_closes_when_its_program_exits() {
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let id = conn.new_window_id(&session, json!({"command": ["/bin/sh", "-c", "exit 0"]}));
    wait_until(DEADLINE, "the command window to close", || {
        window_row(&mut conn, &session, &id).is_none().then_some(())
    });
    assert_eq!(conn.window_ids(&session), [first]);
}

#[test]
fn a_remaining_command_window_keeps_its_screen() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let id = conn.new_window_id(
        &session,
        // -echo: the probing input below must not show up on the screen.
        json!({"command": ["/bin/sh", "-c", "stty -echo; echo bye-$((40+2))"], "remain": true}),
    );
    // Echo is off once the program has printed, so probing cannot draw on its screen.
    conn.wait_for_text(&session, &id, "bye-42");
    // Once the program is gone its PTY takes no input...
    wait_until(DEADLINE, "the program to exit", || {
        let resp = conn.call(
            "send-text",
            json!({"session": session, "window": id, "text": "x"}),
        );
        (resp["error"]["code"] == "pty_not_found").then_some(())
    });
    // ...but the window stays, with what the program printed.
    assert!(
        window_row(&mut conn, &session, &id).is_some(),
        "remain:true window was closed"
    );
    let content = conn.capture(&session, &id, Value::Null);
    assert!(content.lines().any(|l| l.trim() == "bye-42"), "{content}");
}

#[test]
fn close_window_closes_it() {
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let second = conn.new_window_id(&session, json!({"name": "second"}));
    let ok = conn.ok(
        "close-window",
        json!({"session": session, "window": second}),
    );
    assert_eq!(ok["type"], "ok", "{ok}");
    assert_eq!(conn.window_ids(&session), std::slice::from_ref(&first));
    conn.err_code(
        "capture-pane",
        json!({"session": session, "window": second}),
        "window_not_found",
    );

    // By name, and without a window: the focused one.
    conn.new_window_id(&session, json!({"name": "third"}));
    conn.ok(
        "close-window",
        json!({"session": session, "window": "third"}),
    );
    assert_eq!(conn.window_ids(&session), std::slice::from_ref(&first));
    let fourth = conn.new_window_id(&session, json!({"name": "fourth"}));
    conn.ok("close-window", json!({"session": session}));
    assert_eq!(
        conn.window_ids(&session),
        [first],
        "closed {fourth}? the focused one must go"
    );
}

#[test]
fn window_not_found_lists_the_windows() {
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let named = conn.new_window_id(&session, json!({"name": "editor"}));
    for verb in [
        "capture-pane",
        "close-window",
        "send-text",
        "resize",
        "send-keys",
    ] {
        let mut p = json!({"session": session, "window": "no-such-window"});
        match verb {
            "send-text" => p["text"] = json!("x"),
            "send-keys" => p["keys"] = json!("x"),
            "resize" => {
                p["width"] = json!(80);
                p["height"] = json!(24);
            }
            _ => {}
        }
        let error = conn.err_code(verb, p, "window_not_found");
        assert_eq!(error["hint"]["param"], "window", "{verb}: {error}");
        let available = strings(&error["hint"]["available"]).join(" ");
        assert!(
            available.contains(&first)
                && (available.contains(&named) || available.contains("editor")),
            "{verb}: available does not list the windows: {error}"
        );
    }
    assert_eq!(conn.window_ids(&session).len(), 2, "nothing was closed");
}

#[test]
fn a_session_without_windows_answers_no_windows() {
    let daemon = TestDaemon::start();
    let (session, only) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    conn.ok("close-window", json!({"session": session, "window": only}));
    assert!(conn.window_ids(&session).is_empty());
    conn.err_code("capture-pane", json!({"session": session}), "no_windows");
    conn.err_code(
        "send-text",
        json!({"session": session, "text": "x"}),
        "no_windows",
    );
    conn.err_code("close-window", json!({"session": session}), "no_windows");
    // The session itself is still there and takes a new window.
    let info = conn.ok("session-info", json!({"session": session}));
    assert_eq!(info["window_count"], 0, "{info}");
    let id = conn.new_window_id(&session, Value::Null);
    assert_eq!(conn.window_ids(&session), [id]);
}

#[test]
fn a_window_whose_shell_exited_answers_pty_not_found() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let id = conn.new_window_id(&session, json!({"name": "doomed"}));
    conn.ok(
        "send-text",
        json!({"session": session, "window": id, "text": "exit\n"}),
    );
    let error = wait_until(Duration::from_secs(20), "the shell to exit", || {
        let resp = conn.call(
            "send-text",
            json!({"session": session, "window": id, "text": "x"}),
        );
        if resp["error"]["code"] == "pty_not_found" {
            Some(resp["error"].clone())
        } else {
            None
        }
    });
    assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()));
    // A shell window stays listed with its dead PTY.
    assert!(
        window_row(&mut conn, &session, &id).is_some(),
        "the dead shell's window vanished"
    );
    conn.err_code(
        "send-keys",
        json!({"session": session, "window": id, "keys": "Enter"}),
        "pty_not_found",
    );
    conn.err_code(
        "resize",
        json!({"session": session, "window": id, "width": 40, "height": 10}),
        "pty_not_found",
    );
    // It can still be closed.
    conn.ok("close-window", json!({"session": session, "window": id}));
    assert!(window_row(&mut conn, &session, &id).is_none());
}

/// A window target is an id, the index list-windows prints, a unique id prefix, or a name.
#[test]
fn window_targets_resolve_by_id_index_prefix_and_name() {
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let second = conn.new_window_id(&session, json!({"name": "editor"}));
    let third = conn.new_window_id(&session, json!({"name": "logs"}));
    // Choose a prefix of `second` that no other id shares.
    let prefix = (4..second.len())
        .map(|n| &second[..n])
        .find(|p| !first.starts_with(p) && !third.starts_with(p))
        .expect("a unique prefix")
        .to_string();
    let cases = [
        (first.as_str(), first.as_str(), 1),
        ("0", first.as_str(), 2),
        ("1", second.as_str(), 3),
        (prefix.as_str(), second.as_str(), 4),
        ("editor", second.as_str(), 5),
        ("logs", third.as_str(), 6),
    ];
    for (target, expected, n) in cases {
        conn.ok(
            "send-text",
            json!({"session": session, "window": target, "text": format!("echo tgt-$((1000+{n}))\n")}),
        );
        conn.wait_for_text(&session, expected, &format!("tgt-{}", 1000 + n));
    }
    // Each marker reached only its own window.
    let second_text = conn.capture(&session, &second, json!({"source": "recent"}));
    assert!(!second_text.contains("tgt-1001") && !second_text.contains("tgt-1006"));
    let first_text = conn.capture(&session, &first, json!({"source": "recent"}));
    assert!(!first_text.contains("tgt-1003") && !first_text.contains("tgt-1005"));
}

#[test]
fn an_empty_session_lists_no_windows_and_hints_at_new_window() {
    let daemon = TestDaemon::start();
    let (session, only) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    conn.ok("close-window", json!({"session": session, "window": only}));
    let list = conn.ok("list-windows", json!({"session": session}));
    assert_eq!(list["total"], 0, "{list}");
    assert_eq!(list["windows"], json!([]), "{list}");
    assert_eq!(list["focused_index"], -1, "{list}");
    assert_eq!(list["focused_window_id"], "", "{list}");
    let error = conn.err_code("capture-pane", json!({"session": session}), "no_windows");
    assert_eq!(error["hint"]["verb"], "new-window", "{error}");
}

/// Programs in a pane learn where they run from the environment.
#[test]
fn panes_get_the_tuios_environment() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let script = r#"for v in TUIOS_SOCKET TUIOS_SESSION TUIOS_WINDOW_ID TUIOS_ENV TERM COLORTERM; do
        eval "printf 'env:%s=%s\n' $v \"\$$v\""; done; echo env-done; sleep 100"#;
    let created = conn.new_window(&session, json!({"command": ["/bin/sh", "-c", script]}));
    let id = created["window_id"].as_str().unwrap().to_string();
    let content = conn.wait_for_line(&session, &id, "env-done");
    let socket = daemon.socket().display().to_string();
    for expected in [
        format!("env:TUIOS_SOCKET={socket}"),
        format!("env:TUIOS_SESSION={session}"),
        format!("env:TUIOS_WINDOW_ID={id}"),
        "env:TUIOS_ENV=1".to_string(),
        "env:TERM=xterm-256color".to_string(),
        "env:COLORTERM=truecolor".to_string(),
    ] {
        assert!(
            content.lines().any(|l| l.trim() == expected),
            "{expected} missing:\n{content}"
        );
    }
}
