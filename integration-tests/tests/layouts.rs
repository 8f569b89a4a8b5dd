//! `SaveLayout <name>` / `LoadLayout <name>` end to end (issue 20 item 4): run-commands routed to a
//! real attached client (`tuios attach` in tmux), templates written under
//! `$XDG_CONFIG_HOME/tuios/layouts/`, and a template loaded on another workspace opening the
//! windows it needs.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use serde_json::{json, Value};
use tuios_integration_tests::*;

const DEADLINE: Duration = Duration::from_secs(30);

fn run_command(conn: &mut JsonConn, s: &str, command: &str, args: &[&str]) -> Value {
    conn.ok(
        "run-command",
        json!({"session": s, "command": command, "args": args}),
    )
}

/// Frames whose top-left corner is on the screen's first row: panes side by side.
fn frames_on_top_row(screen: &str) -> usize {
    screen.lines().next().map_or(0, |l| l.matches('╭').count())
}

fn windows_on(conn: &mut JsonConn, s: &str, ws: i64) -> Vec<Value> {
    let list = conn.ok("list-windows", json!({"session": s}));
    list["windows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["workspace"] == ws)
        .cloned()
        .collect()
}

#[test]
fn a_saved_layout_is_a_file_and_loads_on_another_workspace() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("lay");
    let mut conn = daemon.conn();
    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    client.wait_mode("TERM");
    wait_until(DEADLINE, "the client is attached", || {
        (conn.ok("session-info", json!({"session": s}))["tui_attached"] == true).then_some(())
    });

    run_command(&mut conn, &s, "EnableTiling", &[]);
    let split = conn.ok(
        "split-window",
        json!({"session": s, "direction": "vertical", "name": "logs"}),
    );
    assert!(split["window_id"].is_string(), "{split}");
    client.wait_screen("two panes side by side", |sc| frames_on_top_row(sc) == 2);

    let saved = run_command(&mut conn, &s, "SaveLayout", &["dev"]);
    assert_eq!(saved["routed"], true, "{saved}");
    assert_eq!(saved["windows"], 2, "{saved}");
    let path = daemon.dir().join("config/tuios/layouts/dev.json");
    assert_eq!(saved["path"], json!(path.display().to_string()), "{saved}");
    let meta = std::fs::metadata(&path).expect("the template file exists");
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let file: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(file["version"], 1, "{file}");
    assert_eq!(file["tiling"], true, "{file}");
    assert_eq!(file["tree"]["type"], "split", "{file}");
    assert_eq!(file["tree"]["axis"], "vertical", "{file}");
    // Slots, not window ids: the template applies to any windows. The named pane keeps its name.
    assert_eq!(file["tree"]["first"]["window"], "0", "{file}");
    assert_eq!(file["tree"]["second"]["window"], "1", "{file}");
    assert_eq!(file["windows"], json!([{}, {"name": "logs"}]), "{file}");

    // The CLI sees it without a client: listed, exported as the file holds it.
    let listed = daemon.cli(&["layout", "list", "--json"]);
    assert!(listed.status.success(), "{listed:?}");
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(
        listed["layouts"],
        json!([{"name": "dev", "windows": 2, "tiling": true}]),
        "{listed}"
    );
    let exported = daemon.cli(&["layout", "export", "dev"]);
    assert!(exported.status.success(), "{exported:?}");
    let exported: Value = serde_json::from_slice(&exported.stdout).unwrap();
    assert_eq!(exported, file);

    // Workspace 3 is empty: loading opens both windows there and splits them the same way.
    run_command(&mut conn, &s, "SwitchWorkspace", &["3"]);
    let loaded = run_command(&mut conn, &s, "LoadLayout", &["dev"]);
    assert_eq!(loaded["opened"], 2, "{loaded}");
    assert_eq!(loaded["windows"], 2, "{loaded}");
    let on3 = windows_on(&mut conn, &s, 3);
    assert_eq!(on3.len(), 2, "{on3:?}");
    assert!(
        on3.iter().any(|w| w["custom_name"] == "logs"),
        "the new window got the slot's name: {on3:?}"
    );
    client.wait_screen("workspace 3 split like the template", |sc| {
        frames_on_top_row(sc) == 2
    });
    let info = conn.ok("session-info", json!({"session": s}));
    assert_eq!(info["tiling_mode"], "tiling", "{info}");

    // Loading again with the windows there opens nothing.
    let again = run_command(&mut conn, &s, "LoadLayout", &["dev"]);
    assert_eq!(again["opened"], 0, "{again}");
    assert_eq!(windows_on(&mut conn, &s, 3).len(), 2);

    // A name that could reach outside the directory is refused before routing.
    let e = conn.err_code(
        "run-command",
        json!({"session": s, "command": "SaveLayout", "args": ["../escape"]}),
        "invalid_params",
    );
    assert_eq!(e["hint"]["param"], "args", "{e}");
    assert!(!daemon.dir().join("config/tuios/escape.json").exists());
    // An unknown template names the ones there are.
    let e = conn.err_code(
        "run-command",
        json!({"session": s, "command": "LoadLayout", "args": ["nope"]}),
        "command_failed",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("no layout named nope; saved layouts: dev"),
        "{e}"
    );
    // Deleted from the CLI, it is gone for the client too.
    let deleted = daemon.cli(&["layout", "delete", "dev"]);
    assert!(deleted.status.success(), "{deleted:?}");
    assert!(!path.exists());
    let again = daemon.cli(&["layout", "delete", "dev"]);
    assert!(!again.status.success(), "{again:?}");
    drop(client);
}

#[test]
fn layouts_need_an_attached_client() {
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("headless");
    let mut conn = daemon.conn();
    for command in ["SaveLayout", "LoadLayout"] {
        let e = conn.err_code(
            "run-command",
            json!({"session": s, "command": command, "args": ["dev"]}),
            "needs_client",
        );
        assert!(e["message"].is_string(), "{e}");
    }
    // The argument is checked first, attached or not.
    conn.err_code(
        "run-command",
        json!({"session": s, "command": "SaveLayout", "args": [".hidden"]}),
        "invalid_params",
    );
    let e = conn.err_code(
        "run-command",
        json!({"session": s, "command": "SaveLayout", "args": []}),
        "invalid_params",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("SaveLayout takes exactly 1 argument"),
        "{e}"
    );
}
