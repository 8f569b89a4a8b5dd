//! Lumen's input rule for the verbs that write to a PTY, end to end: `send-text` and
//! `send-keys` refuse input holding a frame introducer (APC `lumen;`, in any spelling, and a
//! prefix of one at the end of the input, which the next write could complete), whether they
//! come as JSON over the socket or from the CLI, and nothing at all reaches the program.
//!
//! The window runs `cat -v` in raw mode, so every byte it receives shows. "Nothing arrived" is
//! proven with a barrier: after every refusal a plain `send-text` writes a tag, and the program
//! must have received exactly that tag and nothing before it.

use serde_json::{json, Value};
use tuios_integration_tests::*;

/// Raw input, every byte shown by `cat -v`; `READY` marks the start of what it received.
const CAT_V: &str = "stty raw -echo opost; printf READY; exec cat -v";

/// Introducers in every spelling a JSON string can carry (the raw 8-bit 0x9F is not UTF-8;
/// U+009F is its UTF-8 spelling `C2 9F`), a full frame, and prefixes the next write could
/// complete.
const INTRODUCERS: &[&str] = &[
    "hi\x1b_lumen;v=0,t=focus,id=1;AA\x1b\\",
    "\x1b_lumen;",
    "\x1b_lumen",
    "x\x1b_lum",
    "x\x1b_",
    "\u{9f}lumen;v=0,t=blk,id=1;\u{9c}",
    "ok then \u{9f}lumen",
];

/// What the program has received so far (after `READY`), trailing blanks trimmed.
fn received(conn: &mut JsonConn, session: &str, window: &str) -> String {
    let capture = conn.capture(session, window, json!({}));
    let after = capture.split_once("READY").map_or("", |(_, rest)| rest);
    let lines: Vec<&str> = after.lines().map(str::trim_end).collect();
    lines.join("\n").trim().to_string()
}

/// Writes `tag` and a line feed with send-text and waits until the program has received
/// exactly `expected` (everything up to and including the tag): nothing else got in before.
fn barrier(conn: &mut JsonConn, session: &str, window: &str, tag: &str, expected: &str) {
    conn.ok(
        "send-text",
        json!({"session": session, "window": window, "text": format!("{tag}\n")}),
    );
    poll(
        DEADLINE,
        &format!("the program to have received exactly {expected:?}"),
        || {
            let got = received(conn, session, window);
            if got == expected {
                Ok(())
            } else {
                Err(format!("received {got:?}"))
            }
        },
    );
}

/// An error that names the param and says why: a Lumen frame introducer.
fn assert_introducer_refusal(error: &Value, param: &str, input: &str) {
    assert_eq!(error["code"], "invalid_params", "{input:?}: {error}");
    assert_eq!(error["hint"]["param"], param, "{input:?}: {error}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("frame introducer"),
        "{input:?}: the message does not say why: {error}"
    );
}

/// A window running [`CAT_V`] that has started, in session "lv".
fn cat_window(daemon: &TestDaemon, conn: &mut JsonConn) -> (String, String) {
    let (session, _) = daemon.session_with_window("lv");
    let window = conn.new_window_id(
        &session,
        json!({"name": "cat", "command": ["/bin/sh", "-c", CAT_V]}),
    );
    conn.wait_for_text(&session, &window, "READY");
    (session, window)
}

#[test]
fn send_text_and_send_keys_over_json_refuse_frame_introducers() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let (s, w) = cat_window(&daemon, &mut conn);
    let mut expected = String::new();
    let mut tags = 0;
    let mut barrier_after = |conn: &mut JsonConn, expected: &mut String| {
        tags += 1;
        let tag = format!("#{tags}");
        if !expected.is_empty() {
            expected.push('\n');
        }
        expected.push_str(&tag);
        barrier(conn, &s, &w, &tag, expected);
    };

    for input in INTRODUCERS {
        let e = conn.err(
            "send-text",
            json!({"session": s, "window": w, "text": input}),
        );
        assert_introducer_refusal(&e, "text", input);
        // Sent as keys too: literal and raw write the string as it is.
        for flag in ["literal", "raw"] {
            let e = conn.err(
                "send-keys",
                json!({"session": s, "window": w, "keys": input, flag: true}),
            );
            assert_introducer_refusal(&e, "keys", input);
        }
        barrier_after(&mut conn, &mut expected);
    }

    // Keys that only make an introducer once encoded: alt+_ is ESC _, escape is ESC.
    for keys in [
        "alt+_ l u m e n ;",
        "alt+_,l,u,m,e,n",
        "escape _ l u m",
        "a b escape _",
    ] {
        let e = conn.err(
            "send-keys",
            json!({"session": s, "window": w, "keys": keys}),
        );
        assert_introducer_refusal(&e, "keys", keys);
        barrier_after(&mut conn, &mut expected);
    }

    // Input that is no introducer goes through: ESC and `_` apart, `lumen` after another byte.
    conn.ok(
        "send-keys",
        json!({"session": s, "window": w, "keys": "escape x _ l u m e n Enter"}),
    );
    let expected = format!("{expected}\n^[x_lumen^M#ok");
    barrier(&mut conn, &s, &w, "#ok", &expected);
}

#[test]
fn an_introducer_split_across_requests_is_refused_too() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let (s, w) = cat_window(&daemon, &mut conn);
    // ESC alone is a key like any other.
    conn.ok(
        "send-keys",
        json!({"session": s, "window": w, "keys": "Escape"}),
    );
    // The next request would make ESC _lumen; at the program: refused, nothing written.
    for (verb, params) in [
        (
            "send-text",
            json!({"session": s, "window": w, "text": "_lumen;v=0"}),
        ),
        (
            "send-keys",
            json!({"session": s, "window": w, "keys": "_lumen;", "literal": true}),
        ),
        ("send-text", json!({"session": s, "window": w, "text": "_"})),
    ] {
        let e = conn.err(verb, params);
        assert_eq!(e["code"], "invalid_params", "{e}");
        assert!(
            e["message"]
                .as_str()
                .unwrap_or_default()
                .contains("frame introducer"),
            "{e}"
        );
    }
    // Anything else after the ESC goes through, and the program saw only that.
    barrier(&mut conn, &s, &w, "x", "^[x");
}

/// `tuios ARGS...`: must fail, saying why on stderr.
fn cli_refused(daemon: &TestDaemon, args: &[&str]) {
    let out = daemon.cli(args);
    assert!(
        !out.status.success(),
        "tuios {args:?} succeeded: {}",
        describe(&out)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("frame introducer"),
        "tuios {args:?} does not say why: {}",
        describe(&out)
    );
}

#[test]
fn send_text_and_send_keys_from_the_cli_refuse_frame_introducers() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let (s, w) = cat_window(&daemon, &mut conn);
    let mut expected = String::new();
    for (i, input) in INTRODUCERS.iter().enumerate() {
        let target = ["-s", s.as_str(), "-w", w.as_str()];
        cli_refused(&daemon, &[&["send-text"], &target[..], &[input]].concat());
        cli_refused(
            &daemon,
            &[&["send-keys", "-l"], &target[..], &[input]].concat(),
        );
        // An argument holding a space is typed as it is, in a request of its own.
        let spaced = format!("a b{input}");
        cli_refused(
            &daemon,
            &[&["send-keys"], &target[..], &[spaced.as_str()]].concat(),
        );
        let tag = format!("#{i}");
        if !expected.is_empty() {
            expected.push('\n');
        }
        expected.push_str(&tag);
        barrier(&mut conn, &s, &w, &tag, &expected);
    }
    // Key names that make one once encoded.
    let target = ["-s", s.as_str(), "-w", w.as_str()];
    cli_refused(
        &daemon,
        &[
            &["send-keys"],
            &target[..],
            &["M-_", "l", "u", "m", "e", "n"],
        ]
        .concat(),
    );
    cli_refused(
        &daemon,
        &[&["send-keys"], &target[..], &["Escape", "_"]].concat(),
    );
    let expected = format!("{expected}\n#keys");
    barrier(&mut conn, &s, &w, "#keys", &expected);
}
