//! `tuios web` with a page that does not behave: bytes sent straight over the WebSocket, not
//! through the page's own paste cleaning, and a browser that stops reading.
//!
//! * A paste holding the bracketed-paste end marker (and other controls) reaches the program
//!   only as the Lumen rules deliver it: one bracket pair, nothing that could end it early.
//! * A browser that stops reading holds back its own attach only (the bridge's 32-frame
//!   channel blocks that attach's writes; the daemon then skips frames for it): another browser
//!   on the same session keeps getting output, JSON clients are answered, and the stalled one
//!   is still attached and catches up with the latest screen once it reads again.

use serde_json::json;
use std::io::Write;
use std::time::Duration;
use tuios_integration_tests::web::{
    connect_with_small_buffer, open_ws, upgrade, ws_frame, ws_read, Web,
};
use tuios_integration_tests::*;

/// Bracketed paste on (DECSET 2004), raw input, every byte shown by `cat -v`; `READY` marks
/// the start of what the program received.
const BRACKETED_CAT: &str =
    r"printf '\033[?2004h'; stty raw -echo opost; printf READY; exec cat -v";

const START: &[u8] = b"\x1b[200~";
const END: &[u8] = b"\x1b[201~";

/// How `cat -v` shows `bytes` (LF and TAB as themselves, other controls `^X`, DEL `^?`, bytes
/// from 0x80 as `M-` and the rest).
fn cat_v(bytes: &[u8]) -> String {
    let mut s = String::new();
    for &b in bytes {
        let (meta, c) = if b >= 0x80 {
            (true, b - 0x80)
        } else {
            (false, b)
        };
        if meta {
            s.push_str("M-");
        }
        match c {
            b'\n' | b'\t' if !meta => s.push(char::from(c)),
            0..=0x1f => {
                s.push('^');
                s.push(char::from(c + 0x40));
            }
            0x7f => s.push_str("^?"),
            _ => s.push(char::from(c)),
        }
    }
    s
}

/// What the program has received (after `READY`), line ends trimmed.
fn received(conn: &mut JsonConn, session: &str, window: &str) -> String {
    let capture = conn.capture(session, window, json!({"source": "recent"}));
    let after = capture.split_once("READY").map_or("", |(_, rest)| rest);
    let lines: Vec<&str> = after.lines().map(str::trim_end).collect();
    lines.join("\n").trim_end().to_string()
}

/// Polls until the program has received something ending with `tag`; returns all of it.
fn received_through(conn: &mut JsonConn, session: &str, window: &str, tag: &str) -> String {
    poll(DEADLINE, &format!("the program to receive {tag:?}"), || {
        let got = received(conn, session, window);
        if got.ends_with(tag) {
            Ok(got)
        } else {
            Err(format!("received {got:?}"))
        }
    })
}

fn attached_clients(conn: &mut JsonConn, session: &str) -> u64 {
    conn.ok("session-info", json!({ "session": session }))["clients"]
        .as_u64()
        .expect("clients")
}

#[test]
fn a_raw_paste_over_the_websocket_never_reaches_the_program_unsanitised() {
    let daemon = TestDaemon::start();
    let (session, shell) = daemon.session_with_window("webpaste");
    let mut conn = daemon.conn();
    let w = conn.new_window_id(
        &session,
        json!({"name": "cat", "command": ["/bin/sh", "-c", BRACKETED_CAT]}),
    );
    conn.wait_for_text(&session, &w, "READY");
    conn.ok("close-window", json!({"session": session, "window": shell}));
    let web = Web::start(daemon.env(), &[]);
    let cookie = web.sign_in();
    let (mut page, _output) = open_ws(
        &web,
        &cookie,
        &format!("session={session}&cols=100&rows=30"),
    );
    poll(DEADLINE, "the page to attach", || {
        match attached_clients(&mut conn, &session) {
            1 => Ok(()),
            n => Err(format!("{n} clients")),
        }
    });
    let mut send = |bytes: &[u8]| {
        page.write_all(&ws_frame(0x2, bytes))
            .expect("send to the page's socket");
    };

    // The classic: the paste closes the bracket early and goes on. The attach client's terminal
    // parser ends the paste at the first marker, so the rest arrives as typed keys (which no
    // terminal can tell from typing), and the page's own closing marker is left over. The
    // program must see exactly one bracket pair, with no escape inside, and nothing for the
    // left-over marker. A tag typed after it over the same socket proves everything before it
    // arrived.
    let mut paste = START.to_vec();
    paste.extend_from_slice(b"echo safe\x1b[201~; touch x");
    paste.extend_from_slice(END);
    send(&paste);
    send(b"#1");
    let got = received_through(&mut conn, &session, &w, "#1");
    let delivered = paste_check(daemon.env(), b"echo safe", true);
    assert_eq!(delivered["action"], "send", "{delivered}");
    let wrapped = cat_v(&unescape(delivered["bytes"].as_str().expect("bytes")));
    assert_eq!(wrapped, "^[[200~echo safe^[[201~");
    assert_eq!(got.replace('\n', ""), format!("{wrapped}; touch x#1"));
    let mut seen = got;

    // Markers and controls that reach the client inside the paste: the 8-bit spelling of the
    // end marker (C1 CSI), a broken-up ESC spelling, OSC 52, C0 and DEL, a lone C1, line ends.
    // The daemon strips them: the program gets what paste-check says, in one bracket pair.
    let payloads: [&[u8]; 4] = [
        "echo safe\u{9b}201~; touch y".as_bytes(),
        b"echo safe\x1b[201\x1b~\x03\x7f; touch z",
        b"a\x1b]52;c;cHduZWQ=\x07b\x08\x07c\x1b[31md",
        "one\u{85}two\r\nthree\u{9d}four\u{9c}".as_bytes(),
    ];
    for (i, payload) in payloads.iter().enumerate() {
        let report = paste_check(daemon.env(), payload, true);
        assert_eq!(report["action"], "send", "{report}");
        let expected = cat_v(&unescape(report["bytes"].as_str().expect("bytes")));
        let inner = expected
            .strip_prefix("^[[200~")
            .and_then(|r| r.strip_suffix("^[[201~"))
            .unwrap_or_else(|| panic!("paste-check did not wrap {payload:?}: {expected:?}"));
        assert!(
            !inner.contains("^[") && !inner.contains("M-") && !inner.contains("^C"),
            "{inner:?}"
        );
        let mut paste = START.to_vec();
        paste.extend_from_slice(payload);
        paste.extend_from_slice(END);
        // The page's message may end anywhere: here the closing marker comes on its own.
        send(&paste[..paste.len() - 3]);
        send(&paste[paste.len() - 3..]);
        let tag = format!("#{}", i + 2);
        send(tag.as_bytes());
        let got = received_through(&mut conn, &session, &w, &tag);
        // Compared without line breaks: the screen wraps the program's one long line.
        let want = format!("{seen}{expected}{tag}");
        assert_eq!(
            got.replace('\n', ""),
            want.replace('\n', ""),
            "paste {payload:?}"
        );
        seen = got;
    }
    // Every escape the program ever saw is one of the brackets the daemon wrote.
    let brackets = seen.matches("^[[200~").count();
    assert_eq!(brackets, 1 + payloads.len(), "{seen:?}");
    assert_eq!(seen.matches("^[[201~").count(), brackets, "{seen:?}");
    assert_eq!(seen.matches("^[").count(), 2 * brackets, "{seen:?}");
}

/// A window that floods until `stop` exists, then prints `flood-42-over` and waits.
fn flood_command(stop: &std::path::Path) -> serde_json::Value {
    let script = format!(
        "l=$(printf '%0150d' 0); i=0; while [ ! -e {} ]; do i=$((i+1)); echo \"$i $l\"; done; \
         echo flood-$((40+2))-over; exec cat",
        sh_quote(stop.to_str().expect("UTF-8 path"))
    );
    json!(["/bin/sh", "-c", script])
}

/// Output a browser received: the byte count and the last bytes, to look for a marker.
#[derive(Default)]
struct Received {
    bytes: u64,
    tail: Vec<u8>,
}

impl Received {
    fn add(&mut self, payload: &[u8]) {
        self.bytes += payload.len() as u64;
        self.tail.extend_from_slice(payload);
        let keep = 1 << 16;
        if self.tail.len() > 2 * keep {
            self.tail.drain(..self.tail.len() - keep);
        }
    }

    fn shows(&self, needle: &str) -> bool {
        String::from_utf8_lossy(&self.tail).contains(needle)
    }
}

#[test]
fn a_browser_that_stops_reading_holds_back_only_itself() {
    let daemon = TestDaemon::start();
    let (session, shell) = daemon.session_with_window("webslow");
    let mut conn = daemon.conn();
    let stop = daemon.dir().join("stop-flood");
    let flood = conn.new_window_id(&session, json!({"command": flood_command(&stop)}));
    conn.ok("close-window", json!({"session": session, "window": shell}));
    let (other, quiet) = daemon.session_with_window("other");
    // The stalled browser answers no ping: the server's silence limit is raised so that a
    // slow machine's flood phase cannot outlast it (90 s by default).
    let web = Web::start(daemon.env(), &["--silence-limit-secs", "600"]);
    let cookie = web.sign_in();
    let query = format!("session={session}&cols=100&rows=30");

    // The stalled browser reads nothing after the upgrade, through a small socket buffer.
    let mut stalled = upgrade(&web, connect_with_small_buffer(&web, 4096), &cookie, &query);
    let (_reading, output) = open_ws(&web, &cookie, &query);
    poll(
        DEADLINE,
        "both pages to attach",
        || match attached_clients(&mut conn, &session) {
            2 => Ok(()),
            n => Err(format!("{n} clients")),
        },
    );
    let mut reading = Received::default();
    let drain = |r: &mut Received| {
        while let Ok((op, payload)) = output.try_recv() {
            if op == 0x2 {
                r.add(&payload);
            }
        }
    };

    // The reading browser keeps getting the flood: more than the stalled one can hold in the
    // sockets between it and the server (a few hundred kilobytes with its small buffer and
    // segments) and the bridge's 32 frames together. A debug build on a loaded machine draws
    // slowly: the wait is long, and it is a bound, not an expectation.
    const MANY: u64 = 512 << 10;
    poll(
        Duration::from_secs(240),
        "the reading browser to get the flood",
        || {
            drain(&mut reading);
            if reading.bytes >= MANY {
                Ok(())
            } else {
                Err(format!("{} bytes so far", reading.bytes))
            }
        },
    );
    let during = reading.bytes;
    // JSON clients are answered meanwhile; the stalled browser is still attached (held back,
    // not dropped).
    conn.send_text(&other, &quiet, "echo served-$((6*7))\n");
    let r = conn.ok(
        "wait-for",
        json!({"condition": "window-output", "session": other, "window": quiet,
               "pattern": "served-42", "timeout": 60_000}),
    );
    assert_eq!(r["matched"], true, "{r}");
    assert_eq!(attached_clients(&mut conn, &session), 2);

    std::fs::write(&stop, b"").expect("create the stop file");
    conn.wait_for_text(&session, &flood, "flood-42-over");
    poll(
        DEADLINE,
        "the reading browser to show the flood's end",
        || {
            drain(&mut reading);
            if reading.shows("flood-42-over") {
                Ok(())
            } else {
                Err(format!("{} bytes so far", reading.bytes))
            }
        },
    );
    assert_eq!(
        attached_clients(&mut conn, &session),
        2,
        "the stalled browser was dropped"
    );

    // The stalled browser reads again: it catches up with the latest screen, having been sent
    // far less than the reading one got.
    let mut caught_up = Received::default();
    while !caught_up.shows("flood-42-over") {
        let (op, payload) = ws_read(&mut stalled).expect("the stalled browser's socket ended");
        if op == 0x2 {
            caught_up.add(&payload);
        }
    }
    // It was held back: it missed frames the reading one got (skipped by the daemon while its
    // attach could not write), instead of being sent the whole flood late.
    assert!(
        caught_up.bytes < during,
        "the stalled browser was sent {} bytes, the reading one {during}: nothing was skipped",
        caught_up.bytes
    );
    let _ = stalled.write_all(&ws_frame(0x8, &[0x03, 0xe8]));
}
