//! The Go TUIOS's tape commands (issue 34 item 3): the library (`add`, `list`, `show`,
//! `delete`, `dir`, a tape run by its name), `exec` through the attached client, and `play`,
//! which makes a session, attaches this terminal and runs the tape in it.

use std::process::Output;
use std::time::Duration;

use serde_json::{json, Value};
use tuios_integration_tests::*;

const DEADLINE: Duration = Duration::from_secs(60);

fn tape(env: &TestEnv, args: &[&str]) -> Output {
    let mut all = vec!["tape"];
    all.extend_from_slice(args);
    run_with_deadline(env.command(&all), DEADLINE)
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The shell computes the marker, so only its output, never the echoed line, matches.
const MARKER_TAPE: &str = "# says hello from a library\nType \"echo lib-$((40+2))\"\nEnter\nWaitUntilRegex \"(?m)^lib-42$\"\n";

#[test]
fn the_library_keeps_tapes_by_name_and_runs_them_from_anywhere() {
    let daemon = TestDaemon::start();
    let env = daemon.env();
    let (s, _) = daemon.session_with_window("lib");
    let file = daemon.dir().join("hello.tape");
    std::fs::write(&file, MARKER_TAPE).unwrap();

    let empty = tape(env, &["list"]);
    assert!(empty.status.success(), "{empty:?}");
    assert!(
        out(&empty).starts_with("no tapes in the library"),
        "{}",
        out(&empty)
    );

    let added = tape(env, &["add", file.to_str().unwrap()]);
    assert!(added.status.success(), "{added:?}");
    let dir = out(&tape(env, &["dir"])).trim().to_string();
    assert_eq!(
        dir,
        daemon.dir().join("state/tuios/tapes").display().to_string()
    );
    assert!(std::path::Path::new(&dir).join("hello.tape").exists());
    // A second add of the same name is refused unless --force.
    let again = tape(env, &["add", file.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(1), "{again:?}");
    assert!(err(&again).contains("--force"), "{}", err(&again));
    // A tape that does not parse never enters the library.
    let bad = daemon.dir().join("bad.tape");
    std::fs::write(&bad, "Tpye \"x\"\n").unwrap();
    assert_eq!(
        tape(env, &["add", bad.to_str().unwrap()]).status.code(),
        Some(1)
    );

    let listed = tape(env, &["list", "--json"]);
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed["tapes"][0]["name"], "hello", "{listed}");
    assert_eq!(listed["tapes"][0]["commands"], 3, "{listed}");
    assert_eq!(
        listed["tapes"][0]["about"], "says hello from a library",
        "{listed}"
    );
    assert_eq!(out(&tape(env, &["show", "hello"])), MARKER_TAPE);

    // Run by name, from a directory that has no such file.
    let ran = tape(env, &["run", "hello", "-s", &s]);
    assert!(ran.status.success(), "{ran:?}");
    assert!(out(&ran).contains("3 commands ran"), "{}", out(&ran));
    let unknown = tape(env, &["run", "nope", "-s", &s]);
    assert_eq!(unknown.status.code(), Some(1), "{unknown:?}");
    assert!(
        err(&unknown).contains("library tapes: hello"),
        "{}",
        err(&unknown)
    );

    assert!(tape(env, &["delete", "hello"]).status.success());
    assert!(!std::path::Path::new(&dir).join("hello.tape").exists());
    assert_eq!(tape(env, &["show", "hello"]).status.code(), Some(1));
}

#[test]
fn exec_runs_through_the_attached_client_and_needs_one() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let env = daemon.env();
    let (s, _) = daemon.session_with_window("ex");
    let file = daemon.dir().join("split.tape");
    // Split is a client command: only a tape run through the client can do it.
    std::fs::write(&file, "EnableTiling\nSplit vertical\n").unwrap();
    let headless = tape(env, &["exec", file.to_str().unwrap(), "-s", &s, "--json"]);
    assert_eq!(headless.status.code(), Some(1), "{headless:?}");
    let e: Value = serde_json::from_slice(&headless.stdout).unwrap();
    assert_eq!(e["error"]["code"], "needs_client", "{e}");

    let mut conn = daemon.conn();
    let client = TmuxClient::start(env, &s, 100, 30);
    client.wait_mode("TERM");
    wait_until(DEADLINE, "the client to attach", || {
        (conn.ok("session-info", json!({"session": s}))["tui_attached"] == true).then_some(())
    });
    let ran = tape(env, &["exec", file.to_str().unwrap(), "-s", &s]);
    assert!(ran.status.success(), "{ran:?}");
    wait_until(DEADLINE, "the split's window", || {
        (conn.window_ids(&s).len() == 2).then_some(())
    });
}

#[test]
fn play_makes_a_session_attaches_and_runs_the_tape_in_it() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let env = daemon.env();
    // A returning user's attach: no first-run hint over the screen.
    let marker = daemon.dir().join("state/tuios");
    std::fs::create_dir_all(&marker).unwrap();
    std::fs::write(marker.join("attach-hint-shown"), b"").unwrap();
    let file = daemon.dir().join("demo.tape");
    std::fs::write(&file, MARKER_TAPE).unwrap();

    let client = TmuxClient::start_tuios(env, &["tape", "play", file.to_str().unwrap()], 100, 30);
    // The tape ran in the client's session: its output is on this screen.
    client.wait_for("lib-42");
    let mut conn = daemon.conn();
    let sessions = conn.ok("list-sessions", json!({}));
    assert!(
        sessions["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["name"] == "tape-demo"),
        "{sessions}"
    );
    // Leaving the client ends the session made for the tape.
    client.leader("d");
    let screen = client.wait_for("EXIT=");
    assert!(screen.contains("EXIT=0"), "{screen}");
    assert!(screen.contains("3 of 3 commands ran"), "{screen}");
    wait_until(DEADLINE, "the tape's session to end", || {
        let listed = conn.ok("list-sessions", json!({}));
        (!listed["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["name"] == "tape-demo"))
        .then_some(())
    });
}
