//! Window chrome a real `tuios attach` draws and answers (issue 34 item 1): title-bar buttons
//! clicked through SGR mouse reports, the scrollbar on the right border and its thumb in copy
//! mode, shared borders between tiles, and the dock's workspace tooltip on pointer motion.

use serde_json::{json, Value};
use tuios_integration_tests::*;

fn windows(conn: &mut JsonConn, s: &str) -> Vec<Value> {
    conn.ok("list-windows", json!({ "session": s }))["windows"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn set(conn: &mut JsonConn, s: &str, key: &str, value: &str) {
    conn.ok(
        "set-option",
        json!({"session": s, "key": key, "value": value}),
    );
}

/// A left click at 0-based (`x`, `y`): press and release, as a terminal reports them.
fn click(client: &TmuxClient, x: u16, y: u16) {
    let (x, y) = (x + 1, y + 1);
    client.send_hex(format!("\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m").as_bytes());
}

fn line(screen: &str, y: usize) -> Vec<char> {
    screen.lines().nth(y).unwrap_or("").chars().collect()
}

#[test]
fn title_bar_buttons_minimize_and_close_and_an_option_hides_them() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, first) = daemon.session_with_window("btn");
    let mut conn = daemon.conn();
    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    client.wait_mode("TERM");
    client.leader("%");
    // Two 50-cell frames; each title bar ends with the pill two cells before its corner.
    // The new window grows into place (animations are on by default): wait for its final box.
    let screen = client.wait_screen("buttons on both title bars", |sc| {
        let top: Vec<char> = sc.lines().next().unwrap_or("").chars().collect();
        top.iter().collect::<String>().matches(" −  □  × ").count() == 2
            && top
                .get(95..98)
                .is_some_and(|c| c.iter().collect::<String>() == " × ")
    });
    let top = line(&screen, 0);
    assert_eq!(top[95..98].iter().collect::<String>(), " × ", "{screen}");
    let second = wait_until(DEADLINE, "the new window focused", || {
        windows(&mut conn, &s)
            .into_iter()
            .find(|w| w["focused"] == true && w["window_id"] != first.as_str())
            .and_then(|w| w["window_id"].as_str().map(str::to_string))
    });

    // Minimize the right window by its button.
    click(&client, 90, 0);
    wait_until(DEADLINE, "the right window minimized", || {
        windows(&mut conn, &s)
            .iter()
            .any(|w| w["window_id"] == second.as_str() && w["minimized"] == true)
            .then_some(())
    });
    client.wait_screen("one frame, full width", |sc| {
        sc.lines().next().unwrap_or("").matches('╭').count() == 1
    });
    // The option takes them away and gives them back, live.
    set(&mut conn, &s, "appearance.hide_window_buttons", "true");
    client.wait_screen("a frame without buttons", |sc| {
        let top = sc.lines().next().unwrap_or("");
        top.starts_with('╭') && !top.contains('×')
    });
    set(&mut conn, &s, "appearance.hide_window_buttons", "false");
    client.wait_screen("the buttons back", |sc| {
        sc.lines().next().unwrap_or("").ends_with(" −  □  × ─╮")
    });
    // Close the first, now alone, through the confirmation.
    click(&client, 96, 0);
    client.wait_for("close window");
    client.send_keys(&["y"]);
    wait_until(DEADLINE, "the first window closed", || {
        (!windows(&mut conn, &s)
            .iter()
            .any(|w| w["window_id"] == first.as_str()))
        .then_some(())
    });
}

#[test]
fn the_scrollbar_thumb_is_at_the_bottom_and_climbs_in_copy_mode() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, w) = daemon.session_with_window("sb");
    let mut conn = daemon.conn();
    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    client.wait_mode("TERM");
    client.type_line("seq 1 300");
    conn.wait_for_line(&s, &w, "300");
    // The frame is rows 0-28 (the dock is row 29): the track is rows 1-27 of column 99.
    let thumb_rows = |sc: &str| -> Vec<usize> {
        (1..28)
            .filter(|y| line(sc, *y).get(99) == Some(&'┃'))
            .collect()
    };
    client.wait_screen("the thumb at the bottom", |sc| thumb_rows(sc) == vec![27]);
    // Copy mode, then its top: the thumb goes to the top of the track.
    client.leader("[");
    client.wait_for("[copy ");
    client.send_keys(&["g"]);
    client.wait_screen("the thumb at the top", |sc| {
        thumb_rows(sc).first() == Some(&1)
    });
    client.send_keys(&["q"]);
    client.wait_screen("the thumb back at the bottom", |sc| {
        thumb_rows(sc) == vec![27]
    });

    set(&mut conn, &s, "appearance.hide_scrollbar", "true");
    client.wait_screen("no thumb", |sc| thumb_rows(sc).is_empty());
}

#[test]
fn shared_borders_draw_one_line_between_tiles() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("sh");
    let mut conn = daemon.conn();
    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    client.wait_mode("TERM");
    client.leader("%");
    let verticals = |sc: &str| line(sc, 10).iter().filter(|c| **c == '│').count();
    client.wait_screen("two frames, four side lines", |sc| verticals(sc) == 4);
    set(&mut conn, &s, "appearance.shared_borders", "true");
    let screen = client.wait_screen("three side lines", |sc| verticals(sc) == 3);
    // The left frame grew a cell: its right side is the right frame's left side, column 50.
    assert_eq!(line(&screen, 10).get(50), Some(&'│'), "{screen}");
    // Where the lines meet, a tee.
    assert_eq!(line(&screen, 0).get(50), Some(&'┬'), "{screen}");
}

#[test]
fn a_cut_workspace_name_shows_in_full_when_the_pointer_is_on_its_tab() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("tip");
    let mut conn = daemon.conn();
    conn.ok(
        "set-workspace-name",
        json!({"session": s, "workspace": 1, "name": "a workspace with a long name"}),
    );
    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    let screen = client.wait_for(" 1:a workspace wit… ");
    // The dock's text before the tab is ASCII, so its byte offset is its column.
    let dock_row: String = line(&screen, 29).iter().collect();
    let x = dock_row.find("1:a workspace").unwrap() + 2;
    // Motion with no button held, as a terminal reports it under any-motion tracking (1-based).
    client.send_hex(format!("\x1b[<35;{};30M", x + 1).as_bytes());
    client.wait_screen("the full name beside the dock", |sc| {
        line(sc, 28)
            .iter()
            .collect::<String>()
            .contains(" 1:a workspace with a long name ")
    });
    client.send_hex(b"\x1b[<35;50;10M");
    client.wait_screen("the tooltip gone", |sc| {
        !line(sc, 28)
            .iter()
            .collect::<String>()
            .contains("long name")
    });
}
