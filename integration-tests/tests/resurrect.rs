//! Sessions survive a restart: the daemon saves each session under
//! `$XDG_STATE_HOME/tuios/sessions/` and restores it when it starts again (SIGTERM, or SIGKILL
//! once the save debounce has passed), restores saved sessions into a running daemon with
//! `resurrect`, reports unusable files without stopping, and forgets killed sessions.
//!
//! Every TestEnv has its own XDG_STATE_HOME, so tests never see each other's (or the user's)
//! saved sessions.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use tuios_integration_tests::{
    is_event, poll, run_with_deadline, DaemonProcess, JsonConn, TestEnv, DEADLINE,
};

fn sessions_dir(env: &TestEnv) -> PathBuf {
    env.dir().join("state/tuios/sessions")
}

fn saved_file(env: &TestEnv, name: &str) -> PathBuf {
    sessions_dir(env).join(format!("{name}.json"))
}

/// The saved JSON of `name`, once `done` holds for it.
fn wait_saved(env: &TestEnv, name: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let file = saved_file(env, name);
    poll(DEADLINE, what, || {
        let text = std::fs::read_to_string(&file).map_err(|e| e.to_string())?;
        let v: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        if done(&v) {
            Ok(v)
        } else {
            Err(text)
        }
    })
}

fn start(env: &TestEnv) -> DaemonProcess {
    let mut proc = env.spawn_daemon();
    env.wait_for_socket(&mut proc);
    proc
}

fn conn(env: &TestEnv) -> JsonConn {
    JsonConn::connect(env.socket())
}

/// A directory of the test's own, with a name the shell prints unambiguously.
fn make_dir(env: &TestEnv, name: &str) -> PathBuf {
    let dir = env.dir().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The session the round-trip tests build: display name, accent, named workspaces and their
/// order, options, named windows in three directories on two workspaces (one minimized), a
/// command window that may run again and one that may not, focus on workspace 3.
struct Built {
    dir_logs: PathBuf,
    dir_build: PathBuf,
}

fn build_session(env: &TestEnv) -> Built {
    let out = env.cli(&["new", "-d", "work"]);
    assert!(out.status.success(), "{out:?}");
    let mut c = conn(env);
    let dir_logs = make_dir(env, "logs-dir");
    let dir_build = make_dir(env, "build-dir");
    c.ok(
        "set-session-name",
        json!({"session": "work", "name": "Work Space"}),
    );
    c.ok(
        "set-session-accent",
        json!({"session": "work", "accent": "#336699"}),
    );
    c.ok(
        "set-workspace-name",
        json!({"session": "work", "workspace": 3, "name": "logs"}),
    );
    c.ok(
        "set-workspace-order",
        json!({"session": "work", "order": [3, 1, 2]}),
    );
    c.ok(
        "set-option",
        json!({"session": "work", "key": "appearance.theme", "value": "nord"}),
    );
    c.ok(
        "set-option",
        json!({"session": "work", "key": "appearance.scrollback_lines", "value": "2000"}),
    );
    // `tail` may run again after a restart; `sleep` may not.
    c.ok(
        "set-option",
        json!({"session": "work", "key": "daemon.resurrect_commands", "value": "tail"}),
    );
    c.new_window(
        "work",
        json!({"name": "logs", "cwd": dir_logs, "workspace": 3}),
    );
    let build = c.new_window_id(
        "work",
        json!({"name": "build", "cwd": dir_build, "workspace": 2, "focus": false}),
    );
    c.ok(
        "set-window",
        json!({"session": "work", "window": build, "minimized": true}),
    );
    c.new_window(
        "work",
        json!({"name": "follow", "command": ["tail", "-f", "/dev/null"], "workspace": 2, "focus": false}),
    );
    c.new_window(
        "work",
        json!({"name": "nap", "command": ["sleep", "1000"], "cwd": dir_logs, "workspace": 3, "focus": false}),
    );
    c.ok("focus-window", json!({"session": "work", "window": "logs"}));
    Built {
        dir_logs,
        dir_build,
    }
}

/// What must be the same after a restart: the session's row, its info, its windows and its
/// options; fields that name a new PTY or a new moment are left out.
fn observe(c: &mut JsonConn) -> Value {
    let list = c.ok("list-sessions", json!({}));
    let mut row = list["sessions"]
        .as_array()
        .and_then(|s| s.iter().find(|r| r["name"] == "work"))
        .cloned()
        .unwrap_or_else(|| panic!("work is not listed: {list}"));
    let obj = row.as_object_mut().unwrap();
    obj.remove("last_active");
    obj.remove("restored");
    let mut info = c.ok("session-info", json!({"session": "work"}));
    let info_obj = info.as_object_mut().unwrap();
    info_obj.remove("waiters");
    let mut windows = c.ok("list-windows", json!({"session": "work"}));
    for w in windows["windows"].as_array_mut().unwrap() {
        let w = w.as_object_mut().unwrap();
        w.remove("pty_id");
        // The program's own title (OSC) may differ between two runs of a shell.
        w.remove("title");
    }
    let options: Vec<Value> = [
        "appearance.theme",
        "appearance.scrollback_lines",
        "daemon.resurrect_commands",
    ]
    .iter()
    .map(|k| c.ok("get-option", json!({"session": "work", "key": k})))
    .collect();
    json!({"row": row, "info": info, "windows": windows, "options": options})
}

/// The window named `name` runs its shell in `dir`.
fn assert_cwd(c: &mut JsonConn, name: &str, dir: &Path) {
    c.send_text("work", name, "echo \"cwd=$(pwd)\"\n");
    c.wait_for_text("work", name, &format!("cwd={}", dir.display()));
}

fn restored_flag(c: &mut JsonConn) -> Value {
    let list = c.ok("list-sessions", json!({}));
    list["sessions"][0]["restored"].clone()
}

fn check_restored(env: &TestEnv, built: &Built, before: &Value) {
    let mut c = conn(env);
    let after = observe(&mut c);
    assert_eq!(
        &after, before,
        "the session's structure changed across the restart"
    );
    assert_eq!(restored_flag(&mut c), json!(true));
    assert_cwd(&mut c, "logs", &built.dir_logs);
    assert_cwd(&mut c, "build", &built.dir_build);
    // Restored programs can tell (as in the Go daemon).
    c.send_text("work", "logs", "echo \"restored=${TUIOS_RESTORED-no}\"\n");
    c.wait_for_text("work", "logs", "restored=1");
    // The allowed command runs again; the other window is a shell with a note about it.
    let rows = c.ok("list-windows", json!({"session": "work"}));
    let follow = rows["windows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["display_name"] == "follow")
        .cloned()
        .unwrap();
    assert_eq!(follow["alive"], json!(true), "{follow}");
    c.wait_for_text(
        "work",
        "nap",
        "tuios: this window ran sleep 1000; it was not run again",
    );
    c.send_text("work", "nap", "echo \"nap-$((40+2))\"\n");
    c.wait_for_text("work", "nap", "nap-42");
}

#[test]
fn structure_round_trips_a_sigterm_restart() {
    let env = TestEnv::new();
    let mut first = start(&env);
    let built = build_session(&env);
    let before = observe(&mut conn(&env));
    assert_eq!(
        restored_flag(&mut conn(&env)),
        Value::Null,
        "a new session is not restored"
    );
    let status = first.terminate();
    assert!(status.success(), "{status}");
    assert!(saved_file(&env, "work").is_file(), "saved at shutdown");

    let _second = start(&env);
    check_restored(&env, &built, &before);

    // Once a client comes back to it, the session is no longer reported as restored.
    tuios_integration_tests::TmuxClient::require();
    let client = tuios_integration_tests::TmuxClient::start(&env, "work", 100, 30);
    client.wait_mode("TERM");
    poll(
        DEADLINE,
        "restored to clear on attach",
        || match restored_flag(&mut conn(&env)) {
            Value::Null => Ok(()),
            other => Err(format!("still reported: {other}")),
        },
    );
}

#[test]
fn structure_round_trips_a_sigkill_after_the_debounce() {
    let env = TestEnv::new();
    let mut first = start(&env);
    let built = build_session(&env);
    let before = observe(&mut conn(&env));
    // Wait until the file holds the finished structure: every window (the first one and the
    // four made here), the last change (focus on logs) and the working directories.
    wait_saved(&env, "work", "the session to be saved", |v| {
        let windows = v["windows"].as_array().cloned().unwrap_or_default();
        let logs = windows.iter().find(|w| w["name"] == "logs");
        windows.len() == 5
            && v["focused"] == logs.map(|w| w["id"].clone()).unwrap_or_default()
            && logs.is_some_and(|w| w["cwd"] == json!(built.dir_logs))
    });
    first.signal(libc::SIGKILL);
    assert!(first.wait_timeout(DEADLINE).is_some(), "SIGKILL ends it");
    // The programs of the killed daemon's windows are orphans now; the new daemon starts its
    // own. The stale socket is cleaned up by the new daemon.
    let _second = start(&env);
    check_restored(&env, &built, &before);
}

#[test]
fn files_are_private_and_kill_session_deletes_them() {
    let env = TestEnv::new();
    let mut daemon = start(&env);
    let out = env.cli(&["new", "-d", "gone"]);
    assert!(out.status.success(), "{out:?}");
    let file = saved_file(&env, "gone");
    poll(DEADLINE, "the new session to be saved", || {
        file.is_file().then_some(()).ok_or_else(String::new)
    });
    use std::os::unix::fs::MetadataExt;
    assert_eq!(std::fs::metadata(&file).unwrap().mode() & 0o777, 0o600);
    assert_eq!(
        std::fs::metadata(sessions_dir(&env)).unwrap().mode() & 0o777,
        0o700
    );
    let out = env.cli(&["kill-session", "gone"]);
    assert!(out.status.success(), "{out:?}");
    // Deleted before kill-session answered.
    assert!(!file.exists(), "kill-session leaves the saved file behind");
    daemon.terminate();
    assert!(!file.exists(), "shutdown brought the killed session back");
    let _again = start(&env);
    let list = conn(&env).ok("list-sessions", json!({}));
    assert_eq!(list["sessions"], json!([]), "{list}");
    assert_eq!(list["saved"], json!([]), "{list}");
}

#[test]
fn a_cd_alone_and_a_change_after_a_quiet_spell_are_saved() {
    // Saving is driven by changes, not a clock: a session that has gone quiet has no timer,
    // yet a `cd` at its prompt (output, no structural change) and a later rename still reach
    // the file.
    let env = TestEnv::new();
    let _daemon = start(&env);
    let out = env.cli(&["new", "-d", "quiet"]);
    assert!(out.status.success(), "{out:?}");
    let first = wait_saved(&env, "quiet", "the new session to be saved", |v| {
        v["windows"][0]["cwd"].is_string()
    });
    let id = first["windows"][0]["id"].as_str().unwrap().to_string();
    let dir = make_dir(&env, "moved-here");
    let mut c = conn(&env);
    c.send_text(
        "quiet",
        &id,
        &format!("cd '{}' && echo moved-$((40+2))\n", dir.display()),
    );
    c.wait_for_text("quiet", &id, "moved-42");
    // The refresh comes within seconds of the output, well after the check went quiet.
    wait_saved(
        &env,
        "quiet",
        "the new working directory to be saved",
        |v| v["windows"][0]["cwd"] == json!(dir),
    );
    c.ok(
        "set-window",
        json!({"session": "quiet", "window": id, "name": "renamed"}),
    );
    wait_saved(&env, "quiet", "the rename to be saved", |v| {
        v["windows"][0]["name"] == "renamed"
    });
}

/// A minimal saved file in the current format, as a person or an older daemon might write it.
fn handwritten(name: &str, dir: &Path) -> Value {
    json!({
        "version": 1,
        "name": name,
        "width": 80,
        "height": 24,
        "current_workspace": 1,
        "windows": [
            {"id": format!("{name}-one"), "name": "one", "workspace": 1, "cwd": dir},
            {"id": format!("{name}-two"), "name": "two", "workspace": 2, "cwd": dir},
        ],
    })
}

fn write_saved(env: &TestEnv, name: &str, bytes: &[u8]) -> PathBuf {
    std::fs::create_dir_all(sessions_dir(env)).unwrap();
    let file = saved_file(env, name);
    std::fs::write(&file, bytes).unwrap();
    file
}

/// Start a daemon beside a good saved session and a bad file `bad.json`; the good one is
/// restored, the bad one is reported with `reason_part` and left alone.
fn bad_file_is_reported(bytes: &[u8], reason_part: &str) {
    let env = TestEnv::new();
    let dir = make_dir(&env, "good-dir");
    write_saved(
        &env,
        "good",
        &serde_json::to_vec(&handwritten("good", &dir)).unwrap(),
    );
    let bad = write_saved(&env, "bad", bytes);
    let _daemon = start(&env);
    let mut c = conn(&env);
    let list = c.ok("list-sessions", json!({}));
    let names: Vec<&str> = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["good"], "{list}");
    let windows = c.window_ids("good");
    assert_eq!(windows, ["good-one", "good-two"]);
    let unreadable = list["unreadable"].as_array().unwrap();
    assert_eq!(unreadable.len(), 1, "{list}");
    assert_eq!(unreadable[0]["file"], json!(bad), "{list}");
    let reason = unreadable[0]["reason"].as_str().unwrap();
    assert!(reason.contains(reason_part), "{reason}");
    // The file is left as it was, for the user to repair.
    assert_eq!(std::fs::read(&bad).unwrap(), bytes);
    // `tuios ls` shows it apart, with the reason.
    let out = env.cli(&["ls"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(text.contains("unreadable saved sessions"), "{text}");
    assert!(text.contains(reason_part), "{text}");
    // Resurrecting it by name says why it cannot be done, and `tuios resurrect` exits 1.
    let result = c.ok("resurrect", json!({"session": "bad"}));
    assert_eq!(result["sessions"], json!([]), "{result}");
    let why = result["unreadable"][0]["reason"].as_str().unwrap_or("");
    assert!(why.contains(reason_part), "{result}");
    let out = env.cli(&["resurrect", "bad"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    // A new session of that name does not overwrite it: the file is kept aside.
    let out = env.cli(&["new", "-d", "bad"]);
    assert!(out.status.success(), "{out:?}");
    let kept = poll(DEADLINE, "the unreadable file to be kept aside", || {
        std::fs::read_dir(sessions_dir(&env))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.to_string_lossy().contains("bad.json.replaced-"))
            .ok_or_else(String::new)
    });
    assert_eq!(std::fs::read(&kept).unwrap(), bytes);
    // kill-session forgets the session and its file.
    c.ok("kill-session", json!({"session": "bad"}));
    assert!(!bad.exists());
}

#[test]
fn a_corrupt_file_is_reported_and_others_restore() {
    bad_file_is_reported(b"{\"version\": 1, this is not json", "not valid JSON");
}

#[test]
fn a_truncated_file_is_reported_and_others_restore() {
    let env = TestEnv::new();
    let full = serde_json::to_vec_pretty(&handwritten("bad", env.dir())).unwrap();
    bad_file_is_reported(&full[..full.len() / 2], "truncated");
}

#[test]
fn a_file_from_a_newer_tuios_is_reported_and_others_restore() {
    let env = TestEnv::new();
    let mut doc = handwritten("bad", env.dir());
    doc["version"] = json!(1000);
    bad_file_is_reported(&serde_json::to_vec(&doc).unwrap(), "newer tuios");
}

#[test]
fn resurrect_restores_into_a_running_daemon() {
    let env = TestEnv::new();
    let _daemon = start(&env);
    let mut c = conn(&env);
    // The session manager answers nothing until its start-up scan of the saved files is done:
    // after this answer, a file written is one the daemon has not seen.
    c.ok("list-sessions", json!({}));
    let dir = make_dir(&env, "later-dir");
    let mut doc = handwritten("later", &dir);
    doc["windows"][1]["minimized"] = json!(true);
    write_saved(&env, "later", &serde_json::to_vec(&doc).unwrap());

    let list = c.ok("list-sessions", json!({}));
    assert_eq!(list["sessions"], json!([]), "not restored behind our back");
    assert_eq!(list["saved"][0]["name"], "later", "{list}");
    assert_eq!(list["saved"][0]["window_count"], 2, "{list}");
    let out = env.cli(&["ls"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("saved, not running"), "{text}");
    assert!(text.contains("later"), "{text}");

    let mut events = conn(&env);
    events.subscribe(json!({}));
    let out = env.cli(&["resurrect", "later"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("restored session later (2 windows)"),
        "{text}"
    );

    // session-created first, then one window-created per window, in the saved order.
    let mut seen = Vec::new();
    while seen.len() < 3 {
        let line = events.read_line();
        assert!(is_event(&line), "{line}");
        let kind = line["type"].as_str().unwrap_or("").to_string();
        if kind == "session-created" || kind == "window-created" {
            seen.push((kind, line["window"].as_str().unwrap_or("").to_string()));
        }
    }
    assert_eq!(
        seen,
        [
            ("session-created".to_string(), String::new()),
            ("window-created".to_string(), "later-one".to_string()),
            ("window-created".to_string(), "later-two".to_string()),
        ]
    );

    let row = c.ok("list-sessions", json!({}))["sessions"][0].clone();
    assert_eq!(row["name"], "later");
    assert_eq!(row["restored"], true, "{row}");
    let two = c.window_row("later", "later-two");
    assert_eq!(two["minimized"], true, "{two}");
    assert_eq!(two["workspace"], 2, "{two}");
    c.send_text("later", "later-one", "echo \"cwd=$(pwd)\"\n");
    c.wait_for_text("later", "later-one", &format!("cwd={}", dir.display()));

    // Running sessions are not resurrected twice; unknown names are not found.
    let again = c.ok("resurrect", json!({"session": "later"}));
    assert_eq!(again["sessions"], json!([]), "{again}");
    let why = again["failed"][0]["reason"].as_str().unwrap_or("");
    assert!(why.contains("already running"), "{again}");
    c.err_code("resurrect", json!({"session": "nope"}), "session_not_found");
    let all = c.ok("resurrect", json!({}));
    assert_eq!(all["sessions"], json!([]), "{all}");
}

#[test]
fn a_second_daemon_leaves_the_first_ones_sessions_alone() {
    let env = TestEnv::new();
    let _first = start(&env);
    let out = env.cli(&["new", "-d", "mine"]);
    assert!(out.status.success(), "{out:?}");
    let mine = saved_file(&env, "mine");
    poll(DEADLINE, "the first daemon's session to be saved", || {
        mine.is_file().then_some(()).ok_or_else(String::new)
    });

    // Same state directory, another socket.
    let other = env.dir().join("other.sock");
    let mut second = env.spawn_daemon_on(&other);
    let mut c = poll(DEADLINE, "the second daemon to listen", || {
        if let Some(status) = second.try_wait() {
            panic!("the second daemon exited ({status}): {}", second.log_text());
        }
        std::os::unix::net::UnixStream::connect(&other)
            .map(|_| JsonConn::connect(&other))
            .map_err(|e| e.to_string())
    });
    let list = c.ok("list-sessions", json!({}));
    assert_eq!(
        list["sessions"],
        json!([]),
        "it restored the other's: {list}"
    );
    assert_eq!(list["saved"], json!([]), "{list}");
    let mut new = env.command(&["new", "-d", "theirs"]);
    new.env("TUIOS_SOCKET", &other);
    let out = run_with_deadline(new, DEADLINE);
    assert!(out.status.success(), "{out:?}");
    let status = second.terminate();
    assert!(status.success(), "{status}");
    let log = second.log_text();
    assert!(
        log.contains("another tuios daemon saves its sessions here"),
        "{log}"
    );
    let names: Vec<String> = std::fs::read_dir(sessions_dir(&env))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    assert_eq!(
        names,
        ["mine.json"],
        "the second daemon wrote or removed files"
    );
}

/// The layout belongs to attached clients: one pushes it, the daemon keeps it as an opaque blob.
/// It is saved with the session and comes back without any client attached.
#[test]
fn the_clients_layout_round_trips() {
    use tuios_integration_tests::TmuxClient;
    assert!(
        TmuxClient::available(),
        "tmux is needed to run the real client for this test"
    );
    let env = TestEnv::new();
    let mut first = start(&env);
    let out = env.cli(&["new", "-d", "work"]);
    assert!(out.status.success(), "{out:?}");
    let mut c = conn(&env);
    {
        let client = TmuxClient::start(&env, "work", 100, 30);
        client.wait_mode("TERM");
        let layout = c.ok("set-layout", json!({"session": "work", "tiling": true}));
        assert_eq!(layout["tiling_mode"], "tiling", "{layout}");
        // The client closes here; the layout stays with the session.
    }
    let file = saved_file(&env, "work");
    let saved = wait_saved(&env, "work", "the layout to be saved", |v| {
        v["layout"].is_string()
    });
    let saved_layout = saved["layout"].as_str().unwrap().to_owned();
    let info = c.ok("session-info", json!({"session": "work"}));
    assert_eq!(info["tiling_mode"], "tiling", "{info}");
    first.terminate();

    let _second = start(&env);
    let mut c = conn(&env);
    let info = c.ok("session-info", json!({"session": "work"}));
    assert_eq!(info["tiling_mode"], "tiling", "{info}");
    assert_eq!(info["tui_attached"], false, "{info}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["layout"].as_str(), Some(saved_layout.as_str()));
}
