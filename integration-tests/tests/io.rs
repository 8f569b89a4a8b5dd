//! Input and output: send-keys, send-text, capture-pane, resize.

use serde_json::{json, Value};
use std::time::Duration;
use tuios_integration_tests::*;

/// A window running `script` under /bin/sh, kept alive afterwards so its screen stays.
fn script_window(conn: &mut JsonConn, session: &str, script: &str) -> String {
    let script = format!("{script}; sleep 1000");
    conn.new_window_id(session, json!({"command": ["/bin/sh", "-c", script]}))
}

/// The lines of a capture (a last line feed ends the last line, it starts no empty one).
fn capture_lines(capture: &str) -> Vec<&str> {
    capture.trim_end_matches('\n').lines().collect()
}

#[test]
fn send_text_writes_literally() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    conn.send_text(&session, &window, "echo st-$((3+4))\n");
    conn.wait_for_text(&session, &window, "st-7");
    // Without a window: the focused one (the only one here).
    conn.send_text(&session, "", "echo focus-$((1+1)), x\n");
    conn.wait_for_text(&session, &window, "focus-2, x");
}

#[test]
fn send_text_requires_text() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let error = conn.err_code(
        "send-text",
        json!({"session": session, "window": window}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "text", "{error}");
    let error = conn.err_code(
        "send-text",
        json!({"session": session, "window": window, "text": ""}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "text", "{error}");
}

#[test]
fn send_keys_translates_tokens_and_keeps_case() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    // Tokens split on commas and spaces; `space` and `Enter` are named keys.
    conn.send_keys(&session, &window, "echo,space,Hello-$((6*7)),Enter");
    // The typed text holds `$((6*7))`, so only the command's output can match.
    conn.wait_for_text(&session, &window, "Hello-42");
    conn.send_keys(&session, &window, "echo space MiXeD-$((2*3)) Enter");
    conn.wait_for_text(&session, &window, "MiXeD-6");
}

#[test]
fn send_keys_ctrl_c_interrupts() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    // Interrupt only once the job is the terminal's foreground group: its own output says so
    // (the shell makes a foreground child the foreground group before it runs anything).
    // A ^C landing earlier could reach the shell while it reads input or starts the job.
    conn.send_text(
        &session,
        &window,
        "sh -c 'echo sl-$((1+1)); exec sleep 1000'\n",
    );
    conn.wait_for_text(&session, &window, "sl-2");
    conn.send_keys(&session, &window, "ctrl+c");
    // Only an interrupted sleep lets the shell run this before the deadline.
    conn.send_keys(&session, &window, "echo,space,after-$((1+1)),Enter");
    conn.wait_for_text(&session, &window, "after-2");
}

#[test]
fn send_keys_literal_sends_the_string_unparsed() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    conn.ok(
        "send-keys",
        json!({"session": session, "window": window, "keys": "echo lit-$((2+3)),Enter\r", "literal": true}),
    );
    conn.wait_for_text(&session, &window, "lit-5,Enter");
}

#[test]
fn send_keys_refusals() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let error = conn.err_code(
        "send-keys",
        json!({"session": session, "window": window}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "keys", "{error}");
    conn.err_code(
        "send-keys",
        json!({"session": session, "window": window, "keys": ""}),
        "invalid_params",
    );
    for bad in ["ctrl+1", "PREFIX", " , ,"] {
        let error = conn.err_code(
            "send-keys",
            json!({"session": session, "window": window, "keys": bad}),
            "invalid_params",
        );
        assert_eq!(error["hint"]["param"], "keys", "{bad}: {error}");
    }
}

#[test]
fn capture_pane_visible_recent_and_slices() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let id = script_window(&mut conn, &session, "seq -f 'row-%g' 1 100");
    conn.wait_for_line(&session, &id, "row-100");

    let visible = conn.capture_result(&session, &id, Value::Null);
    assert_eq!(visible["source"], "visible", "{visible}");
    assert_eq!(visible["styled"], false, "{visible}");
    let text = visible["content"].as_str().unwrap();
    assert!(text.lines().any(|l| l == "row-100"), "{text}");
    assert!(
        !text.lines().any(|l| l == "row-1"),
        "row-1 scrolled off the screen:\n{text}"
    );

    let recent = conn.capture_result(&session, &id, json!({"source": "recent"}));
    assert_eq!(recent["source"], "recent", "{recent}");
    let text = recent["content"].as_str().unwrap();
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("row-")).collect();
    let expected: Vec<String> = (1..=100).map(|n| format!("row-{n}")).collect();
    assert_eq!(rows, expected, "recent holds every row in order");

    // `scrollback` is the older spelling of source recent.
    let old = conn.capture(&session, &id, json!({"scrollback": true}));
    assert!(old.lines().any(|l| l == "row-1"), "{old}");

    // lines keeps the last N non-blank rows.
    let last = conn.capture(&session, &id, json!({"lines": 2}));
    assert_eq!(capture_lines(&last), ["row-99", "row-100"]);
    let last = conn.capture(&session, &id, json!({"source": "recent", "lines": 3}));
    assert_eq!(capture_lines(&last), ["row-98", "row-99", "row-100"]);

    // start/end: a 1-based inclusive range; lines is ignored beside them.
    let range = conn.capture(
        &session,
        &id,
        json!({"source": "recent", "start": 5, "end": 7, "lines": 1}),
    );
    assert_eq!(capture_lines(&range), ["row-5", "row-6", "row-7"]);
    let range = conn.capture(
        &session,
        &id,
        json!({"source": "recent", "start": 99, "end": 100}),
    );
    assert_eq!(capture_lines(&range), ["row-99", "row-100"]);
    let empty = conn.capture(
        &session,
        &id,
        json!({"source": "recent", "start": 50, "end": 10}),
    );
    assert_eq!(empty, "", "start after end is empty");
    let empty = conn.capture(&session, &id, json!({"start": 100000}));
    assert_eq!(empty, "", "start past the end is empty");
}

#[test]
fn capture_pane_styled_carries_escape_sequences() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let id = script_window(
        &mut conn,
        &session,
        r"printf '\033[31mRED%s\033[0m plain\n' x",
    );
    conn.wait_for_text(&session, &id, "REDx plain");

    let plain = conn.capture(&session, &id, Value::Null);
    assert!(
        !plain.contains('\u{1b}'),
        "plain capture has escapes: {plain:?}"
    );
    let styled = conn.capture_result(&session, &id, json!({"styled": true}));
    assert_eq!(styled["styled"], true, "{styled}");
    let content = styled["content"].as_str().unwrap();
    assert!(
        content.contains('\u{1b}'),
        "styled capture has no escapes: {content:?}"
    );
    assert!(content.contains("RED"), "{content:?}");
    // `ansi` is the older spelling of styled.
    let ansi = conn.capture(&session, &id, json!({"ansi": true}));
    assert!(ansi.contains('\u{1b}'), "{ansi:?}");
}

#[test]
fn capture_pane_refuses_unknown_sources() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let error = conn.err_code(
        "capture-pane",
        json!({"session": session, "window": window, "source": "recent-unwrapped"}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "source", "{error}");
    assert_eq!(error["hint"]["did_you_mean"], "recent", "{error}");
    assert_eq!(
        strings(&error["hint"]["accepted"]),
        ["visible", "recent"],
        "{error}"
    );
    assert!(
        error["hint"]["detail"]
            .as_str()
            .is_some_and(|d| !d.is_empty()),
        "{error}"
    );

    let error = conn.err_code(
        "capture-pane",
        json!({"session": session, "window": window, "source": "visibel"}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["did_you_mean"], "visible", "{error}");
}

#[test]
fn resize_is_seen_inside_the_window() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let resized = conn.ok(
        "resize",
        json!({"session": session, "window": window, "width": 100, "height": 30}),
    );
    assert_eq!(resized["type"], "resized", "{resized}");
    assert_eq!(resized["width"], 100, "{resized}");
    assert_eq!(resized["height"], 30, "{resized}");
    conn.send_text(&session, &window, "stty size\n");
    conn.wait_for_text(&session, &window, "30 100");
    // No client has placed the window: list-windows gives the size its program sees.
    let row = conn.window_row(&session, &window);
    assert_eq!(
        (&row["width"], &row["height"]),
        (&json!(100), &json!(30)),
        "{row}"
    );
    let screen = conn.capture(&session, &window, Value::Null);
    assert_eq!(
        screen.split('\n').count(),
        30,
        "the visible capture has one line per row"
    );

    conn.ok(
        "resize",
        json!({"session": session, "window": window, "width": 50, "height": 12}),
    );
    conn.send_text(&session, &window, "stty size\n");
    conn.wait_for_text(&session, &window, "12 50");
    let row = conn.window_row(&session, &window);
    assert_eq!(
        (&row["width"], &row["height"]),
        (&json!(50), &json!(12)),
        "{row}"
    );
}

#[test]
fn tuios_resize_without_a_window_resizes_the_focused_one() {
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    // A second window takes the focus; the first must keep its size.
    let second = conn.new_window_id(&session, json!({}));
    let focused = conn.ok("list-windows", json!({"session": session}));
    assert_eq!(focused["focused_window_id"], second.as_str(), "{focused}");
    let before = conn.window_row(&session, &first);

    let out = daemon.cli(&["resize", "-s", &session, "100", "30"]);
    assert!(out.status.success(), "{}", describe(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "resized to 100x30\n");
    let row = conn.window_row(&session, &second);
    assert_eq!(
        (&row["width"], &row["height"]),
        (&json!(100), &json!(30)),
        "{row}"
    );
    conn.send_text(&session, &second, "stty size\n");
    conn.wait_for_text(&session, &second, "30 100");
    let row = conn.window_row(&session, &first);
    assert_eq!(
        (&row["width"], &row["height"]),
        (&before["width"], &before["height"]),
        "{row}"
    );
}

#[test]
fn resize_refuses_non_positive_sizes() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    for (w, h) in [(0, 24), (80, 0), (-5, 10)] {
        let error = conn.err_code(
            "resize",
            json!({"session": session, "window": window, "width": w, "height": h}),
            "invalid_params",
        );
        assert!(error["hint"]["param"].is_string(), "{error}");
    }
    let error = conn.err_code(
        "resize",
        json!({"session": session, "window": window, "width": 80}),
        "invalid_params",
    );
    let param = error["hint"]["param"].as_str().unwrap_or_default();
    assert!(param == "height" || param == "width", "{error}");
}

#[test]
fn two_mebibytes_of_send_text_arrive_whole() {
    const SIZE: usize = 2 * 1024 * 1024;
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    // Raw mode: no 4096-byte canonical line limit, no echo, no input translation.
    let id = script_window(
        &mut conn,
        &session,
        &format!("stty raw -echo; echo READY; head -c {SIZE} | wc -c"),
    );
    conn.wait_for_text(&session, &id, "READY");

    let mut text = String::with_capacity(SIZE);
    let mut n = 0u64;
    while text.len() < SIZE {
        let line = format!("{n:08} the quick brown fox jumps over the lazy dog\n");
        text.push_str(&line);
        n += 1;
    }
    text.truncate(SIZE);
    conn.set_timeout(Duration::from_secs(120));
    conn.send_text(&session, &id, &text);
    conn.set_timeout(READ_TIMEOUT);
    conn.wait_for_capture(
        &session,
        &id,
        "wc -c to count every byte",
        Duration::from_secs(60),
        |c| {
            c.lines()
                .any(|l| l.trim() == SIZE.to_string())
                .then_some(())
        },
    );
}

#[test]
fn send_keys_goes_to_the_window_it_names_not_the_focused_one() {
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let focused = conn.new_window_id(&session, json!({"name": "front"}));
    let list = conn.ok("list-windows", json!({"session": session}));
    assert_eq!(list["focused_window_id"], focused.as_str(), "{list}");
    conn.send_keys(&session, &first, "echo,space,aimed-$((5*5)),Enter");
    conn.wait_for_text(&session, &first, "aimed-25");
    conn.send_text(&session, &focused, "echo front-$((1+1))\n");
    let front = conn.wait_for_text(&session, &focused, "front-2");
    assert!(
        !front.contains("aimed"),
        "keys for another window reached the focused one:\n{front}"
    );
}

#[test]
fn capture_pane_names_the_source_it_read() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let old = conn.capture_result(&session, &window, json!({"scrollback": true}));
    assert_eq!(old["source"], "recent", "{old}");
    let plain = conn.capture_result(&session, &window, json!({"source": "visible"}));
    assert_eq!(plain["source"], "visible", "{plain}");
}

/// A program that asks the terminal something (here the cursor position) gets an answer
/// from the daemon's emulator, so it does not hang while no client is attached.
#[test]
fn terminal_queries_are_answered_headless() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let id = script_window(
        &mut conn,
        &session,
        r"stty raw -echo; printf '\033[6n'; head -c 2 | od -An -tx1; echo; echo answered",
    );
    let content = conn.wait_for_text(&session, &id, "answered");
    // The reply starts with CSI (ESC [).
    assert!(content.contains("1b 5b"), "{content}");
}

/// Pipelined writes on one connection reach the program in the order they were sent, whichever
/// way each takes in the daemon (send-text is written at once when nothing is pending, send-keys
/// is encoded on the window's thread).
#[test]
fn pipelined_send_keys_and_send_text_keep_their_order() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let session = daemon.new_session("order");
    let window = script_window(&mut conn, &session, "stty -echo; printf 'ready\\n'; cat");
    conn.wait_for_text(&session, &window, "ready");
    let digits: Vec<String> = (0..60).map(|i| (i % 10).to_string()).collect();
    let ids: Vec<String> = digits
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let verb = if i % 2 == 0 { "send-keys" } else { "send-text" };
            let key = if i % 2 == 0 { "keys" } else { "text" };
            conn.send_request(verb, json!({"session": session, "window": window, key: d}))
        })
        .collect();
    for id in ids {
        let (resp, _) = conn.read_response(&id);
        assert_eq!(resp["result"]["type"], json!("ok"), "{resp}");
    }
    conn.send_text(&session, &window, "\n");
    let expected: String = digits.concat();
    let capture = conn.wait_for_text(&session, &window, &expected);
    assert!(capture.contains(&expected), "{capture}");
}
