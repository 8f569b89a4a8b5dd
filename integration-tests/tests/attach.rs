//! `tuios attach` end to end: real clients, each running inside a tmux server of its own, typed
//! at with `tmux send-keys` and read with `tmux capture-pane`, checked against what the daemon
//! says over the JSON protocol. One test plays a client itself, over the binary protocol, to see
//! what happens when a client never answers a routed request.
//!
//! Tests that need tmux (the harness's `TmuxClient`) are skipped, with a message, when it is not
//! installed.

use serde_json::{json, Value};
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tuios_integration_tests::{
    dock, frame, poll, read_frame, require_tmux, wait_until, JsonConn, TestDaemon, TmuxClient,
    DEADLINE,
};

/// How many window frames start on the screen's first row of windows (the row under a dock at
/// the top, else the first row).
fn frames_side_by_side(screen: &str) -> usize {
    let row = match dock(screen) {
        Some((0, _)) => 1,
        _ => 0,
    };
    screen
        .lines()
        .nth(row)
        .map_or(0, |l| l.matches('╭').count())
}

/// Whether some window of the screen shows a line starting with `text` (right after its left
/// border, so the echoed command line, which starts with the prompt, does not count).
fn shows_line(screen: &str, text: &str) -> bool {
    screen.contains(&format!("│{text}"))
}

/// The screen without its dock row: the windows as drawn.
fn windows_part(screen: &str) -> Vec<&str> {
    let dock_row = dock(screen).map(|(i, _)| i);
    screen
        .lines()
        .enumerate()
        .filter(|(i, _)| Some(*i) != dock_row)
        .map(|(_, l)| l)
        .collect()
}

fn list_windows(conn: &mut JsonConn, session: &str) -> Vec<Value> {
    let list = conn.ok("list-windows", json!({ "session": session }));
    list["windows"]
        .as_array()
        .unwrap_or_else(|| panic!("list-windows without windows: {list}"))
        .clone()
}

fn focused_window(conn: &mut JsonConn, session: &str) -> Option<String> {
    list_windows(conn, session)
        .iter()
        .find(|w| w["focused"] == true)
        .and_then(|w| w["window_id"].as_str().map(str::to_string))
}

fn session_info(conn: &mut JsonConn, session: &str) -> Value {
    conn.ok("session-info", json!({ "session": session }))
}

/// Polls session-info until the session is `width`x`height`.
fn wait_session_size(conn: &mut JsonConn, session: &str, width: u64, height: u64) {
    let what = format!("session {session} to be {width}x{height}");
    poll(DEADLINE, &what, || {
        let last = session_info(conn, session);
        if last["width"] == width && last["height"] == height {
            Ok(())
        } else {
            Err(format!("session-info: {last}"))
        }
    });
}

/// Polls until `count` clients are attached to the session.
fn wait_clients(conn: &mut JsonConn, session: &str, count: u64) {
    wait_until(
        DEADLINE,
        &format!("{count} clients attached to {session}"),
        || (session_info(conn, session)["clients"] == count).then_some(()),
    );
}

#[test]
fn typed_command_output_shows_in_the_client_and_in_capture_pane() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("w");
    let client = TmuxClient::start(daemon.env(), &session, 100, 30);
    let screen = client.wait_mode("TERM");
    let (row, line) = dock(&screen).expect("dock drawn");
    assert_eq!(row, 29, "the dock is the bottom row by default:\n{screen}");
    assert!(
        line.starts_with(" w "),
        "the dock names the session: {line:?}"
    );
    assert!(
        screen.starts_with('╭'),
        "the window's frame starts at the top left:\n{screen}"
    );

    // The shell computes the marker, so only its output, not the echoed command, contains it.
    client.type_line("echo out-$((6*7))");
    let screen = client.wait_screen("the command's output", |s| shows_line(s, "out-42"));
    assert!(screen.contains("echo out-$((6*7))"), "{screen}");

    let mut conn = daemon.conn();
    let text = conn.wait_for_line(&session, &window, "out-42");
    assert!(text.contains("echo out-$((6*7))"), "{text}");

    // Leader, then Escape: back to window-management mode.
    client.leader("Escape");
    client.wait_mode("WM");
}

#[test]
fn split_focus_workspaces_and_detach_then_reattach_loses_nothing() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("w");
    let mut conn = daemon.conn();
    let client = TmuxClient::start(daemon.env(), &session, 100, 30);
    client.wait_mode("TERM");
    wait_clients(&mut conn, &session, 1);

    client.type_line("echo before-$((2+3))");
    client.wait_screen("the first window's output", |s| shows_line(s, "before-5"));
    conn.wait_for_line(&session, &first, "before-5");

    // Leader % (from terminal mode): a second window beside the first, focused.
    client.leader("%");
    let second = wait_until(DEADLINE, "a second, focused window", || {
        let windows = list_windows(&mut conn, &session);
        let focused = focused_window(&mut conn, &session)?;
        (windows.len() == 2 && focused != first).then_some(focused)
    });
    let screen = client.wait_screen("two windows side by side", |s| frames_side_by_side(s) == 2);
    assert!(shows_line(&screen, "before-5"), "{screen}");
    for w in list_windows(&mut conn, &session) {
        assert_eq!(w["workspace"], 1, "{w}");
    }

    // Leader + arrows move the focus by screen side.
    client.leader("Left");
    wait_until(DEADLINE, "focus on the left window", || {
        (focused_window(&mut conn, &session).as_deref() == Some(first.as_str())).then_some(())
    });
    client.leader("Right");
    wait_until(DEADLINE, "focus on the right window", || {
        (focused_window(&mut conn, &session).as_deref() == Some(second.as_str())).then_some(())
    });

    // Leader 2: workspace 2, empty; leader 1: back to both windows.
    client.leader("2");
    wait_until(DEADLINE, "workspace 2 current", || {
        let ws = conn.ok("list-workspaces", json!({ "session": session }));
        (ws["current_workspace"] == 2).then_some(())
    });
    client.wait_screen("no windows on workspace 2", |s| frames_side_by_side(s) == 0);
    client.leader("1");
    let workspaces = wait_until(DEADLINE, "workspace 1 current again", || {
        let ws = conn.ok("list-workspaces", json!({ "session": session }));
        (ws["current_workspace"] == 1).then_some(ws)
    });
    let one = &workspaces["workspaces"][0];
    assert_eq!(one["workspace"], 1, "{workspaces}");
    assert_eq!(one["window_count"], 2, "{workspaces}");
    assert_eq!(one["current"], true, "{workspaces}");
    client.wait_screen("both windows again", |s| frames_side_by_side(s) == 2);

    // Leader d: the client leaves, saying so, with status 0; the session stays.
    client.leader("d");
    let screen = client.wait_for("EXIT=");
    assert!(screen.contains("[detached from session w]"), "{screen}");
    assert!(screen.contains("EXIT=0"), "{screen}");
    wait_clients(&mut conn, &session, 0);
    drop(client);

    // Attach again: the same two windows, the earlier output still there.
    let ids = conn.window_ids(&session);
    assert_eq!(ids, [first.clone(), second.clone()]);
    let again = TmuxClient::start(daemon.env(), &session, 100, 30);
    again.wait_mode("TERM");
    let screen = again.wait_screen("the earlier output, re-attached", |s| {
        frames_side_by_side(s) == 2 && shows_line(s, "before-5")
    });
    assert!(screen.contains("echo before-$((2+3))"), "{screen}");
    let text = conn.capture(&session, &first, Value::Null);
    assert!(text.lines().any(|l| l.trim() == "before-5"), "{text}");
    assert_eq!(conn.window_ids(&session), ids);
}

#[test]
fn two_clients_show_the_same_session_and_see_each_others_typing() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("w");
    let mut conn = daemon.conn();
    let a = TmuxClient::start(daemon.env(), &session, 100, 30);
    let b = TmuxClient::start(daemon.env(), &session, 100, 30);
    a.wait_mode("TERM");
    b.wait_mode("TERM");
    wait_clients(&mut conn, &session, 2);

    // A split made in one client appears in both.
    a.leader("%");
    a.wait_screen("two windows in client A", |s| frames_side_by_side(s) == 2);
    b.wait_screen("two windows in client B", |s| frames_side_by_side(s) == 2);
    assert_eq!(conn.window_ids(&session).len(), 2);

    // Typed in A (into the focused, new window), shown by B.
    a.type_line("echo shared-$((3*3))");
    a.wait_screen("the output in client A", |s| shows_line(s, "shared-9"));
    let seen_by_b = b.wait_screen("the output in client B", |s| shows_line(s, "shared-9"));
    assert!(seen_by_b.contains("echo shared-$((3*3))"), "{seen_by_b}");

    // Same session, same size: the windows are drawn alike (the docks differ by mode).
    poll(
        DEADLINE,
        "the two clients to draw the windows alike",
        || {
            let (sa, sb) = (a.capture(), b.capture());
            if windows_part(&sa) == windows_part(&sb) {
                Ok(())
            } else {
                Err(format!("they differ:\nA:\n{sa}\nB:\n{sb}"))
            }
        },
    );
}

#[test]
fn resizing_the_terminal_resizes_the_session_and_the_smallest_client_wins() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("w");
    let mut conn = daemon.conn();
    let a = TmuxClient::start(daemon.env(), &session, 100, 30);
    a.wait_mode("TERM");
    wait_session_size(&mut conn, &session, 100, 30);

    a.resize(80, 24);
    wait_session_size(&mut conn, &session, 80, 24);
    a.wait_screen("the dock on the new bottom row", |s| {
        dock(s).is_some_and(|(row, _)| row == 23)
    });

    // A second, shorter client: the session takes the smaller size in each direction.
    let b = TmuxClient::start(daemon.env(), &session, 90, 20);
    b.wait_mode("TERM");
    wait_session_size(&mut conn, &session, 80, 20);
    // The larger terminal draws the session's size: its dock sits on the session's last row.
    a.wait_screen("client A drawing 20 rows", |s| {
        dock(s).is_some_and(|(row, _)| row == 19)
    });

    // B grows past A: A is the smaller again.
    b.resize(120, 40);
    wait_session_size(&mut conn, &session, 80, 24);
    a.resize(110, 35);
    wait_session_size(&mut conn, &session, 110, 35);
}

#[test]
fn set_option_moves_the_dock_live() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("w");
    let mut conn = daemon.conn();
    let client = TmuxClient::start(daemon.env(), &session, 100, 30);
    let screen = client.wait_mode("TERM");
    assert_eq!(dock(&screen).map(|(row, _)| row), Some(29), "{screen}");
    wait_clients(&mut conn, &session, 1);

    let result = conn.ok(
        "set-option",
        json!({ "session": session, "key": "appearance.dockbar_position", "value": "top" }),
    );
    assert_eq!(result["type"], "option_set", "{result}");
    assert_eq!(result["key"], "appearance.dockbar_position", "{result}");
    assert_eq!(result["value"], "top", "{result}");
    assert_eq!(result["applied"], true, "{result}");

    let screen = client.wait_screen("the dock on the top row", |s| {
        dock(s).is_some_and(|(row, _)| row == 0)
    });
    let last = screen.lines().nth(29).unwrap_or("");
    assert!(
        !last.ends_with(" TERM"),
        "the bottom row still shows a dock:\n{screen}"
    );
    // The window moved down under it.
    assert!(
        screen.lines().nth(1).is_some_and(|l| l.starts_with('╭')),
        "{screen}"
    );
}

#[test]
fn routed_verbs_work_with_a_client_and_need_one_without() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();

    // Headless: every routed verb says a client is needed.
    let (headless, _) = daemon.session_with_window("h");
    for (verb, params) in [
        (
            "split-window",
            json!({ "session": headless, "direction": "vertical" }),
        ),
        ("set-layout", json!({ "session": headless, "tiling": true })),
        (
            "focus-window",
            json!({ "session": headless, "direction": "left" }),
        ),
    ] {
        let error = conn.err_code(verb, params, "needs_client");
        assert!(
            error["hint"]["command"]
                .as_str()
                .is_some_and(|c| c.contains("tuios attach h")),
            "{verb}: {error}"
        );
    }
    assert_eq!(conn.window_ids(&headless).len(), 1);

    // Attached: the client carries them out.
    let (session, first) = daemon.session_with_window("w");
    let client = TmuxClient::start(daemon.env(), &session, 100, 30);
    client.wait_mode("TERM");
    wait_clients(&mut conn, &session, 1);

    let layout = conn.ok("set-layout", json!({ "session": session, "tiling": true }));
    assert_eq!(layout["type"], "layout", "{layout}");
    assert_eq!(layout["tiling_mode"], "tiling", "{layout}");

    let split = conn.ok(
        "split-window",
        json!({ "session": session, "direction": "vertical" }),
    );
    assert_eq!(split["type"], "window_split", "{split}");
    assert_eq!(split["direction"], "vertical", "{split}");
    let second = split["window_id"]
        .as_str()
        .filter(|id| !id.is_empty())
        .unwrap_or_else(|| panic!("window_split without a window_id: {split}"))
        .to_string();
    assert_eq!(conn.window_ids(&session), [first.clone(), second.clone()]);
    client.wait_screen("the split drawn", |s| frames_side_by_side(s) == 2);

    let layout = conn.ok(
        "set-layout",
        json!({ "session": session, "equalize": true }),
    );
    assert_eq!(layout["type"], "layout", "{layout}");
    assert_eq!(layout["tiling_mode"], "tiling", "{layout}");

    conn.ok(
        "focus-window",
        json!({ "session": session, "direction": "left" }),
    );
    assert_eq!(focused_window(&mut conn, &session), Some(first.clone()));
    conn.ok(
        "focus-window",
        json!({ "session": session, "direction": "right" }),
    );
    assert_eq!(focused_window(&mut conn, &session), Some(second));
}

// ----- a client that never answers ------------------------------------------------------------

const HELLO: u8 = 1;
const CLIENT_OP: u8 = 6;
const WELCOME: u8 = 64;
const DAEMON_OP: u8 = 69;

#[test]
fn a_client_that_never_answers_fails_routed_verbs_after_ten_seconds() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("w");
    let mut conn = daemon.conn();

    let mut stream = UnixStream::connect(daemon.socket()).expect("connect");
    stream
        .set_read_timeout(Some(DEADLINE))
        .expect("set_read_timeout");
    stream
        .write_all(&frame(
            HELLO,
            &json!({ "version": 1, "client_version": "attach-test" }),
        ))
        .expect("send hello");
    let (kind, _) = read_frame(&mut stream).expect("the daemon's welcome");
    assert_eq!(kind, WELCOME, "expected a welcome frame");
    stream
        .write_all(&frame(
            CLIENT_OP,
            &json!({
                "op": "attach", "session": session, "create": false,
                "width": 80, "height": 24, "max_fps": 0,
            }),
        ))
        .expect("send attach");
    let (kind, payload) = read_frame(&mut stream).expect("the daemon's answer to attach");
    assert_eq!(kind, DAEMON_OP, "attach was not answered with an operation");
    let op: Value = rmp_serde::from_slice(&payload).unwrap_or(Value::Null);
    assert_eq!(op["op"], "attached", "{op}");
    wait_clients(&mut conn, &session, 1);

    // Read (and never answer) whatever comes, so the daemon never blocks writing to us; report
    // the routed requests seen.
    let (seen_tx, seen_rx) = mpsc::channel();
    let mut reader = stream.try_clone().expect("clone stream");
    reader.set_read_timeout(None).expect("set_read_timeout");
    let drain = std::thread::spawn(move || {
        while let Ok((kind, payload)) = read_frame(&mut reader) {
            if kind != DAEMON_OP {
                continue;
            }
            if let Ok(op) = rmp_serde::from_slice::<Value>(&payload) {
                if op["op"] == "request" {
                    let _ = seen_tx.send(op);
                }
            }
        }
    });

    let started = Instant::now();
    let error = conn.err_code(
        "split-window",
        json!({ "session": session, "direction": "vertical" }),
        "command_failed",
    );
    let elapsed = started.elapsed();
    assert!(
        elapsed >= Duration::from_secs(9),
        "command_failed came after {elapsed:?}, before the 10 s limit: {error}"
    );
    assert!(
        elapsed < Duration::from_secs(20),
        "command_failed came after {elapsed:?}: {error}"
    );
    let request = seen_rx
        .recv_timeout(Duration::from_secs(1))
        .expect("the split was never routed to the client");
    assert_eq!(request["kind"]["kind"], "split", "{request}");
    assert_eq!(request["kind"]["direction"], "vertical", "{request}");

    // The daemon still serves, and the session has no window the split would have made.
    assert_eq!(conn.window_ids(&session).len(), 1);
    let _ = stream.shutdown(std::net::Shutdown::Both);
    drain.join().expect("the reader thread");
}

#[test]
fn the_first_attach_types_into_the_window_and_says_which_key_is_the_leader() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("w");
    let client = TmuxClient::start_first_time(daemon.env(), &session, 100, 30);
    let screen = client.wait_screen("the first-run line in the dock", |s| {
        dock(s).is_some_and(|(_, d)| d.contains("keys go to the program") && d.ends_with(" TERM"))
    });
    assert!(screen.contains("ctrl+b ? help"), "{screen}");
    // Typed straight into the shell: no key needed first.
    client.type_line("echo typed-$((5*5))");
    daemon.conn().wait_for_line(&session, &window, "typed-25");
    // The line is shown once: the next attach goes without it.
    let marker = daemon.dir().join("state/tuios/attach-hint-shown");
    assert!(marker.exists(), "the first attach leaves its marker");
}

#[test]
fn an_exited_window_follows_its_box_so_its_last_lines_stay_in_view() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let s = daemon.new_session("dead");
    let mut conn = daemon.conn();
    // The program ends before any client is attached: its screen is the session's 80x24.
    let w = conn.new_window_id(
        &s,
        json!({"command": ["sh", "-c", "seq 1 40; echo LAST-LINE"], "remain": true, "focus": true}),
    );
    conn.wait_for_line(&s, &w, "LAST-LINE");
    let waited = conn.ok(
        "wait-for",
        json!({"condition": "window-exit", "session": s, "window": w, "timeout": 20000}),
    );
    assert_eq!(waited["matched"], true, "{waited}");
    conn.close_windows_but(&s, &w);
    // Its box inside the client is smaller than 24 rows: the screen shrinks with it, from the
    // top, as a live window's would.
    let client = TmuxClient::start(daemon.env(), &s, 80, 24);
    let screen = client.wait_screen("the window's last line", |sc| shows_line(sc, "LAST-LINE"));
    assert!(shows_line(&screen, "40"), "{screen}");
    // The verb still says there is no PTY to resize.
    let err = conn.err(
        "resize",
        json!({"session": s, "window": w, "width": 60, "height": 10}),
    );
    assert_eq!(err["code"], "pty_not_found", "{err}");
}
