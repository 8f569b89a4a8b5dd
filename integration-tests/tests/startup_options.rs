//! Options a real `tuios attach` applies when it starts (issue 34 item 1): a session that set
//! `startup.start_in_terminal_mode = false` opens in window management, and `zen_mode =
//! always` draws no borders.

use serde_json::json;
use tuios_integration_tests::*;

#[test]
fn start_in_terminal_mode_false_opens_in_window_management() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("wm");
    let mut conn = daemon.conn();
    conn.ok(
        "set-option",
        json!({"session": s, "key": "startup.start_in_terminal_mode", "value": "false"}),
    );
    conn.ok(
        "set-option",
        json!({"session": s, "key": "appearance.zen_mode", "value": "always"}),
    );
    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    let screen = client.wait_mode("WM");
    assert!(
        !screen.contains('╭'),
        "zen mode draws no borders:\n{screen}"
    );
}

#[test]
fn the_whichkey_popup_lists_the_keys_while_the_leader_waits() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("wk");
    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    client.wait_mode("TERM");
    client.send_keys(&["C-b"]);
    let screen = client.wait_for("ctrl+b then");
    assert!(screen.contains("split side by side"), "{screen}");
    // The next key acts and takes the popup with it.
    client.send_keys(&["Escape"]);
    client.wait_screen("the popup gone", |sc| !sc.contains("ctrl+b then"));
}

#[test]
fn open_default_window_fills_a_session_left_empty() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, first) = daemon.session_with_window("empty");
    let mut conn = daemon.conn();
    conn.ok(
        "set-option",
        json!({"session": s, "key": "startup.open_default_window", "value": "true"}),
    );
    // Its only window closed, the session stays, empty.
    conn.ok("close-window", json!({"session": s, "window": first}));
    wait_until(DEADLINE, "the session empty", || {
        let list = conn.ok("list-windows", json!({ "session": s }));
        (list["windows"].as_array().map(Vec::len) == Some(0)).then_some(())
    });
    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    client.wait_mode("TERM");
    wait_until(DEADLINE, "a window opened by the attaching client", || {
        let list = conn.ok("list-windows", json!({ "session": s }));
        (list["windows"].as_array().map(Vec::len) == Some(1)).then_some(())
    });
}
