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

#[test]
fn send_keys_speaks_tmux_key_names() {
    let daemon = TestDaemon::start();
    let (s, w) = daemon.session_with_window("k");
    let mut conn = daemon.conn();
    // A misspelt key name is refused, with the name it was meant to be; nothing is typed.
    let e = conn.err_code(
        "send-keys",
        json!({"session": s, "keys": "echo,Entr"}),
        "invalid_params",
    );
    assert_eq!(e["hint"]["did_you_mean"], "Enter", "{e}");
    assert_eq!(e["hint"]["param"], "keys", "{e}");
    let out = daemon.cli(&["send-keys", "-s", &s, "--json", "PgaeUp"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(stdout_json(&out)["error"]["hint"]["did_you_mean"], "PageUp");

    // tmux's spelling: a quoted argument is typed with its space, C-m is Enter.
    let out = daemon.cli(&["send-keys", "-s", &s, "echo tmux-$((40+2))", "C-m"]);
    assert!(out.status.success(), "{out:?}");
    conn.ok(
        "wait-for",
        json!({"condition": "window-output", "session": s, "pattern": "(?m)^tmux-42$", "timeout": 10000}),
    );
    // C-c interrupts the foreground program, as in tmux.
    conn.send_text(&s, &w, "sleep 30\n");
    // C-c goes to whatever holds the foreground when it arrives: wait until that is sleep.
    conn.wait_foreground(&s, &w, "sleep");
    let out = daemon.cli(&["send-keys", "-s", &s, "C-c"]);
    assert!(out.status.success(), "{out:?}");
    let r = poll(DEADLINE, "the shell back at its prompt after C-c", || {
        let resp = conn.call(
            "run",
            json!({"session": s, "command": "echo back", "timeout": 10000}),
        );
        resp.get("result").cloned().ok_or_else(|| resp.to_string())
    });
    assert_eq!(r["exit_code"], 0, "{r}");
    // -l sends key names as text.
    let out = daemon.cli(&["send-keys", "-s", &s, "-l", "echo C-c BSpace"]);
    assert!(out.status.success(), "{out:?}");
    conn.send_keys(&s, &w, "Enter");
    conn.ok(
        "wait-for",
        json!({"condition": "window-output", "session": s, "pattern": "(?m)^C-c BSpace$", "timeout": 10000}),
    );
}

#[test]
fn windows_get_a_clean_environment_and_the_clients_directory() {
    let env = TestEnv::new();
    // The daemon starts from inside tmux, with settings of its own in its environment.
    let daemon = env.start_daemon_with(&[
        ("TMUX", "/tmp/tmux-1000/default,4242,0".to_string()),
        ("TMUX_PANE", "%7".to_string()),
        ("TUIOS_SCROLLBACK_LINES", "2000".to_string()),
        ("JOURNAL_STREAM", "8:12345".to_string()),
        ("KEEP_ME", "kept".to_string()),
    ]);
    let (s, w) = daemon.session_with_window("env");
    let mut conn = daemon.conn();
    let r = conn.ok(
        "run",
        json!({"session": s, "command": "env | grep -E '^(TMUX|TUIOS_|JOURNAL_|KEEP_ME)' | cut -d= -f1 | sort", "timeout": 10000}),
    );
    assert_eq!(
        r["output"],
        "KEEP_ME\nTUIOS_ENV\nTUIOS_PANE_ID\nTUIOS_SESSION\nTUIOS_SOCKET\nTUIOS_WINDOW_ID\n",
        "{r}"
    );
    let r = conn.ok(
        "run",
        json!({"session": s, "command": "echo \"$TUIOS_SESSION $TUIOS_WINDOW_ID\"", "timeout": 10000}),
    );
    assert_eq!(r["output"], format!("env {w}\n"), "{r}");

    // new-window from the CLI starts where the CLI runs (the test's directory), or in -c DIR,
    // with --env added.
    let sub = daemon.dir().join("sub dir");
    std::fs::create_dir(&sub).unwrap();
    let mut cmd = daemon
        .env()
        .command(&["new-window", "-s", &s, "--json", "-e", "FOO=bar baz"]);
    cmd.current_dir(&sub);
    let out = run_with_deadline(cmd, DEADLINE);
    assert!(out.status.success(), "{out:?}");
    let here = stdout_json(&out)["window_id"].as_str().unwrap().to_string();
    let r = conn.ok(
        "run",
        json!({"session": s, "window": here, "command": "pwd; echo \"$FOO\"", "timeout": 10000}),
    );
    assert_eq!(r["output"], format!("{}\nbar baz\n", sub.display()), "{r}");
    let out = daemon.cli(&["new-window", "-s", &s, "--json", "-c", "/"]);
    let root = stdout_json(&out)["window_id"].as_str().unwrap().to_string();
    let r = conn.ok(
        "run",
        json!({"session": s, "window": root, "command": "pwd", "timeout": 10000}),
    );
    assert_eq!(r["output"], "/\n", "{r}");
    let out = daemon.cli(&["new-window", "-s", &s, "--json", "-e", "NOEQUALS"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(stdout_json(&out)["error"]["hint"]["param"], "env");
}

#[test]
fn attach_refuses_the_session_it_runs_inside() {
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("inside");
    daemon.new_session("other");
    let mut conn = daemon.conn();
    let bin = tuios_bin().to_string_lossy().into_owned();
    // From a window of the session: by name, and by default (the session is the most recent).
    for args in ["attach inside", "attach", "a inside"] {
        let r = conn.ok(
            "run",
            json!({"session": s, "command": format!("'{bin}' {args}; echo status=$?"), "timeout": 15000}),
        );
        let out = r["output"].as_str().unwrap();
        assert!(
            out.contains("this terminal is a window of session inside"),
            "{args}: {r}"
        );
        assert!(out.contains("tuios attach --force inside"), "{args}: {r}");
        assert!(out.ends_with("status=1\n"), "{args}: {r}");
    }
    // --force skips the check (attach then fails on its own: no terminal on stdin).
    let r = conn.ok(
        "run",
        json!({"session": s, "command": format!("'{bin}' attach --force inside </dev/null; echo status=$?"), "timeout": 15000}),
    );
    assert!(
        !r["output"].as_str().unwrap().contains("window of session"),
        "{r}"
    );
    // The same name on another daemon is another session.
    let r = conn.ok(
        "run",
        json!({"session": s, "command": format!("TUIOS_SOCKET=/nonexistent/x.sock '{bin}' --socket \"$OLDSOCK\" attach inside </dev/null; echo status=$?").replace("$OLDSOCK", &daemon.socket().to_string_lossy()), "timeout": 15000}),
    );
    assert!(
        !r["output"].as_str().unwrap().contains("window of session"),
        "{r}"
    );
}

#[test]
fn split_window_takes_tmux_h_and_v() {
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("split");
    // Without a client the verb answers needs_client: what matters here is that -h and -v
    // reach it as directions (and that -h is not help).
    for flag in ["-h", "-v"] {
        let out = daemon.cli(&["split-window", "-s", &s, flag, "--json"]);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert_eq!(stdout_json(&out)["error"]["code"], "needs_client", "{flag}");
    }
    let out = daemon.cli(&["split-window", "--help"]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("-h"),
        "{out:?}"
    );
}
