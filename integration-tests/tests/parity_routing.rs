//! Issue 20 items 4 and 5, and the window's custom name in the attached client's state, end to
//! end through the real daemon:
//! - list-windows reports where the attached client placed each window (outer box, border
//!   included), with Go's placeholder `0,0,session width,session height` until one has;
//! - send-keys holding the leader key goes through the attached client, so the leader acts;
//! - routed run-commands refuse bad arguments with `invalid_params` before routing;
//! - the session state a client draws from carries `custom_name` where Go's does.
//!
//! Real clients are `tuios attach` inside tmux; the exact geometry rules are also checked with
//! clients played over the binary protocol, which can report boxes of their choosing.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::sync::mpsc;

use serde_json::{json, Value};
use tuios_integration_tests::*;

// ----- a client played over the binary protocol ------------------------------------------------

const HELLO: u8 = 1;
const CLIENT_OP: u8 = 6;
const WELCOME: u8 = 64;
const DAEMON_OP: u8 = 69;

/// An attached client that answers nothing: it reports what it is told to, and a thread reads
/// (so the daemon never blocks writing) and passes on the session states it receives.
struct RawClient {
    stream: UnixStream,
    /// The state of the `attached` answer.
    attached: Value,
    states: mpsc::Receiver<Value>,
}

impl RawClient {
    fn attach(daemon: &TestDaemon, session: &str, width: u16, height: u16) -> RawClient {
        let mut stream = UnixStream::connect(daemon.socket()).expect("connect");
        stream.set_read_timeout(Some(DEADLINE)).expect("timeout");
        stream
            .write_all(&frame(
                HELLO,
                &json!({"version": 1, "client_version": "parity-routing-test"}),
            ))
            .expect("send hello");
        let (kind, _) = read_frame(&mut stream).expect("the daemon's welcome");
        assert_eq!(kind, WELCOME, "expected a welcome frame");
        let mut client = RawClient {
            stream,
            attached: Value::Null,
            states: mpsc::channel().1,
        };
        client.op(json!({
            "op": "attach", "session": session, "create": false,
            "width": width, "height": height, "max_fps": 0,
        }));
        let (kind, payload) = read_frame(&mut client.stream).expect("the answer to attach");
        assert_eq!(kind, DAEMON_OP, "attach was not answered with an operation");
        let op: Value = rmp_serde::from_slice(&payload).unwrap_or(Value::Null);
        assert_eq!(op["op"], "attached", "{op}");
        client.attached = op["state"].clone();
        let (tx, rx) = mpsc::channel();
        let mut reader = client.stream.try_clone().expect("clone stream");
        reader.set_read_timeout(None).expect("timeout");
        std::thread::spawn(move || {
            while let Ok((kind, payload)) = read_frame(&mut reader) {
                if kind != DAEMON_OP {
                    continue;
                }
                if let Ok(op) = rmp_serde::from_slice::<Value>(&payload) {
                    if op["op"] == "state" {
                        let _ = tx.send(op["state"].clone());
                    }
                }
            }
        });
        client.states = rx;
        client
    }

    fn op(&mut self, op: Value) {
        self.stream
            .write_all(&frame(CLIENT_OP, &op))
            .expect("send a client operation");
    }

    /// Reports boxes `(window, x, y, width, height)`.
    fn geometry(&mut self, boxes: &[(&str, u16, u16, u16, u16)]) {
        let boxes: Vec<Value> = boxes
            .iter()
            .map(|(w, x, y, width, height)| {
                json!({"window": w, "x": x, "y": y, "width": width, "height": height})
            })
            .collect();
        self.op(json!({"op": "geometry", "boxes": boxes}));
    }

    /// The next state pushed whose windows satisfy `pred`.
    fn wait_state(&self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        poll(DEADLINE, what, || {
            match self
                .states
                .recv_timeout(std::time::Duration::from_millis(200))
            {
                Ok(state) if pred(&state) => Ok(state),
                Ok(state) => Err(format!("last state: {state}")),
                Err(e) => Err(format!("no state: {e}")),
            }
        })
    }
}

impl Drop for RawClient {
    fn drop(&mut self) {
        // The reader thread holds a second descriptor: shut the socket itself down, so the
        // daemon sees the client leave.
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}

fn clients(conn: &mut JsonConn, session: &str) -> u64 {
    conn.ok("session-info", json!({"session": session}))["clients"]
        .as_u64()
        .unwrap_or(0)
}

fn wait_clients(conn: &mut JsonConn, session: &str, n: u64) {
    wait_until(DEADLINE, &format!("{n} clients attached"), || {
        (clients(conn, session) == n).then_some(())
    });
}

/// `(x, y, width, height)` of a window as list-windows reports it.
fn geometry(conn: &mut JsonConn, session: &str, window: &str) -> (i64, i64, i64, i64) {
    let row = conn.window_row(session, window);
    let n = |k: &str| {
        row[k]
            .as_i64()
            .unwrap_or_else(|| panic!("{k} is not an integer: {row}"))
    };
    (n("x"), n("y"), n("width"), n("height"))
}

fn wait_geometry(conn: &mut JsonConn, session: &str, window: &str, want: (i64, i64, i64, i64)) {
    poll(DEADLINE, &format!("window {window} at {want:?}"), || {
        let got = geometry(conn, session, window);
        if got == want {
            Ok(())
        } else {
            Err(format!("list-windows says {got:?}"))
        }
    });
}

fn session_size(conn: &mut JsonConn, session: &str) -> (i64, i64) {
    let info = conn.ok("session-info", json!({"session": session}));
    (
        info["width"].as_i64().unwrap(),
        info["height"].as_i64().unwrap(),
    )
}

#[test]
fn list_windows_reports_client_boxes_and_the_terminal_size_until_then() {
    let daemon = TestDaemon::start();
    let (s, a) = daemon.session_with_window("geo");
    let mut conn = daemon.conn();
    let b = conn.new_window_id(&s, json!({}));

    // Nobody placed anything: 0, 0 and the size of each window's terminal, which is the
    // session's until something resizes it. (Go reports the session area however the window
    // was resized; the terminal's size is what its program sees.)
    let (w, h) = session_size(&mut conn, &s);
    assert_eq!(geometry(&mut conn, &s, &a), (0, 0, w, h));
    assert_eq!(geometry(&mut conn, &s, &b), (0, 0, w, h));
    // The row keeps the keys the registry declares, in that order (replies.rs checks all).
    let row = conn.window_row(&s, &a);
    let keys: Vec<&String> = row.as_object().unwrap().keys().collect();
    for k in ["x", "y", "width", "height"] {
        assert!(keys.iter().any(|key| *key == k), "{row}");
    }

    // One client, 100x30: the session takes its size; a placed window reports its box.
    let mut one = RawClient::attach(&daemon, &s, 100, 30);
    wait_clients(&mut conn, &s, 1);
    assert_eq!(session_size(&mut conn, &s), (100, 30));
    one.geometry(&[(&a, 0, 0, 50, 29)]);
    wait_geometry(&mut conn, &s, &a, (0, 0, 50, 29));
    assert_eq!(
        geometry(&mut conn, &s, &b),
        (0, 0, w, h),
        "not placed yet: its terminal, which this client did not resize"
    );
    // Boxes of windows the session does not have are not kept.
    one.geometry(&[("no-such-window", 1, 1, 1, 1)]);

    // A second, smaller client: the session is its size, and its boxes are the ones reported.
    let mut two = RawClient::attach(&daemon, &s, 90, 20);
    wait_clients(&mut conn, &s, 2);
    assert_eq!(session_size(&mut conn, &s), (90, 20));
    two.geometry(&[(&a, 0, 0, 45, 19), (&b, 45, 0, 45, 19)]);
    wait_geometry(&mut conn, &s, &b, (45, 0, 45, 19));
    assert_eq!(geometry(&mut conn, &s, &a), (0, 0, 45, 19));

    // The larger client reports later; the session-sized client's boxes still win. A layout
    // push from the same connection, after the boxes, shows when both have been taken in.
    one.geometry(&[(&a, 1, 1, 10, 10)]);
    one.op(json!({"op": "layout", "layout": r#"{"workspaces":{"1":{"tiling":true}}}"#}));
    wait_until(DEADLINE, "the layout pushed after the boxes", || {
        let info = conn.ok("session-info", json!({"session": s}));
        (info["layout_mode"] == "bsp").then_some(())
    });
    assert_eq!(geometry(&mut conn, &s, &a), (0, 0, 45, 19));

    // The small client grows past the other: now the other is the session's size, and its box
    // for `a` is reported; `b`, which only the first client placed, keeps that box.
    two.op(json!({"op": "resize", "width": 120, "height": 40}));
    wait_geometry(&mut conn, &s, &a, (1, 1, 10, 10));
    assert_eq!(session_size(&mut conn, &s), (100, 30));
    assert_eq!(geometry(&mut conn, &s, &b), (45, 0, 45, 19));

    // Clients gone: their boxes go with them, and the terminal's size is back.
    drop(two);
    wait_clients(&mut conn, &s, 1);
    assert_eq!(geometry(&mut conn, &s, &b), (0, 0, w, h));
    drop(one);
    wait_clients(&mut conn, &s, 0);
    assert_eq!(geometry(&mut conn, &s, &a), (0, 0, w, h));
}

/// The character at column `x` (in cells; the frames are single-width) of line `y`.
fn cell(screen: &str, x: i64, y: i64) -> Option<char> {
    screen.lines().nth(y as usize)?.chars().nth(x as usize)
}

/// Whether the screen draws a rounded frame with exactly this outer box.
fn frame_at(screen: &str, (x, y, w, h): (i64, i64, i64, i64)) -> bool {
    w > 1
        && h > 1
        && cell(screen, x, y) == Some('╭')
        && cell(screen, x + w - 1, y) == Some('╮')
        && cell(screen, x, y + h - 1) == Some('╰')
        && cell(screen, x + w - 1, y + h - 1) == Some('╯')
}

#[test]
fn a_real_client_reports_the_boxes_it_draws() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, a) = daemon.session_with_window("drawn");
    let mut conn = daemon.conn();
    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    client.wait_mode("TERM");
    wait_clients(&mut conn, &s, 1);

    // One window: its box is where the client draws its frame.
    poll(DEADLINE, "list-windows giving the frame's box", || {
        let g = geometry(&mut conn, &s, &a);
        let screen = client.capture();
        if g != (0, 0, 100, 30) && frame_at(&screen, g) {
            Ok(())
        } else {
            Err(format!(
                "list-windows says {g:?}; the client shows:\n{screen}"
            ))
        }
    });

    // Split: two boxes side by side, each where its frame is drawn.
    let split = conn.ok(
        "split-window",
        json!({"session": s, "direction": "vertical"}),
    );
    let b = split["window_id"].as_str().unwrap().to_string();
    poll(DEADLINE, "two boxes side by side, as drawn", || {
        let (ga, gb) = (geometry(&mut conn, &s, &a), geometry(&mut conn, &s, &b));
        let screen = client.capture();
        let side_by_side = ga.1 == gb.1 && ga.0 + ga.2 <= gb.0;
        if side_by_side && frame_at(&screen, ga) && frame_at(&screen, gb) {
            Ok(())
        } else {
            Err(format!("{ga:?} and {gb:?}; the client shows:\n{screen}"))
        }
    });
    drop(client);
    wait_clients(&mut conn, &s, 0);
    // Placed by nobody now: the window reports its terminal's own size, the one the client's
    // split last gave its PTY, as the program in it sees it.
    conn.send_text(&s, &a, "echo SIZE-$(stty size | tr ' ' x)-END\n");
    let (rows, cols) = conn.wait_for_capture(&s, &a, "the terminal's size", DEADLINE, |c| {
        // The echoed command line holds `SIZE-$(`, so only the printed answer parses.
        c.split("SIZE-").skip(1).find_map(|rest| {
            let (size, _) = rest.split_once("-END")?;
            let (rows, cols) = size.split_once('x')?;
            Some((rows.parse::<i64>().ok()?, cols.parse::<i64>().ok()?))
        })
    });
    assert_eq!(geometry(&mut conn, &s, &a), (0, 0, cols, rows));
}

// ----- send-keys through the client ------------------------------------------------------------

fn focused(conn: &mut JsonConn, session: &str) -> String {
    conn.ok("list-windows", json!({"session": session}))["focused_window_id"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn wait_focused(conn: &mut JsonConn, session: &str, window: &str) {
    poll(DEADLINE, &format!("window {window} focused"), || {
        let f = focused(conn, session);
        if f == window {
            Ok(())
        } else {
            Err(format!("focused: {f}"))
        }
    });
}

#[test]
fn send_keys_with_the_leader_goes_through_the_client() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, first) = daemon.session_with_window("lead");
    let mut conn = daemon.conn();
    let second = conn.new_window_id(&s, json!({}));
    assert_eq!(focused(&mut conn, &s), second);

    // Headless, PREFIX means nothing and is refused as before.
    let e = conn.err_code(
        "send-keys",
        json!({"session": s, "keys": "PREFIX n"}),
        "invalid_params",
    );
    assert_eq!(e["hint"]["param"], "keys", "{e}");

    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    client.wait_mode("TERM");
    wait_clients(&mut conn, &s, 1);

    // The spec's own example: the leader, then n, moves to the next window.
    conn.send_keys(&s, "", "ctrl+b,n");
    wait_focused(&mut conn, &s, &first);
    // tmux's spelling of the same key, and PREFIX, act the same way.
    conn.send_keys(&s, "", "C-b n");
    wait_focused(&mut conn, &s, &second);
    conn.send_keys(&s, "", "PREFIX,n");
    wait_focused(&mut conn, &s, &first);
    // The leader alone waits for its key, which the next send-keys gives, as a user's next
    // key would; the client shows it waiting meanwhile.
    conn.send_keys(&s, "", "ctrl+b");
    client.wait_screen("the dock waiting for the leader's key", |sc| {
        dock(sc).is_some_and(|(_, line)| line.ends_with(" LEADER"))
    });
    conn.send_keys(&s, "", "n");
    wait_focused(&mut conn, &s, &second);
    client.wait_mode("TERM");
    conn.send_keys(&s, "", "ctrl+b,p");
    wait_focused(&mut conn, &s, &first);

    // A bad token next to the leader is refused before anything is routed, as headless.
    let e = conn.err_code(
        "send-keys",
        json!({"session": s, "keys": "ctrl+b,ctrl+1"}),
        "invalid_params",
    );
    assert_eq!(e["hint"]["param"], "keys", "{e}");
    let e = conn.err_code(
        "send-keys",
        json!({"session": s, "window": "no-such-window", "keys": "ctrl+b,n"}),
        "window_not_found",
    );
    assert_eq!(e["hint"]["param"], "window", "{e}");
    assert_eq!(focused(&mut conn, &s), first);

    // Keys without the leader (and with no leader waiting) still go straight to the PTY, named
    // keys included.
    conn.send_keys(&s, &second, "echo,Space,plain-$((6*7)),Enter");
    conn.wait_for_line(&s, &second, "plain-42");
    assert_eq!(focused(&mut conn, &s), first, "typing moved no focus");
    drop(client);
}

// ----- routed run-command arguments ------------------------------------------------------------

#[test]
fn routed_run_command_arguments_are_refused_before_routing() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("args");
    let mut conn = daemon.conn();
    let bad: &[(&str, &[&str])] = &[
        ("Split", &["diagonal"]),
        ("FocusDirection", &["sideways"]),
        ("Preselect", &["middle"]),
        ("Enter", &["0"]),
        ("Up", &["many"]),
        ("KeyCombo", &["hyper+x"]),
        ("Type", &[""]),
        ("ShowNotification", &["hi", "loud"]),
        ("SetDockbarPosition", &["left"]),
        ("SetBorderStyle", &["wavy"]),
        ("SetTheme", &["no_such_theme_zz"]),
        ("SetConfig", &["appearance.no_such_option", "1"]),
        ("SetConfig", &["appearance.border_style", "wavy"]),
    ];
    let check = |conn: &mut JsonConn, attached: bool| {
        for (command, args) in bad {
            let e = conn.err_code(
                "run-command",
                json!({"session": s, "command": command, "args": args}),
                "invalid_params",
            );
            assert_eq!(e["hint"]["param"], "args", "{command} {args:?}: {e}");
            assert!(
                e["message"].as_str().unwrap().contains(command),
                "the message names the command: {e}"
            );
            assert!(
                e["hint"]["detail"].is_string()
                    || e["hint"]["accepted"].is_array()
                    || e["hint"]["did_you_mean"].is_string(),
                "{command} {args:?} (attached: {attached}): the hint says what would do: {e}"
            );
        }
    };
    // Headless: invalid_params, not needs_client.
    check(&mut conn, false);

    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    client.wait_mode("TERM");
    wait_clients(&mut conn, &s, 1);
    // Attached: invalid_params, not command_failed from the client.
    check(&mut conn, true);
    let e = conn.err_code(
        "run-command",
        json!({"session": s, "command": "FocusDirection", "args": ["lfet"]}),
        "invalid_params",
    );
    assert_eq!(e["hint"]["did_you_mean"], "left", "{e}");
    let e = conn.err_code(
        "run-command",
        json!({"session": s, "command": "SetTheme", "args": ["draculaa"]}),
        "invalid_params",
    );
    assert_eq!(e["hint"]["verb"], "list-themes", "{e}");

    // Good arguments still reach the client.
    let r = conn.ok(
        "run-command",
        json!({"session": s, "command": "SetDockbarPosition", "args": ["top"]}),
    );
    assert_eq!(r["routed"], true, "{r}");
    let r = conn.ok(
        "run-command",
        json!({"session": s, "command": "ShowNotification", "args": ["routed fine", "success"]}),
    );
    assert_eq!(r["routed"], true, "{r}");
    client.wait_for("routed fine");
    drop(client);
}

// ----- custom_name in the client's state -------------------------------------------------------

fn window_in<'a>(state: &'a Value, id: &str) -> &'a Value {
    state["windows"]
        .as_array()
        .and_then(|ws| ws.iter().find(|w| w["id"] == id))
        .unwrap_or_else(|| panic!("window {id} is not in the state: {state}"))
}

#[test]
fn the_clients_state_carries_custom_name_where_go_does() {
    let daemon = TestDaemon::start();
    let (s, unnamed) = daemon.session_with_window("names");
    let mut conn = daemon.conn();
    let named = conn.new_window_id(&s, json!({"name": "logs"}));

    let mut client = RawClient::attach(&daemon, &s, 80, 24);
    let state = client.attached.clone();
    assert_eq!(window_in(&state, &named)["custom_name"], "logs", "{state}");
    assert!(
        window_in(&state, &unnamed).get("custom_name").is_none(),
        "absent when unset, as Go's omitempty: {state}"
    );

    // A rename reaches the client's state; clearing it removes the key again.
    conn.ok(
        "set-window",
        json!({"session": s, "window": unnamed, "name": "build"}),
    );
    client.wait_state("the rename in the state", |st| {
        window_in(st, &unnamed)["custom_name"] == "build"
    });
    conn.ok(
        "set-window",
        json!({"session": s, "window": named, "name": ""}),
    );
    let st = client.wait_state("the cleared name", |st| {
        window_in(st, &named).get("custom_name").is_none()
    });
    // The display name falls back to the title, which is no custom name.
    assert!(window_in(&st, &named)["display_name"].is_string(), "{st}");
    client.op(json!({"op": "detach"}));
}

#[test]
fn a_session_rename_and_accent_reach_attached_clients_at_once() {
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("labels");
    let mut conn = daemon.conn();
    let mut client = RawClient::attach(&daemon, &s, 80, 24);
    conn.ok(
        "set-session-name",
        json!({"session": s, "name": "Release build"}),
    );
    client.wait_state("the display name in the state", |st| {
        st["display_name"] == "Release build"
    });
    conn.ok(
        "set-session-accent",
        json!({"session": s, "accent": "#A0B1C2"}),
    );
    client.wait_state("the accent in the state", |st| st["accent"] == "#A0B1C2");
    client.op(json!({"op": "detach"}));
}
