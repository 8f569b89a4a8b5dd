//! How a window's program is started (posix_spawn in `actors/src/spawn.rs`): a session leader
//! with the PTY as its controlling terminal, job control and ^C working, signals neither
//! ignored nor blocked, the start directory, program lookup and its errors, a script without `#!`, the
//! environment, and no daemon descriptor left open in the program.

use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use tuios_integration_tests::*;

/// A command window running `script` under /bin/sh, kept open after it ends; its id.
fn sh_window(conn: &mut JsonConn, session: &str, script: &str, extra: Value) -> String {
    let mut params = json!({"command": ["/bin/sh", "-c", script], "remain": true});
    if let Value::Object(map) = extra {
        for (k, v) in map {
            params[k] = v;
        }
    }
    conn.new_window_id(session, params)
}

/// The value after `key=` in `line`.
fn field(line: &str, key: &str) -> String {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("no {key}= in {line:?}"))
        .to_string()
}

/// The window's first complete line starting with `tag` (ending in ` end`, so printed whole;
/// each is kept under the window's 80 columns, so never wrapped), trailing blanks trimmed.
fn tagged_line(conn: &mut JsonConn, session: &str, window: &str, tag: &str) -> String {
    conn.wait_for_capture(session, window, tag, DEADLINE, |c| {
        c.lines()
            .map(str::trim_end)
            .find(|l| l.starts_with(tag) && l.ends_with(" end"))
            .map(str::to_string)
    })
}

/// Makes `path` a file holding `text` with permissions `mode`.
fn write_file(path: &std::path::Path, text: &str, mode: u32) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn the_program_leads_a_session_whose_terminal_is_the_pty() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("leader");
    let mut conn = daemon.conn();
    // Fields after the name in /proc/PID/stat: state ppid pgrp session tty_nr tpgid.
    let script = [
        "set -- $(cut -d')' -f2 /proc/$$/stat)",
        "t=no; test -t 0 && t=yes; d=no; : </dev/tty && d=yes",
        "echo \"STAT pid=$$ pgrp=$3 sid=$4 tty=$5 tpgid=$6 end\"",
        "echo \"TTY isatty=$t devtty=$d end\"",
        "echo \"FDS in=$(readlink /proc/$$/fd/0) out=$(readlink /proc/$$/fd/1) end\"",
        "echo \"FD2 err=$(readlink /proc/$$/fd/2) end\"",
        "sleep 100",
    ]
    .join("; ");
    let w = sh_window(&mut conn, &session, &script, Value::Null);
    let line = tagged_line(&mut conn, &session, &w, "STAT ");
    let pid = field(&line, "pid");
    assert_eq!(field(&line, "sid"), pid, "a session leader: {line}");
    assert_eq!(field(&line, "pgrp"), pid, "its own group: {line}");
    assert_eq!(
        field(&line, "tpgid"),
        pid,
        "the terminal's foreground: {line}"
    );
    assert_ne!(field(&line, "tty"), "0", "a controlling terminal: {line}");
    let line = tagged_line(&mut conn, &session, &w, "TTY ");
    assert_eq!(line, "TTY isatty=yes devtty=yes end", "/dev/tty opens");
    let fds = tagged_line(&mut conn, &session, &w, "FDS ");
    let tty = field(&fds, "in");
    assert!(tty.starts_with("/dev/pts/"), "{fds}");
    assert_eq!(field(&fds, "out"), tty, "{fds}");
    let fd2 = tagged_line(&mut conn, &session, &w, "FD2 ");
    assert_eq!(field(&fd2, "err"), tty, "{fd2}");
}

#[test]
fn signals_start_at_their_defaults_and_no_daemon_descriptor_is_open() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("clean");
    let mut conn = daemon.conn();
    // exec: the masks are the ones the program was started with, not a shell's. Signals 32
    // and 33 are glibc's own (SIGCANCEL, SIGSETXID; a glibc program's SIGRTMIN is 34): its
    // posix_spawn leaves them ignored, so neither can reach the child before its exec.
    let w = sh_window(
        &mut conn,
        &session,
        "exec grep -E '^Sig(Blk|Ign):' /proc/self/status",
        Value::Null,
    );
    let masks = conn.wait_for_capture(&session, &w, "grep's output", DEADLINE, |c| {
        let masks: Vec<(String, u64)> = c
            .lines()
            .filter_map(|l| {
                let (name, hex) = l.split_once(':')?;
                Some((name.to_string(), u64::from_str_radix(hex.trim(), 16).ok()?))
            })
            .collect();
        (masks.len() == 2).then_some(masks)
    });
    let glibc_own = (1u64 << (32 - 1)) | (1u64 << (33 - 1));
    assert_eq!(
        masks,
        [("SigBlk".to_string(), 0), ("SigIgn".to_string(), glibc_own)],
        "masks as bit sets (signal n is bit n-1)"
    );
    // ls's own directory handle is the one descriptor besides the terminal.
    let w = conn.new_window_id(
        &session,
        json!({"command": ["/bin/ls", "-1", "/proc/self/fd"], "remain": true}),
    );
    let fds = conn.wait_for_capture(&session, &w, "ls's output", DEADLINE, |c| {
        let nums: Vec<&str> = c
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()))
            .collect();
        (nums.len() >= 4).then(|| nums.join(" "))
    });
    assert_eq!(fds, "0 1 2 3");
}

#[test]
fn job_control_and_ctrl_c_work_in_the_shell() {
    let daemon = TestDaemon::start();
    let (session, w) = daemon.session_with_window("jobs");
    let mut conn = daemon.conn();
    // With job control a background job gets a process group of its own; without a
    // controlling terminal the shell turns job control off and the job stays in the shell's.
    conn.send_text(
        &session,
        &w,
        "sleep 100 & set -- $(cut -d')' -f2 /proc/$!/stat); [ \"$3\" = $! ] && echo own-$((2+2))\n",
    );
    conn.wait_for_text(&session, &w, "own-4");
    conn.send_text(&session, &w, "jobs\n");
    conn.wait_for_capture(&session, &w, "the job listed", DEADLINE, |c| {
        c.lines()
            .any(|l| l.starts_with("[1]") && l.contains("Running") && l.contains("sleep 100"))
            .then_some(())
    });
    // Brought to the foreground, the job takes ^C (the shell hands it the terminal).
    conn.send_text(&session, &w, "fg\n");
    conn.wait_foreground(&session, &w, "sleep");
    conn.send_keys(&session, &w, "ctrl+c");
    conn.send_text(&session, &w, "echo after-fg-$((3+4))\n");
    conn.wait_for_text(&session, &w, "after-fg-7");
    // A foreground command started from the prompt too.
    conn.send_text(&session, &w, "sleep 100\n");
    conn.wait_foreground(&session, &w, "sleep");
    conn.send_keys(&session, &w, "ctrl+c");
    conn.send_text(&session, &w, "echo after-int-$((4+5))\n");
    conn.wait_for_text(&session, &w, "after-int-9");
}

#[test]
fn the_program_starts_in_the_given_directory_or_home() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("dirs");
    let mut conn = daemon.conn();
    std::fs::create_dir(daemon.dir().join("work dir")).unwrap();
    let dir = daemon.dir().join("work dir").canonicalize().unwrap();
    let pwd = "echo \"PWD $(pwd) end\"; sleep 100";
    let w = sh_window(
        &mut conn,
        &session,
        pwd,
        json!({"cwd": dir.to_str().unwrap()}),
    );
    let line = tagged_line(&mut conn, &session, &w, "PWD ");
    assert_eq!(line, format!("PWD {} end", dir.display()));
    // Without one, the daemon's $HOME (the harness points it into the test directory).
    let w = sh_window(&mut conn, &session, pwd, Value::Null);
    let home = daemon.dir().join("home").canonicalize().unwrap();
    let line = tagged_line(&mut conn, &session, &w, "PWD ");
    assert_eq!(line, format!("PWD {} end", home.display()));
    // A `./` program is looked up in that directory.
    let tool = dir.join("tool");
    write_file(
        &tool,
        "#!/bin/sh\necho \"TOOL $0 $1 end\"\nsleep 100\n",
        0o755,
    );
    let w = conn.new_window_id(
        &session,
        json!({"command": ["./tool", "a b"], "cwd": dir.to_str().unwrap()}),
    );
    let line = tagged_line(&mut conn, &session, &w, "TOOL ");
    // The name is joined to the directory as written (portable-pty's rule), `./` included.
    let run = dir.join("./tool");
    assert_eq!(line, format!("TOOL {} a b end", run.display()));
}

#[test]
fn a_program_that_cannot_run_is_refused_as_before() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("refused");
    let mut conn = daemon.conn();
    let plain = daemon.dir().join("not-executable");
    write_file(&plain, "echo hi\n", 0o644);
    for command in [
        "/nonexistent/program-xyz",
        "no-such-program-xyz",
        plain.to_str().unwrap(),
        "/tmp",
    ] {
        let error = conn.err_code(
            "new-window",
            json!({"session": session, "command": [command]}),
            "invalid_params",
        );
        assert_eq!(error["hint"]["param"], "command", "{command}: {error}");
        let message = error["message"].as_str().unwrap();
        assert!(message.starts_with("cannot run "), "{command}: {error}");
    }
    // A shell that cannot start is the daemon's problem, not the request's.
    conn.ok(
        "set-option",
        json!({"session": session, "key": "appearance.preferred_shell",
               "value": "/nonexistent/shell-xyz"}),
    );
    let error = conn.err_code("new-window", json!({"session": session}), "internal");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.starts_with("could not start the shell /nonexistent/shell-xyz"),
        "{error}"
    );
    assert_eq!(conn.window_ids(&session).len(), 1, "no window was added");
}

#[test]
fn a_script_without_a_shebang_runs_under_sh() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("script");
    let mut conn = daemon.conn();
    let script = daemon.dir().join("no-shebang");
    write_file(
        &script,
        "echo \"SCRIPT zero=$0 one=$1 two=$2 n=$((3*4)) end\"\nsleep 100\n",
        0o755,
    );
    let path = script.to_str().unwrap();
    let w = conn.new_window_id(&session, json!({"command": [path, "x", "y"]}));
    let line = tagged_line(&mut conn, &session, &w, "SCRIPT ");
    assert_eq!(line, format!("SCRIPT zero={path} one=x two=y n=12 end"));
}

#[test]
fn the_environment_is_the_daemons_without_its_own_settings() {
    let env = TestEnv::new();
    // The harness gives the daemon TUIOS_LOG; tmux's and a kept variable are added.
    let daemon = env.start_daemon_with(&[
        ("TMUX", "/tmp/tmux-1000/default,4242,0".to_string()),
        ("KEEP_ME", "kept".to_string()),
    ]);
    let session = daemon.new_session("env");
    let mut conn = daemon.conn();
    let script = [
        "echo \"ENV log=${TUIOS_LOG-unset} tmux=${TMUX-unset} keep=$KEEP_ME end\"",
        "echo \"ENV2 shell=$SHELL term=$TERM end\"",
        "echo \"ENV3 session=$TUIOS_SESSION extra=$EXTRA end\"",
        "sleep 100",
    ]
    .join("; ");
    let w = sh_window(
        &mut conn,
        &session,
        &script,
        json!({"env": ["EXTRA=given"]}),
    );
    let line = tagged_line(&mut conn, &session, &w, "ENV ");
    assert_eq!(line, "ENV log=unset tmux=unset keep=kept end");
    let line = tagged_line(&mut conn, &session, &w, "ENV2 ");
    assert_eq!(line, "ENV2 shell=/bin/sh term=xterm-256color end");
    let line = tagged_line(&mut conn, &session, &w, "ENV3 ");
    assert_eq!(line, "ENV3 session=env extra=given end");
}
