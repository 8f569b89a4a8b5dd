//! `tuios tape run` end to end (issue 20 item 7): real `.tape` files run by the real CLI against
//! the real daemon, with `/bin/sh` in real PTYs. The waits in the tapes are the protocol's own
//! (`Wait`, `WaitUntilRegex`); the tests only read what the windows show afterwards.

use std::path::PathBuf;
use std::process::Output;
use std::time::Duration;

use serde_json::{json, Value};
use tuios_integration_tests::*;

const DEADLINE: Duration = Duration::from_secs(60);

fn write_tape(daemon: &TestDaemon, name: &str, text: &str) -> PathBuf {
    let path = daemon.dir().join(name);
    std::fs::write(&path, text).expect("write the tape");
    path
}

fn tape(daemon: &TestDaemon, args: &[&str]) -> Output {
    let mut all = vec!["tape"];
    all.extend_from_slice(args);
    run_with_deadline(daemon.env().command(&all), DEADLINE)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn json_error(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(&out.stdout)))
}

#[test]
fn a_tape_types_commands_presses_keys_and_waits_for_their_output() {
    let daemon = TestDaemon::start();
    let (s, first) = daemon.session_with_window("ci");
    // The shell computes each marker, so only its output (never the echoed command line) can
    // match the patterns: a tape that did not wait would be caught reading too early.
    let path = write_tape(
        &daemon,
        "ci.tape",
        r#"# A CI script: build, check, and a second window
Set WaitTimeout 20s
Wait
Type "echo tape-$((6*7))"
Enter
WaitUntilRegex "(?m)^tape-42$"

# A stuck command is interrupted: without Ctrl+C the next wait would time out.
Type "sleep 30"
Enter
Sleep 100ms
Ctrl+C
Type@5ms "echo after-$((1+1))"
Enter
Wait@20s /(?m)^after-2$/

NewWindow
Type 'printf "second-%s\n" $((2*5))'
Enter
WaitUntilRegex "(?m)^second-10$" 20000
"#,
    );
    let out = tape(&daemon, &["run", "-s", &s, path.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        text(&out.stdout),
        format!("{}: 16 commands ran\n", path.display())
    );

    let mut conn = daemon.conn();
    let screen = conn.capture(&s, &first, json!({}));
    for line in ["tape-42", "after-2"] {
        assert!(
            screen.lines().any(|l| l == line),
            "{line} missing:\n{screen}"
        );
    }
    let ids = conn.window_ids(&s);
    assert_eq!(ids.len(), 2, "NewWindow opened a second window: {ids:?}");
    let second = ids.iter().find(|id| **id != first).unwrap();
    let screen = conn.capture(&s, second, json!({}));
    assert!(screen.lines().any(|l| l == "second-10"), "{screen}");
}

#[test]
fn a_bad_line_fails_naming_its_line_and_nothing_runs() {
    let daemon = TestDaemon::start();
    let (s, w) = daemon.session_with_window("bad");
    let path = write_tape(
        &daemon,
        "bad.tape",
        "Type \"echo should-not-$((1+1))\"\nEnter\n  Tpye \"oops\"\n",
    );
    let out = tape(&daemon, &["run", "-s", &s, path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = text(&out.stderr);
    assert!(
        err.starts_with(&format!(
            "error: {}:3:3: unknown command \"Tpye\"",
            path.display()
        )),
        "{err}"
    );
    assert!(err.contains("hint: did you mean Type?"), "{err}");

    // Nothing was typed: the whole tape is parsed before anything is sent. The shell's prompt
    // is there; the marker is not (the window is checked once it is quiet).
    let mut conn = daemon.conn();
    conn.ok(
        "wait-for",
        json!({"session": s, "condition": "window-idle", "idle": 300, "timeout": 20000}),
    );
    let screen = conn.capture(&s, &w, json!({}));
    assert!(!screen.contains("should-not"), "{screen}");

    // The same as the error envelope, and `validate` finds it without a daemon being asked.
    let out = tape(
        &daemon,
        &["run", "--json", "-s", &s, path.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1));
    let e = json_error(&out);
    assert_eq!(e["error"]["code"], "invalid_params", "{e}");
    assert_eq!(e["error"]["hint"]["param"], "file", "{e}");
    let out = tape(&daemon, &["validate", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains(":3:3: unknown command"),
        "{out:?}"
    );

    // A line the daemon refuses while running is named too, with the daemon's code.
    let path = write_tape(&daemon, "split.tape", "Wait\nSplit vertical\nType \"x\"\n");
    let out = tape(
        &daemon,
        &["run", "--json", "-s", &s, path.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let e = json_error(&out);
    assert_eq!(e["error"]["code"], "needs_client", "{e}");
    let message = e["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("{}:2:1: Split vertical: ", path.display())),
        "{message}"
    );
}

#[test]
fn a_wait_that_times_out_fails_with_the_timeout() {
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("slow");
    let path = write_tape(
        &daemon,
        "never.tape",
        "Wait\nWaitUntilRegex \"never-printed-$\" 300\nType \"echo not reached\"\n",
    );
    let out = tape(&daemon, &["run", "-s", &s, path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "a timeout exits 2: {out:?}");
    let err = text(&out.stderr);
    assert!(
        err.starts_with(&format!(
            "error: {}:2:1: WaitUntilRegex \"never-printed-$\": timed out waiting for output matching",
            path.display()
        )),
        "{err}"
    );
    let out = tape(
        &daemon,
        &["run", "--json", "-s", &s, path.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_error(&out)["error"]["code"], "timeout");

    // A window that never goes quiet fails a Wait by its @timeout.
    let path = write_tape(
        &daemon,
        "busy.tape",
        "Type \"while :; do echo tick; sleep 0.05; done\"\nEnter\nWaitUntilRegex \"(?m)^tick$\" 20000\nWait@1s\n",
    );
    let out = tape(&daemon, &["run", "-s", &s, path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = text(&out.stderr);
    assert!(
        err.contains(":4:1: Wait 500ms: timed out waiting for window"),
        "{err}"
    );
    daemon.conn().send_keys(&s, "", "C-c");
}

#[test]
fn sourced_tapes_run_in_place_and_report_their_own_file() {
    let daemon = TestDaemon::start();
    let (s, w) = daemon.session_with_window("src");
    std::fs::create_dir_all(daemon.dir().join("lib")).unwrap();
    write_tape(
        &daemon,
        "lib/greet.tape",
        "Type \"echo sourced-$((3+4))\"\nEnter\n",
    );
    let path = write_tape(
        &daemon,
        "main.tape",
        "Wait\nSource lib/greet.tape\nWaitUntilRegex \"(?m)^sourced-7$\" 20000\n",
    );
    let out = tape(&daemon, &["run", "-s", &s, path.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let screen = daemon.conn().capture(&s, &w, json!({}));
    assert!(screen.lines().any(|l| l == "sourced-7"), "{screen}");

    // An error inside the sourced tape names that file.
    write_tape(&daemon, "lib/broken.tape", "Enter\nEnter x\n");
    let path = write_tape(&daemon, "outer.tape", "Source lib/broken.tape\n");
    let out = tape(&daemon, &["validate", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("lib/broken.tape:2:7: Enter's repeat count"),
        "{err}"
    );

    // A tape that sources itself is refused before it runs.
    let path = write_tape(&daemon, "loop.tape", "Source loop.tape\n");
    let out = tape(&daemon, &["validate", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("loop.tape:1:1: Source:"),
        "{out:?}"
    );
}

#[test]
fn attached_needs_a_client() {
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("alone");
    let path = write_tape(&daemon, "a.tape", "Type \"x\"\n");
    let out = tape(
        &daemon,
        &[
            "run",
            "--attached",
            "--json",
            "-s",
            &s,
            path.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let e = json_error(&out);
    assert_eq!(e["error"]["code"], "needs_client", "{e}");
    assert_eq!(e["error"]["hint"]["command"], "tuios attach alone", "{e}");
}

#[test]
fn attached_tapes_drive_the_client() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, first) = daemon.session_with_window("tui");
    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    client.wait_mode("TERM");
    let mut conn = daemon.conn();
    wait_until(DEADLINE, "the client is attached", || {
        (conn.ok("session-info", json!({"session": s}))["tui_attached"] == true).then_some(())
    });
    // Split needs the client's layout: only an attached run can do it.
    let path = write_tape(
        &daemon,
        "tui.tape",
        "Wait\nEnableTiling\nSplit vertical\nType \"echo split-$((4*4))\"\nEnter\nWaitUntilRegex \"(?m)^split-16$\" 20000\n",
    );
    let out = tape(
        &daemon,
        &["run", "--attached", "-s", &s, path.to_str().unwrap()],
    );
    assert!(out.status.success(), "{out:?}");
    let ids = conn.window_ids(&s);
    assert_eq!(ids.len(), 2, "{ids:?}");
    let new = ids.iter().find(|id| **id != first).unwrap();
    let screen = conn.capture(&s, new, json!({}));
    assert!(screen.lines().any(|l| l == "split-16"), "{screen}");
    drop(client);
}
