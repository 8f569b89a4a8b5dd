//! `new-session` over JSON (issue 15 item 3): a harness starts sessions without the binary
//! protocol or the CLI; every parameter is checked before anything is created.

use serde_json::{json, Value};
use tuios_integration_tests::*;

fn run(conn: &mut JsonConn, session: &str, command: &str) -> Value {
    conn.ok(
        "run",
        json!({"session": session, "command": command, "timeout": 15000}),
    )
}

fn session_names(conn: &mut JsonConn) -> Vec<String> {
    let list = conn.ok("list-sessions", json!({}));
    list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn creates_a_session_with_size_directory_and_environment() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let dir = daemon.dir().join("work dir");
    std::fs::create_dir(&dir).unwrap();
    let created = conn.ok(
        "new-session",
        json!({
            "name": "ci",
            "width": 100,
            "height": 30,
            "cwd": dir.to_string_lossy(),
            "env": ["GREETING=hello there", "EMPTY="],
        }),
    );
    assert_eq!(created["type"], "session_created", "{created}");
    assert_eq!(created["name"], "ci", "{created}");
    assert_eq!(created["window_count"], 1, "{created}");
    assert_eq!(
        (created["width"].as_i64(), created["height"].as_i64()),
        (Some(100), Some(30))
    );
    let window = created["window_id"].as_str().unwrap().to_string();
    assert_eq!(conn.first_window("ci"), window);
    let row = conn.window_row("ci", &window);
    assert_eq!(
        (row["width"].as_i64(), row["height"].as_i64()),
        (Some(100), Some(30)),
        "{row}"
    );

    let r = run(
        &mut conn,
        "ci",
        "pwd; echo \"$GREETING\"; echo \"[${EMPTY-unset}]\"",
    );
    assert_eq!(
        r["output"],
        format!("{}\nhello there\n[]\n", dir.display()),
        "{r}"
    );

    // Without a name the daemon picks one; without a size it is 80x24.
    let created = conn.ok("new-session", json!({}));
    let name = created["name"].as_str().unwrap().to_string();
    assert!(session_names(&mut conn).contains(&name));
    assert_eq!(
        (created["width"].as_i64(), created["height"].as_i64()),
        (Some(80), Some(24))
    );
}

#[test]
fn a_command_session_keeps_its_window_for_capture() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let created = conn.ok(
        "new-session",
        json!({"name": "job", "command": ["/bin/sh", "-c", "echo finished-$((6*7)); exit 3"]}),
    );
    let window = created["window_id"].as_str().unwrap().to_string();
    let exit = conn.ok(
        "wait-for",
        json!({"condition": "window-exit", "session": "job", "window": window, "timeout": 10000}),
    );
    assert_eq!(exit["exit_code"], 3, "{exit}");
    let text = conn.capture("job", &window, json!({}));
    assert!(text.contains("finished-42"), "{text}");
}

#[test]
fn refusals_leave_nothing_behind() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    conn.ok("new-session", json!({"name": "taken"}));
    let cases = [
        (json!({"name": "a", "width": 0}), "width"),
        (json!({"name": "a", "width": 5000}), "width"),
        (json!({"name": "a", "height": 1001}), "height"),
        (json!({"name": "a", "cwd": "/nonexistent/tuios"}), "cwd"),
        (json!({"name": "a", "cwd": "/etc/passwd"}), "cwd"),
        (json!({"name": "a", "env": ["NOEQUALS"]}), "env"),
        (json!({"name": "a", "env": ["=x"]}), "env"),
        (json!({"name": "a", "command": [""]}), "command"),
        (json!({"name": "bad/name"}), "name"),
        (json!({"name": "taken"}), "name"),
    ];
    for (p, param) in cases {
        let e = conn.err_code("new-session", p.clone(), "invalid_params");
        assert_eq!(e["hint"]["param"], param, "{p}: {e}");
    }
    // A program that cannot start: refused, and the half-made session is gone.
    let e = conn.err_code(
        "new-session",
        json!({"name": "nope", "command": ["/nonexistent/program"]}),
        "invalid_params",
    );
    assert!(e["message"].as_str().unwrap().contains("program"), "{e}");
    assert_eq!(session_names(&mut conn), ["taken"]);
    // Unknown parameters are refused, as for every verb.
    conn.err_code("new-session", json!({"nmae": "x"}), "invalid_params");
}

#[test]
fn the_cli_creates_sessions_through_the_verb() {
    let daemon = TestDaemon::start();
    let dir = daemon.dir().join("proj");
    std::fs::create_dir(&dir).unwrap();
    let out = daemon.cli(&[
        "new",
        "-d",
        "cli",
        "-c",
        &dir.to_string_lossy(),
        "-e",
        "A=1",
        "--width",
        "90",
    ]);
    assert!(out.status.success(), "{out:?}");
    let mut conn = daemon.conn();
    let r = run(&mut conn, "cli", "pwd; echo $A; stty size");
    assert_eq!(r["output"], format!("{}\n1\n24 90\n", dir.display()), "{r}");
    // `new-session` is tmux's spelling of `new`.
    let out = daemon.cli(&["new-session", "-d", "second"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(session_names(&mut conn), ["cli", "second"]);
}
