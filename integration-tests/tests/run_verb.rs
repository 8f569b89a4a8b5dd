//! `run` end to end (issue 15 item 2): a command typed into a real `/bin/sh` (dash, prompt `$ `)
//! in a real PTY; only its output and its exit status come back, whatever the prompt, however
//! slowly it prints, and however much.

use serde_json::{json, Value};
use tuios_integration_tests::*;

fn run(conn: &mut JsonConn, session: &str, command: &str) -> Value {
    let result = conn.ok(
        "run",
        json!({"session": session, "command": command, "timeout": 15000}),
    );
    assert_eq!(result["type"], "run_result", "{result}");
    result
}

#[test]
fn output_and_exit_status_only() {
    let daemon = TestDaemon::start();
    let (s, w) = daemon.session_with_window("r");
    let mut conn = daemon.conn();
    // The Python client's test command, as it sends it.
    let r = run(
        &mut conn,
        &s,
        "printf 'a\\nb\\n'; exit_with() { return $1; }; exit_with 3",
    );
    assert_eq!(r["output"], "a\nb\n", "{r}");
    assert_eq!(r["exit_code"], 3, "{r}");
    assert_eq!(r["window_id"], json!(w), "{r}");
    // The registry's example addresses the window by its list-windows index.
    let r = conn.ok(
        "run",
        json!({"session": s, "window": "0", "command": "echo ready; test -d /tmp"}),
    );
    assert_eq!(
        (r["output"].as_str(), r["window_id"].as_str()),
        (Some("ready\n"), Some(w.as_str())),
        "{r}"
    );
    assert!(r.get("truncated").is_none(), "{r}");

    // The shell's state carries over from one run to the next: it is the window's own shell.
    let r = run(&mut conn, &s, "cd /tmp && X=kept");
    assert_eq!(
        (r["output"].as_str(), r["exit_code"].as_i64()),
        (Some(""), Some(0)),
        "{r}"
    );
    let r = run(&mut conn, &s, "pwd; echo \"$X\"");
    assert_eq!(r["output"], "/tmp\nkept\n", "{r}");

    // No newline at the end of the output.
    let r = run(&mut conn, &s, "printf abc");
    assert_eq!(r["output"], "abc", "{r}");
    // Output that arrives slowly, in several bursts.
    let r = run(&mut conn, &s, "echo one; sleep 0.3; echo two; false");
    assert_eq!(r["output"], "one\ntwo\n", "{r}");
    assert_eq!(r["exit_code"], 1, "{r}");
    // Blank lines inside the output are kept.
    let r = run(&mut conn, &s, "printf 'x\\n\\ny\\n'");
    assert_eq!(r["output"], "x\n\ny\n", "{r}");
}

#[test]
fn output_longer_than_the_screen_comes_from_the_scrollback() {
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("long");
    let mut conn = daemon.conn();
    let r = run(&mut conn, &s, "seq 1 500");
    let expected: String = (1..=500).map(|i| format!("{i}\n")).collect();
    assert_eq!(r["output"], expected.as_str());
    assert_eq!(r["exit_code"], 0);
}

#[test]
fn quotes_tabs_newlines_and_syntax_errors() {
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("q");
    let mut conn = daemon.conn();
    // A quote, a tab (which would be completion in an interactive shell) and a second line.
    let r = run(&mut conn, &s, "printf '%s\\n' \"it's\"\necho\tx  '%d'");
    assert_eq!(r["output"], "it's\nx %d\n", "{r}");
    assert_eq!(r["exit_code"], 0, "{r}");
    // A syntax error is the command's failure (status 2), not a hang.
    let r = run(&mut conn, &s, "if");
    assert_eq!(r["exit_code"], 2, "{r}");
    assert!(r["output"].as_str().unwrap().contains("rror"), "{r}");
    // The shell is still there afterwards.
    let r = run(&mut conn, &s, "echo alive");
    assert_eq!(r["output"], "alive\n", "{r}");
}

#[test]
fn a_command_that_ends_the_shell_reports_the_shell_status() {
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("x");
    let mut conn = daemon.conn();
    let r = run(&mut conn, &s, "echo bye; exit 4");
    assert_eq!(r["output"], "bye\n", "{r}");
    assert_eq!(r["exit_code"], 4, "{r}");
    assert_eq!(r["shell_exited"], true, "{r}");
}

#[test]
fn refusals_and_timeout() {
    let daemon = TestDaemon::start();
    let (s, w) = daemon.session_with_window("t");
    let mut conn = daemon.conn();
    let e = conn.err_code("run", json!({"session": s}), "invalid_params");
    assert_eq!(e["hint"]["param"], "command", "{e}");
    let e = conn.err_code(
        "run",
        json!({"session": s, "command": "true", "timeout": 0}),
        "invalid_params",
    );
    assert_eq!(e["hint"]["param"], "timeout", "{e}");
    conn.err_code(
        "run",
        json!({"session": s, "command": "true", "extra": 1}),
        "invalid_params",
    );

    // A window whose program is not a shell is refused before anything is typed.
    let cat = conn.new_window_id(&s, json!({"command": ["/bin/cat"], "focus": false}));
    let e = conn.err_code(
        "run",
        json!({"session": s, "window": cat, "command": "echo no"}),
        "invalid_params",
    );
    assert!(e["message"].as_str().unwrap().contains("cat"), "{e}");
    assert_eq!(e["hint"]["param"], "window", "{e}");

    // Still running at the deadline: the timeout code, and the command keeps running.
    let e = conn.err_code(
        "run",
        json!({"session": s, "window": w, "command": "sleep 30", "timeout": 300}),
        "timeout",
    );
    assert!(
        e["hint"]["command"].as_str().unwrap().contains("C-c"),
        "{e}"
    );
    // While sleep holds the foreground, run refuses instead of typing into it.
    conn.wait_foreground(&s, &w, "sleep");
    let e = conn.err_code(
        "run",
        json!({"session": s, "window": w, "command": "echo no"}),
        "invalid_params",
    );
    assert!(e["message"].as_str().unwrap().contains("sleep"), "{e}");
    conn.send_keys(&s, &w, "ctrl+c");
    let r = poll(DEADLINE, "the shell back at its prompt", || {
        let resp = conn.call(
            "run",
            json!({"session": s, "window": w, "command": "echo back", "timeout": 10000}),
        );
        match resp.get("result") {
            Some(r) => Ok(r.clone()),
            None => Err(resp.to_string()),
        }
    });
    assert_eq!(r["output"], "back\n", "{r}");

    // A subshell running a command looks like the shell (same name, same argv), and is
    // refused all the same: its process group is not the shell alone.
    let fg = |conn: &mut JsonConn| {
        conn.ok("explain-agent-detect", json!({"session": s, "window": w}))["process"].clone()
    };
    let outer = fg(&mut conn)["pid"].as_i64().unwrap();
    conn.send_text(&s, &w, "(sleep 30; echo sub)\n");
    poll(
        DEADLINE,
        "the subshell and its sleep in the foreground",
        || {
            let p = fg(&mut conn);
            let leader = p["pid"].as_i64().unwrap_or(outer);
            if leader != outer && group_members(leader).contains(&"sleep".to_string()) {
                Ok(())
            } else {
                Err(p.to_string())
            }
        },
    );
    let e = conn.err_code(
        "run",
        json!({"session": s, "window": w, "command": "echo no"}),
        "invalid_params",
    );
    assert!(e["message"].as_str().unwrap().contains("foreground"), "{e}");
    conn.send_keys(&s, &w, "C-c");

    // A shell started at the prompt takes the line; that shell answers.
    poll(DEADLINE, "the outer shell alone at its prompt", || {
        let p = fg(&mut conn);
        if p["pid"] == outer && group_members(outer).is_empty() {
            Ok(())
        } else {
            Err(p.to_string())
        }
    });
    conn.send_text(&s, &w, "sh\n");
    let nested = poll(DEADLINE, "the nested sh in the foreground", || {
        let p = fg(&mut conn);
        match p["pid"].as_i64() {
            Some(pid) if pid != outer && p["comm"] == "sh" => Ok(pid),
            _ => Err(p.to_string()),
        }
    });
    let r = conn.ok(
        "run",
        json!({"session": s, "window": w, "command": "echo $$", "timeout": 10000}),
    );
    assert_eq!(r["output"], format!("{nested}\n"), "{r}");
}

#[test]
fn run_is_listed_and_the_cli_exits_with_the_status() {
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("cli");
    let mut conn = daemon.conn();
    let verbs = conn.ok("list-verbs", json!({"verb": "run"}));
    assert!(verbs.to_string().contains("exit_code"), "{verbs}");

    let out = daemon.cli(&[
        "run",
        "-s",
        &s,
        "--",
        "printf 'x\\n'; exit_with() { return $1; }; exit_with 5",
    ]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "x\n");
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    // Several words are one command line.
    let out = daemon.cli(&["run", "-s", &s, "--", "echo", "-n", "two words"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "two words");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = daemon.cli(&["run", "-s", &s, "--json", "--", "echo j"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    assert_eq!(v["output"], "j\n", "{v}");
    // Timed out: status 2, as wait-for.
    let out = daemon.cli(&["run", "-s", &s, "--timeout", "200", "--", "sleep 30"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn bash_with_readline_too() {
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("bash");
    let mut conn = daemon.conn();
    let bash = which("bash");
    let w = conn.new_window_id(
        &s,
        json!({"command": [bash, "--norc", "--noprofile", "-i"], "env": ["PS1=bash> "]}),
    );
    let r = conn.ok(
        "run",
        json!({"session": s, "window": w, "command": "printf 'a\\nb\\n'; (exit 7)", "timeout": 15000}),
    );
    assert_eq!(
        (r["output"].as_str(), r["exit_code"].as_i64()),
        (Some("a\nb\n"), Some(7)),
        "{r}"
    );
    let r = conn.ok(
        "run",
        json!({"session": s, "window": w, "command": "for i in 1 2; do\n\techo \"$i\"\ndone", "timeout": 15000}),
    );
    assert_eq!(r["output"], "1\n2\n", "{r}");
}

/// zsh and fish, each as its window's program without user configuration: output, status,
/// quotes, and a command with a tab and a second line (typed encoded).
#[test]
fn zsh_and_fish() {
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("shells");
    let mut conn = daemon.conn();
    for argv in [
        json!([which("zsh"), "-f", "-i"]),
        json!([which("fish"), "--no-config", "-i"]),
    ] {
        let w = conn.new_window_id(&s, json!({"command": argv}));
        let mut run = |command: &str| {
            conn.ok(
                "run",
                json!({"session": s, "window": w, "command": command, "timeout": 15000}),
            )
        };
        let r = run("printf 'a\\nb\\n'; false");
        assert_eq!(
            (r["output"].as_str(), r["exit_code"].as_i64()),
            (Some("a\nb\n"), Some(1)),
            "{argv}: {r}"
        );
        let r = run("echo \"it's\"\n\techo tab");
        assert_eq!(r["output"], "it's\ntab\n", "{argv}: {r}");
        let r = run("set x y; echo done");
        assert_eq!(r["output"], "done\n", "{argv}: {r}");
        // A syntax error is the command's failure, and the shell goes on.
        let r = run("echo 'unterminated");
        assert_ne!(r["exit_code"], 0, "{argv}: {r}");
        let r = run("echo alive");
        assert_eq!(r["output"], "alive\n", "{argv}: {r}");
    }
}

/// Names of the processes in process group `pgid` other than its leader, from /proc.
fn group_members(pgid: i64) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i64>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let pgrp = stat[close + 1..].split_whitespace().nth(2);
        if pid != pgid && pgrp == Some(pgid.to_string().as_str()) {
            out.push(stat[open + 1..close].to_string());
        }
    }
    out
}

/// The path of a program the test needs; fails loudly when it is missing.
fn which(program: &str) -> String {
    for dir in std::env::var("PATH").unwrap_or_default().split(':') {
        let path = std::path::Path::new(dir).join(program);
        if path.is_file() {
            return path.to_string_lossy().into_owned();
        }
    }
    panic!("this test needs {program} on PATH; install it");
}
