//! The CLI as tmux users and scripts expect it (issue 15 items 4, 6, 7, 8): errors in JSON with
//! `--json`, tmux key names in send-keys, a clean environment and the client's directory for new
//! windows, attach refusing its own session, and split-window -h/-v.

use serde_json::{json, Value};
use std::process::Output;
use tuios_integration_tests::*;

fn stdout_json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON value ({e}): {:?} / stderr {:?}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn json_errors_are_the_error_envelope_with_the_exit_status_kept() {
    let env = TestEnv::new();
    // No daemon: status 3, code no_daemon.
    let out = env.cli(&["list-windows", "--json"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let v = stdout_json(&out);
    assert_eq!(v["error"]["code"], "no_daemon", "{v}");
    assert!(out.stderr.is_empty(), "{out:?}");

    let daemon = env.start_daemon();
    let (s, _) = daemon.session_with_window("j");
    // A refusal from the daemon, exactly as it sent it: status 1.
    let out = daemon.cli(&["list-windows", "-s", "nope", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let v = stdout_json(&out);
    assert_eq!(v["error"]["code"], "session_not_found", "{v}");
    assert_eq!(v["error"]["hint"]["available"], json!(["j"]), "{v}");
    assert!(out.stderr.is_empty(), "{out:?}");
    // A timeout keeps its status 2.
    let out = daemon.cli(&[
        "wait-for",
        "window-output",
        "-s",
        &s,
        "--pattern",
        "never-printed",
        "--timeout",
        "100",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(stdout_json(&out)["error"]["code"], "timeout");
    // A usage error found before anything is sent.
    let out = daemon.cli(&["capture-pane", "--json", "--lines", "many"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let v = stdout_json(&out);
    assert_eq!(v["error"]["code"], "invalid_params", "{v}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("many"),
        "{v}"
    );
    // Without --json errors stay human, on stderr.
    let out = daemon.cli(&["list-windows", "-s", "nope"]);
    assert!(out.stdout.is_empty(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with("error: "),
        "{out:?}"
    );
    // `--json` after `--` belongs to the command, not to us.
    let out = daemon.cli(&["run", "-s", &s, "--", "echo", "--json"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "--json\n");
}
