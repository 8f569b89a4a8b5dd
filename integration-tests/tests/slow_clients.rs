//! Clients that stop reading, against the overflow policies of ARCHITECTURE.md's queue table,
//! on the real daemon with the binary protocol spoken on the socket itself:
//!
//! * screen frames for a peer: 64 queued (plus one a window began writing); when full the
//!   window skips frames and sends the rows still changed later. A stalled viewer costs that
//!   bounded queue, is not dropped, and catches up with the latest screen once it reads again;
//!   the other viewer of the same window keeps getting frames, and JSON clients answers.
//! * control frames for a peer: 512 frames, 32 MiB; a peer that stops reading its replies is
//!   disconnected (not buffered), and the others keep working.
//!
//! (A JSON subscriber that stops reading gets one `gap`: tests/events.rs,
//! `slow_subscriber_gets_a_gap_and_the_daemon_stays_small`.)
//!
//! Nothing here measures time: every wait is on a condition with a deadline.

use serde_json::{json, Value};
use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tuios_integration_tests::*;

const HELLO: u8 = 1;
const CLIENT_OP: u8 = 6;
const WELCOME: u8 = 64;
const DAEMON_OP: u8 = 69;

/// Screen frames queued for one peer (`SCREEN_QUEUE` in actors/src/binary_connection).
const SCREEN_QUEUE: usize = 64;
/// Bytes of control frames queued for one peer before it is dropped (`CONTROL_BYTES`).
const CONTROL_BYTES: u64 = 32 << 20;

/// A longer deadline for waits that need a flood to have gone on for a while on a loaded
/// machine; a correct daemon meets them far sooner.
const FLOOD_DEADLINE: Duration = Duration::from_secs(120);

/// An attached binary-protocol client on its own socket.
struct Peer {
    stream: UnixStream,
}

impl Peer {
    /// Hello, then attach to `session` at `width`x`height` asking for `fps` frames a second.
    fn attach(socket: &std::path::Path, session: &str, fps: u16) -> Peer {
        let mut stream = UnixStream::connect(socket).expect("connect");
        stream
            .set_read_timeout(Some(DEADLINE))
            .expect("set_read_timeout");
        let mut peer = Peer {
            stream: stream.try_clone().expect("clone"),
        };
        stream
            .write_all(&frame(
                HELLO,
                &json!({ "version": 1, "client_version": "slow-clients-test" }),
            ))
            .expect("send hello");
        let (kind, _) = read_frame(&mut stream).expect("the daemon's welcome");
        assert_eq!(kind, WELCOME, "expected a welcome frame");
        peer.op(json!({
            "op": "attach", "session": session, "create": false,
            "width": 100, "height": 30, "max_fps": fps,
        }));
        loop {
            let op = peer.next_op().expect("the answer to attach");
            if op["op"] == "attached" {
                return peer;
            }
            assert_ne!(op["op"], "error", "{op}");
        }
    }

    /// Send a client operation.
    fn op(&mut self, op: Value) {
        self.stream
            .write_all(&frame(CLIENT_OP, &op))
            .unwrap_or_else(|e| panic!("send {op}: {e}"));
    }

    /// The next daemon operation (other frames skipped); None at the end of the stream.
    fn next_op(&mut self) -> Option<Value> {
        next_op(&mut self.stream).map(|(op, _)| op)
    }

    /// Bytes waiting in our receive queue, unread (FIONREAD).
    fn unread(&self) -> usize {
        let mut n: libc::c_int = 0;
        // SAFETY: FIONREAD writes one int to the pointer we pass; the descriptor is ours.
        let r = unsafe { libc::ioctl(self.stream.as_raw_fd(), libc::FIONREAD, &mut n) };
        assert_eq!(r, 0, "FIONREAD: {}", std::io::Error::last_os_error());
        n as usize
    }
}

/// The next daemon operation and the bytes its frame took; None at the end of the stream.
fn next_op(stream: &mut UnixStream) -> Option<(Value, usize)> {
    loop {
        match read_frame(stream) {
            Ok((DAEMON_OP, payload)) => {
                let op: Value = rmp_serde::from_slice(&payload).expect("a MessagePack operation");
                return Some((op, payload.len() + 5));
            }
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::UnexpectedEof | ErrorKind::ConnectionReset
                ) =>
            {
                return None
            }
            Err(e) => panic!("reading frames: {e}"),
        }
    }
}

/// A window's screen as a client rebuilds it from `screen` operations.
#[derive(Default, Clone)]
struct Screen {
    rows: Vec<String>,
}

impl Screen {
    fn apply(&mut self, op: &Value) {
        if op["full"] == true {
            let rows = op["rows"].as_u64().expect("rows") as usize;
            self.rows = vec![String::new(); rows];
        }
        for line in op["lines"].as_array().expect("lines") {
            let i = line[0].as_u64().expect("row index") as usize;
            let text: String = line[1]["runs"]
                .as_array()
                .expect("runs")
                .iter()
                .map(|r| r["text"].as_str().unwrap_or_default())
                .collect();
            if let Some(row) = self.rows.get_mut(i) {
                *row = text.trim_end().to_string();
            }
        }
    }

    fn shows(&self, needle: &str) -> bool {
        self.rows.iter().any(|r| r.contains(needle))
    }
}

/// What a reading peer has seen of one window: screen frames counted, the screen rebuilt.
#[derive(Default)]
struct Seen {
    frames: u64,
    screen: Screen,
}

/// Reads `peer` on a thread until its stream ends, keeping count of `window`'s frames.
fn keep_reading(peer: &Peer, window: &str) -> Arc<Mutex<Seen>> {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let mut stream = peer.stream.try_clone().expect("clone");
    stream.set_read_timeout(None).expect("set_read_timeout");
    let (window, shared) = (window.to_string(), seen.clone());
    std::thread::spawn(move || {
        while let Some((op, _)) = next_op(&mut stream) {
            if op["op"] == "screen" && op["window"] == window.as_str() {
                let mut s = shared.lock().unwrap();
                s.frames += 1;
                s.screen.apply(&op);
            }
        }
    });
    seen
}

/// The number of clients session-info reports.
fn clients(conn: &mut JsonConn, session: &str) -> u64 {
    conn.ok("session-info", json!({ "session": session }))["clients"]
        .as_u64()
        .expect("clients")
}

/// The JSON side answers while a client is stalled: a marker typed into `window` is matched by
/// a real `wait-for`, and capture-pane shows it.
fn json_client_is_served(conn: &mut JsonConn, session: &str, window: &str, n: u32) {
    let marker = format!("served-{}", n * 7);
    conn.send_text(session, window, &format!("echo served-$(({n}*7))\n"));
    let r = conn.ok(
        "wait-for",
        json!({"condition": "window-output", "session": session, "window": window,
               "pattern": marker, "timeout": 60_000}),
    );
    assert_eq!(r["matched"], true, "{r}");
    conn.wait_for_text(session, window, &marker);
}

/// A window that floods until `stop` exists, then prints `flood-42-over` and waits.
fn flood_command(stop: &std::path::Path) -> Value {
    let script = format!(
        "l=$(printf '%0150d' 0); i=0; while [ ! -e {} ]; do i=$((i+1)); echo \"$i $l\"; done; \
         echo flood-$((40+2))-over; exec cat",
        sh_quote(stop.to_str().expect("UTF-8 path"))
    );
    json!(["/bin/sh", "-c", script])
}

#[test]
fn a_stalled_viewer_skips_frames_while_the_others_keep_theirs() {
    let daemon = TestDaemon::start();
    let (session, quiet) = daemon.session_with_window("slow");
    let mut conn = daemon.conn();
    let stop = daemon.dir().join("stop-flood");
    let flood = conn.new_window_id(&session, json!({"command": flood_command(&stop)}));

    // Both show the flooding window, at up to 240 frames a second.
    let mut stalled = Peer::attach(daemon.socket(), &session, 240);
    let mut reading = Peer::attach(daemon.socket(), &session, 240);
    for p in [&mut stalled, &mut reading] {
        p.op(json!({"op": "view", "windows": [flood.as_str()]}));
    }
    let seen = keep_reading(&reading, &flood);
    // The stalled one reads up to its first frame of the window, then nothing more.
    let mut stalled_screen = Screen::default();
    loop {
        let op = stalled.next_op().expect("the stalled viewer's first frame");
        if op["op"] == "screen" && op["window"] == flood.as_str() {
            stalled_screen.apply(&op);
            break;
        }
    }
    let at_stall = seen.lock().unwrap().frames;

    // The reading viewer gets many more frames than the stalled one could hold in its socket
    // and its queue: the window went on sending to it.
    const MANY: u64 = 400;
    wait_until(
        FLOOD_DEADLINE,
        "the reading viewer to get many frames",
        || (seen.lock().unwrap().frames >= at_stall + MANY).then_some(()),
    );
    // Meanwhile JSON clients are served, and the stalled viewer is still a client: the policy
    // for screen frames is to skip them, not to drop the viewer.
    json_client_is_served(&mut conn, &session, &quiet, 6);
    assert_eq!(clients(&mut conn, &session), 2);
    let during = seen.lock().unwrap().frames - at_stall;

    // Stop the flood; the reading viewer shows its end.
    std::fs::write(&stop, b"").expect("create the stop file");
    conn.wait_for_text(&session, &flood, "flood-42-over");
    wait_until(
        DEADLINE,
        "the reading viewer to show the flood's end",
        || {
            seen.lock()
                .unwrap()
                .screen
                .shows("flood-42-over")
                .then_some(())
        },
    );
    json_client_is_served(&mut conn, &session, &quiet, 7);
    assert_eq!(
        clients(&mut conn, &session),
        2,
        "the stalled viewer was dropped"
    );

    // The stalled viewer reads again: what its socket held, then at most the queue's worth,
    // then the rows still changed, which bring it to the latest screen.
    let held = stalled.unread();
    let (mut bytes, mut in_socket, mut after) = (0usize, 0u64, 0u64);
    while !stalled_screen.shows("flood-42-over") {
        let (op, len) = next_op(&mut stalled.stream).expect("the stalled viewer's stream ended");
        bytes += len;
        if op["op"] != "screen" || op["window"] != flood.as_str() {
            continue;
        }
        stalled_screen.apply(&op);
        if bytes <= held {
            in_socket += 1;
        } else {
            after += 1;
        }
    }
    // Past its socket: the queue, the frame being written and a window's half-written one, the
    // frame that straddled the socket's end, and the catch-up.
    assert!(
        after <= SCREEN_QUEUE as u64 + 8,
        "{after} frames came after the {in_socket} its socket held ({held} bytes): \
         more than the {SCREEN_QUEUE}-frame queue"
    );
    assert!(
        in_socket + after < during,
        "the stalled viewer got {} frames, the reading one {during}: nothing was skipped",
        in_socket + after
    );
    let reading_screen = seen.lock().unwrap().screen.clone();
    assert_eq!(
        stalled_screen.rows, reading_screen.rows,
        "the stalled viewer caught up with a different screen"
    );
    let _ = stalled.stream.shutdown(std::net::Shutdown::Both);
    let _ = reading.stream.shutdown(std::net::Shutdown::Both);
}

#[test]
fn a_peer_that_stops_reading_its_replies_is_disconnected_and_the_others_carry_on() {
    let daemon = TestDaemon::start();
    let (session, quiet) = daemon.session_with_window("replies");
    let mut conn = daemon.conn();
    // 2,500 rows of 79 characters: one copy-mode request for a page of 2,000 rows (the most
    // one may ask) is answered with a few hundred kilobytes.
    let fill = "l=$(printf '%079d' 0); i=0; while [ $i -lt 2500 ]; do echo \"$l\"; i=$((i+1)); \
                done; echo filled-$((40+2)); exec cat";
    let big = conn.new_window_id(&session, json!({"command": ["/bin/sh", "-c", fill]}));
    conn.wait_for_text(&session, &big, "filled-42");

    let mut reading = Peer::attach(daemon.socket(), &session, 0);
    reading.op(json!({"op": "view", "windows": [quiet.as_str()]}));
    let seen = keep_reading(&reading, &quiet);
    let mut stalled = Peer::attach(daemon.socket(), &session, 0);
    assert_eq!(clients(&mut conn, &session), 2);

    // Ask for the whole scrollback again and again and read nothing. Fewer requests than the
    // 512-frame bound: only the 32 MiB one can stop it.
    const REQUESTS: usize = 400;
    for _ in 0..REQUESTS {
        let request = frame(
            CLIENT_OP,
            &json!({"op": "scrollback", "window": big, "before": null, "count": 2_000}),
        );
        if stalled.stream.write_all(&request).is_err() {
            // Dropped already: the daemon closed its side.
            break;
        }
    }
    poll(
        DEADLINE,
        "the stalled peer to be disconnected",
        || match clients(&mut conn, &session) {
            1 => Ok(()),
            n => Err(format!("{n} clients")),
        },
    );
    let log = daemon.stderr_log();
    let queued: u64 = log
        .lines()
        .find(|l| l.contains("not reading its frames"))
        .and_then(|l| l.split("queued=").nth(1))
        .and_then(|v| v.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("the daemon did not log the disconnect with its bytes:\n{log}"));
    assert!(
        queued > CONTROL_BYTES,
        "dropped with {queued} bytes queued, within the {CONTROL_BYTES}-byte bound"
    );

    // What it gets now is what its socket held, then the end: nothing queued was written.
    let mut stream = stalled.stream.try_clone().expect("clone");
    stream
        .set_read_timeout(Some(DEADLINE))
        .expect("set_read_timeout");
    let mut total = 0u64;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => total += n as u64,
            Err(e) if e.kind() == ErrorKind::ConnectionReset => break,
            Err(e) => panic!("reading what the dropped peer was sent: {e}"),
        }
    }
    assert!(
        total < CONTROL_BYTES,
        "the dropped peer was still sent {total} bytes"
    );

    // The others carry on: the reading viewer sees new output, JSON clients are answered.
    conn.send_text(&session, &quiet, "echo after-$((6*7))\n");
    wait_until(DEADLINE, "the reading viewer to show new output", || {
        seen.lock().unwrap().screen.shows("after-42").then_some(())
    });
    json_client_is_served(&mut conn, &session, &quiet, 8);
    let _ = reading.stream.shutdown(std::net::Shutdown::Both);
}
