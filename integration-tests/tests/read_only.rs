//! Read-only attach (`tuios attach --read-only`), enforced by the daemon: two clients speak the
//! binary protocol on the real daemon's socket, one read-only and one read-write. The
//! read-only one's keys, pastes, commands and window sizes are refused; the other's work; its
//! small terminal never shrinks the session; session-info lists both.
//!
//! Nothing here measures time: a refusal is known to have happened when its notice arrives
//! (a connection's frames are handled in order), and every other wait is on a condition.

use serde_json::{json, Value};
use std::io::{ErrorKind, Write};
use std::os::unix::net::UnixStream;
use tuios_integration_tests::*;

const HELLO: u8 = 1;
const CLIENT_OP: u8 = 6;
const WELCOME: u8 = 64;
const DAEMON_OP: u8 = 69;

struct Peer {
    stream: UnixStream,
}

impl Peer {
    fn attach(socket: &std::path::Path, session: &str, size: (u16, u16), read_only: bool) -> Peer {
        let mut stream = UnixStream::connect(socket).expect("connect");
        stream
            .set_read_timeout(Some(DEADLINE))
            .expect("set_read_timeout");
        stream
            .write_all(&frame(
                HELLO,
                &json!({ "version": 1, "client_version": "read-only-test" }),
            ))
            .expect("send hello");
        let (kind, _) = read_frame(&mut stream).expect("the daemon's welcome");
        assert_eq!(kind, WELCOME, "expected a welcome frame");
        let mut peer = Peer { stream };
        peer.op(json!({
            "op": "attach", "session": session, "create": false,
            "width": size.0, "height": size.1, "read_only": read_only,
        }));
        peer.wait_op("attached");
        if read_only {
            peer.wait_notice("read-only");
        }
        peer
    }

    fn op(&mut self, op: Value) {
        self.stream
            .write_all(&frame(CLIENT_OP, &op))
            .unwrap_or_else(|e| panic!("send {op}: {e}"));
    }

    fn next_op(&mut self) -> Value {
        loop {
            match read_frame(&mut self.stream) {
                Ok((DAEMON_OP, payload)) => {
                    return rmp_serde::from_slice(&payload).expect("a MessagePack operation")
                }
                Ok(_) => {}
                Err(e) if e.kind() == ErrorKind::UnexpectedEof => panic!("the daemon hung up"),
                Err(e) => panic!("reading frames: {e}"),
            }
        }
    }

    fn wait_op(&mut self, name: &str) -> Value {
        loop {
            let op = self.next_op();
            assert_ne!(op["op"], "error", "{op}");
            if op["op"] == name {
                return op;
            }
        }
    }

    /// The next notice, which must mention `text`.
    fn wait_notice(&mut self, text: &str) {
        let op = self.wait_op("notice");
        let said = op["text"].as_str().unwrap_or_default();
        assert!(said.contains(text), "notice {op} does not say {text:?}");
    }
}

fn session_info(d: &TestDaemon, session: &str) -> Value {
    d.conn().ok("session-info", json!({ "session": session }))
}

#[test]
fn a_read_only_client_watches_and_cannot_act() {
    let d = TestDaemon::start();
    let (s, w) = d.session_with_window("ro");
    let mut conn = d.conn();
    let mut rw = Peer::attach(d.socket(), &s, (100, 30), false);
    let mut ro = Peer::attach(d.socket(), &s, (40, 10), true);

    // The read-only client's small terminal does not shrink the session; the other's sets it.
    let info = session_info(&d, &s);
    assert_eq!(
        (info["width"].as_u64(), info["height"].as_u64()),
        (Some(100), Some(30)),
        "{info}"
    );
    ro.op(json!({ "op": "resize", "width": 20, "height": 6 }));
    assert_eq!(info["clients"], 2, "{info}");
    let list = info["client_list"].as_array().expect("client_list");
    let mut flags: Vec<bool> = list.iter().map(|c| c["read_only"] == true).collect();
    flags.sort();
    assert_eq!(flags, vec![false, true], "{info}");
    for c in list {
        assert_eq!(c["kind"], "terminal", "{info}");
        assert!(
            c["peer"].as_str().unwrap_or_default().starts_with("uid="),
            "{info}"
        );
        assert!(c["since"].as_u64().unwrap_or(0) > 0, "{info}");
    }

    // Keys, a paste and a command from the read-only client: each refused, with a notice.
    ro.op(json!({ "op": "input", "window": w, "data": serde_bytes_of(b"ROKEYS") }));
    ro.wait_notice("read-only");
    ro.op(json!({ "op": "paste", "window": w, "data": serde_bytes_of(b"ROPASTE") }));
    ro.wait_notice("read-only");
    ro.op(json!({ "op": "command", "name": "NewWindow", "args": [] }));
    ro.wait_notice("read-only");
    // A window size is dropped quietly; the input after it proves it was handled.
    ro.op(json!({ "op": "window_size", "window": w, "cols": 20, "rows": 5 }));
    ro.op(json!({ "op": "input", "window": w, "data": serde_bytes_of(b"x") }));
    ro.wait_notice("read-only");

    // The read-write client can type, paste and resize.
    rw.op(json!({ "op": "input", "window": w, "data": serde_bytes_of(b"RWKEYS") }));
    rw.op(json!({ "op": "paste", "window": w, "data": serde_bytes_of(b"RWPASTE") }));
    let screen = wait_until(DEADLINE, "the read-write client's keys and paste", || {
        let text = conn.capture(&s, &w, json!({}));
        (text.contains("RWKEYS") && text.contains("RWPASTE")).then_some(text)
    });
    assert!(
        !screen.contains("ROKEYS"),
        "read-only keys reached the window:\n{screen}"
    );
    assert!(
        !screen.contains("ROPASTE"),
        "read-only paste reached the window:\n{screen}"
    );
    assert_eq!(
        conn.window_ids(&s).len(),
        1,
        "a read-only command opened a window"
    );
    rw.op(json!({ "op": "window_size", "window": w, "cols": 50, "rows": 20 }));
    wait_until(DEADLINE, "the read-write client's window size", || {
        let row = conn.window_row(&s, &w);
        (row["width"] == 50 && row["height"] == 20).then_some(())
    });

    // The read-only client's resize (sent above, before its refusals) still did not shrink it.
    let info = session_info(&d, &s);
    assert_eq!(
        (info["width"].as_u64(), info["height"].as_u64()),
        (Some(100), Some(30)),
        "{info}"
    );
}

/// MessagePack binary for a `serde_bytes` field.
fn serde_bytes_of(b: &[u8]) -> Value {
    Value::Array(b.iter().map(|&x| Value::from(x)).collect())
}

/// The real client: `tuios attach --read-only` in a tmux terminal shows the session, and what
/// is typed into it never reaches the window (the daemon's refusal shows in its chrome).
#[test]
fn tuios_attach_read_only_types_nothing() {
    require_tmux!();
    let d = TestDaemon::start();
    let (s, w) = d.session_with_window("tty");
    let mut conn = d.conn();
    // A returning user's client, as TmuxClient::start sets up (no first-attach hint).
    let marker = d.env().dir().join("state").join("tuios");
    std::fs::create_dir_all(&marker).expect("create the state directory");
    std::fs::write(marker.join("attach-hint-shown"), b"").expect("write the hint marker");
    let client = TmuxClient::start_tuios(d.env(), &["attach", "--read-only", &s], 100, 30);
    let screen = client.wait_mode("TERM");
    let (_, dock_line) = dock(&screen).expect("dock drawn");
    assert!(
        dock_line.contains("[read-only]"),
        "the dock does not say read-only: {dock_line:?}"
    );
    wait_until(DEADLINE, "the read-only client in session-info", || {
        let info = session_info(&d, &s);
        (info["client_list"][0]["read_only"] == true).then_some(())
    });

    client.type_line("echo ROTTY-$((2+3))");
    client.wait_screen("the refusal in the client's chrome", |s| {
        s.contains("input was refused")
    });
    // The same line sent by a verb runs: the window works, it just did not get the keys.
    conn.send_text(&s, &w, "echo RW-$((3+4))\r");
    conn.wait_for_line(&s, &w, "RW-7");
    let text = conn.capture(&s, &w, json!({}));
    assert!(
        !text.contains("ROTTY"),
        "read-only keys reached the window:\n{text}"
    );
}
