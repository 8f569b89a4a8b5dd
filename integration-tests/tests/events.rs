//! The event stream end to end: `subscribe` and `unsubscribe` on the real daemon, every event
//! type observed from its real cause, shared sequence numbers, filters, the slow-subscriber gap,
//! and the supervisor's exit-then-close order.
//!
//! On a subscribed connection, event lines and responses share one socket, so these tests send
//! requests with `request` (string ids, events before the response kept) instead of
//! `JsonConn::call`.

use serde_json::{json, Value};
use std::time::Instant;
use tuios_integration_tests::*;

/// What every event line carries: a positive `seq` and a unix-nanosecond `time`, except a gap,
/// which has no `seq` and a positive `dropped`.
fn check_shape(event: &Value) {
    if event["type"] == "gap" {
        assert!(event.get("seq").is_none(), "a gap has no seq: {event}");
        assert!(
            event["dropped"].as_u64().is_some_and(|d| d > 0),
            "a gap counts what it dropped: {event}"
        );
        return;
    }
    assert!(
        event["seq"].as_u64().is_some_and(|s| s > 0),
        "event without a seq: {event}"
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock after 1970")
        .as_nanos() as u64;
    const DAY_NS: u64 = 86_400 * 1_000_000_000;
    assert!(
        event["time"]
            .as_u64()
            .is_some_and(|t| t.abs_diff(now) < DAY_NS),
        "event time is not unix nanoseconds of now ({now}): {event}"
    );
}

/// The next line of a subscribed connection, which must be an event.
fn next_event(conn: &mut JsonConn) -> Value {
    let line = conn.read_line();
    assert!(is_event(&line), "expected an event line, got {line}");
    check_shape(&line);
    line
}

/// Read events until one satisfies `accept`; returns it and the events read before it.
fn wait_event(
    conn: &mut JsonConn,
    what: &str,
    mut accept: impl FnMut(&Value) -> bool,
) -> (Value, Vec<Value>) {
    let deadline = Instant::now() + DEADLINE;
    let mut before = Vec::new();
    loop {
        let event = next_event(conn);
        if accept(&event) {
            return (event, before);
        }
        assert!(
            Instant::now() < deadline,
            "no event {what} within {DEADLINE:?}; saw {before:?}"
        );
        before.push(event);
    }
}

/// Send a request on a (possibly subscribed) connection and read up to its response.
/// Returns the response and the events that came before it.
fn request(conn: &mut JsonConn, verb: &str, params: Value) -> (Value, Vec<Value>) {
    let id = conn.send_request(verb, params);
    let (response, events) = conn.read_response(&id);
    events.iter().for_each(check_shape);
    (response, events)
}

fn seq(event: &Value) -> u64 {
    event["seq"]
        .as_u64()
        .unwrap_or_else(|| panic!("no seq: {event}"))
}

/// Sequence numbers of the non-gap events, checked to increase strictly.
fn assert_increasing(events: &[Value]) {
    let seqs: Vec<u64> = events
        .iter()
        .filter(|e| e["type"] != "gap")
        .map(seq)
        .collect();
    assert!(
        seqs.windows(2).all(|w| w[0] < w[1]),
        "seq does not increase strictly: {seqs:?}"
    );
}

fn is(event: &Value, kind: &str, window: &str) -> bool {
    event["type"] == kind && event["window"] == window
}

/// A window's `pty_id` as `list-windows` shows it.
fn pty_of(conn: &mut JsonConn, session: &str, window: &str) -> String {
    let row = conn.window_row(session, window);
    row["pty_id"]
        .as_str()
        .unwrap_or_else(|| panic!("window without a pty_id: {row}"))
        .to_string()
}

#[test]
fn lifecycle_events_come_from_their_causes() {
    let daemon = TestDaemon::start();
    let mut sub = daemon.conn();
    let start = sub.subscribe(json!({"types": ["session-created", "session-closed", "window-created", "window-closed", "window-focused"]}),
    );

    daemon.new_session("life");
    let mut conn = daemon.conn();
    let first = conn.first_window("life");
    let first_pty = pty_of(&mut conn, "life", &first);

    let created = next_event(&mut sub);
    assert_eq!(created["type"], "session-created", "{created}");
    assert_eq!(created["session"], "life", "{created}");
    assert!(seq(&created) > start, "{created} after ack seq {start}");
    let win = next_event(&mut sub);
    assert!(is(&win, "window-created", &first), "{win}");
    assert_eq!(win["session"], "life", "{win}");
    assert_eq!(win["pty_id"], first_pty.as_str(), "{win}");
    assert_eq!(
        win["title"],
        format!("Terminal {}", &first[..8]).as_str(),
        "an unnamed window is titled after its id: {win}"
    );
    let focused = next_event(&mut sub);
    assert!(is(&focused, "window-focused", &first), "{focused}");
    assert_eq!(focused["pty_id"], first_pty.as_str(), "{focused}");

    // new-window focuses the new window by default.
    let made = conn.new_window("life", json!({"name": "second"}));
    let second = made["window_id"].as_str().unwrap().to_string();
    let ev = next_event(&mut sub);
    assert!(is(&ev, "window-created", &second), "{ev}");
    assert_eq!(ev["title"], "second", "{ev}");
    assert_eq!(ev["pty_id"], made["pty_id"], "{ev}");
    let ev = next_event(&mut sub);
    assert!(is(&ev, "window-focused", &second), "{ev}");
    assert_eq!(ev["session"], "life", "{ev}");

    // Without focus, only the creation.
    let third = conn.new_window_id("life", json!({"focus": false}));
    let ev = next_event(&mut sub);
    assert!(is(&ev, "window-created", &third), "{ev}");

    // close-window of the focused window: closed, then focus moves back to the first.
    conn.ok("close-window", json!({"session": "life", "window": second}));
    let ev = next_event(&mut sub);
    assert!(is(&ev, "window-closed", &second), "{ev}");
    assert_eq!(ev["session"], "life", "{ev}");
    assert_eq!(ev["pty_id"], made["pty_id"], "{ev}");
    let ev = next_event(&mut sub);
    assert!(is(&ev, "window-focused", &first), "{ev}");

    conn.ok("kill-session", json!({"session": "life"}));
    let (ev, _) = wait_event(&mut sub, "session-closed", |e| {
        e["type"] == "session-closed"
    });
    assert_eq!(ev["session"], "life", "{ev}");
    assert!(ev.get("window").is_none(), "{ev}");
}

#[test]
fn pty_events_come_from_what_the_program_prints() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("pty");
    let mut conn = daemon.conn();
    let pty = pty_of(&mut conn, &session, &window);
    let mut sub = daemon.conn();
    sub.subscribe(json!({"session": session, "window": window}));

    let send = |conn: &mut JsonConn, text: &str| {
        conn.send_text(&session, &window, text);
    };

    // The shell echoes what is typed: output events, each with a byte count.
    send(&mut conn, "printf '\\033]0;hello\\007'\n");
    let (retitled, before) = wait_event(&mut sub, "window-retitled", |e| {
        e["type"] == "window-retitled"
    });
    assert_eq!(retitled["title"], "hello", "{retitled}");
    assert_eq!(retitled["window"], window.as_str(), "{retitled}");
    assert_eq!(retitled["pty_id"], pty.as_str(), "{retitled}");
    assert_eq!(retitled["session"], "pty", "{retitled}");
    let outputs: Vec<&Value> = before.iter().filter(|e| e["type"] == "output").collect();
    assert!(!outputs.is_empty(), "no output event before the title");
    for out in &outputs {
        assert!(out["bytes"].as_u64().is_some_and(|b| b > 0), "{out}");
        assert_eq!(out["window"], window.as_str(), "{out}");
        assert_eq!(out["pty_id"], pty.as_str(), "{out}");
    }

    send(&mut conn, "printf '\\a'\n");
    let (bell, _) = wait_event(&mut sub, "bell", |e| e["type"] == "bell");
    assert_eq!(bell["window"], window.as_str(), "{bell}");
    assert_eq!(bell["pty_id"], pty.as_str(), "{bell}");

    let mode = |sub: &mut JsonConn, name: &str| {
        let (ev, _) = wait_event(sub, "mode-changed", |e| e["type"] == "mode-changed");
        assert_eq!(ev["mode"], name, "{ev}");
        assert_eq!(ev["window"], window.as_str(), "{ev}");
        assert_eq!(ev["pty_id"], pty.as_str(), "{ev}");
        ev["enabled"].clone()
    };
    send(&mut conn, "printf '\\033[?1049h'\n");
    assert_eq!(mode(&mut sub, "alt-screen"), true);
    send(&mut conn, "printf '\\033[?1049l'\n");
    assert_eq!(mode(&mut sub, "alt-screen"), false, "enabled:false is sent");
    send(&mut conn, "printf '\\033[?2004h'\n");
    assert_eq!(mode(&mut sub, "bracketed-paste"), true);
    send(&mut conn, "printf '\\033[?2004l'\n");
    assert_eq!(mode(&mut sub, "bracketed-paste"), false);
}

#[test]
fn command_window_exits_then_closes() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("sup");
    let mut sub = daemon.conn();
    sub.subscribe(json!({"session": session, "types": ["window-exit", "window-closed"]}));
    let mut conn = daemon.conn();

    // Without remain, the window closes when its program exits: exit first, then close.
    let made = conn.new_window(&session, json!({"command": ["sh", "-c", "exit 7"]}));
    let id = made["window_id"].as_str().unwrap().to_string();
    let exit = next_event(&mut sub);
    assert!(is(&exit, "window-exit", &id), "{exit}");
    assert_eq!(exit["exit_code"], 7, "{exit}");
    assert!(exit.get("signal").is_none(), "{exit}");
    assert_eq!(exit["pty_id"], made["pty_id"], "{exit}");
    assert_eq!(exit["session"], "sup", "{exit}");
    let closed = next_event(&mut sub);
    assert!(is(&closed, "window-closed", &id), "{closed}");
    assert!(seq(&closed) > seq(&exit));
    assert!(!conn.window_ids(&session).contains(&id));

    // With remain, it stays, dead: no window-closed until someone closes it.
    let kept = conn.new_window_id(
        &session,
        json!({"command": ["sh", "-c", "exit 3"], "remain": true}),
    );
    let exit = next_event(&mut sub);
    assert!(is(&exit, "window-exit", &kept), "{exit}");
    assert_eq!(exit["exit_code"], 3, "{exit}");
    // A remaining window is still listed.
    let row = conn.window_row(&session, &kept);
    assert_eq!(row["alive"], false, "{row}");
    conn.ok("close-window", json!({"session": session, "window": kept}));
    let closed = next_event(&mut sub);
    assert!(
        is(&closed, "window-closed", &kept),
        "the next event is the explicit close: {closed}"
    );
}

#[test]
fn subscribers_share_seq_and_it_increases() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("seq");
    let mut all = daemon.conn();
    let ack_all = all.subscribe(json!({}));
    let mut created_only = daemon.conn();
    let ack_created = created_only.subscribe(json!({"types": ["window-created"]}));
    assert!(ack_created >= ack_all);

    let mut conn = daemon.conn();
    let ids: Vec<String> = (0..3)
        .map(|_| conn.new_window_id(&session, json!({})))
        .collect();

    let mut seen_all = Vec::new();
    let mut seqs_all = Vec::new();
    for id in &ids {
        let (ev, before) = wait_event(&mut all, "window-created", |e| is(e, "window-created", id));
        seen_all.extend(before);
        seqs_all.push(seq(&ev));
        seen_all.push(ev);
    }
    assert!(seen_all.iter().all(|e| seq(e) > ack_all));
    assert_increasing(&seen_all);

    let mut seen_created = Vec::new();
    for (id, expected) in ids.iter().zip(&seqs_all) {
        let ev = next_event(&mut created_only);
        assert!(is(&ev, "window-created", id), "{ev}");
        assert_eq!(
            seq(&ev),
            *expected,
            "both subscribers number the same event alike"
        );
        seen_created.push(ev);
    }
    assert_increasing(&seen_created);
}

#[test]
fn filters_select_by_session_window_and_type() {
    let daemon = TestDaemon::start();
    let (alpha, a0) = daemon.session_with_window("alpha");
    let (beta, b0) = daemon.session_with_window("beta");
    let mut conn = daemon.conn();
    let a1 = conn.new_window_id(&alpha, json!({"name": "named"}));
    assert_eq!(conn.window_ids(&alpha), vec![a0.clone(), a1.clone()]);

    let mut by_session = daemon.conn();
    by_session.subscribe(json!({"session": alpha, "types": ["window-created"]}));
    let mut by_type = daemon.conn();
    by_type.subscribe(json!({"types": ["window-closed"]}));
    let mut by_id = daemon.conn();
    by_id.subscribe(json!({"window": a0}));
    let mut by_name = daemon.conn();
    by_name.subscribe(json!({"session": alpha, "window": "named"}));
    let mut by_index = daemon.conn();
    by_index.subscribe(json!({"session": alpha, "window": "1"}));

    // Triggers, each filtered subscriber's match coming after what it must not see.
    let bw = conn.new_window_id(&beta, json!({}));
    conn.ok("close-window", json!({"session": beta, "window": bw}));
    let aw = conn.new_window_id(&alpha, json!({"focus": false}));
    let mut ring = |session: &str, window: &str, n: u32| {
        let text = format!("printf '\\a'; echo rang-$(({n}+100))\n");
        conn.send_text(session, window, &text);
        // The marker follows the bell, so once it is on screen the bell has been published.
        conn.wait_for_text(session, window, &format!("rang-{}", n + 100));
    };
    ring(&beta, &b0, 1);
    ring(&alpha, &a0, 2);
    ring(&alpha, &a1, 3);

    let ev = next_event(&mut by_session);
    assert!(
        is(&ev, "window-created", &aw),
        "beta's window is filtered out: {ev}"
    );
    assert_eq!(ev["session"], "alpha");

    let ev = next_event(&mut by_type);
    assert!(
        is(&ev, "window-closed", &bw),
        "only window-closed, from any session: {ev}"
    );
    assert_eq!(ev["session"], "beta");

    for (sub, window, what) in [
        (&mut by_id, &a0, "window id"),
        (&mut by_name, &a1, "window name"),
        (&mut by_index, &a1, "window index"),
    ] {
        let (bell, before) = wait_event(sub, "bell", |e| e["type"] == "bell");
        for ev in before.iter().chain([&bell]) {
            assert_eq!(
                ev["window"],
                window.as_str(),
                "filter by {what} let another window's event through: {ev}"
            );
            assert_eq!(ev["session"], "alpha", "{ev}");
        }
    }
}

#[test]
fn slow_subscriber_gets_a_gap_and_the_daemon_stays_small() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("flood");
    let mut conn = daemon.conn();
    // Four windows retitle as fast as they can, each title about 3 KB, so a few dozen event
    // lines fill the stalled subscriber's socket. Windows coalesce to one retitle per batch,
    // so several windows make the storm dense enough to overflow quickly.
    let storm = "read go; pad=$(printf '%03000d' 0); i=0; \
                 while :; do i=$((i+1)); printf '\\033]2;%s-%d\\007' \"$pad\" $i; done";
    let windows: Vec<String> = (0..4)
        .map(|_| conn.new_window_id(&session, json!({"command": ["sh", "-c", storm]})))
        .collect();
    let filter = |queue: u64| json!({"session": session, "types": ["window-retitled", "window-closed"], "queue": queue});
    let mut slow = daemon.conn();
    slow.subscribe(filter(2));
    let mut fast = daemon.conn();
    fast.subscribe(filter(1_000_000));
    for window in &windows {
        conn.send_text(&session, window, "go\n");
    }

    // The slow subscriber reads nothing. Count on the fast one until many times what its
    // socket can hold was published, then stop the storm.
    const PUBLISHED: u64 = 600;
    let mut published = 0u64;
    while published < PUBLISHED {
        let ev = next_event(&mut fast);
        published += ev["dropped"].as_u64().unwrap_or(1);
    }
    for window in &windows {
        conn.ok(
            "close-window",
            json!({"session": session, "window": window}),
        );
    }
    let mut closed = 0;
    while closed < windows.len() {
        let (_, rest) = wait_event(&mut fast, "window-closed", |e| e["type"] == "window-closed");
        closed += 1;
        published += rest
            .iter()
            .map(|e| e["dropped"].as_u64().unwrap_or(1))
            .sum::<u64>()
            + 1;
    }

    let status = std::fs::read_to_string(format!("/proc/{}/status", daemon.pid()))
        .expect("read the daemon's /proc status");
    let rss_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmHWM in /proc status");
    assert!(
        rss_kb < 200 * 1024,
        "daemon peak RSS {rss_kb} kB while a stalled subscriber was flooded"
    );

    // Now drain the slow one: what fit in its socket, one gap, then what its queue kept.
    // Every published event is either delivered or counted in a gap.
    let mut delivered = Vec::new();
    let mut dropped = 0;
    let mut gaps = 0;
    while delivered.len() as u64 + dropped < published {
        let ev = next_event(&mut slow);
        if ev["type"] == "gap" {
            gaps += 1;
            dropped += ev["dropped"].as_u64().unwrap();
            let next = next_event(&mut slow);
            assert_ne!(next["type"], "gap", "two gaps in a row");
            let highest = delivered.iter().map(seq).max().unwrap_or(0);
            assert!(
                seq(&next) > highest,
                "after a gap, {next} is older than what came before (up to {highest})"
            );
            delivered.push(next);
        } else {
            delivered.push(ev);
        }
    }
    assert!(gaps >= 1, "a stalled subscriber with queue 2 saw no gap");
    assert!(dropped > 0);
    assert_eq!(
        delivered.len() as u64 + dropped,
        published,
        "delivered plus dropped is what was published"
    );
    assert_increasing(&delivered);
    assert!(delivered.iter().all(|e| {
        matches!(
            e["type"].as_str(),
            Some("window-retitled" | "window-closed")
        ) && windows.iter().any(|w| e["window"] == w.as_str())
    }));
}

#[test]
fn unsubscribe_ends_the_stream_and_misuse_is_classified() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("unsub");
    let mut other = daemon.conn();
    let mut witness = daemon.conn();
    witness.subscribe(json!({"session": session, "types": ["window-created"]}));
    let mut conn = daemon.conn();

    let error = conn.err_code("unsubscribe", Value::Null, "invalid_request");
    assert_eq!(error["hint"]["verb"], "subscribe", "{error}");

    let error = conn.err_code(
        "subscribe",
        json!({"types": ["window-create"]}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "types", "{error}");
    assert_eq!(error["hint"]["did_you_mean"], "window-created", "{error}");
    let accepted = strings(&error["hint"]["accepted"]);
    for t in ["gap", "agent-state", "output", "session-closed"] {
        assert!(accepted.iter().any(|a| a == t), "{t} not accepted: {error}");
    }
    // A refused subscribe opens nothing.
    conn.err_code("unsubscribe", Value::Null, "invalid_request");

    conn.subscribe(json!({"session": session, "types": ["window-created"]}));
    let (second, _) = request(&mut conn, "subscribe", json!({}));
    assert_eq!(second["error"]["code"], "invalid_request", "{second}");
    assert_eq!(second["error"]["hint"]["verb"], "unsubscribe", "{second}");

    let w1 = other.new_window_id(&session, json!({}));
    wait_event(&mut conn, "window-created", |e| {
        is(e, "window-created", &w1)
    });

    let (ack, _) = request(&mut conn, "unsubscribe", Value::Null);
    assert_eq!(ack["result"]["type"], "unsubscribed", "{ack}");

    // An event published after the ack (the witness proves it was) never reaches us.
    let w2 = other.new_window_id(&session, json!({}));
    wait_event(&mut witness, "window-created", |e| {
        is(e, "window-created", &w2)
    });
    let (resp, events) = request(&mut conn, "list-sessions", Value::Null);
    assert_eq!(resp["result"]["type"], "session_list", "{resp}");
    assert!(events.is_empty(), "events after unsubscribe: {events:?}");
    conn.err_code("unsubscribe", Value::Null, "invalid_request");

    // Subscribing again works, from now on (no backfill of w2).
    conn.subscribe(json!({"session": session, "types": ["window-created"]}));
    let w3 = other.new_window_id(&session, json!({}));
    let ev = next_event(&mut conn);
    assert!(is(&ev, "window-created", &w3), "{ev}");
}

#[test]
fn verbs_keep_working_on_a_subscribed_connection() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("busy");
    let mut conn = daemon.conn();
    conn.subscribe(json!({"session": session}));
    let mut events = Vec::new();

    let (made, evs) = request(&mut conn, "new-window", json!({"session": session}));
    events.extend(evs);
    assert_eq!(made["result"]["type"], "window_created", "{made}");
    let window = made["result"]["window_id"].as_str().unwrap().to_string();

    let (sent, evs) = request(
        &mut conn,
        "send-text",
        json!({"session": session, "window": window, "text": "echo vk-$((5+6))\n"}),
    );
    events.extend(evs);
    assert_eq!(sent["result"]["type"], "ok", "{sent}");

    wait_until(DEADLINE, "vk-11 on screen", || {
        let (resp, evs) = request(
            &mut conn,
            "capture-pane",
            json!({"session": session, "window": window}),
        );
        events.extend(evs);
        let content = resp["result"]["content"]
            .as_str()
            .unwrap_or_else(|| panic!("capture-pane failed: {resp}"));
        content.contains("vk-11").then_some(())
    });
    // Events written after the last response are still to come; the bell ends them.
    let (_, evs) = request(
        &mut conn,
        "send-text",
        json!({"session": session, "window": window, "text": "printf '\\a'\n"}),
    );
    events.extend(evs);
    let (_, evs) = wait_event(&mut conn, "bell", |e| e["type"] == "bell");
    events.extend(evs);

    assert_increasing(&events);
    let created = events
        .iter()
        .filter(|e| is(e, "window-created", &window))
        .count();
    assert_eq!(created, 1, "window-created exactly once: {events:?}");
    assert!(
        events.iter().any(|e| is(e, "output", &window)),
        "the echo produced output events: {events:?}"
    );
    assert!(events.iter().all(|e| e["session"] == "busy"));
}
