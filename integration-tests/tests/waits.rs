//! `wait-for` end to end: every condition matched, already true and timed out; validation;
//! `fresh` (including programs that move the cursor); output racing the request; exit codes and
//! signals; many waiters at once; a client that hangs up, a session killed and a daemon stopping
//! mid-wait; and what the supervisor does when a shell exits.

use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tuios_integration_tests::*;

/// Send a wait-for without reading its answer; returns the request id to match it with.
fn start_wait(conn: &mut JsonConn, params: Value) -> String {
    conn.send_request("wait-for", params)
}

/// The answer to a wait started with `start_wait`: the next line on the connection.
fn finish_wait(conn: &mut JsonConn, id: &str) -> Value {
    let (resp, events) = conn.read_response(id);
    assert!(events.is_empty(), "events before the answer: {events:?}");
    resp
}

/// The result of a wait that must match.
fn matched(resp: &Value, condition: &str) -> Value {
    let result = resp
        .get("result")
        .unwrap_or_else(|| panic!("wait-for {condition} did not match: {resp}"));
    assert_eq!(result["type"], "wait_result", "{resp}");
    assert_eq!(result["condition"], condition, "{resp}");
    assert_eq!(result["matched"], true, "{resp}");
    result.clone()
}

/// Live wait-for calls on a session, as session-info counts them.
fn waiters(conn: &mut JsonConn, session: &str) -> u64 {
    let info = conn.ok("session-info", json!({"session": session}));
    info["waiters"]
        .as_u64()
        .unwrap_or_else(|| panic!("session-info has no waiters count: {info}"))
}

fn wait_for_waiters(conn: &mut JsonConn, session: &str, n: u64) {
    wait_until(DEADLINE, &format!("{n} waiters on {session}"), || {
        (waiters(conn, session) == n).then_some(())
    });
}

/// A timed-out wait: code `timeout`, with a hint naming `param`.
fn assert_timeout(error: &Value, param: &str) {
    assert_eq!(error["code"], "timeout", "{error}");
    assert_eq!(error["hint"]["param"], param, "{error}");
    assert!(
        error["hint"]["detail"]
            .as_str()
            .is_some_and(|d| !d.is_empty()),
        "{error}"
    );
}

#[test]
fn session_exists_times_out_matches_and_is_immediate_when_true() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let error = conn.err(
        "wait-for",
        json!({"condition": "session-exists", "session": "late", "timeout": 300}),
    );
    assert_timeout(&error, "timeout");
    assert_eq!(error["hint"]["verb"], "list-sessions", "{error}");
    let error = conn.err_code(
        "wait-for",
        json!({"condition": "session-exists"}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "session", "{error}");

    let id = start_wait(
        &mut conn,
        json!({"condition": "session-exists", "session": "late", "timeout": 20000}),
    );
    daemon.new_session("late");
    let result = matched(&finish_wait(&mut conn, &id), "session-exists");
    assert_eq!(result["session"], "late", "{result}");

    let began = Instant::now();
    let result = conn.ok(
        "wait-for",
        json!({"condition": "session-exists", "session": "late", "timeout": 60000}),
    );
    assert_eq!(result["matched"], true, "{result}");
    assert!(began.elapsed() < Duration::from_secs(10));
}

#[test]
fn window_output_matches_new_and_existing_text_and_times_out() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("out");
    let mut waiter = daemon.conn();
    let mut conn = daemon.conn();

    let id = start_wait(
        &mut waiter,
        json!({"condition": "window-output", "session": session, "window": window,
               "pattern": "OUT-\\d+", "timeout": 20000}),
    );
    wait_for_waiters(&mut conn, &session, 1);
    conn.send_text(&session, &window, "echo OUT-$((40+2))\n");
    let result = matched(&finish_wait(&mut waiter, &id), "window-output");
    assert_eq!(result["pattern"], "OUT-\\d+", "{result}");
    assert_eq!(result["window"], window.as_str(), "{result}");

    // Already on screen: answered at once, also for the visible source and the focused window.
    for extra in [json!({}), json!({"source": "visible"})] {
        let mut p = json!({"condition": "window-output", "session": session,
                           "pattern": "OUT-42", "timeout": 60000});
        for (k, v) in extra.as_object().unwrap() {
            p[k] = v.clone();
        }
        let began = Instant::now();
        let result = waiter.ok("wait-for", p);
        assert_eq!(result["matched"], true, "{result}");
        assert!(began.elapsed() < Duration::from_secs(10));
    }

    let error = waiter.err(
        "wait-for",
        json!({"condition": "window-output", "session": session, "window": window,
               "pattern": "NEVER-\\d", "timeout": 300}),
    );
    assert_timeout(&error, "pattern");
    assert_eq!(error["hint"]["verb"], "capture-pane", "{error}");
    wait_for_waiters(&mut conn, &session, 0);
}

#[test]
fn wait_for_validates_condition_and_pattern() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("val");
    let mut conn = daemon.conn();

    let error = conn.err_code(
        "wait-for",
        json!({"condition": "window-exits", "session": session}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "condition", "{error}");
    assert_eq!(error["hint"]["did_you_mean"], "window-exit", "{error}");
    let accepted = strings(&error["hint"]["accepted"]);
    for c in [
        "session-exists",
        "window-output",
        "window-exit",
        "window-idle",
    ] {
        assert!(accepted.iter().any(|a| a == c), "{c} missing: {error}");
    }

    let error = conn.err_code(
        "wait-for",
        json!({"condition": "window-output", "session": session, "window": window, "pattern": "("}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "pattern", "{error}");
    let error = conn.err_code(
        "wait-for",
        json!({"condition": "window-output", "session": session, "window": window}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "pattern", "{error}");
    conn.err_code(
        "wait-for",
        json!({"condition": "window-output", "session": session, "window": "nope", "pattern": "x"}),
        "window_not_found",
    );
    assert_eq!(waiters(&mut conn, &session), 0);
}

/// A fresh window-output wait for `pattern` in `window`, started and confirmed live; `trigger`
/// then runs, and the answer is returned. `timeout` bounds a wait that should match.
fn fresh_wait(
    daemon: &TestDaemon,
    session: &str,
    window: &str,
    pattern: &str,
    timeout: u64,
    trigger: impl FnOnce(&mut JsonConn),
) -> Value {
    let mut waiter = daemon.conn();
    let mut conn = daemon.conn();
    let id = start_wait(
        &mut waiter,
        json!({"condition": "window-output", "session": session, "window": window,
               "pattern": pattern, "fresh": true, "timeout": timeout}),
    );
    wait_for_waiters(&mut conn, session, 1);
    trigger(&mut conn);
    finish_wait(&mut waiter, &id)
}

/// A fresh wait for text that is already there, and is never printed again, must time out.
fn assert_fresh_ignores(daemon: &TestDaemon, session: &str, window: &str, old: &str) {
    let mut conn = daemon.conn();
    let plain = conn.ok(
        "wait-for",
        json!({"condition": "window-output", "session": session, "window": window,
               "pattern": old, "timeout": 20000}),
    );
    assert_eq!(plain["matched"], true, "{old} should be there: {plain}");
    let resp = conn.call(
        "wait-for",
        json!({"condition": "window-output", "session": session, "window": window,
               "pattern": old, "fresh": true, "timeout": 500}),
    );
    assert_eq!(
        resp["error"]["code"], "timeout",
        "a fresh wait matched {old:?}, which was there before it began: {resp}"
    );
}

#[test]
fn fresh_ignores_what_is_already_there() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("fresh");
    let mut conn = daemon.conn();
    let send = |conn: &mut JsonConn, text: &str| {
        conn.send_text(&session, &window, text);
    };

    // A marker on screen does not satisfy a fresh wait; the next one does.
    send(&mut conn, "echo MARK-$((0+1))\n");
    conn.wait_for_text(&session, &window, "MARK-1");
    assert_fresh_ignores(&daemon, &session, &window, "MARK-1");
    let resp = fresh_wait(&daemon, &session, &window, "MARK-2", 20000, |c| {
        send(c, "echo MARK-$((1+1))\n")
    });
    matched(&resp, "window-output");

    // Nor do markers pushed into the scrollback.
    send(&mut conn, "seq 1 60; echo pushed-$((1+1))\n");
    conn.wait_for_text(&session, &window, "pushed-2");
    let visible = conn.capture(&session, &window, json!({"source": "visible"}));
    assert!(
        !visible.contains("MARK-"),
        "markers should have scrolled off: {visible}"
    );
    assert_fresh_ignores(&daemon, &session, &window, "MARK-[12]");
    let resp = fresh_wait(&daemon, &session, &window, "MARK-3", 20000, |c| {
        send(c, "echo MARK-$((1+2))\n")
    });
    matched(&resp, "window-output");
    wait_for_waiters(&mut conn, &session, 0);
}

#[test]
fn fresh_ignores_old_text_below_the_cursor() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("below");
    let mut conn = daemon.conn();
    // Like a TUI whose cursor sits in an input box above a status line: old text below it.
    let window = conn.new_window_id(
        &session,
        json!({"command": ["sh", "-c",
            "stty -echo; printf 'top\\n\\nOLD-%d\\n' 1; printf '\\033[3A'; read x; printf 'NEW-%d' 2; exec sleep 1000"]}),
    );
    conn.wait_for_text(&session, &window, "OLD-1");
    assert_fresh_ignores(&daemon, &session, &window, "OLD-1");
    let resp = fresh_wait(&daemon, &session, &window, "NEW-2", 20000, |c| {
        c.send_text(&session, &window, "\n");
    });
    matched(&resp, "window-output");
}

#[test]
fn fresh_sees_a_line_redrawn_with_carriage_return() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("redraw");
    let mut conn = daemon.conn();
    // A progress line rewritten in place: the new text starts left of where the cursor was.
    let window = conn.new_window_id(
        &session,
        json!({"command": ["sh", "-c",
            "stty -echo; printf 'working 10%%'; read x; printf '\\rDONE-%d    ' 7; exec sleep 1000"]}),
    );
    conn.wait_for_text(&session, &window, "working 10%");
    // A correct daemon answers at once; the timeout only bounds a failing run.
    let resp = fresh_wait(&daemon, &session, &window, "DONE-7", 10000, |c| {
        c.send_text(&session, &window, "\n");
    });
    matched(&resp, "window-output");
}

#[test]
fn fresh_sees_output_drawn_above_the_cursor() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("above");
    let mut conn = daemon.conn();
    // A full-screen program updating its header while the cursor stays lower down.
    let window = conn.new_window_id(
        &session,
        json!({"command": ["sh", "-c",
            "stty -echo; printf 'header\\nline 2\\nline 3\\n'; read x; printf '\\033[1;1HTOP-%d' 5; exec sleep 1000"]}),
    );
    conn.wait_for_text(&session, &window, "line 3");
    let resp = fresh_wait(&daemon, &session, &window, "TOP-5", 10000, |c| {
        c.send_text(&session, &window, "\n");
    });
    matched(&resp, "window-output");
}

#[test]
fn output_racing_the_wait_is_never_missed() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("race");
    let mut sender = daemon.conn();
    let mut waiter = daemon.conn();
    for n in 0..200u32 {
        let marker = n + 1000;
        // The output and the wait race: neither answer is read before both are sent.
        sender.send_line(
            &json!({"id": n, "verb": "send-text", "params": {"session": session, "window": window,
                    "text": format!("echo R-$(({n}+1000))\n")}})
            .to_string(),
        );
        let id = start_wait(
            &mut waiter,
            json!({"condition": "window-output", "session": session, "window": window,
                   "pattern": format!("R-{marker}"), "fresh": false, "timeout": 20000}),
        );
        let resp = finish_wait(&mut waiter, &id);
        matched(&resp, "window-output");
        let sent = sender.read_line();
        assert_eq!(sent["id"], n, "{sent}");
        assert_eq!(sent["result"]["type"], "ok", "{sent}");
    }
}

#[test]
fn window_exit_reports_the_exit_code() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("exit");
    let mut waiter = daemon.conn();
    let mut conn = daemon.conn();
    // The program waits for a line, so the wait starts before the exit.
    let window = conn.new_window_id(
        &session,
        json!({"command": ["sh", "-c", "read x; exit 7"], "remain": true}),
    );
    let id = start_wait(
        &mut waiter,
        json!({"condition": "window-exit", "session": session, "window": window, "timeout": 20000}),
    );
    wait_for_waiters(&mut conn, &session, 1);
    conn.send_text(&session, &window, "\n");
    let result = matched(&finish_wait(&mut waiter, &id), "window-exit");
    assert_eq!(result["exit_code"], 7, "{result}");
    assert!(result.get("signal").is_none(), "{result}");

    // Already exited: answered at once, from the window's state.
    let began = Instant::now();
    let result = waiter.ok(
        "wait-for",
        json!({"condition": "window-exit", "session": session, "window": window, "timeout": 60000}),
    );
    assert_eq!(result["exit_code"], 7, "{result}");
    assert!(began.elapsed() < Duration::from_secs(10));
    let row = conn.window_row(&session, &window);
    assert_eq!(row["alive"], false, "{row}");
    assert_eq!(row["exit_code"], 7, "{row}");

    // A program that exits on its own right after creation.
    let quick = conn.new_window_id(
        &session,
        json!({"command": ["sh", "-c", "exit 7"], "remain": true}),
    );
    let result = waiter.ok(
        "wait-for",
        json!({"condition": "window-exit", "session": session, "window": quick, "timeout": 20000}),
    );
    assert_eq!(result["exit_code"], 7, "{result}");

    // A running shell does not exit in time.
    let shell = conn.first_window(&session);
    let error = waiter.err(
        "wait-for",
        json!({"condition": "window-exit", "session": session, "window": shell, "timeout": 300}),
    );
    assert_timeout(&error, "timeout");

    // A window closed while waited on ends the wait too.
    let id = start_wait(
        &mut waiter,
        json!({"condition": "window-exit", "session": session, "window": shell, "timeout": 20000}),
    );
    wait_for_waiters(&mut conn, &session, 1);
    conn.ok("close-window", json!({"session": session, "window": shell}));
    let result = matched(&finish_wait(&mut waiter, &id), "window-exit");
    assert_eq!(result["window"], shell.as_str(), "{result}");
}

#[test]
fn window_exit_reports_the_killing_signal() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("kill");
    let mut waiter = daemon.conn();
    let mut conn = daemon.conn();
    let window = conn.new_window_id(
        &session,
        json!({"command": ["sh", "-c", "echo PID=$$; exec sleep 1000"], "remain": true}),
    );
    let pid: libc::pid_t = conn.wait_for_capture(&session, &window, "PID=", DEADLINE, |c| {
        c.lines()
            .find_map(|l| l.trim().strip_prefix("PID="))
            .and_then(|p| p.parse().ok())
    });
    assert!(pid > 1, "{pid}");
    let id = start_wait(
        &mut waiter,
        json!({"condition": "window-exit", "session": session, "window": window, "timeout": 20000}),
    );
    wait_for_waiters(&mut conn, &session, 1);
    // SAFETY: kill(2) on the window's program, a child of the daemon this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    let result = matched(&finish_wait(&mut waiter, &id), "window-exit");
    assert_eq!(result["signal"], 9, "{result}");
    assert!(result.get("exit_code").is_none(), "{result}");
    let row = conn.window_row(&session, &window);
    assert_eq!(row["alive"], false, "{row}");
    assert_eq!(row["signal"], 9, "{row}");
}

#[test]
fn window_idle_matches_a_quiet_window_and_times_out_on_a_busy_one() {
    let daemon = TestDaemon::start();
    let (session, quiet) = daemon.session_with_window("idle");
    let mut conn = daemon.conn();
    let result = conn.ok(
        "wait-for",
        json!({"condition": "window-idle", "session": session, "window": quiet,
               "idle": 300, "timeout": 20000}),
    );
    assert_eq!(result["matched"], true, "{result}");
    assert_eq!(result["idle_ms"], 300, "{result}");

    let busy = conn.new_window_id(
        &session,
        json!({"command": ["sh", "-c", "while :; do echo tick; sleep 0.1; done"]}),
    );
    conn.wait_for_text(&session, &busy, "tick");
    let error = conn.err(
        "wait-for",
        json!({"condition": "window-idle", "session": session, "window": busy,
               "idle": 1500, "timeout": 2500}),
    );
    assert_timeout(&error, "idle");
}

#[test]
fn a_hundred_waiters_on_one_window_all_match() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("many");
    let mut conn = daemon.conn();
    let mut waiters_conns: Vec<(JsonConn, String)> = (0..100)
        .map(|_| {
            let mut c = daemon.conn();
            let id = start_wait(
                &mut c,
                json!({"condition": "window-output", "session": session, "window": window,
                       "pattern": "HUNDRED-42", "timeout": 20000}),
            );
            (c, id)
        })
        .collect();
    wait_for_waiters(&mut conn, &session, 100);
    conn.send_text(&session, &window, "echo HUNDRED-$((40+2))\n");
    for (c, id) in &mut waiters_conns {
        matched(&finish_wait(c, id), "window-output");
    }
    wait_for_waiters(&mut conn, &session, 0);
}

#[test]
fn a_client_that_hangs_up_leaves_no_waiter() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("gone");
    let mut conn = daemon.conn();
    let mut waiter = daemon.conn();
    start_wait(
        &mut waiter,
        json!({"condition": "window-output", "session": session, "window": window,
               "pattern": "NEVER-SEEN-\\d", "timeout": 600000}),
    );
    wait_for_waiters(&mut conn, &session, 1);
    drop(waiter);
    wait_for_waiters(&mut conn, &session, 0);

    // The same for a wait on another condition, and the daemon still answers waits.
    let mut waiter = daemon.conn();
    start_wait(
        &mut waiter,
        json!({"condition": "window-idle", "session": session, "window": window,
               "idle": 600000, "timeout": 600000}),
    );
    wait_for_waiters(&mut conn, &session, 1);
    drop(waiter);
    wait_for_waiters(&mut conn, &session, 0);
}

#[test]
fn a_shell_that_exits_leaves_a_dead_window() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("dead");
    let mut conn = daemon.conn();
    conn.send_text(&session, &window, "exit\n");
    let result = conn.ok(
        "wait-for",
        json!({"condition": "window-exit", "session": session, "window": window, "timeout": 20000}),
    );
    assert_eq!(result["exit_code"], 0, "{result}");
    let row = conn.window_row(&session, &window);
    assert_eq!(
        row["alive"], false,
        "a shell window stays listed, dead: {row}"
    );
    conn.err_code(
        "send-text",
        json!({"session": session, "window": window, "text": "echo hi\n"}),
        "pty_not_found",
    );
}

#[test]
fn killing_the_session_ends_its_waits() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("doomed");
    let mut conn = daemon.conn();
    let mut waiter = daemon.conn();
    // A correct daemon answers as soon as the session is gone; the timeout only bounds a
    // failing run.
    let id = start_wait(
        &mut waiter,
        json!({"condition": "window-output", "session": session, "window": window,
               "pattern": "NEVER-SEEN-\\d", "timeout": 10000}),
    );
    wait_for_waiters(&mut conn, &session, 1);
    conn.ok("kill-session", json!({"session": session}));
    let resp = finish_wait(&mut waiter, &id);
    let code = resp["error"]["code"].as_str().unwrap_or_default();
    assert!(
        code == "window_not_found" || code == "session_not_found",
        "a wait on a window of a killed session must fail because the window is gone, \
         not time out: {resp}"
    );
}

#[test]
fn daemon_shutdown_answers_pending_waits() {
    let mut daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("last");
    let mut conn = daemon.conn();
    let mut waiter = daemon.conn();
    let id = start_wait(
        &mut waiter,
        json!({"condition": "window-output", "session": session, "window": window,
               "pattern": "NEVER-SEEN-\\d", "timeout": 600000}),
    );
    wait_for_waiters(&mut conn, &session, 1);
    daemon.terminate();
    let line = waiter
        .read_raw_line()
        .expect("the daemon closed a waiting connection without answering it");
    let resp: Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(resp["id"], id.as_str(), "{resp}");
    assert_eq!(
        resp["error"]["code"], "internal",
        "a wait cut short by shutdown fails with internal: {resp}"
    );
}
