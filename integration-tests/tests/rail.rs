//! The session rail in a real `tuios attach` (issue 34 item 1): `appearance.sidebar.enabled`
//! shows the daemon's sessions and the current session's windows in a column on the left,
//! `position` moves it right or hides it, `width` narrows it, and the reference's deprecated
//! flat name `appearance.sidebar_enabled` acts too.

use serde_json::json;
use tuios_integration_tests::*;

/// The first `n` columns of each screen line.
fn left(screen: &str, n: usize) -> Vec<String> {
    screen
        .lines()
        .map(|l| l.chars().take(n).collect())
        .collect()
}

/// The last `n` columns of each screen line (the pane is `w` wide).
fn right(screen: &str, w: usize, n: usize) -> Vec<String> {
    screen
        .lines()
        .map(|l| l.chars().skip(w - n).collect())
        .collect()
}

#[test]
fn the_rail_lists_sessions_and_windows_where_the_options_say() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, w) = daemon.session_with_window("alpha");
    daemon.new_session("beta");
    let mut conn = daemon.conn();
    conn.ok(
        "set-window",
        json!({"session": s, "window": w, "name": "editor"}),
    );
    let set = |conn: &mut JsonConn, key: &str, value: &str| {
        conn.ok(
            "set-option",
            json!({"session": s, "key": key, "value": value}),
        );
    };
    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    client.wait_mode("TERM");
    assert!(!client.capture().contains("sessions"), "off by default");

    set(&mut conn, "appearance.sidebar.enabled", "true");
    let screen = client.wait_screen("the rail with both sessions", |sc| {
        let rail = left(sc, 28).join("\n");
        rail.contains("▸alpha") && rail.contains(" beta") && rail.contains("editor")
    });
    let rail = left(&screen, 28);
    assert!(rail[0].contains("sessions"), "{screen}");
    assert!(rail[0].ends_with('│'), "the rail is 28 columns:\n{screen}");
    // The windows moved right of it.
    assert!(
        screen.lines().next().unwrap().chars().nth(28) == Some('╭'),
        "{screen}"
    );

    set(&mut conn, "appearance.sidebar.position", "right");
    let screen = client.wait_screen("the rail on the right", |sc| {
        right(sc, 100, 28).join("\n").contains("▸alpha")
    });
    assert!(right(&screen, 100, 28)[0].starts_with('│'), "{screen}");

    set(&mut conn, "appearance.sidebar.width", "16");
    let screen = client.wait_screen("a narrower rail", |sc| {
        right(sc, 100, 16)
            .first()
            .is_some_and(|l| l.starts_with("│ sessions"))
    });
    assert!(!right(&screen, 100, 17)[0].starts_with('│'), "{screen}");

    set(&mut conn, "appearance.sidebar.position", "hidden");
    client.wait_screen("no rail", |sc| !sc.contains("sessions"));
}

#[test]
fn the_deprecated_flat_name_shows_the_rail_too() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("flat");
    let mut conn = daemon.conn();
    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    client.wait_mode("TERM");
    conn.ok(
        "set-option",
        json!({"session": s, "key": "appearance.sidebar_enabled", "value": "true"}),
    );
    client.wait_screen("the rail", |sc| left(sc, 28).join("\n").contains("▸flat"));
}

#[test]
fn a_narrow_terminal_gets_the_strip_and_hovering_names_a_session() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("alpha");
    daemon.new_session("beta");
    let mut conn = daemon.conn();
    conn.ok(
        "set-option",
        json!({"session": s, "key": "appearance.sidebar.enabled", "value": "true"}),
    );
    let client = TmuxClient::start(daemon.env(), &s, 50, 20);
    client.wait_screen("the strip of initials", |sc| {
        let strip = left(sc, 3);
        strip[0] == "a │" && strip[1] == "b │"
    });
    // A motion report with no button held (SGR 35) over the second initial.
    client.send_hex(b"\x1b[<35;1;2M");
    client.wait_screen("the label", |sc| {
        sc.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("b │ beta "))
    });
}
