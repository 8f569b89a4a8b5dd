//! hello and list-verbs: the handshake and the protocol's description of itself.

use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::time::Duration;
use tuios_integration_tests::*;

#[test]
fn hello_reports_the_protocol_range_pid_and_session_count() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let hello = conn.ok(
        "hello",
        json!({"client": "itest", "version": "0.0.0-test", "protocol": 1}),
    );
    assert_eq!(hello["type"], "hello", "{hello}");
    assert_eq!(hello["protocol"], 1, "{hello}");
    assert_eq!(hello["min_protocol"], 1, "{hello}");
    assert!(
        hello["daemon_version"]
            .as_str()
            .is_some_and(|v| !v.is_empty()),
        "{hello}"
    );
    assert_eq!(
        hello["pid"],
        json!(daemon.pid()),
        "hello pid is not the daemon's: {hello}"
    );
    assert_eq!(hello["sessions"], 0, "{hello}");

    daemon.new_session("one");
    let hello = conn.ok("hello", Value::Null);
    assert_eq!(hello["sessions"], 1, "{hello}");
}

#[test]
fn hello_from_a_newer_client_is_a_protocol_mismatch_naming_kill_server() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let error = conn.err_code(
        "hello",
        json!({"client": "itest", "version": "99.0.0", "protocol": 9999}),
        "protocol_mismatch",
    );
    assert_eq!(error["hint"]["command"], "tuios kill-server", "{error}");
    // A refused handshake does not end the connection.
    assert_eq!(conn.ok("hello", json!({"protocol": 1}))["type"], "hello");
}

#[test]
fn list_verbs_describes_the_protocol() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let list = conn.ok("list-verbs", Value::Null);
    assert_eq!(list["type"], "verb_list", "{list}");
    assert_eq!(list["version"], 1, "{list}");
    assert_eq!(list["min_version"], 1, "{list}");
    assert!(list["daemon_version"]
        .as_str()
        .is_some_and(|v| !v.is_empty()));

    for key in ["transport", "request", "success", "failure", "hint"] {
        assert!(
            list["envelope"][key]
                .as_str()
                .is_some_and(|v| !v.is_empty()),
            "envelope.{key} missing: {}",
            list["envelope"]
        );
    }

    let codes: Vec<&str> = list["error_codes"]
        .as_array()
        .expect("error_codes array")
        .iter()
        .map(|c| {
            assert!(
                c["description"].as_str().is_some_and(|d| !d.is_empty()),
                "error code without description: {c}"
            );
            c["code"].as_str().expect("code string")
        })
        .collect();
    assert_eq!(codes, ERROR_CODES, "error codes or their order differ");

    let verbs = list["verbs"].as_array().expect("verbs array");
    let names: Vec<&str> = verbs
        .iter()
        .map(|v| v["verb"].as_str().expect("verb name"))
        .collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "verbs are not sorted by name");
    let set: BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(set.len(), names.len(), "a verb is listed twice: {names:?}");
    for name in &names {
        assert!(
            SPEC_VERBS.contains(name) || EXTENSION_VERBS.contains(name),
            "{name} is not a verb of the spec"
        );
    }
    for name in CORE_VERBS {
        assert!(set.contains(name), "list-verbs does not list {name}");
    }

    let types = ["string", "int", "bool", "[]string", "[]int"];
    for verb in verbs {
        let name = verb["verb"].as_str().unwrap();
        assert!(
            verb["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{name} has no description"
        );
        let params = verb["params"]
            .as_array()
            .unwrap_or_else(|| panic!("{name} has no params array (must be present, even empty)"));
        for p in params {
            assert!(
                p["name"].as_str().is_some_and(|n| !n.is_empty()),
                "{name}: {p}"
            );
            let ty = p["type"].as_str().unwrap_or_default();
            assert!(
                types.contains(&ty),
                "{name}: param type {ty:?} not allowed: {p}"
            );
            assert!(
                p["description"].as_str().is_some_and(|d| !d.is_empty()),
                "{name}: param without description: {p}"
            );
            if let Some(req) = p.get("required") {
                assert_eq!(
                    req,
                    &json!(true),
                    "{name}: required is omitted when false: {p}"
                );
            }
        }
    }
}

#[test]
fn list_verbs_for_one_verb_and_for_a_misspelled_one() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let one = conn.ok("list-verbs", json!({"verb": "capture-pane"}));
    let verbs = one["verbs"].as_array().expect("verbs");
    assert_eq!(verbs.len(), 1, "{one}");
    assert_eq!(verbs[0]["verb"], "capture-pane");
    let source = verbs[0]["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "source")
        .expect("capture-pane has a source param");
    assert_eq!(
        strings(&source["accepted"]),
        ["visible", "recent"],
        "capture-pane source accepts exactly visible and recent"
    );
    // The error catalog comes with every answer.
    assert_eq!(one["error_codes"].as_array().map(Vec::len), Some(13));

    let error = conn.err_code("list-verbs", json!({"verb": "capture-pan"}), "unknown_verb");
    assert_eq!(error["hint"]["did_you_mean"], "capture-pane", "{error}");
    assert!(strings(&error["hint"]["available"]).contains(&"capture-pane".to_string()));
}

fn listed_verbs(conn: &mut JsonConn) -> Vec<Value> {
    conn.ok("list-verbs", Value::Null)["verbs"]
        .as_array()
        .expect("verbs")
        .clone()
}

/// Every verb list-verbs names is one the daemon answers (on its own connection, since
/// some verbs, like subscribe, change the connection's state).
#[test]
fn every_listed_verb_is_answered() {
    let daemon = TestDaemon::start();
    daemon.new_session("work");
    let verbs = listed_verbs(&mut daemon.conn());
    for verb in &verbs {
        let name = verb["verb"].as_str().unwrap();
        let mut conn = daemon.conn();
        conn.send_line(&json!({"id": 1, "verb": name}).to_string());
        let resp = conn.read_line();
        assert_eq!(resp["id"], 1, "{name}: {resp}");
        let code = resp["error"]["code"].as_str().unwrap_or("");
        // unsubscribe on a connection without a stream is in the wrong state for it.
        let wrong_state = name == "unsubscribe" && code == "invalid_request";
        assert!(
            code != "unknown_verb" && (code != "invalid_request" || wrong_state),
            "{name} is listed but answered {resp}"
        );
    }
}

/// Every example in list-verbs is a valid request: sent as it is, it is never refused as
/// malformed, unknown, or with bad params (failing for lack of a window is fine).
#[test]
fn every_list_verbs_example_is_a_valid_request() {
    let daemon = TestDaemon::start();
    let verbs = listed_verbs(&mut daemon.conn());
    let mut examples: Vec<(String, String)> = Vec::new();
    let mut sessions = BTreeSet::new();
    for verb in &verbs {
        let name = verb["verb"].as_str().unwrap().to_string();
        let list = verb.get("examples").and_then(Value::as_array);
        assert!(
            list.is_some_and(|l| !l.is_empty()),
            "{name} has no examples"
        );
        for example in list.unwrap() {
            let line = example
                .as_str()
                .expect("an example is a JSON string")
                .to_string();
            let req: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("{name} example is not JSON ({e}): {line}"));
            assert_eq!(
                req["verb"],
                name.as_str(),
                "example names another verb: {line}"
            );
            if let Some(s) = req["params"]["session"].as_str() {
                sessions.insert(s.to_string());
            }
            examples.push((name.clone(), line));
        }
    }
    // Give the examples real sessions to act on, so their params are checked all the way.
    for s in &sessions {
        daemon.new_session(s);
    }
    // Three phases, each running its examples at once on their own connections (a wait-for
    // example may block until its own timeout; those should not add up): waits first, on
    // the fresh sessions, so a wait for a window that another example creates and never
    // ends does not sit out the default 30 s; destructive examples last, so the others
    // still find their sessions and windows.
    let (waits, rest): (Vec<_>, Vec<_>) = examples
        .into_iter()
        .partition(|(name, _)| name == "wait-for");
    let (destructive, others): (Vec<_>, Vec<_>) = rest
        .into_iter()
        .partition(|(name, _)| name == "kill-session" || name == "close-window");
    for group in [waits, others, destructive] {
        std::thread::scope(|scope| {
            let handles: Vec<_> = group
                .iter()
                .map(|(name, line)| {
                    let daemon = &daemon;
                    scope.spawn(move || check_example(daemon, name, line))
                })
                .collect();
            for h in handles {
                if let Err(panic) = h.join() {
                    std::panic::resume_unwind(panic);
                }
            }
        });
    }
}

fn check_example(daemon: &TestDaemon, name: &str, line: &str) {
    let mut conn = daemon.conn();
    conn.set_timeout(Duration::from_secs(90));
    if name == "unsubscribe" {
        // unsubscribe needs a stream to close.
        conn.send_line(r#"{"id":0,"verb":"subscribe"}"#);
        let ack = read_response(&mut conn);
        assert!(ack.get("result").is_some(), "subscribe failed: {ack}");
    }
    conn.send_line(line);
    let resp = read_response(&mut conn);
    let code = resp["error"]["code"].as_str().unwrap_or("");
    assert!(
        !matches!(code, "invalid_request" | "unknown_verb" | "invalid_params"),
        "example of {name} was refused: {line}\n -> {resp}"
    );
}

/// The next response line, skipping event lines of a subscribed connection (events carry
/// neither `result` nor `error`).
fn read_response(conn: &mut JsonConn) -> Value {
    loop {
        let line = conn.read_line();
        if line.get("result").is_some() || line.get("error").is_some() {
            return line;
        }
    }
}
