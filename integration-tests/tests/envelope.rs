//! The request/response envelope, dispatch-order errors, and transport behaviour.

use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;
use tuios_integration_tests::*;

#[test]
fn ids_are_echoed_as_sent() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    for id in [
        json!(7),
        json!(-3),
        json!(1.5),
        json!("abc"),
        json!({"k": [1, 2, {"z": null}]}),
        json!([1, "two"]),
        json!(true),
    ] {
        let req = json!({"id": id, "verb": "hello"});
        conn.send_line(&req.to_string());
        let resp = conn.read_line();
        assert_eq!(resp.get("id"), Some(&id), "id {id} not echoed: {resp}");
        assert_eq!(resp["result"]["type"], "hello", "{resp}");
    }

    // An explicit null id comes back as an explicit null.
    conn.send_line(r#"{"id":null,"verb":"hello"}"#);
    let resp = conn.read_line();
    assert_eq!(
        resp.get("id"),
        Some(&Value::Null),
        "explicit null id: {resp}"
    );

    // No id in, no id out; for successes and for errors.
    conn.send_line(r#"{"verb":"hello"}"#);
    let resp = conn.read_line();
    assert!(resp.get("id").is_none(), "absent id produced one: {resp}");
    assert_eq!(resp["result"]["type"], "hello");
    conn.send_line(r#"{"verb":"no-such-verb"}"#);
    let resp = conn.read_line();
    assert!(resp.get("id").is_none(), "absent id produced one: {resp}");
    assert_eq!(resp["error"]["code"], "unknown_verb");

    // Ids are echoed on errors too.
    conn.send_line(r#"{"id":"e1","verb":"no-such-verb"}"#);
    assert_eq!(conn.read_line()["id"], "e1");
}

#[test]
fn responses_carry_exactly_one_of_result_and_error() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let ok = conn.call("list-sessions", Value::Null);
    assert!(
        ok.get("result").is_some() && ok.get("error").is_none(),
        "{ok}"
    );
    assert_eq!(ok["result"]["type"], "session_list");
    let bad = conn.call("list-sesions", Value::Null);
    assert!(
        bad.get("error").is_some() && bad.get("result").is_none(),
        "{bad}"
    );
}

#[test]
fn malformed_json_is_an_invalid_request_without_id() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    for line in [
        r#"{"id":5,"verb":"hello""#,
        r#"{"id":6,"verb":5}"#,
        r#"{"id":8,"verb":"hello",}"#,
        "{not json at all",
    ] {
        conn.send_line(line);
        let resp = conn.read_line();
        assert_eq!(resp["error"]["code"], "invalid_request", "{line} -> {resp}");
        assert!(
            resp.get("id").is_none(),
            "malformed line echoed an id: {line} -> {resp}"
        );
        assert!(resp.get("result").is_none());
    }
    // The connection is still usable afterwards.
    assert_eq!(conn.ok("hello", Value::Null)["type"], "hello");
}

#[test]
fn a_request_without_verb_is_an_invalid_request_naming_the_verb_field() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    conn.send_line(r#"{"id":3,"params":{}}"#);
    let resp = conn.read_line();
    assert_eq!(resp["id"], 3, "{resp}");
    assert_eq!(resp["error"]["code"], "invalid_request", "{resp}");
    assert_eq!(resp["error"]["hint"]["param"], "verb", "{resp}");
    let available = strings(&resp["error"]["hint"]["available"]);
    assert!(available.contains(&"list-verbs".to_string()), "{resp}");

    conn.send_line(r#"{"id":4,"verb":""}"#);
    let resp = conn.read_line();
    assert_eq!(resp["id"], 4, "{resp}");
    assert_eq!(resp["error"]["code"], "invalid_request", "{resp}");
}

#[test]
fn an_unknown_verb_suggests_the_closest_one() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let error = conn.err_code("list-window", Value::Null, "unknown_verb");
    assert_eq!(error["hint"]["did_you_mean"], "list-windows", "{error}");
    assert_eq!(error["hint"]["command"], "tuios list-verbs", "{error}");
    let available = strings(&error["hint"]["available"]);
    for verb in CORE_VERBS {
        assert!(
            available.contains(&verb.to_string()),
            "{verb} not in {available:?}"
        );
    }
    let error = conn.err_code("sendkeys", Value::Null, "unknown_verb");
    assert_eq!(error["hint"]["did_you_mean"], "send-keys", "{error}");
    // Nothing close: no suggestion at all.
    let error = conn.err_code("zzzzzzzzzzzzzzzz", Value::Null, "unknown_verb");
    assert!(error["hint"].get("did_you_mean").is_none(), "{error}");
}

#[test]
fn an_unknown_param_is_refused_with_the_accepted_names() {
    let daemon = TestDaemon::start();
    daemon.new_session("work");
    let mut conn = daemon.conn();
    let error = conn.err_code(
        "list-windows",
        json!({"session": "work", "bogus": 1}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "bogus", "{error}");
    assert_eq!(strings(&error["hint"]["accepted"]), ["session"], "{error}");

    let error = conn.err_code("capture-pane", json!({"sesion": "work"}), "invalid_params");
    assert_eq!(error["hint"]["param"], "sesion", "{error}");
    assert_eq!(error["hint"]["did_you_mean"], "session", "{error}");
    let accepted = strings(&error["hint"]["accepted"]);
    for p in [
        "session", "window", "source", "styled", "lines", "start", "end",
    ] {
        assert!(
            accepted.contains(&p.to_string()),
            "{p} missing from {accepted:?}"
        );
    }

    // Names are case-sensitive.
    let error = conn.err_code("session-info", json!({"Session": "work"}), "invalid_params");
    assert_eq!(error["hint"]["param"], "Session", "{error}");

    // A verb without parameters refuses any.
    let error = conn.err_code("list-sessions", json!({"x": true}), "invalid_params");
    assert_eq!(error["hint"]["param"], "x", "{error}");

    // A refused new-window created nothing.
    let error = conn.err_code(
        "new-window",
        json!({"session": "work", "name": "ghost", "nmae": "x"}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "nmae", "{error}");
    assert_eq!(
        conn.window_ids("work").len(),
        1,
        "a refused request had an effect"
    );
}

#[test]
fn declared_params_may_be_null() {
    let daemon = TestDaemon::start();
    daemon.new_session("work");
    let mut conn = daemon.conn();
    let list = conn.ok("list-windows", json!({"session": null}));
    assert_eq!(list["type"], "window_list");
    let content = conn.ok(
        "capture-pane",
        json!({"session": "work", "window": null, "source": null, "lines": null}),
    );
    assert_eq!(content["type"], "pane_content");
    assert_eq!(conn.ok("hello", json!({"protocol": null}))["type"], "hello");
}

#[test]
fn a_wrongly_typed_param_is_invalid_params() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let error = conn.err_code(
        "resize",
        json!({"session": session, "window": window, "width": "80", "height": 24}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "width", "{error}");
    let error = conn.err_code(
        "new-window",
        json!({"session": session, "command": "/bin/sh -c true"}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "command", "{error}");
    conn.err_code(
        "capture-pane",
        json!({"session": session, "styled": "yes"}),
        "invalid_params",
    );
    conn.err_code("session-info", json!({"session": 5}), "invalid_params");
    // params must be an object.
    conn.err_code("list-sessions", json!([1, 2]), "invalid_params");
    conn.err_code("hello", json!("hello"), "invalid_params");
}

#[test]
fn a_bad_line_does_not_end_the_connection() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    // The first byte picks the protocol, so the connection opens with a good request; after
    // that any line is taken as (possibly bad) JSON.
    conn.send_line(r#"{"id":1,"verb":"hello"}"#);
    assert_eq!(conn.read_line()["id"], 1);
    conn.send_line("this is not json");
    assert_eq!(conn.read_line()["error"]["code"], "invalid_request");
    conn.send_line(r#"{"id":2,"verb":"list-sessions"}"#);
    let resp = conn.read_line();
    assert_eq!(resp["id"], 2);
    assert_eq!(resp["result"]["type"], "session_list", "{resp}");
    conn.send_line(r#"{"id":3,"verb":"nope"}"#);
    assert_eq!(conn.read_line()["error"]["code"], "unknown_verb");
    conn.send_line(r#"{"id":4,"verb":"hello"}"#);
    assert_eq!(conn.read_line()["result"]["type"], "hello");
}

#[test]
fn empty_lines_are_ignored_and_crlf_is_accepted() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    conn.send_raw(
        b"{\"id\":1,\"verb\":\"hello\"}\n\n   \n\t\n\r\n{\"id\":2,\"verb\":\"hello\"}\r\n",
    );
    assert_eq!(conn.read_line()["id"], 1);
    // The blank lines produced nothing: the next response is the second request's.
    let resp = conn.read_line();
    assert_eq!(resp["id"], 2, "{resp}");
    assert_eq!(resp["result"]["type"], "hello", "{resp}");
}

#[test]
fn leading_whitespace_before_the_first_brace_is_json() {
    let daemon = TestDaemon::start();
    for prefix in [" ", "\t", "\n", "\r\n", "  \t "] {
        let mut conn = daemon.conn();
        conn.send_raw(format!("{prefix}{{\"id\":1,\"verb\":\"hello\"}}\n").as_bytes());
        let resp = conn.read_line();
        assert_eq!(resp["result"]["type"], "hello", "prefix {prefix:?}: {resp}");
    }
}

#[test]
fn a_final_line_without_newline_is_answered_at_half_close() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    conn.send_raw(br#"{"id":9,"verb":"hello"}"#);
    conn.shutdown_write();
    let resp = conn.read_line();
    assert_eq!(resp["id"], 9, "{resp}");
    assert_eq!(resp["result"]["type"], "hello");
    assert!(
        conn.read_raw_line().is_none(),
        "expected end of stream after the last answer"
    );
}

#[test]
fn fifty_pipelined_requests_are_answered_in_order() {
    let daemon = TestDaemon::start();
    daemon.new_session("work");
    let mut conn = daemon.conn();
    let mut batch = String::new();
    for id in 1..=50 {
        let verb = ["hello", "list-sessions", "list-windows", "session-info"][id % 4];
        let req = if verb == "hello" || verb == "list-sessions" {
            json!({"id": id, "verb": verb})
        } else {
            json!({"id": id, "verb": verb, "params": {"session": "work"}})
        };
        batch.push_str(&req.to_string());
        batch.push('\n');
    }
    conn.send_raw(batch.as_bytes());
    for id in 1..=50 {
        let resp = conn.read_line();
        assert_eq!(resp["id"], id, "answers out of order: {resp}");
        assert!(resp.get("result").is_some(), "{resp}");
    }
}

#[test]
fn twelve_concurrent_connections_of_twenty_calls_each() {
    let daemon = TestDaemon::start();
    daemon.new_session("work");
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..12)
            .map(|_| {
                let daemon = &daemon;
                scope.spawn(move || {
                    let mut conn = daemon.conn();
                    for _ in 0..20 {
                        let list = conn.ok("list-windows", json!({"session": "work"}));
                        assert_eq!(list["type"], "window_list");
                        assert_eq!(list["total"], 1, "{list}");
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().expect("a client thread failed");
        }
    });
}

#[test]
fn an_overlong_line_is_refused_and_the_daemon_stays_up() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    conn.set_timeout(Duration::from_secs(60));
    // 16 MiB of payload plus the envelope is over the 16 MiB line cap.
    let mut line = Vec::with_capacity(16 * 1024 * 1024 + 64);
    line.extend_from_slice(br#"{"id":1,"verb":"send-text","params":{"text":""#);
    line.resize(line.len() + 16 * 1024 * 1024, b'a');
    line.extend_from_slice(b"\"}}\n");
    // The daemon may close before it has read everything: a failed write is fine here.
    let mut stream = conn.stream().try_clone().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stream.write_all(&line);
    });
    // What the daemon wrote before closing stays readable even if it closed mid-write.
    let resp = conn
        .read_raw_line()
        .expect("the daemon closed the connection without refusing the line");
    writer.join().unwrap();
    let resp: Value = serde_json::from_str(&resp).expect("JSON");
    assert_eq!(resp["error"]["code"], "invalid_request", "{resp}");
    assert!(
        conn.read_raw_line().is_none(),
        "the connection stays open after an overlong line"
    );
    let mut fresh = daemon.conn();
    assert_eq!(fresh.ok("hello", Value::Null)["type"], "hello");
}

fn socat(daemon: &TestDaemon, input: &[u8]) -> String {
    let mut cmd = Command::new("socat");
    // -t: wait for the daemon's answer after our end of input instead of the default 0.5 s.
    cmd.args(["-t", "20", "-"])
        .arg(format!("UNIX-CONNECT:{}", daemon.socket().display()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => panic!("cannot run socat ({e}); install it (apt-get install socat)"),
    };
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().expect("socat");
    assert!(
        out.status.success(),
        "socat failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn socat_is_a_client() {
    let daemon = TestDaemon::start();
    daemon.new_session("work");
    let out = socat(&daemon, b"{\"id\":1,\"verb\":\"list-sessions\"}\n");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "one request, one line: {out:?}");
    let resp: Value = serde_json::from_str(lines[0]).expect("JSON");
    assert_eq!(resp["id"], 1);
    assert_eq!(resp["result"]["type"], "session_list", "{resp}");
    assert_eq!(resp["result"]["sessions"][0]["name"], "work", "{resp}");

    // Without a final newline too (printf-style input).
    let out = socat(&daemon, br#"{"id":2,"verb":"hello"}"#);
    let resp: Value = serde_json::from_str(out.trim_end()).expect("JSON");
    assert_eq!(resp["id"], 2);
    assert_eq!(resp["result"]["type"], "hello");
}

/// The first byte picks the protocol: anything but `{` or whitespace is the binary protocol,
/// so such a client never gets a JSON line back, and the daemon carries on.
#[test]
fn a_connection_not_starting_with_a_brace_is_not_json() {
    use std::io::Read;
    let daemon = TestDaemon::start();
    let mut stream = std::os::unix::net::UnixStream::connect(daemon.socket()).unwrap();
    stream.write_all(b"[1,2,3]\n").unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let mut buf = [0u8; 64];
    // Nothing, end of stream, or a binary frame: all fine, as long as it is not JSON.
    if let Ok(n) = stream.read(&mut buf) {
        assert!(
            n == 0 || buf[0] != b'{',
            "answered as JSON: {:?}",
            &buf[..n]
        );
    }
    assert_eq!(daemon.conn().ok("hello", Value::Null)["type"], "hello");
}

#[test]
fn echoed_names_are_bounded() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let long = "x".repeat(5000);
    let error = conn.err_code(&long, Value::Null, "unknown_verb");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.len() < 1000,
        "a 5000-byte verb name was echoed whole ({} bytes)",
        message.len()
    );
    let error = conn.err_code(
        "list-sessions",
        json!({ long.as_str(): 1 }),
        "invalid_params",
    );
    assert!(error["message"].as_str().unwrap().len() < 1000, "{error}");
}
