//! Screen hashes, diffs and settling end to end: `wait-for screen-settled` against a spinner
//! that never settles and a full-screen program (less) that does, capture-pane's `hash`, and
//! `since` diffs (one changed row, an unknown hash, a cursor that moved alone).

use serde_json::{json, Value};
use tuios_integration_tests::*;

/// A command window running `script` under /bin/sh, kept open after it ends; its id.
fn sh_window(conn: &mut JsonConn, session: &str, script: &str) -> String {
    conn.new_window_id(
        session,
        json!({"command": ["/bin/sh", "-c", script], "remain": true}),
    )
}

fn wait_output(conn: &mut JsonConn, s: &str, w: &str, pattern: &str) {
    conn.ok(
        "wait-for",
        json!({"condition": "window-output", "session": s, "window": w, "pattern": pattern, "source": "visible", "timeout": 20000}),
    );
}

fn settled(conn: &mut JsonConn, s: &str, w: &str) -> String {
    let r = conn.ok(
        "wait-for",
        json!({"condition": "screen-settled", "session": s, "window": w, "timeout": 20000}),
    );
    assert_eq!(r["condition"], "screen-settled", "{r}");
    assert_eq!(r["matched"], true, "{r}");
    assert_eq!(r["idle_ms"], 300, "the default quiet time: {r}");
    hash_of(&r)
}

fn hash_of(r: &Value) -> String {
    let h = r["hash"].as_str().unwrap_or_else(|| panic!("no hash: {r}"));
    assert_eq!(h.len(), 16, "{r}");
    assert!(h.chars().all(|c| c.is_ascii_hexdigit()), "{r}");
    h.to_string()
}

#[test]
fn a_spinner_never_settles_and_the_wait_times_out() {
    let daemon = TestDaemon::start();
    let s = daemon.new_session("spin");
    let mut conn = daemon.conn();
    let w = sh_window(
        &mut conn,
        &s,
        r#"while :; do for c in '|' / - '\'; do printf '\rspinning %s' "$c"; sleep 0.05; done; done"#,
    );
    wait_output(&mut conn, &s, &w, "spinning");
    let err = conn.err_code(
        "wait-for",
        // It turns every 50 ms: a second of quiet never comes, even on a loaded machine.
        json!({"condition": "screen-settled", "session": s, "window": w, "idle": 1000, "timeout": 3000}),
        "timeout",
    );
    assert_eq!(err["hint"]["param"], "idle", "{err}");
    let text = conn.capture(&s, &w, json!({}));
    assert!(text.contains("spinning"), "{text}");
}

#[test]
fn a_full_screen_program_settles_with_the_hash_capture_pane_reports() {
    let daemon = TestDaemon::start();
    let s = daemon.new_session("less");
    let mut conn = daemon.conn();
    let file = daemon.dir().join("lines.txt");
    let text: String = (1..=200).map(|i| format!("line number {i}\n")).collect();
    std::fs::write(&file, text).unwrap();
    let w = conn.new_window_id(
        &s,
        json!({"command": ["less", file.display().to_string()], "remain": true}),
    );
    wait_output(&mut conn, &s, &w, "line number 3\\b");
    let first = settled(&mut conn, &s, &w);
    let captured = conn.capture_result(&s, &w, json!({}));
    assert_eq!(hash_of(&captured), first, "{captured}");
    assert!(captured["content"]
        .as_str()
        .unwrap()
        .contains("line number 1\n"));

    // A page down: a new screen, settled again, with its own hash.
    conn.send_keys(&s, &w, "Space");
    wait_output(&mut conn, &s, &w, "line number 40\\b");
    let second = settled(&mut conn, &s, &w);
    assert_ne!(second, first);
    let captured = conn.capture_result(&s, &w, json!({"styled": true}));
    assert_eq!(
        hash_of(&captured),
        second,
        "styled or not, the hash is the screen's"
    );
    // The page before is remembered: a diff against it lists the rows that changed.
    let diff = conn.capture_result(&s, &w, json!({"since": first}));
    assert_eq!(diff["since_known"], true, "{diff}");
    assert!(diff.get("content").is_none(), "{diff}");
    assert!(!diff["rows"].as_array().unwrap().is_empty(), "{diff}");
}

#[test]
fn a_diff_holds_the_changed_row_alone_and_the_cursor_does_not_count() {
    let daemon = TestDaemon::start();
    let s = daemon.new_session("diff");
    let mut conn = daemon.conn();
    // No echo: the lines sent to `read` must not touch the screen.
    let script = concat!(
        "stty -echo; printf '\\033[2J\\033[Halpha\\nbravo\\ncharlie\\n'; read a; ",
        "printf '\\033[2;1H\\033[KBRAVO\\033[4;1H'; read b; ",
        "printf '\\033[6;7H\\033]2;moved\\007'; read c"
    );
    let w = sh_window(&mut conn, &s, script);
    wait_output(&mut conn, &s, &w, "charlie");
    let before = settled(&mut conn, &s, &w);
    let whole = conn.capture_result(&s, &w, json!({}));
    assert_eq!(hash_of(&whole), before, "{whole}");
    let screen_rows = whole["content"].as_str().unwrap().split('\n').count();

    conn.send_text(&s, &w, "\n");
    wait_output(&mut conn, &s, &w, "BRAVO");
    let diff = conn.capture_result(&s, &w, json!({"since": before}));
    assert_eq!(diff["rows"], json!([{"row": 1, "text": "BRAVO"}]), "{diff}");
    assert_eq!(diff["since_known"], true, "{diff}");
    assert!(diff.get("content").is_none(), "{diff}");
    let after = hash_of(&diff);
    assert_ne!(after, before);
    // Asked again from the new screen: nothing changed since.
    let same = conn.capture_result(&s, &w, json!({"since": after, "styled": true}));
    assert_eq!(same["rows"], json!([]), "{same}");
    assert_eq!(hash_of(&same), after);

    // Only the cursor moves (and the title, which is not on the screen): the same hash.
    conn.send_text(&s, &w, "\n");
    poll(DEADLINE, "the title the script sets", || {
        let row = conn.window_row(&s, &w);
        if row["title"] == "moved" {
            Ok(())
        } else {
            Err(row.to_string())
        }
    });
    let moved = conn.capture_result(&s, &w, json!({"since": after}));
    assert_eq!(moved["rows"], json!([]), "{moved}");
    assert_eq!(
        hash_of(&moved),
        after,
        "the cursor's position does not count"
    );

    // An unknown hash: every row, said so.
    let unknown = conn.capture_result(&s, &w, json!({"since": "0123456789abcdef"}));
    assert_eq!(unknown["since_known"], false, "{unknown}");
    let rows = unknown["rows"].as_array().unwrap();
    assert_eq!(rows.len(), screen_rows, "{unknown}");
    assert_eq!(rows[0], json!({"row": 0, "text": "alpha"}));
    assert_eq!(rows[1], json!({"row": 1, "text": "BRAVO"}));

    // since compares visible screens: not with scrollback or a range.
    let err = conn.err_code(
        "capture-pane",
        json!({"session": s, "window": w, "since": after, "source": "recent"}),
        "invalid_params",
    );
    assert_eq!(err["hint"]["param"], "since", "{err}");

    // A resize is a new screen, whatever the text: every row is listed against the old one.
    conn.ok(
        "resize",
        json!({"session": s, "window": w, "width": 50, "height": 12}),
    );
    let resized = conn.capture_result(&s, &w, json!({"since": after}));
    assert_eq!(resized["since_known"], true, "{resized}");
    assert_ne!(hash_of(&resized), after);
    assert_eq!(resized["rows"].as_array().unwrap().len(), 12, "{resized}");
}

#[test]
fn the_cli_prints_the_hash_the_settled_wait_and_a_diff() {
    let daemon = TestDaemon::start();
    let s = daemon.new_session("cli");
    let mut conn = daemon.conn();
    let w = sh_window(
        &mut conn,
        &s,
        "stty -echo; printf 'one\\ntwo\\n'; read a; printf 'three\\n'; read b",
    );
    wait_output(&mut conn, &s, &w, "two");
    let out = daemon.cli(&["wait-for", "screen-settled", "-s", &s, "-w", &w]);
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        said.starts_with("matched: settled for 300 ms, hash "),
        "{said}"
    );
    let settled_hash = said.trim().rsplit(' ').next().unwrap().to_string();

    let out = daemon.cli(&["capture-pane", "-s", &s, "-w", &w, "--hash"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), settled_hash);

    conn.send_text(&s, &w, "\n");
    wait_output(&mut conn, &s, &w, "three");
    let out = daemon.cli(&["capture-pane", "-s", &s, "-w", &w, "--since", &settled_hash]);
    assert!(out.status.success(), "{out:?}");
    let printed = String::from_utf8_lossy(&out.stdout).to_string();
    let lines: Vec<&str> = printed.lines().collect();
    assert!(lines[0].starts_with("hash "), "{printed}");
    assert_ne!(lines[0], format!("hash {settled_hash}"), "{printed}");
    assert_eq!(lines[1..], ["2\tthree"], "{printed}");
}
