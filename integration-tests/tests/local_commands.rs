//! Commands that work on local files (issue 34 item 6): `logs` finds and follows the daemon's
//! log, `keybinds` lists the bindings an attach uses, `config edit|reset` manage the file.
//! (`layout list|export|delete` are tested with a real saved template in layouts.rs.)

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;
use tuios_integration_tests::*;

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn logs_shows_and_follows_a_background_daemons_file() {
    let env = TestEnv::new();
    // No daemon runs: `new -d` starts one in the background, which logs to the state dir.
    let made = run_with_deadline(
        {
            let mut c = env.command(&["new", "-d", "first"]);
            c.env("TUIOS_LOG", "info");
            c
        },
        Duration::from_secs(30),
    );
    let mut guard = PidGuard(None);
    if let Ok(pid) = std::fs::read_to_string(env.pid_file()) {
        guard.0 = pid.trim().parse().ok();
    }
    assert!(made.status.success(), "{made:?}");
    let file = env.dir().join("state/tuios/daemon.log");

    let path = env.cli(&["logs", "--path"]);
    assert!(path.status.success(), "{path:?}");
    assert_eq!(stdout(&path).trim(), file.display().to_string());

    let shown = env.cli(&["logs", "-n", "50"]);
    assert!(shown.status.success(), "{shown:?}");
    assert!(
        stdout(&shown).contains("session=first"),
        "{}",
        stdout(&shown)
    );
    let last = env.cli(&["logs", "-n", "1"]);
    assert_eq!(stdout(&last).lines().count(), 1, "{}", stdout(&last));

    // --follow prints what the daemon writes after it started.
    let mut follow = env.command(&["logs", "-f", "-n", "1"]);
    let mut child = follow
        .stdout(Stdio::piped())
        .spawn()
        .expect("start tuios logs -f");
    let (tx, rx) = mpsc::channel();
    let out = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    // Its one old line says it has read the file: what comes next was written after.
    let old = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("tuios logs -f shows the last line first");
    assert!(old.contains("session=first"), "{old}");
    let made = env.cli(&["new", "-d", "second"]);
    assert!(made.status.success(), "{made:?}");
    let mut seen = Vec::new();
    let found = loop {
        match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(line) if line.contains("session=second") => break true,
            Ok(line) => seen.push(line),
            Err(_) => break false,
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(found, "followed lines: {seen:?}");
    assert!(
        !seen.iter().any(|l| l.contains("session=first")),
        "old lines shown again: {seen:?}"
    );

    // With the daemon gone, the last background daemon's file is still shown, saying so.
    assert!(env.cli(&["kill-server"]).status.success());
    guard.0 = None;
    let after = env.cli(&["logs", "-n", "50"]);
    assert!(after.status.success(), "{after:?}");
    assert!(
        stdout(&after).contains("session=second"),
        "{}",
        stdout(&after)
    );
    assert!(
        stderr(&after).contains("no daemon is running"),
        "{}",
        stderr(&after)
    );
}

#[test]
fn logs_of_a_daemon_writing_to_a_pipe_say_where_they_go() {
    let env = TestEnv::new();
    let mut cmd = env.command(&["daemon"]);
    let mut child = cmd
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tuios daemon");
    wait_until(DEADLINE, "the daemon to accept connections", || {
        std::os::unix::net::UnixStream::connect(env.socket()).ok()
    });
    let out = env.cli(&["logs"]);
    let path = env.cli(&["logs", "--path"]);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(stderr(&out).contains("a pipe"), "{}", stderr(&out));
    assert!(stdout(&path).contains("a pipe"), "{}", stdout(&path));
}

#[test]
fn keybinds_lists_the_leader_from_the_config() {
    let env = TestEnv::new();
    let dir = env.dir().join("config/tuios");
    std::fs::create_dir_all(&dir).unwrap();
    let text = env.cli(&["keybinds"]);
    assert!(text.status.success(), "{text:?}");
    assert!(
        stdout(&text).starts_with("leader: ctrl+b"),
        "{}",
        stdout(&text)
    );
    std::fs::write(
        dir.join("config.toml"),
        "[keybindings]\nleader_key = \"ctrl+a\"\n",
    )
    .unwrap();
    let json = env.cli(&["kb", "--json"]);
    assert!(json.status.success(), "{json:?}");
    let v: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["leader"], "ctrl+a", "{v}");
    let rows = v["after_leader"].as_array().unwrap();
    assert!(
        rows.iter()
            .any(|b| b["keys"] == "d" && b["what"] == "detach"),
        "{v}"
    );
}

#[test]
fn config_edit_checks_what_was_saved_and_reset_keeps_a_backup() {
    let env = TestEnv::new();
    let file = env.dir().join("config/tuios/config.toml");
    // The "editor" writes a file with a key the daemon does not know.
    let mut bad = env.command(&["config", "edit"]);
    bad.env("EDITOR", "printf '[daemon]\\nbogus = 1\\n' >");
    let out = run_with_deadline(bad, Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(stderr(&out).contains("bogus"), "{}", stderr(&out));

    let mut good = env.command(&["config", "edit"]);
    good.env("EDITOR", "printf '[daemon]\\nscrollback_lines = 500\\n' >");
    let out = run_with_deadline(good, Duration::from_secs(30));
    assert!(out.status.success(), "{out:?}");
    assert!(stdout(&out).contains("is valid"), "{}", stdout(&out));

    let out = env.cli(&["config", "reset"]);
    assert!(out.status.success(), "{out:?}");
    let backup = std::fs::read_to_string(file.with_extension("toml.bak")).unwrap();
    assert!(backup.contains("scrollback_lines = 500"), "{backup}");
    let example = stdout(&env.cli(&["config", "example"]));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), example);
}
