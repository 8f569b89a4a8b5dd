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
