//! run-command end to end on a headless daemon: the commands the daemon runs itself change
//! the state they name and answer `routed:false`; client-only commands answer `needs_client`;
//! names and argument counts are checked first.

use serde_json::{json, Value};
use tuios_integration_tests::*;

/// run-command that must succeed; checks the common result keys.
fn run(conn: &mut JsonConn, session: &str, command: &str, args: &[&str]) -> Value {
    let r = conn.ok(
        "run-command",
        json!({"session": session, "command": command, "args": args}),
    );
    assert_eq!(r["type"], "command_result", "{r}");
    assert_eq!(r["command"], command, "{r}");
    assert_eq!(r["routed"], false, "the daemon ran it itself: {r}");
    r
}

/// run-command that must fail with `code`.
fn run_err(conn: &mut JsonConn, session: &str, command: &str, args: &[&str], code: &str) -> Value {
    conn.err_code(
        "run-command",
        json!({"session": session, "command": command, "args": args}),
        code,
    )
}

fn list(conn: &mut JsonConn, session: &str) -> Value {
    conn.ok("list-windows", json!({"session": session}))
}

fn row(conn: &mut JsonConn, session: &str, id: &str) -> Option<Value> {
    list(conn, session)["windows"]
        .as_array()
        .expect("windows")
        .iter()
        .find(|w| w["window_id"] == id)
        .cloned()
}

fn focused(conn: &mut JsonConn, session: &str) -> String {
    list(conn, session)["focused_window_id"]
        .as_str()
        .expect("focused_window_id")
        .to_string()
}

fn new_window(conn: &mut JsonConn, session: &str, args: &[&str]) -> String {
    let r = run(conn, session, "NewWindow", args);
    r["window_id"]
        .as_str()
        .unwrap_or_else(|| panic!("NewWindow without window_id: {r}"))
        .to_string()
}

#[test]
fn new_window_and_close_window() {
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("rc");
    let s = session.as_str();
    let mut conn = daemon.conn();

    // No arguments: a shell window, focused, on the current workspace.
    conn.ok("select-workspace", json!({"session": s, "workspace": 3}));
    let r = run(&mut conn, s, "NewWindow", &[]);
    let plain = r["window_id"].as_str().expect("window_id").to_string();
    assert_eq!(
        r["name"],
        format!("Terminal {}", &plain[..8]).as_str(),
        "{r}"
    );
    let w = row(&mut conn, s, &plain).expect("listed");
    assert_eq!(w["workspace"], 3, "{w}");
    assert_eq!(w["focused"], true, "{w}");
    assert!(w.get("custom_name").is_none(), "{w}");

    // A name.
    let r = run(&mut conn, s, "NewWindow", &["logs"]);
    assert_eq!(r["name"], "logs", "{r}");
    let logs = r["window_id"].as_str().unwrap().to_string();
    let w = row(&mut conn, s, &logs).expect("listed");
    assert_eq!(w["custom_name"], "logs", "{w}");
    assert_eq!(focused(&mut conn, s), logs);

    // A name and an argv, run without a shell.
    let runner = new_window(
        &mut conn,
        s,
        &[
            "runner",
            "/bin/sh",
            "-c",
            "echo ran-$((40+2)); exec sleep 1000",
        ],
    );
    conn.wait_for_line(s, &runner, "ran-42");
    assert_eq!(row(&mut conn, s, &runner).unwrap()["custom_name"], "runner");

    // An empty program is refused.
    let error = run_err(&mut conn, s, "NewWindow", &["x", ""], "invalid_params");
    assert_eq!(error["hint"]["param"], "args", "{error}");
    assert_eq!(list(&mut conn, s)["total"], 4);

    // CloseWindow with a target, then without (the focused window).
    let r = run(&mut conn, s, "CloseWindow", &["logs"]);
    assert!(r.get("window_id").is_none(), "{r}");
    assert!(row(&mut conn, s, &logs).is_none());
    assert_eq!(focused(&mut conn, s), runner);
    run(&mut conn, s, "CloseWindow", &[]);
    assert!(row(&mut conn, s, &runner).is_none());
    assert_eq!(list(&mut conn, s)["total"], 2);
    run_err(&mut conn, s, "CloseWindow", &["ghost"], "window_not_found");
    run(&mut conn, s, "CloseWindow", &[&first]);
    run(&mut conn, s, "CloseWindow", &[&plain]);
    run_err(&mut conn, s, "CloseWindow", &[], "no_windows");
}

#[test]
fn focus_commands_move_the_focus() {
    let daemon = TestDaemon::start();
    let (session, a) = daemon.session_with_window("rc");
    let s = session.as_str();
    let mut conn = daemon.conn();
    let b = new_window(&mut conn, s, &["b"]);
    let c = new_window(&mut conn, s, &["c"]);
    let far = conn.new_window_id(s, json!({"name": "far", "workspace": 5, "focus": false}));
    assert_eq!(focused(&mut conn, s), c);

    run(&mut conn, s, "NextWindow", &[]);
    assert_eq!(focused(&mut conn, s), a, "next wraps around workspace 1");
    run(&mut conn, s, "NextWindow", &[]);
    assert_eq!(focused(&mut conn, s), b);
    run(&mut conn, s, "PrevWindow", &[]);
    run(&mut conn, s, "PrevWindow", &[]);
    assert_eq!(focused(&mut conn, s), c, "prev wraps around workspace 1");

    // FocusWindow switches to the window's workspace.
    run(&mut conn, s, "FocusWindow", &["far"]);
    let l = list(&mut conn, s);
    assert_eq!(l["focused_window_id"], far.as_str(), "{l}");
    assert_eq!(l["current_workspace"], 5, "{l}");
    run(&mut conn, s, "FocusWindow", &[&a]);
    let l = list(&mut conn, s);
    assert_eq!(l["focused_window_id"], a.as_str(), "{l}");
    assert_eq!(l["current_workspace"], 1, "{l}");
    run_err(&mut conn, s, "FocusWindow", &["ghost"], "window_not_found");
    assert_eq!(focused(&mut conn, s), a);

    // Stepping on an empty workspace.
    conn.ok("select-workspace", json!({"session": s, "workspace": 8}));
    run_err(&mut conn, s, "NextWindow", &[], "no_windows");
}

#[test]
fn rename_minimize_and_restore() {
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("rc");
    let s = session.as_str();
    let mut conn = daemon.conn();
    let other = conn.new_window_id(s, json!({"name": "other", "focus": false}));

    // One argument: the focused window.
    run(&mut conn, s, "RenameWindow", &["main"]);
    assert_eq!(row(&mut conn, s, &first).unwrap()["custom_name"], "main");
    // Two: the target first.
    run(&mut conn, s, "RenameWindow", &["other", "renamed"]);
    let w = row(&mut conn, s, &other).unwrap();
    assert_eq!(w["custom_name"], "renamed", "{w}");
    assert_eq!(w["display_name"], "renamed", "{w}");
    run_err(
        &mut conn,
        s,
        "RenameWindow",
        &["ghost", "x"],
        "window_not_found",
    );
    // An empty name clears it.
    run(&mut conn, s, "RenameWindow", &["renamed", ""]);
    assert!(row(&mut conn, s, &other)
        .unwrap()
        .get("custom_name")
        .is_none());

    // MinimizeWindow / RestoreWindow, on the focused window and on a target.
    run(&mut conn, s, "MinimizeWindow", &[]);
    assert_eq!(row(&mut conn, s, &first).unwrap()["minimized"], true);
    run(&mut conn, s, "MinimizeWindow", &[&other]);
    assert_eq!(row(&mut conn, s, &other).unwrap()["minimized"], true);
    run(&mut conn, s, "RestoreWindow", &["main"]);
    assert_eq!(row(&mut conn, s, &first).unwrap()["minimized"], false);
    run(&mut conn, s, "RestoreWindow", &[&other]);
    assert_eq!(row(&mut conn, s, &other).unwrap()["minimized"], false);
    run_err(
        &mut conn,
        s,
        "MinimizeWindow",
        &["ghost"],
        "window_not_found",
    );
}

#[test]
fn workspace_commands() {
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("rc");
    let s = session.as_str();
    let mut conn = daemon.conn();

    run(&mut conn, s, "SwitchWorkspace", &["4"]);
    assert_eq!(list(&mut conn, s)["current_workspace"], 4);
    run(&mut conn, s, "SwitchWorkspace", &[" 1 "]);
    assert_eq!(list(&mut conn, s)["current_workspace"], 1);

    // MoveToWorkspace moves the focused window and stays.
    run(&mut conn, s, "MoveToWorkspace", &["5"]);
    let l = list(&mut conn, s);
    assert_eq!(l["windows"][0]["workspace"], 5, "{l}");
    assert_eq!(l["current_workspace"], 1, "{l}");
    assert_eq!(l["focused_window_id"], first.as_str(), "{l}");

    // MoveAndFollowWorkspace moves it and goes with it.
    run(&mut conn, s, "MoveAndFollowWorkspace", &["6"]);
    let l = list(&mut conn, s);
    assert_eq!(l["windows"][0]["workspace"], 6, "{l}");
    assert_eq!(l["current_workspace"], 6, "{l}");
    assert_eq!(l["focused_window_id"], first.as_str(), "{l}");

    // Workspace arguments: a number in 1..9, else invalid_params on args.
    for command in [
        "SwitchWorkspace",
        "MoveToWorkspace",
        "MoveAndFollowWorkspace",
    ] {
        for bad in ["x", "0", "10", "-1", "2.5", ""] {
            let error = run_err(&mut conn, s, command, &[bad], "invalid_params");
            assert_eq!(error["hint"]["param"], "args", "{command} {bad:?}: {error}");
        }
        let error = run_err(&mut conn, s, command, &["10"], "invalid_params");
        let detail = error["hint"]["detail"].as_str().unwrap_or_default();
        assert!(
            detail.contains('1') && detail.contains('9'),
            "the range is in the detail: {error}"
        );
    }
    let l = list(&mut conn, s);
    assert_eq!(
        l["windows"][0]["workspace"], 6,
        "refusals change nothing: {l}"
    );
    assert_eq!(l["current_workspace"], 6, "{l}");
}

#[test]
fn read_only_commands_return_their_data() {
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("rc");
    let s = session.as_str();
    let mut conn = daemon.conn();
    let second = conn.new_window_id(s, json!({"name": "second", "focus": false}));

    let r = run(&mut conn, s, "ListWindows", &[]);
    let l = list(&mut conn, s);
    for key in [
        "windows",
        "total",
        "focused_index",
        "focused_window_id",
        "current_workspace",
        "workspace_windows",
    ] {
        assert_eq!(r[key], l[key], "ListWindows {key}: {r}");
    }

    let r = run(&mut conn, s, "GetSessionInfo", &[]);
    assert_eq!(r["session_name"], "rc", "{r}");
    assert_eq!(r["tui_attached"], false, "{r}");
    assert_eq!(r["window_count"], 2, "{r}");
    assert_eq!(r["num_workspaces"], 9, "{r}");

    let r = run(&mut conn, s, "GetWindow", &[]);
    assert_eq!(r["window_id"], first.as_str(), "the focused window: {r}");
    assert_eq!(r["focused"], true, "{r}");
    let r = run(&mut conn, s, "GetWindow", &["second"]);
    assert_eq!(r["window_id"], second.as_str(), "{r}");
    assert_eq!(r["custom_name"], "second", "{r}");
    assert_eq!(r["workspace"], 1, "{r}");
    run_err(&mut conn, s, "GetWindow", &["ghost"], "window_not_found");

    // Without a session name: the most recently active session.
    let r = conn.ok("run-command", json!({"command": "GetSessionInfo"}));
    assert_eq!(r["session_name"], "rc", "{r}");
    run_err(&mut conn, "nope", "ListWindows", &[], "session_not_found");
}

#[test]
fn names_and_argument_counts_are_checked() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("rc");
    let s = session.as_str();
    let mut conn = daemon.conn();
    let before = list(&mut conn, s);

    // Unknown names: invalid_params on command, with the nearest name and the vocabulary.
    for (bad, near) in [
        ("SwitchWorkpace", "SwitchWorkspace"),
        ("switchworkspace", "SwitchWorkspace"),
        ("newwindow", "NewWindow"),
    ] {
        let error = run_err(&mut conn, s, bad, &["2"], "invalid_params");
        assert_eq!(error["hint"]["param"], "command", "{error}");
        assert_eq!(error["hint"]["did_you_mean"], near, "{error}");
        let accepted = strings(&error["hint"]["accepted"]);
        assert!(accepted.contains(&"SwitchWorkspace".to_string()), "{error}");
        assert!(accepted.contains(&"NewWindow".to_string()), "{error}");
    }
    // Checked before the session is looked up.
    let error = run_err(&mut conn, "nope", "Sleep", &["1s"], "invalid_params");
    assert_eq!(error["hint"]["param"], "command", "{error}");
    for params in [json!({"session": s}), json!({"session": s, "command": ""})] {
        let error = conn.err_code("run-command", params, "invalid_params");
        assert_eq!(error["hint"]["param"], "command", "{error}");
    }

    // Wrong argument counts: invalid_params on args, with the usage.
    let cases: &[(&str, &[&str])] = &[
        ("ListWindows", &["x"]),
        ("GetSessionInfo", &["x"]),
        ("NextWindow", &["1"]),
        ("RenameWindow", &[]),
        ("RenameWindow", &["a", "b", "c"]),
        ("FocusWindow", &[]),
        ("SwitchWorkspace", &[]),
        ("SwitchWorkspace", &["1", "2"]),
        ("MoveToWorkspace", &[]),
        ("CloseWindow", &["a", "b"]),
        ("Split", &[]),
        ("Type", &[]),
        ("ToggleTiling", &["now"]),
    ];
    for (command, args) in cases {
        let error = run_err(&mut conn, s, command, args, "invalid_params");
        assert_eq!(
            error["hint"]["param"], "args",
            "{command} {args:?}: {error}"
        );
        let detail = error["hint"]["detail"].as_str().unwrap_or_default();
        assert!(
            detail.contains(command),
            "the detail gives the usage: {error}"
        );
    }
    // args must be strings.
    let error = conn.err_code(
        "run-command",
        json!({"session": s, "command": "SwitchWorkspace", "args": [2]}),
        "invalid_params",
    );
    assert_eq!(error["hint"]["param"], "args", "{error}");

    let after = list(&mut conn, s);
    assert_eq!(before["total"], after["total"], "{after}");
    assert_eq!(
        before["current_workspace"], after["current_workspace"],
        "{after}"
    );
}

#[test]
fn client_only_commands_need_a_client() {
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("rc");
    let s = session.as_str();
    let mut conn = daemon.conn();
    let before = list(&mut conn, s);

    let cases: &[(&str, &[&str])] = &[
        ("Split", &["vertical"]),
        ("Type", &["echo hi"]),
        ("ToggleTiling", &[]),
        ("EnableTiling", &[]),
        ("FocusDirection", &["left"]),
        ("Enter", &[]),
        ("KeyCombo", &["ctrl+b"]),
        ("SetTheme", &["dracula"]),
        ("Detach", &[]),
        ("SnapLeft", &[]),
    ];
    for (command, args) in cases {
        let error = run_err(&mut conn, s, command, args, "needs_client");
        assert_eq!(
            error["hint"]["command"],
            format!("tuios attach {s}").as_str(),
            "{error}"
        );
    }
    // The session is checked before the client.
    run_err(
        &mut conn,
        "nope",
        "Split",
        &["vertical"],
        "session_not_found",
    );

    let after = list(&mut conn, s);
    assert_eq!(before["total"], after["total"], "{after}");
    assert_eq!(after["focused_window_id"], first.as_str(), "{after}");
    // Type typed nothing into the focused window.
    let text = conn.capture(s, &first, json!({"source": "recent"}));
    assert!(!text.contains("echo hi"), "{text}");
}

/// The commands a headless daemon runs itself; every other command of the vocabulary needs a
/// client.
const DAEMON_COMMANDS: [&str; 14] = [
    "CloseWindow",
    "FocusWindow",
    "GetSessionInfo",
    "GetWindow",
    "ListWindows",
    "MinimizeWindow",
    "MoveAndFollowWorkspace",
    "MoveToWorkspace",
    "NewWindow",
    "NextWindow",
    "PrevWindow",
    "RenameWindow",
    "RestoreWindow",
    "SwitchWorkspace",
];

#[test]
fn every_other_published_command_needs_a_client() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("rc");
    let s = session.as_str();
    let mut conn = daemon.conn();
    let described = conn.ok("list-verbs", json!({"verb": "run-command"}));
    let command_param = described["verbs"][0]["params"]
        .as_array()
        .expect("params")
        .iter()
        .find(|p| p["name"] == "command")
        .cloned()
        .expect("run-command has a command param");
    let published = strings(&command_param["accepted"]);
    for name in DAEMON_COMMANDS {
        assert!(
            published.iter().any(|p| p == name),
            "{name} is not published"
        );
    }

    let mut client_only = 0;
    for name in published
        .iter()
        .filter(|n| !DAEMON_COMMANDS.contains(&n.as_str()))
    {
        // Find an argument count the command takes: the count is checked before the client.
        let mut answered = None;
        // Arguments each command takes (values are checked before the client too).
        for args in [
            vec![],
            vec!["x"],
            vec!["x", "y"],
            vec!["left"],
            vec!["vertical"],
            vec!["top"],
            vec!["rounded"],
            vec!["dracula"],
            vec!["appearance.border_style", "rounded"],
        ] {
            let resp = conn.call(
                "run-command",
                json!({"session": s, "command": name, "args": args}),
            );
            let error = &resp["error"];
            if error["code"] == "invalid_params" && error["hint"]["param"] == "args" {
                continue;
            }
            answered = Some(resp);
            break;
        }
        let resp = answered.unwrap_or_else(|| panic!("{name}: no argument count was taken"));
        assert_eq!(
            resp["error"]["code"], "needs_client",
            "{name} should need a client: {resp}"
        );
        client_only += 1;
    }
    assert!(client_only >= 30, "{client_only} client-only commands");
    assert_eq!(list(&mut conn, s)["total"], 1);
}
