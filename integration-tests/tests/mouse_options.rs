//! Mouse and notice options a real `tuios attach` applies (issue 34 item 1): a drag over a
//! window's content is copied to the outer terminal's clipboard (`appearance.copy_on_select`,
//! seen as the tmux paste buffer OSC 52 makes with `set-clipboard on`), the pointer moving
//! focuses the window under it (`appearance.focus_follows_mouse`), and an error notice stays
//! until Esc (`notifications.error_sticky`).

use serde_json::{json, Value};
use tuios_integration_tests::*;

/// SGR mouse reports as the outer terminal sends them; `x`, `y` 0-based screen cells.
fn sgr(code: u8, x: usize, y: usize, release: bool) -> Vec<u8> {
    let end = if release { 'm' } else { 'M' };
    format!("\x1b[<{code};{};{}{end}", x + 1, y + 1).into_bytes()
}

/// Row and column (in cells) where `text` starts on the screen.
fn find(screen: &str, text: &str) -> Option<(usize, usize)> {
    screen.lines().enumerate().find_map(|(row, line)| {
        let byte = line.find(text)?;
        Some((row, line[..byte].chars().count()))
    })
}

fn set(conn: &mut JsonConn, session: &str, key: &str, value: &str) {
    conn.ok(
        "set-option",
        json!({"session": session, "key": key, "value": value}),
    );
}

fn focused(conn: &mut JsonConn, session: &str) -> Option<String> {
    let list = conn.ok("list-windows", json!({ "session": session }));
    list["windows"]
        .as_array()?
        .iter()
        .find(|w| w["focused"] == true)
        .and_then(|w| w["window_id"].as_str().map(str::to_string))
}

#[test]
fn a_drag_over_a_window_is_copied_to_the_clipboard() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("sel");
    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    client.wait_mode("TERM");
    // The terminal the client runs in keeps what OSC 52 sets as a paste buffer.
    client.tmux_ok(&["set-option", "-g", "set-clipboard", "on"]);
    client.type_line("echo sel-$((6*7))-end");
    let screen = client.wait_screen("the output", |sc| sc.contains("│sel-42-end"));
    let (row, col) = find(&screen, "│sel-42-end").expect("found above");
    let (from, to) = (col + 1, col + 6);
    let mut bytes = sgr(0, from, row, false);
    bytes.extend(sgr(32, to, row, false));
    bytes.extend(sgr(0, to, row, true));
    client.send_hex(&bytes);
    wait_until(DEADLINE, "the selection in the clipboard", || {
        let out = client.tmux(&["show-buffer"]);
        (String::from_utf8_lossy(&out.stdout) == "sel-42").then_some(())
    });
}

#[test]
fn focus_follows_the_mouse_when_on() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, first) = daemon.session_with_window("ffm");
    let mut conn = daemon.conn();
    set(&mut conn, &s, "appearance.focus_follows_mouse", "true");
    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    client.wait_mode("TERM");
    let second = conn.new_window_id(&s, Value::Null);
    // Two tiled side by side, each with its frame.
    client.wait_screen("two windows", |sc| {
        sc.lines()
            .next()
            .is_some_and(|l| l.matches('╭').count() == 2)
    });
    // Motion without a button over the right window, then over the left one.
    client.send_hex(&sgr(35, 80, 10, false));
    wait_until(DEADLINE, "the right window focused", || {
        (focused(&mut conn, &s).as_deref() == Some(second.as_str())).then_some(())
    });
    client.send_hex(&sgr(35, 10, 10, false));
    wait_until(DEADLINE, "the left window focused", || {
        (focused(&mut conn, &s).as_deref() == Some(first.as_str())).then_some(())
    });
}

#[test]
fn an_error_notice_stays_until_esc() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("sticky");
    let mut conn = daemon.conn();
    set(&mut conn, &s, "notifications.duration", "1");
    set(&mut conn, &s, "notifications.error_duration", "1");
    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    client.wait_mode("TERM");
    let notify = |conn: &mut JsonConn, text: &str, level: &str| {
        conn.ok(
            "run-command",
            json!({"session": s, "command": "ShowNotification", "args": [text, level]}),
        );
    };
    notify(&mut conn, "boom-sticky", "error");
    notify(&mut conn, "info-fleeting", "info");
    client.wait_for("info-fleeting");
    // The info notice came later and lasts as long as the error would: once it is gone, an
    // expiring error would be too.
    let screen = client.wait_screen("the info notice gone", |sc| !sc.contains("info-fleeting"));
    assert!(screen.contains("boom-sticky"), "{screen}");
    // Esc in terminal mode goes to the program; in window management it dismisses.
    client.leader("Escape");
    client.wait_mode("WM");
    client.send_keys(&["Escape"]);
    client.wait_screen("the error dismissed", |sc| !sc.contains("boom-sticky"));
}
