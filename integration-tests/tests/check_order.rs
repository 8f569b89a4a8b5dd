//! Which error wins when a request is wrong in two ways, in the reference implementation's order:
//! a parameter the verb cannot run without, or a value it cannot take, is `invalid_params` before
//! the session is looked up; an empty session is `no_windows` for what needs a window.

use serde_json::{json, Value};
use tuios_integration_tests::*;

#[test]
fn a_missing_required_param_is_refused_before_the_session_is_looked_up() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let list = conn.ok("list-verbs", json!({}));
    let mut checked = 0;
    for verb in list["verbs"].as_array().unwrap() {
        let name = verb["verb"].as_str().unwrap();
        let params = verb["params"].as_array().unwrap();
        let takes_session = params.iter().any(|p| p["name"] == "session");
        for missing in params.iter().filter(|p| p["required"] == true) {
            let param = missing["name"].as_str().unwrap();
            if param == "session" {
                continue;
            }
            // Every other required param given a value of its type, this one left out, and a
            // session that does not exist: the missing param is what is reported.
            let mut sent = serde_json::Map::new();
            if takes_session {
                sent.insert("session".into(), json!("no-such-session"));
            }
            for other in params
                .iter()
                .filter(|p| p["required"] == true && p["name"] != param)
            {
                let value = match other["type"].as_str().unwrap() {
                    "int" => json!(1),
                    "[]int" => json!([1]),
                    "bool" => json!(true),
                    "[]string" => json!(["x"]),
                    _ => other["accepted"]
                        .get(0)
                        .cloned()
                        .unwrap_or_else(|| json!("x")),
                };
                sent.insert(other["name"].as_str().unwrap().into(), value);
            }
            // Left out, null, or the zero value of its type all count as missing.
            let zero = match missing["type"].as_str().unwrap() {
                "int" => json!(0),
                "[]int" | "[]string" => json!([]),
                _ => json!(""),
            };
            for absent in [None, Some(Value::Null), Some(zero)] {
                let mut p = sent.clone();
                if let Some(v) = absent.clone() {
                    p.insert(param.into(), v);
                }
                let error = conn.err_code(name, Value::Object(p), "invalid_params");
                assert_eq!(error["hint"]["param"], param, "{name}: {error}");
                assert!(
                    error["message"]
                        .as_str()
                        .is_some_and(|m| m.starts_with(&format!("{param} is required"))),
                    "{name}: {error}"
                );
            }
            checked += 1;
        }
    }
    // resize (2), move-window, select-workspace, set-workspace-name, set-workspace-order,
    // send-keys, send-text, split-window, run, run-command, set-agent-state, set-option,
    // get-option, wait-for.
    assert_eq!(checked, 15);

    // kill-session names no session by itself: the hint lists the sessions there are.
    let error = conn.err_code("kill-session", json!({}), "invalid_params");
    assert_eq!(error["hint"]["param"], "session", "{error}");
    assert_eq!(error["hint"]["command"], "tuios ls", "{error}");
}

#[test]
fn a_value_the_verb_cannot_take_is_refused_before_the_session_is_looked_up() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let nope = "no-such-session";
    let cases = [
        (
            "capture-pane",
            json!({"session": nope, "source": "sideways"}),
            "source",
        ),
        (
            "split-window",
            json!({"session": nope, "direction": "diagonal"}),
            "direction",
        ),
        ("focus-window", json!({"session": nope}), "window"),
        (
            "focus-window",
            json!({"session": nope, "window": "a", "relative": "next"}),
            "window",
        ),
        (
            "focus-window",
            json!({"session": nope, "relative": "sideways"}),
            "relative",
        ),
        ("set-layout", json!({"session": nope}), "tiling"),
        ("set-window", json!({"session": nope}), "name"),
        (
            "set-session-accent",
            json!({"session": nope, "accent": "teal"}),
            "accent",
        ),
        (
            "set-agent-state",
            json!({"session": nope, "state": "sleepy"}),
            "state",
        ),
        (
            "set-agent-state",
            json!({"session": nope, "state": "idle", "source": "gossip"}),
            "source",
        ),
        (
            "resize",
            json!({"session": nope, "width": -1, "height": 5}),
            "width",
        ),
        (
            "wait-for",
            json!({"condition": "someday", "session": nope}),
            "condition",
        ),
        (
            "wait-for",
            json!({"condition": "window-output", "session": nope}),
            "pattern",
        ),
    ];
    for (verb, params, param) in cases {
        let error = conn.err_code(verb, params.clone(), "invalid_params");
        assert_eq!(error["hint"]["param"], param, "{verb} {params}: {error}");
    }
    // With the values right, the session is what is wrong.
    conn.err_code(
        "split-window",
        json!({"session": nope, "direction": "vertical"}),
        "session_not_found",
    );
}

#[test]
fn split_without_a_new_window_yet_says_where_to_look() {
    // The note is part of the published reply; its presence rides on the client's timing, so
    // the declaration is what is checked here (replies.rs checks a real split's keys).
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let doc = conn.ok("list-verbs", json!({"verb": "split-window"}));
    let returns: Vec<&str> = doc["verbs"][0]["returns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(returns, ["direction", "window_id", "name", "note"]);
}
