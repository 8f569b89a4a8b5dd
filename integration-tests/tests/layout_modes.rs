//! The master-stack and scrolling layouts (issue 34 item 2) through a real `tuios attach` in
//! tmux: chosen by set-layout's `layout` and by the cycling key, drawn as they should be, and
//! reported by session-info's `layout_mode`.

use std::time::Duration;

use serde_json::{json, Value};
use tuios_integration_tests::*;

const DEADLINE: Duration = Duration::from_secs(30);

/// Where frames start: the (row, column) of every top-left corner on the screen.
fn corners(screen: &str) -> Vec<(usize, usize)> {
    screen
        .lines()
        .enumerate()
        .flat_map(|(row, line)| {
            line.chars()
                .enumerate()
                .filter(|(_, c)| *c == '╭')
                .map(move |(col, _)| (row, col))
        })
        .collect()
}

/// The character at (`row`, `col`) of the screen.
fn cell(screen: &str, row: usize, col: usize) -> Option<char> {
    screen.lines().nth(row)?.chars().nth(col)
}

/// The first row: the top borders of the frames, carrying their titles.
fn top_row(screen: &str) -> &str {
    screen.lines().next().unwrap_or("")
}

fn layout_mode(conn: &mut JsonConn, s: &str) -> Value {
    conn.ok("session-info", json!({"session": s}))["layout_mode"].clone()
}

fn wait_layout_mode(conn: &mut JsonConn, s: &str, mode: &str) {
    wait_until(DEADLINE, &format!("session-info says {mode}"), || {
        (layout_mode(conn, s) == mode).then_some(())
    });
}

fn focused(conn: &mut JsonConn, s: &str) -> Option<String> {
    let list = conn.ok("list-windows", json!({"session": s}));
    list["windows"]
        .as_array()?
        .iter()
        .find(|w| w["focused"] == true)
        .and_then(|w| w["window_id"].as_str().map(String::from))
}

#[test]
fn master_stack_and_scrolling_are_drawn_reported_and_cycled() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, alpha) = daemon.session_with_window("lm");
    let mut conn = daemon.conn();
    // Before any client has reported a layout, the daemon cannot say.
    assert_eq!(layout_mode(&mut conn, &s), "unknown");
    conn.ok(
        "set-window",
        json!({"session": s, "window": alpha, "name": "alpha"}),
    );
    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    client.wait_mode("TERM");
    wait_until(DEADLINE, "the client is attached", || {
        (conn.ok("session-info", json!({"session": s}))["tui_attached"] == true).then_some(())
    });
    wait_layout_mode(&mut conn, &s, "bsp");

    let beta = conn.new_window_id(&s, json!({"name": "beta"}));
    let gamma = conn.new_window_id(&s, json!({"name": "gamma"}));
    client.wait_screen("three frames", |sc| corners(sc).len() == 3);

    // master-stack: one full-height pane on the left, the two others stacked on the right.
    let reply = conn.ok(
        "set-layout",
        json!({"session": s, "layout": "master-stack"}),
    );
    assert_eq!(reply["type"], "layout", "{reply}");
    assert_eq!(reply["layout_mode"], "master-stack", "{reply}");
    assert_eq!(reply["tiling_mode"], "tiling", "{reply}");
    assert_eq!(reply["master_ratio"], 0.5, "{reply}");
    let screen = client.wait_screen("master left, two stacked right", |sc| {
        let c = corners(sc);
        c.len() == 3
            && c[0] == (0, 0)
            && c[1] == (0, 50)
            && c[2].1 == 50
            && c[2].0 > 2
            // The master's left edge runs on beside the second stacked pane.
            && cell(sc, c[2].0, 0) == Some('│')
    });
    assert!(
        top_row(&screen).contains("alpha"),
        "the master is the first:\n{screen}"
    );
    wait_layout_mode(&mut conn, &s, "master-stack");

    // scrolling: two columns of the three in view, the focused one among them.
    let reply = conn.ok("set-layout", json!({"session": s, "layout": "scrolling"}));
    assert_eq!(reply["layout_mode"], "scrolling", "{reply}");
    wait_layout_mode(&mut conn, &s, "scrolling");
    conn.ok("focus-window", json!({"session": s, "window": alpha}));
    let screen = client.wait_screen("the strip's first two columns", |sc| {
        corners(sc) == [(0, 0), (0, 50)]
            && top_row(sc).contains("alpha")
            && top_row(sc).contains("beta")
    });
    assert!(!top_row(&screen).contains("gamma"), "{screen}");

    // Focus moves scroll the view: right twice reaches gamma, out of view until then.
    client.leader("Right");
    wait_until(DEADLINE, "focus on beta", || {
        (focused(&mut conn, &s).as_deref() == Some(beta.as_str())).then_some(())
    });
    client.leader("Right");
    wait_until(DEADLINE, "focus on gamma", || {
        (focused(&mut conn, &s).as_deref() == Some(gamma.as_str())).then_some(())
    });
    let screen = client.wait_screen("the view scrolled to gamma", |sc| {
        top_row(sc).contains("beta") && top_row(sc).contains("gamma")
    });
    assert!(!top_row(&screen).contains("alpha"), "{screen}");
    assert_eq!(corners(&screen), [(0, 0), (0, 50)], "{screen}");
    client.leader("Left");
    client.leader("Left");
    client.wait_screen("back at the start of the strip", |sc| {
        top_row(sc).contains("alpha") && !top_row(sc).contains("gamma")
    });

    // The key after the leader cycles: scrolling -> bsp -> master-stack.
    client.leader("L");
    wait_layout_mode(&mut conn, &s, "bsp");
    client.wait_screen("all three back in the split tree", |sc| {
        corners(sc).len() == 3
    });
    client.leader("L");
    wait_layout_mode(&mut conn, &s, "master-stack");
    let info = conn.ok("session-info", json!({"session": s}));
    assert_eq!(info["tiling_mode"], "tiling", "{info}");

    // The CLI takes the same values, and refuses others before sending anything.
    let out = daemon.cli(&["set-layout", "-s", &s, "--layout", "scrolling"]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("layout scrolling"),
        "{out:?}"
    );
    wait_layout_mode(&mut conn, &s, "scrolling");
    let out = daemon.cli(&["set-layout", "-s", &s, "--layout", "spiral"]);
    assert!(!out.status.success(), "{out:?}");

    // The daemon checks the value too.
    let err = conn.err_code(
        "set-layout",
        json!({"session": s, "layout": "spiral"}),
        "invalid_params",
    );
    assert_eq!(err["hint"]["param"], "layout", "{err}");
}
