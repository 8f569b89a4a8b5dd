//! The `tuios` CLI against a real daemon: session commands (binary protocol) and the
//! generic `call` (JSON protocol).

use serde_json::Value;
use std::process::Output;
use tuios_integration_tests::*;

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn new_detached_then_ls() {
    let daemon = TestDaemon::start();
    let out = daemon.cli(&["new", "-d", "alpha"]);
    assert!(out.status.success(), "{}", describe(&out));
    assert!(stdout(&out).contains("alpha"), "{}", describe(&out));

    let out = daemon.cli(&["ls", "--json"]);
    assert!(out.status.success(), "{}", describe(&out));
    let sessions: Value = serde_json::from_str(stdout(&out).trim()).expect("ls --json is JSON");
    let names: Vec<&str> = sessions
        .as_array()
        .expect("ls --json prints an array")
        .iter()
        .map(|s| s["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["alpha"]);

    let out = daemon.cli(&["ls"]);
    assert!(out.status.success(), "{}", describe(&out));
    assert!(stdout(&out).contains("alpha"), "{}", describe(&out));
}

#[test]
fn new_with_a_taken_name_fails() {
    let daemon = TestDaemon::start();
    daemon.new_session("alpha");
    let out = daemon.cli(&["new", "-d", "alpha"]);
    assert!(!out.status.success(), "{}", describe(&out));
    assert!(!out.stderr.is_empty(), "{}", describe(&out));
    let list = daemon.conn().ok("list-sessions", Value::Null);
    assert_eq!(list["sessions"].as_array().map(Vec::len), Some(1), "{list}");
}

#[test]
fn new_refuses_a_bad_session_name() {
    let daemon = TestDaemon::start();
    for bad in ["a/b", " lead", "..", "tab\there"] {
        let out = daemon.cli(&["new", "-d", bad]);
        assert!(
            !out.status.success(),
            "{bad:?} accepted: {}",
            describe(&out)
        );
    }
    let list = daemon.conn().ok("list-sessions", Value::Null);
    assert_eq!(list["sessions"].as_array().map(Vec::len), Some(0), "{list}");
    // Spaces inside and non-ASCII are fine, and address the session over JSON.
    daemon.new_session("my work ü");
    let info = daemon
        .conn()
        .ok("session-info", serde_json::json!({"session": "my work ü"}));
    assert_eq!(info["session_name"], "my work ü", "{info}");
}

#[test]
fn call_prints_the_response_line() {
    let daemon = TestDaemon::start();
    daemon.new_session("work");
    let out = daemon.cli(&["call", "session-info", r#"{"session":"work"}"#]);
    assert!(out.status.success(), "{}", describe(&out));
    let resp: Value = serde_json::from_str(stdout(&out).trim()).expect("a JSON line");
    assert_eq!(resp["result"]["session_name"], "work", "{resp}");

    let out = daemon.cli(&["call", "list-window"]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let resp: Value = serde_json::from_str(stdout(&out).trim()).expect("a JSON line");
    assert_eq!(resp["error"]["code"], "unknown_verb", "{resp}");
}

#[test]
fn kill_session_from_the_cli() {
    let daemon = TestDaemon::start();
    daemon.new_session("doomed");
    let out = daemon.cli(&["kill-session", "doomed"]);
    assert!(out.status.success(), "{}", describe(&out));
    let list = daemon.conn().ok("list-sessions", Value::Null);
    assert_eq!(list["sessions"].as_array().map(Vec::len), Some(0), "{list}");
    let out = daemon.cli(&["kill-session", "doomed"]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
}

#[test]
fn kill_server_stops_the_daemon() {
    let mut daemon = TestDaemon::start();
    daemon.new_session("work");
    let out = daemon.cli(&["kill-server"]);
    assert!(out.status.success(), "{}", describe(&out));
    // kill-server returns once the socket is gone.
    assert!(
        !daemon.socket().exists(),
        "kill-server returned before the socket went away"
    );
    let status = daemon
        .process()
        .wait_timeout(DEADLINE)
        .expect("the daemon exits after kill-server");
    assert_eq!(status.code(), Some(0), "{status}");

    // Without a daemon, kill-server has nothing to do and says so.
    let out = daemon.cli(&["kill-server"]);
    assert!(out.status.success(), "{}", describe(&out));
}

#[test]
fn new_starts_a_daemon_when_none_runs() {
    let env = TestEnv::new();
    let mut guard = PidGuard(None);
    let out = env.cli(&["new", "-d", "auto"]);
    // Learn the pid first so the guard cleans up even when the assertions below fail.
    if let Ok(pid) = std::fs::read_to_string(env.pid_file()) {
        guard.0 = pid.trim().parse().ok();
    }
    assert!(out.status.success(), "{}", describe(&out));
    let hello = JsonConn::connect(env.socket()).ok("hello", Value::Null);
    guard.0 = hello["pid"].as_u64().map(|p| p as u32);
    assert_eq!(hello["sessions"], 1, "{hello}");

    let out = env.cli(&["kill-server"]);
    assert!(out.status.success(), "{}", describe(&out));
    assert!(!env.socket().exists());
    guard.0 = None;
}
