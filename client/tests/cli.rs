//! Runs the real `tuios` binary: help output and behaviour with no daemon.

mod common;

use common::{tuios, tuios_command, DaemonGuard};
use std::io::{BufRead, BufReader, Read};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

/// Lines of a child's pipe, read on a thread so the test can wait for them with a deadline.
fn lines_of(pipe: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

#[test]
fn help_lists_the_verb_commands_with_registry_descriptions() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    // `tuios --help` shows the commands people start with; `help --all` lists every one.
    let out = tuios(&dir.path().join("tuios.sock"), &["help", "--all"]);
    assert!(out.status.success(), "{out:?}");
    let help = String::from_utf8(out.stdout).unwrap();
    for cmd in [
        "new",
        "ls",
        "kill-session",
        "kill-server",
        "list-verbs",
        "call",
        "send-keys",
        "send-text",
        "capture-pane",
        "list-windows",
        "new-window",
        "session-info",
        "resize",
        "wait-for",
        "subscribe",
        "daemon",
        "list-workspaces",
        "run-command",
        "set-option",
        "hello",
    ] {
        assert!(
            help.lines().any(|l| l.trim_start().starts_with(cmd)),
            "`tuios help --all` does not list {cmd}:\n{help}"
        );
    }
    // A command's own --help is the verb's whole registry description.
    let out = tuios(&dir.path().join("tuios.sock"), &["send-keys", "--help"]);
    assert!(out.status.success(), "{out:?}");
    let help = String::from_utf8(out.stdout).unwrap();
    let send_keys = protocol::registry::find_verb("send-keys").expect("send-keys is a verb");
    let first_line = send_keys.description.lines().next().unwrap_or_default();
    assert!(
        help.contains(first_line),
        "send-keys help is not the registry description:\n{help}"
    );
}

#[test]
fn control_commands_without_a_daemon_exit_3_and_say_how_to_start_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let socket = dir.path().join("tuios.sock");
    let commands: &[&[&str]] = &[
        &["list-windows"],
        &["ls"],
        &["send-text", "-s", "work", "hello"],
        &["capture-pane"],
        &["call", "list-sessions"],
    ];
    for args in commands {
        let out = tuios(&socket, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "no tuios daemon is running on {}",
                socket.display()
            )),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains("new -d NAME"), "{args:?}: {stderr}");
        assert!(stderr.contains("tuios daemon"), "{args:?}: {stderr}");
        assert!(!socket.exists(), "{args:?} must not start a daemon");
    }
}

#[test]
fn socket_flag_overrides_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let env_socket = dir.path().join("env.sock");
    let flag_socket = dir.path().join("flag.sock");
    let out = tuios(
        &env_socket,
        &["--socket", flag_socket.to_str().unwrap(), "session-info"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains(&flag_socket.display().to_string()),
        "{stderr}"
    );
    assert!(
        stderr.contains("--socket"),
        "the hint keeps the socket: {stderr}"
    );
}

#[test]
fn kill_server_without_a_daemon_is_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let out = tuios(&dir.path().join("tuios.sock"), &["kill-server"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("not running"));
}

#[test]
fn a_stale_socket_counts_as_no_daemon_and_kill_server_removes_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let socket = dir.path().join("tuios.sock");
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    assert!(socket.exists());
    let out = tuios(&socket, &["list-windows"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let out = tuios(&socket, &["kill-server"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(!socket.exists(), "kill-server removes a stale socket");
}

#[test]
fn new_starts_a_daemon_and_kill_server_stops_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let socket = dir.path().join("tuios.sock");
    let _guard = DaemonGuard(socket.clone());

    let out = tuios(&socket, &["new", "-d", "work"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(stdout.starts_with("created session work\n"), "{stdout}");
    assert!(stdout.contains("tuios capture-pane -s work"), "{stdout}");

    let out = tuios(&socket, &["new", "-d", "work"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a second session named work: {out:?}"
    );

    let out = tuios(&socket, &["ls", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let sessions: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = sessions
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["work"]);

    let out = tuios(&socket, &["list-windows", "-s", "nope"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains("hint: "), "{stderr}");

    let out = tuios(&socket, &["kill-server"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        !socket.exists(),
        "the socket is gone once kill-server returns"
    );
}

#[test]
fn wait_for_and_subscribe_against_a_real_daemon() {
    const DEADLINE: Duration = Duration::from_secs(20);
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let socket = dir.path().join("tuios.sock");
    let _guard = DaemonGuard(socket.clone());

    let out = tuios(&socket, &["new", "-d", "w"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");

    // The shell expands $((40+2)), so only its output, not the typed command, says MARK-42.
    let out = tuios(&socket, &["send-text", "-s", "w", "echo MARK-$((40+2))\n"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = tuios(
        &socket,
        &[
            "wait-for",
            "window-output",
            "-s",
            "w",
            "--pattern",
            "MARK-42",
            "--timeout",
            "10000",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "matched: match \"MARK-42\"\n"
    );

    let out = tuios(
        &socket,
        &[
            "wait-for",
            "window-output",
            "-s",
            "w",
            "--pattern",
            "never",
            "--timeout",
            "300",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains("hint: "), "{stderr}");

    let out = tuios(&socket, &["wait-for", "window-exit", "-s", "nope"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    // A usage error must not look like a timeout.
    let out = tuios(&socket, &["wait-for", "window-outptu"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("window-output"));

    let mut child = tuios_command(
        &socket,
        &["subscribe", "-s", "w", "--types", "window-created"],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("tuios subscribe starts");
    let events = lines_of(child.stdout.take().unwrap());
    let notes = lines_of(child.stderr.take().unwrap());
    // No backfill: the window must be created only once the stream exists.
    let ack = notes
        .recv_timeout(DEADLINE)
        .expect("subscribe acknowledges");
    assert!(ack.starts_with("subscribed (seq "), "{ack}");

    let out = tuios(&socket, &["new-window", "-s", "w", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let created: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();

    let line = events.recv_timeout(DEADLINE).expect("an event arrives");
    let event: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(event["type"], "window-created", "{line}");
    assert_eq!(event["session"], "w", "{line}");
    assert_eq!(event["window"], created["window_id"], "{line}");

    // SAFETY: kill has no memory preconditions; the pid is the child this test spawned.
    let pid = i32::try_from(child.id()).unwrap();
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "SIGTERM ends a stream quietly");
}

#[test]
fn run_command_list_and_argument_counts_need_no_daemon() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let socket = dir.path().join("tuios.sock");
    let out = tuios(&socket, &["run-command", "--list"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("COMMAND"), "{text}");
    assert!(text.contains("SwitchWorkspace <n>"), "{text}");

    let out = tuios(&socket, &["run-command", "SwitchWorkspace"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("SwitchWorkspace takes"), "{stderr}");
    assert!(!socket.exists(), "no daemon was started");
}

#[test]
fn workspace_window_and_option_commands_against_a_real_daemon() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let socket = dir.path().join("tuios.sock");
    let _guard = DaemonGuard(socket.clone());
    let ok = |args: &[&str]| -> String {
        let out = tuios(&socket, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let json = |args: &[&str]| -> serde_json::Value {
        let mut all = args.to_vec();
        all.push("--json");
        serde_json::from_str(&ok(&all)).unwrap()
    };

    ok(&["new", "-d", "w"]);
    let hello = json(&["hello"]);
    assert_eq!(hello["protocol"], protocol::PROTOCOL_VERSION);
    assert_eq!(hello["sessions"], 1);
    assert!(ok(&["hello"]).starts_with("tuios daemon "));

    let created = json(&["new-window", "-s", "w", "build"]);
    let id = created["window_id"].as_str().unwrap().to_string();
    let moved = ok(&["move-window", "-s", "w", "-w", "build", "2", "--follow"]);
    assert_eq!(
        moved,
        format!(
            "moved window {} from workspace 1 to 2; showing workspace 2\n",
            &id[..8]
        )
    );
    ok(&["set-workspace-name", "-s", "w", "2", "builds"]);
    let table = ok(&["list-workspaces", "-s", "w"]);
    let rows: Vec<Vec<&str>> = table
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows[0], ["WS", "NAME", "WINDOWS", "CURRENT"]);
    assert_eq!(rows[2], ["2", "builds", "1", "yes"], "{table}");
    assert_eq!(
        json(&["list-workspaces", "-s", "w"])["current_workspace"],
        2
    );

    assert!(ok(&["select-workspace", "-s", "w", "1"]).starts_with("showing workspace 1"));
    assert!(ok(&["focus-window", "-s", "w", "build"]).contains("on workspace 2"));
    assert_eq!(
        ok(&["set-window", "-s", "w", "--name", "b2", "--minimize"]),
        format!("window {}: named \"b2\", minimized\n", &id[..8])
    );
    let out = tuios(&socket, &["split-window", "-s", "w", "vertical"]);
    assert_eq!(out.status.code(), Some(1), "needs a client: {out:?}");

    assert_eq!(ok(&["get-config", "-s", "w", "border_style"]), "rounded\n");
    ok(&["set-config", "-s", "w", "border_style", "thick"]);
    assert_eq!(ok(&["get-option", "-s", "w", "border_style"]), "thick\n");
    assert_eq!(
        json(&["get-option", "-s", "w", "border_style"])["source"],
        "session"
    );
    let options = ok(&["list-options", "-s", "w", "appearance.border_style"]);
    assert!(options.starts_with("PATH"), "{options}");
    assert!(
        options.lines().nth(1).unwrap().contains("thick"),
        "{options}"
    );
    assert!(ok(&["list-themes", "dracula"]).contains("CONTRAST"));
    assert_eq!(
        json(&["run-command", "-s", "w", "GetWindow", "b2"])["window_id"],
        id.as_str()
    );
    ok(&["close-window", "-s", "w", "-w", "b2"]);
    ok(&["kill-server"]);
}
