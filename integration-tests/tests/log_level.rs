//! `daemon.log_level` (issue 34 item 1): setting it changes the running daemon's log filter at
//! once, in the reference TUIOS's words (off, errors, basic, messages, verbose, trace).

use std::time::Duration;

use serde_json::json;
use tuios_integration_tests::*;

#[test]
fn set_option_daemon_log_level_changes_the_running_filter() {
    // The test daemon starts at warn: session creation (info) is not logged.
    let daemon = TestDaemon::start();
    daemon.new_session("quiet");
    assert!(!daemon.stderr_log().contains("session=quiet"));
    let mut conn = daemon.conn();

    let r = conn.ok(
        "set-option",
        json!({"session": "quiet", "key": "daemon.log_level", "value": "messages"}),
    );
    assert_eq!(r["applied"], true, "{r}");
    daemon.new_session("loud");
    wait_until(
        Duration::from_secs(20),
        "the info line of the new session",
        || daemon.stderr_log().contains("session=loud").then_some(()),
    );

    // Off: nothing more is written, not even info.
    let r = conn.ok(
        "set-option",
        json!({"session": "quiet", "key": "daemon.log_level", "value": "off"}),
    );
    assert_eq!(r["applied"], true, "{r}");
    let before = daemon.stderr_log().len();
    daemon.new_session("silent");
    let listed = conn.ok("list-sessions", json!({}));
    assert_eq!(listed["sessions"].as_array().unwrap().len(), 3, "{listed}");
    assert_eq!(daemon.stderr_log().len(), before, "{}", daemon.stderr_log());

    // A value outside the reference's words is refused before anything changes.
    let e = conn.err_code(
        "set-option",
        json!({"session": "quiet", "key": "daemon.log_level", "value": "loud"}),
        "invalid_params",
    );
    assert_eq!(e["hint"]["param"], "value", "{e}");
    let listed = conn.ok(
        "list-options",
        json!({"session": "quiet", "prefix": "daemon.log"}),
    );
    let row = &listed["options"][0];
    assert_eq!(row["applies"], "daemon", "{listed}");
}
