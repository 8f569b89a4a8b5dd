//! Every verb's reply, from a real call to the real daemon, held against what is published about
//! it: each key the reply carries is one `list-verbs` lists in the verb's `returns`, and each key
//! the reply type always carries (the `required` of the reply schema `tuios schema` generates
//! from the protocol types) is there. A verb this test does not call fails it, so a new verb
//! cannot ship with an unchecked reply.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};
use tuios_integration_tests::*;

/// What the daemon and the binary publish about each verb's reply.
struct Published {
    /// `returns` of each verb, from list-verbs.
    returns: BTreeMap<String, BTreeSet<String>>,
    /// The reply schema of each verb, from `tuios schema`.
    schemas: BTreeMap<String, Value>,
}

impl Published {
    fn read(daemon: &TestDaemon, conn: &mut JsonConn) -> Published {
        let list = conn.ok("list-verbs", json!({}));
        let mut returns = BTreeMap::new();
        for v in list["verbs"].as_array().expect("verbs") {
            let keys = v["returns"]
                .as_array()
                .map(|r| {
                    r.iter()
                        .map(|p| p["name"].as_str().unwrap().to_string())
                        .collect()
                })
                .unwrap_or_default();
            returns.insert(v["verb"].as_str().unwrap().to_string(), keys);
        }
        let out = daemon.cli(&["schema"]);
        assert!(out.status.success(), "{}", describe(&out));
        let all: Value = serde_json::from_slice(&out.stdout).expect("tuios schema prints JSON");
        let schemas = all["verbs"]
            .as_array()
            .expect("schema verbs")
            .iter()
            .map(|s| (s["verb"].as_str().unwrap().to_string(), s["reply"].clone()))
            .collect();
        Published { returns, schemas }
    }

    /// The object schema (resolving `$ref` and, for a reply of several shapes, the alternative
    /// whose `type` is the reply's) that `reply` is an instance of.
    fn shape<'a>(&'a self, verb: &str, reply: &Value) -> &'a Value {
        let root = &self.schemas[verb];
        let resolve = |node: &'a Value| -> &'a Value {
            match node.get("$ref").and_then(Value::as_str) {
                Some(r) => &root["$defs"][r.rsplit('/').next().unwrap()],
                None => node,
            }
        };
        let tag = |node: &Value| node["properties"]["type"].clone();
        let ty = |node: &'a Value| -> Value {
            let t = tag(node);
            match t.get("$ref").and_then(Value::as_str) {
                Some(r) => root["$defs"][r.rsplit('/').next().unwrap()]["const"].clone(),
                None => t["const"].clone(),
            }
        };
        match root.get("anyOf").and_then(Value::as_array) {
            None => resolve(root),
            Some(alts) => alts
                .iter()
                .map(resolve)
                .find(|alt| ty(alt) == reply["type"])
                .unwrap_or_else(|| panic!("{verb}: no reply shape has type {}", reply["type"])),
        }
    }

    fn check(&self, verb: &str, reply: &Value, seen: &mut BTreeMap<String, BTreeSet<String>>) {
        let keys: BTreeSet<String> = reply
            .as_object()
            .unwrap_or_else(|| panic!("{verb}: reply is not an object: {reply}"))
            .keys()
            .filter(|k| *k != "type")
            .cloned()
            .collect();
        let shape = self.shape(verb, reply);
        let declared = &self.returns[verb];
        let mut extra: BTreeSet<String> = keys.difference(declared).cloned().collect();
        if verb == "run-command" {
            // Declared open: a read-only command adds the keys of its own verb's reply.
            let borrowed: BTreeSet<String> = ["list-windows", "session-info", "set-window"]
                .iter()
                .flat_map(|v| self.returns[*v].iter().cloned())
                .collect();
            extra.retain(|k| !borrowed.contains(k));
        }
        assert!(
            extra.is_empty(),
            "{verb} sent keys its returns does not list: {extra:?}\nreply: {reply}"
        );
        let required: BTreeSet<String> = shape["required"]
            .as_array()
            .map(|r| {
                r.iter()
                    .map(|k| k.as_str().unwrap().to_string())
                    .filter(|k| k != "type")
                    .collect()
            })
            .unwrap_or_default();
        let missing: Vec<&String> = required.difference(&keys).collect();
        assert!(
            missing.is_empty(),
            "{verb} left out keys its reply type always carries: {missing:?}\nreply: {reply}"
        );
        assert!(reply["type"].is_string(), "{verb}: no type tag: {reply}");
        seen.entry(verb.to_string()).or_default().extend(keys);
    }
}

#[test]
fn every_reply_carries_only_published_keys_and_every_required_one() {
    require_tmux!();
    let mut daemon = TestDaemon::start();
    let (s, first) = daemon.session_with_window("rep");
    let mut conn = daemon.conn();
    let published = Published::read(&daemon, &mut conn);
    let mut seen = BTreeMap::new();
    let mut call = |conn: &mut JsonConn, verb: &str, params: Value| -> Value {
        let reply = conn.ok(verb, params);
        published.check(verb, &reply, &mut seen);
        reply
    };

    call(
        &mut conn,
        "hello",
        json!({"client": "replies-test", "protocol": 1}),
    );
    call(&mut conn, "list-verbs", json!({"verb": "hello"}));
    call(&mut conn, "list-sessions", json!({}));
    call(&mut conn, "session-info", json!({"session": s}));
    let second = call(
        &mut conn,
        "new-window",
        json!({"session": s, "name": "second"}),
    )["window_id"]
        .as_str()
        .unwrap()
        .to_string();
    call(&mut conn, "list-windows", json!({"session": s}));
    // Typed before the shell is up, the line could be flushed by its terminal set-up.
    conn.wait_foreground(&s, &second, "sh");
    call(
        &mut conn,
        "send-text",
        json!({"session": s, "window": second, "text": "echo replies-marker\n"}),
    );
    call(
        &mut conn,
        "wait-for",
        json!({"condition": "window-output", "session": s, "window": second, "pattern": "(?m)^replies-marker", "timeout": 30000}),
    );
    call(
        &mut conn,
        "send-keys",
        json!({"session": s, "window": second, "keys": "Enter"}),
    );
    call(
        &mut conn,
        "capture-pane",
        json!({"session": s, "window": second, "lines": 5}),
    );
    call(
        &mut conn,
        "resize",
        json!({"session": s, "window": second, "width": 100, "height": 30}),
    );
    call(
        &mut conn,
        "wait-for",
        json!({"condition": "session-exists", "session": s}),
    );
    call(
        &mut conn,
        "wait-for",
        json!({"condition": "window-idle", "session": s, "window": second, "idle": 100}),
    );
    call(
        &mut conn,
        "run",
        json!({"session": s, "window": first, "command": "echo ran", "timeout": 15000}),
    );

    call(&mut conn, "list-workspaces", json!({"session": s}));
    call(
        &mut conn,
        "select-workspace",
        json!({"session": s, "workspace": 1}),
    );
    call(
        &mut conn,
        "move-window",
        json!({"session": s, "window": second, "workspace": 2}),
    );
    call(
        &mut conn,
        "set-window",
        json!({"session": s, "window": second, "name": "renamed"}),
    );
    call(
        &mut conn,
        "focus-window",
        json!({"session": s, "window": second}),
    );
    call(
        &mut conn,
        "focus-window",
        json!({"session": s, "relative": "next"}),
    );
    let casts = daemon.dir().join("casts").display().to_string();
    call(
        &mut conn,
        "record-start",
        json!({"session": s, "window": first, "path": casts}),
    );
    call(
        &mut conn,
        "record-stop",
        json!({"session": s, "window": first}),
    );
    call(
        &mut conn,
        "search",
        json!({"session": s, "window": first, "pattern": ".", "limit": 2}),
    );
    call(
        &mut conn,
        "set-session-name",
        json!({"session": s, "name": "Replies"}),
    );
    call(
        &mut conn,
        "set-session-accent",
        json!({"session": s, "accent": "cyan"}),
    );
    call(
        &mut conn,
        "set-workspace-name",
        json!({"session": s, "workspace": 2, "name": "logs"}),
    );
    call(
        &mut conn,
        "set-workspace-order",
        json!({"session": s, "order": [2, 1]}),
    );
    call(
        &mut conn,
        "set-workspace-order",
        json!({"session": s, "order": [1, 2]}),
    );

    call(
        &mut conn,
        "list-options",
        json!({"session": s, "section": "appearance"}),
    );
    call(
        &mut conn,
        "get-option",
        json!({"session": s, "key": "appearance.border_style"}),
    );
    call(
        &mut conn,
        "set-option",
        json!({"session": s, "key": "appearance.border_style", "value": "rounded"}),
    );
    call(&mut conn, "list-themes", json!({"session": s}));
    call(&mut conn, "list-themes", json!({"theme": "dracula"}));

    call(
        &mut conn,
        "set-agent-state",
        json!({"session": s, "window": second, "state": "working", "message": "busy", "harness": "claude-code"}),
    );
    call(
        &mut conn,
        "get-agent-state",
        json!({"session": s, "window": second}),
    );
    call(
        &mut conn,
        "wait-for",
        json!({"condition": "agent-state", "session": s, "window": second, "until": "working"}),
    );
    call(
        &mut conn,
        "explain-agent-detect",
        json!({"session": s, "window": second}),
    );
    call(
        &mut conn,
        "explain-agent-screen",
        json!({"session": s, "window": second}),
    );
    call(
        &mut conn,
        "explain-agent-screen",
        json!({"session": s, "window": first}),
    );

    call(
        &mut conn,
        "run-command",
        json!({"session": s, "command": "ListWindows"}),
    );
    call(
        &mut conn,
        "run-command",
        json!({"session": s, "command": "GetWindow"}),
    );
    let made = call(
        &mut conn,
        "run-command",
        json!({"session": s, "command": "NewWindow", "args": ["made"]}),
    );
    let ended = call(
        &mut conn,
        "new-window",
        json!({"session": s, "command": ["/bin/sh", "-c", "exit 3"], "remain": true, "focus": false}),
    )["window_id"]
        .as_str()
        .unwrap()
        .to_string();
    let exit = call(
        &mut conn,
        "wait-for",
        json!({"condition": "window-exit", "session": s, "window": ended}),
    );
    assert_eq!(exit["exit_code"], 3, "{exit}");
    // A window whose program ended carries its exit keys in list-windows.
    call(&mut conn, "list-windows", json!({"session": s}));
    call(
        &mut conn,
        "close-window",
        json!({"session": s, "window": made["window_id"]}),
    );

    call(
        &mut conn,
        "new-session",
        json!({"name": "rep-other", "width": 90}),
    );
    call(&mut conn, "kill-session", json!({"session": "rep-other"}));
    call(&mut conn, "resurrect", json!({}));

    let mut stream = daemon.conn();
    call(
        &mut stream,
        "subscribe",
        json!({"session": s, "types": ["window-created"]}),
    );
    call(&mut stream, "unsubscribe", Value::Null);

    // The verbs that need an attached client, with a real one.
    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    client.wait_mode("TERM");
    wait_until(DEADLINE, "the client is attached", || {
        (conn.ok("session-info", json!({"session": s}))["tui_attached"] == true).then_some(())
    });
    call(
        &mut conn,
        "focus-window",
        json!({"session": s, "window": first}),
    );
    call(
        &mut conn,
        "set-layout",
        json!({"session": s, "tiling": true}),
    );
    call(
        &mut conn,
        "split-window",
        json!({"session": s, "window": first, "direction": "vertical", "name": "half"}),
    );
    call(
        &mut conn,
        "focus-window",
        json!({"session": s, "direction": "left"}),
    );
    call(
        &mut conn,
        "run-command",
        json!({"session": s, "command": "EnableTiling"}),
    );

    call(&mut conn, "upgrade", json!({"check": true}));
    // Last: a real upgrade answers, then the daemon replaces itself and closes connections.
    call(&mut conn, "upgrade", json!({}));
    let mut after = daemon.conn();
    wait_until(DEADLINE, "the upgraded daemon answers", || {
        let hello = after.call("hello", json!({}));
        hello.get("result").is_some().then_some(())
    });
    drop(client);
    daemon.terminate();

    let untested: Vec<&String> = published
        .returns
        .keys()
        .filter(|v| !seen.contains_key(v.as_str()))
        .collect();
    assert!(
        untested.is_empty(),
        "verbs this test never called, so their replies are unchecked: {untested:?}"
    );
}
