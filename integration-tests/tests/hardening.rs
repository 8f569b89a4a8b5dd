//! Issue 13, through the real binary: limits answered with `invalid_params` (and the daemon and
//! its sessions intact afterwards), a planted socket refused by the client before it sends a
//! byte, the daemon's files never opened through a symlink, and human CLI output that cannot
//! drive the terminal of whoever reads it.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use tuios_integration_tests::{poll, TestDaemon, TestEnv, DEADLINE};

/// The limits under test, as `protocol::limits` defines them (the harness depends on no
/// workspace crate, so they are restated here).
const MAX_COLS: i64 = 1000;
const MAX_NAME_BYTES: usize = 4096;
const MAX_TITLE_BYTES: usize = 4096;

const HELLO: u8 = 1;
const NEW_SESSION: u8 = 2;
const CLIENT_OP: u8 = 6;
const WELCOME: u8 = 64;
const ERROR: u8 = 68;

fn private(dir: &Path) {
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .expect("make the directory private");
}

/// A test environment whose directory is closed to others, as the client requires.
fn private_env() -> TestEnv {
    let env = TestEnv::new();
    private(env.dir());
    env
}

fn private_daemon() -> TestDaemon {
    private_env().start_daemon()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn frame(kind: u8, payload: &Value) -> Vec<u8> {
    let body = rmp_serde::to_vec_named(payload).expect("MessagePack encoding");
    let mut out = Vec::with_capacity(body.len() + 5);
    out.extend_from_slice(&(body.len() as u32 + 1).to_be_bytes());
    out.push(kind);
    out.extend_from_slice(&body);
    out
}

fn read_frame(stream: &mut UnixStream) -> (u8, Value) {
    let mut len = [0u8; 4];
    stream.read_exact(&mut len).expect("a frame header");
    let len = u32::from_be_bytes(len) as usize;
    assert!(len >= 1, "a frame without a kind byte");
    let mut body = vec![0u8; len];
    stream.read_exact(&mut body).expect("a frame body");
    let kind = body.remove(0);
    (kind, rmp_serde::from_slice(&body).unwrap_or(Value::Null))
}

/// A binary connection that has said Hello.
fn binary_client(socket: &Path) -> UnixStream {
    let mut stream = UnixStream::connect(socket).expect("connect");
    stream.set_read_timeout(Some(DEADLINE)).expect("timeout");
    stream
        .write_all(&frame(
            HELLO,
            &json!({"version": 1, "client_version": "hardening-test"}),
        ))
        .expect("send hello");
    let (kind, _) = read_frame(&mut stream);
    assert_eq!(kind, WELCOME);
    stream
}

/// The session is still there and its window still runs commands.
fn assert_session_works(daemon: &TestDaemon, session: &str, window: &str, marker: &str) {
    let mut conn = daemon.conn();
    conn.send_text(session, window, &format!("echo {marker}\n"));
    conn.wait_for_line(session, window, marker);
}

// --- Limits -------------------------------------------------------------------------------

#[test]
fn oversized_json_sizes_and_names_are_refused_and_the_session_survives() {
    let daemon = private_daemon();
    let (session, window) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    for (w, h, param, value) in [
        (65535, 65535, "width", 65535),
        (MAX_COLS + 1, 24, "width", MAX_COLS + 1),
        (80, 5000, "height", 5000),
    ] {
        let error = conn.err_code(
            "resize",
            json!({"session": session, "window": window, "width": w, "height": h}),
            "invalid_params",
        );
        assert_eq!(error["hint"]["param"], param, "{error}");
        let message = error["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(&value.to_string()) && message.contains("1000"),
            "the refusal names neither the value sent nor the limit: {error}"
        );
    }
    // The largest accepted size works.
    conn.ok(
        "resize",
        json!({"session": session, "window": window, "width": MAX_COLS, "height": 50}),
    );

    let long = "n".repeat(MAX_NAME_BYTES + 1);
    for (verb, params) in [
        ("new-window", json!({"session": session, "name": long})),
        (
            "set-window",
            json!({"session": session, "window": window, "name": long}),
        ),
        (
            "set-workspace-name",
            json!({"session": session, "workspace": 1, "name": long}),
        ),
    ] {
        let error = conn.err_code(verb, params, "invalid_params");
        assert_eq!(error["hint"]["param"], "name", "{verb}: {error}");
        assert!(
            error["message"]
                .as_str()
                .unwrap_or_default()
                .contains(&(MAX_NAME_BYTES + 1).to_string()),
            "{verb}: {error}"
        );
    }
    assert_eq!(
        conn.window_ids(&session).len(),
        1,
        "a refused new-window made a window"
    );
    assert_session_works(&daemon, &session, &window, "still-here-1");
}

#[test]
fn oversized_binary_sizes_are_refused_and_the_daemon_survives() {
    let daemon = private_daemon();
    let (session, window) = daemon.session_with_window("work");

    let mut stream = binary_client(daemon.socket());
    stream
        .write_all(&frame(
            NEW_SESSION,
            &json!({"name": "huge", "width": 65535, "height": 65535, "detach": true}),
        ))
        .expect("send NewSession");
    let (kind, error) = read_frame(&mut stream);
    assert_eq!(
        kind, ERROR,
        "an oversized NewSession was not refused: {error}"
    );
    assert_eq!(error["code"], "invalid_params", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap_or_default()
            .contains("65535"),
        "{error}"
    );

    // The same connection still serves: an oversized Attach is refused too.
    stream
        .write_all(&frame(
            CLIENT_OP,
            &json!({"op": "attach", "session": session, "create": false,
                    "width": 65535, "height": 65535, "max_fps": 0}),
        ))
        .expect("send Attach");
    let (kind, error) = read_frame(&mut stream);
    assert_eq!(kind, ERROR, "an oversized Attach was not refused: {error}");
    assert_eq!(error["code"], "invalid_params", "{error}");

    let mut conn = daemon.conn();
    let sessions = conn.ok("list-sessions", json!({}));
    let names: Vec<&str> = sessions["sessions"]
        .as_array()
        .map(|a| a.iter().filter_map(|s| s["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(names, ["work"], "{sessions}");
    let info = conn.ok("session-info", json!({"session": session}));
    assert!(
        info["width"].as_i64().unwrap_or(0) <= MAX_COLS,
        "the session took an oversized size: {info}"
    );
    assert_session_works(&daemon, &session, &window, "still-here-2");
}

#[test]
fn a_huge_title_is_cut_and_the_window_keeps_working() {
    let daemon = private_daemon();
    let (session, window) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    // 2 MiB of title in one OSC 2, then a marker: the window must still take commands. An OSC
    // string over the emulator's cap is dropped whole (a cut title would say something the
    // program never said), so the title does not change.
    conn.send_text(
        &session,
        &window,
        "printf '\\033]2;'; head -c 2097152 /dev/zero | tr '\\0' t; printf '\\007'; echo title-done\n",
    );
    conn.wait_for_line(&session, &window, "title-done");
    let name = conn.window_row(&session, &window)["display_name"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        !name.starts_with("ttt"),
        "a 2 MiB title was taken: {name:.40}"
    );
    // A title within the OSC cap but over the title cap is cut at the title limit.
    conn.send_text(
        &session,
        &window,
        "printf '\\033]2;'; head -c 6000 /dev/zero | tr '\\0' u; printf '\\007'; echo title2-done\n",
    );
    conn.wait_for_line(&session, &window, "title2-done");
    let row = poll(DEADLINE, "the window to take the long title", || {
        let row = conn.window_row(&session, &window);
        let name = row["display_name"].as_str().unwrap_or_default().to_owned();
        if name.starts_with("uuu") {
            Ok(row)
        } else {
            Err(format!("display name so far: {name:.40}"))
        }
    });
    let len = row["display_name"].as_str().unwrap_or_default().len();
    assert!(
        len <= MAX_TITLE_BYTES,
        "a program set a title of {len} bytes; the limit is {MAX_TITLE_BYTES}"
    );
    assert_session_works(&daemon, &session, &window, "still-here-3");
}

/// Peak resident memory of a process, in KiB (VmHWM).
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in proc status")
}

#[test]
fn a_huge_unterminated_osc_leaves_memory_bounded() {
    let daemon = private_daemon();
    let (session, window) = daemon.session_with_window("work");
    let before = peak_rss_kib(daemon.pid());
    let mut conn = daemon.conn();
    // 64 MiB inside one OSC before its terminator. Without a cap the emulator buffers all of
    // it (about 400 MB at peak, measured); with the 1 MiB cap the peak grows by a few MB.
    conn.send_text(
        &session,
        &window,
        "printf '\\033]2;'; head -c 67108864 /dev/zero | tr '\\0' t; printf '\\007'; echo osc-$((6*7))\n",
    );
    conn.wait_for_line(&session, &window, "osc-42");
    let grown = peak_rss_kib(daemon.pid()).saturating_sub(before);
    assert!(
        grown < 100 * 1024,
        "a 64 MiB OSC grew the daemon's peak memory by {} MiB",
        grown / 1024
    );
    assert_session_works(&daemon, &session, &window, "still-here-4");
}

#[test]
fn invalid_utf8_in_a_request_is_refused_naming_the_field() {
    let daemon = private_daemon();
    let (session, window) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    let mut line = format!(
        r#"{{"id":7,"verb":"send-text","params":{{"session":"{session}","window":"{window}","text":"ok"#
    )
    .into_bytes();
    line.extend_from_slice(b"\xff\xfe\"}}\n");
    conn.send_raw(&line);
    let answer = conn.read_line();
    assert_eq!(answer["id"], 7, "{answer}");
    assert_eq!(answer["error"]["code"], "invalid_params", "{answer}");
    assert_eq!(answer["error"]["hint"]["param"], "text", "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("params.text"),
        "{answer}"
    );
    // Nothing was typed: no replacement characters reached the window.
    let screen = conn.capture(&session, &window, json!({}));
    assert!(!screen.contains('\u{fffd}'), "{screen}");
}

// --- The socket the client talks to ---------------------------------------------------------

/// A listener that is not a tuios daemon: it records every byte any client sends it.
struct Planted {
    listener: UnixListener,
}

impl Planted {
    fn at(socket: &Path) -> Planted {
        let listener = UnixListener::bind(socket).expect("bind the planted socket");
        listener.set_nonblocking(true).expect("nonblocking");
        Planted { listener }
    }

    /// Every connection made so far, read to its end (the clients have exited, so each ends).
    fn received(&self) -> (usize, Vec<u8>) {
        let mut connections = 0;
        let mut bytes = Vec::new();
        while let Ok((mut stream, _)) = self.listener.accept() {
            connections += 1;
            stream.set_nonblocking(false).expect("blocking");
            stream.set_read_timeout(Some(DEADLINE)).expect("timeout");
            let _ = stream.read_to_end(&mut bytes);
        }
        (connections, bytes)
    }
}

fn cli_on(env: &TestEnv, socket: &Path, args: &[&str]) -> Output {
    let mut cmd = env.command(args);
    cmd.env("TUIOS_SOCKET", socket);
    tuios_integration_tests::run_with_deadline(cmd, Duration::from_secs(30))
}

/// Runs the commands a user would, each of which connects somewhere (JSON client, binary
/// client, autostart, kill-server), and checks each is refused with `expect` in its message.
fn every_client_path_refuses(env: &TestEnv, socket: &Path, expect: &[&str]) {
    for args in [
        &["ls"][..],
        &["list-windows", "-s", "work"],
        &["send-text", "-s", "work", "secret"],
        &["new", "-d", "work"],
        &["kill-server"],
        &["call", "list-sessions"],
    ] {
        let out = cli_on(env, socket, args);
        let stderr = text(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{args:?} was not refused: {stderr}"
        );
        for e in expect {
            assert!(stderr.contains(e), "{args:?}: {e:?} missing from: {stderr}");
        }
        assert!(
            !stderr.contains("chmod 700 /tmp ") && !stderr.contains("chmod 700 /tmp\n"),
            "{args:?}: wrong advice: {stderr}"
        );
    }
}

#[test]
fn a_socket_in_a_directory_of_another_user_is_refused() {
    assert!(
        is_root(),
        "this test plants a directory owned by another uid, which needs root (CI runs as root)"
    );
    let env = private_env();
    let theirs = env.dir().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    private(&theirs);
    let socket = theirs.join("tuios.sock");
    let planted = Planted::at(&socket);
    std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).expect("chown to nobody");

    every_client_path_refuses(&env, &socket, &["refusing", "uid 65534", "not to you"]);
    let (connections, bytes) = planted.received();
    assert!(
        bytes.is_empty(),
        "the planted socket received {} bytes over {connections} connections: {:?}",
        bytes.len(),
        text(&bytes)
    );
}

#[test]
fn a_socket_directory_open_to_others_is_refused_by_the_client() {
    let env = private_env();
    let open = env.dir().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
    let socket = open.join("tuios.sock");
    let planted = Planted::at(&socket);

    every_client_path_refuses(&env, &socket, &["refusing", "0755", "only you can enter"]);
    let (_, bytes) = planted.received();
    assert!(bytes.is_empty(), "bytes were sent: {:?}", text(&bytes));

    // With the directory closed, the same socket is used: the client's first request line
    // arrives (this listener never answers, so the client is stopped once it has been read).
    private(&open);
    let mut child = env
        .command(&["call", "list-sessions"])
        .env("TUIOS_SOCKET", &socket)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn tuios");
    planted.listener.set_nonblocking(false).expect("blocking");
    let (stream, _) = planted.listener.accept().expect("the client connects");
    stream.set_read_timeout(Some(DEADLINE)).expect("timeout");
    let mut first = String::new();
    let _ = BufReader::new(stream).read_line(&mut first);
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        first.contains("list-sessions"),
        "the private directory was refused too (first line {first:?})"
    );
}

#[test]
fn a_listener_running_as_another_uid_is_refused() {
    assert!(
        is_root(),
        "this test runs a listener as another uid, which needs root (CI runs as root)"
    );
    let env = private_env();
    let socket = env.dir().join("tuios.sock");
    // Bound by root in our private directory, listening as nobody: SO_PEERCRED reports the
    // credentials of listen() time, so the directory check passes and only the peer check can
    // refuse it.
    let script = r#"
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
os.setgid(65534)
os.setuid(65534)
s.listen(16)
print("ready", flush=True)
while True:
    c, _ = s.accept()
    data = b""
    while True:
        chunk = c.recv(65536)
        if not chunk:
            break
        data += chunk
    print("got", len(data), flush=True)
    c.close()
"#;
    let mut child = Command::new("python3")
        .args(["-c", script])
        .arg(&socket)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python3 is needed for this test (apt-get install python3)");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    assert_eq!(
        lines.next().and_then(Result::ok).as_deref(),
        Some("ready"),
        "the foreign listener did not start"
    );

    let out = cli_on(&env, &socket, &["send-text", "-s", "work", "secret"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("runs as uid 65534") && stderr.contains("refusing"),
        "{stderr}"
    );
    // The listener reports each connection once it ends: ours sent nothing.
    let report = lines.next().and_then(Result::ok).unwrap_or_default();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(report, "got 0", "the foreign listener received data");
}

// --- The daemon's own files ------------------------------------------------------------------

fn assert_daemon_refuses_link(link: PathBuf) {
    let env = private_env();
    let target = env.dir().join("precious");
    std::fs::write(&target, b"do not touch").unwrap();
    let link = env.dir().join(link);
    std::os::unix::fs::symlink(&target, &link).unwrap();

    let mut proc = env.spawn_daemon();
    let status = proc
        .wait_timeout(DEADLINE)
        .expect("the daemon must refuse the symlink and exit");
    let stderr = proc.log_text();
    assert!(
        !status.success(),
        "the daemon started through a symlink: {stderr}"
    );
    assert!(stderr.contains("symbolic link"), "{stderr}");
    assert_eq!(std::fs::read(&target).unwrap(), b"do not touch");
    assert_eq!(
        std::fs::metadata(&target).unwrap().permissions().mode() & 0o777,
        0o644,
        "the target's mode was changed"
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link was replaced instead of refused"
    );
    assert!(!env.socket().exists(), "a socket was left behind");
}

#[test]
fn a_symlink_at_the_lock_path_is_refused() {
    assert_daemon_refuses_link(PathBuf::from("tuios.sock.lock"));
}

#[test]
fn a_symlink_at_the_pid_path_is_refused() {
    assert_daemon_refuses_link(PathBuf::from("tuios.sock.pid"));
}

// --- Human output ---------------------------------------------------------------------------

#[test]
fn list_windows_escapes_hostile_titles_and_names() {
    let daemon = private_daemon();
    let (session, window) = daemon.session_with_window("work");
    let mut conn = daemon.conn();
    // What the issue tried: ESC inside an OSC title. The emulator ends the OSC at that ESC, so
    // the rest is ordinary output; what a program can get into a title is C1 controls (U+009B
    // CSI, as UTF-8, then "2J": clear screen) and DEL.
    conn.send_text(
        &session,
        &window,
        "printf '\\033]2;\\033[31mX\\007'; printf '\\033]2;T\\302\\2332J\\177\\007'; echo set\n",
    );
    let title = "T\u{9b}2J\u{7f}";
    poll(DEADLINE, "the hostile title to be set", || {
        let row = conn.window_row(&session, &window);
        let name = row["display_name"].as_str().unwrap_or_default().to_owned();
        if name == title {
            Ok(())
        } else {
            Err(format!("display name so far: {name:?}"))
        }
    });
    // A client can name a window anything, ESC included.
    let named = conn.new_window_id(&session, json!({"name": "\u{1b}[31mN\u{1b}]0;x\u{7}"}));

    let out = daemon.cli(&["list-windows", "-s", &session]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let human = text(&out.stdout);
    assert!(
        !human.chars().any(|c| c.is_control() && c != '\n'),
        "control characters reached the terminal: {human:?}"
    );
    assert!(human.contains("T\\u{9b}2J\\x7f"), "{human}");
    assert!(human.contains("\\x1b[31mN\\x1b]0;x\\x07"), "{human}");

    // --json stays exact.
    let out = daemon.cli(&["list-windows", "-s", &session, "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let value: Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    let windows = value["windows"].as_array().cloned().unwrap_or_default();
    let name_of = |id: &str| {
        windows
            .iter()
            .find(|w| w["window_id"] == id)
            .map(|w| w["display_name"].clone())
    };
    assert_eq!(name_of(&window), Some(json!(title)), "{value}");
    assert_eq!(
        name_of(&named),
        Some(json!("\u{1b}[31mN\u{1b}]0;x\u{7}")),
        "{value}"
    );
}

/// Closing a window ends the background jobs started from its shell, including a `nohup`ed one
/// that left the shell's process group.
#[test]
fn closing_a_window_ends_its_background_jobs() {
    let daemon = tuios_integration_tests::TestDaemon::start();
    let (session, window) = daemon.session_with_window("jobs");
    let mut conn = daemon.conn();
    let marker = format!("/tmp/tuios-bg-{}", std::process::id());
    let _ = std::fs::remove_file(&marker);
    conn.send_text(
        &session,
        &window,
        &format!("sleep 1000 & nohup sh -c 'sleep 1001' >/dev/null 2>&1 & echo $$ $! > {marker}; echo STARTED-$((1+1))\n"),
    );
    conn.ok(
        "wait-for",
        serde_json::json!({"session": session, "window": window, "condition": "window-output",
                           "pattern": "STARTED-2", "timeout": 10000}),
    );
    let pids = std::fs::read_to_string(&marker).expect("the shell wrote its pid and the job's");
    let _ = std::fs::remove_file(&marker);
    let mut pids = pids
        .split_whitespace()
        .map(|p| p.parse::<i32>().expect("a pid"));
    let (shell, job) = (
        pids.next().expect("the shell"),
        pids.next().expect("the job"),
    );
    assert!(std::path::Path::new(&format!("/proc/{job}")).exists());
    conn.ok(
        "close-window",
        serde_json::json!({"session": session, "window": window}),
    );
    // Every process of the window's terminal session ends: the jobs, and what they started
    // (the nohup'ed sh may fork its sleep only after the window was closed).
    poll(
        DEADLINE,
        "every process of the window's session to end",
        || {
            let left = live_members_of_session(shell);
            if left.is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "processes {left:?} of session {shell} outlived their window"
                ))
            }
        },
    );
}

/// Live (not zombie) processes whose session id is `sid`.
fn live_members_of_session(sid: i32) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .expect("list /proc")
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            let Some(close) = stat.rfind(')') else {
                return false;
            };
            let rest: Vec<&str> = stat[close + 1..].split_whitespace().collect();
            // state ppid pgrp session: the fourth field after the name.
            rest.first() != Some(&"Z") && rest.get(3) == Some(&sid.to_string().as_str())
        })
        .collect()
}

/// A daemon's descriptor limit that leaves no room for connections after its planned windows.
const SMALL_NOFILE: u64 = 1024;
/// Restated from `protocol::limits::connection_cap(1024)`: the floor, `MIN_CONNECTIONS`.
const CAP_AT_SMALL_NOFILE: usize = 64;

/// One `list-sessions` on a fresh connection: the parsed answer, or `None` when the daemon
/// closed the connection without one.
fn list_sessions_on(conn: &mut tuios_integration_tests::JsonConn) -> Option<Value> {
    conn.send_line(r#"{"id":1,"verb":"list-sessions"}"#);
    conn.read_raw_line()
        .map(|l| serde_json::from_str(&l).expect("an answer in JSON"))
}

#[test]
fn connections_over_the_limit_are_told_why_and_the_others_keep_working() {
    // The cap follows the descriptor limit; a small one keeps the test small.
    let daemon = private_env().start_daemon_with_nofile(SMALL_NOFILE);
    let mut held = Vec::new();
    let refusal = loop {
        assert!(
            held.len() <= CAP_AT_SMALL_NOFILE,
            "{} connections were all served; the limit is {CAP_AT_SMALL_NOFILE}",
            held.len()
        );
        let mut conn = daemon.conn();
        let answer = list_sessions_on(&mut conn).expect("an answer, served or refused");
        if answer.get("error").is_some() {
            break answer;
        }
        held.push(conn);
    };
    // The harness's readiness probe may still have held a place when the first ones came in.
    assert!(
        held.len() >= CAP_AT_SMALL_NOFILE - 1,
        "refused after only {} connections",
        held.len()
    );
    let message = refusal["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&CAP_AT_SMALL_NOFILE.to_string()),
        "the refusal says which limit was hit: {refusal}"
    );
    // The connections already served are untouched.
    let first = held.first_mut().expect("some connections were served");
    assert!(list_sessions_on(first).is_some_and(|a| a.get("result").is_some()));
    // A place freed is a place to serve again.
    held.pop();
    poll(DEADLINE, "a new connection to be served", || {
        let mut conn = daemon.conn();
        match list_sessions_on(&mut conn) {
            Some(a) if a.get("result").is_some() => Ok(()),
            other => Err(format!("still refused: {other:?}")),
        }
    });
}

/// Seconds of CPU the process has used (user + system), from /proc.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("proc stat");
    let after_name = &stat[stat.rfind(')').expect("comm ends") + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // SAFETY: sysconf has no memory effects.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    ticks as f64 / per_second
}

#[test]
fn out_of_descriptors_the_daemon_idles_and_serves_again_once_one_is_free() {
    let mut daemon = private_daemon();
    let (session, window) = daemon.session_with_window("fds");
    let mut control = daemon.conn();
    assert!(list_sessions_on(&mut control).is_some());
    let pid = daemon.pid();
    // Cap the daemon's descriptors a little above what it holds now.
    let open = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("list the daemon's descriptors")
        .count() as u64;
    let limit = libc::rlimit {
        rlim_cur: open + 4,
        rlim_max: open + 4,
    };
    // SAFETY: plain syscall on a pid we started; null old-limit pointer is allowed.
    let rc = unsafe {
        libc::prlimit(
            pid as libc::pid_t,
            libc::RLIMIT_NOFILE,
            &limit,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(rc, 0, "prlimit: {}", std::io::Error::last_os_error());
    // Fill the table: the kernel queues connections the daemon can no longer accept.
    let mut filler = Vec::new();
    for _ in 0..16 {
        filler.push(std::os::unix::net::UnixStream::connect(daemon.socket()).expect("connect"));
    }
    poll(DEADLINE, "the daemon to run out of descriptors", || {
        if daemon.stderr_log().contains("out of file descriptors") {
            Ok(())
        } else {
            Err("no EMFILE yet".into())
        }
    });
    // Measure its CPU across a two-second wait that the daemon itself times out.
    let before = cpu_seconds(pid);
    let answer = control.call(
        "wait-for",
        json!({"session": session, "window": window, "condition": "window-output",
               "pattern": "never-printed-here", "timeout": 2000}),
    );
    assert_eq!(answer["error"]["code"], "timeout", "{answer}");
    let used = cpu_seconds(pid) - before;
    assert!(
        used < 0.5,
        "the daemon used {used:.2} s of CPU in 2 s while out of descriptors"
    );
    // Free the descriptors: queued connections are accepted and closed, new ones served.
    drop(filler);
    poll(DEADLINE, "a new connection to be served", || {
        let mut conn = daemon.conn();
        match list_sessions_on(&mut conn) {
            Some(a) if a.get("result").is_some() => Ok(()),
            other => Err(format!("not served yet: {other:?}")),
        }
    });
    assert!(daemon.process().try_wait().is_none(), "the daemon is alive");
}

/// A program that exited and left a background job behind (its window kept open): closing the
/// window ends the job too.
#[test]
fn closing_a_window_ends_jobs_its_exited_program_left() {
    let daemon = tuios_integration_tests::TestDaemon::start();
    let (session, _) = daemon.session_with_window("leftovers");
    let mut conn = daemon.conn();
    let marker = daemon.dir().join("leftover.pid");
    let ready = daemon.dir().join("leftover.ready");
    // The job ignores the hang-up the kernel sends when the program exits, and the program
    // exits only once the job has said it is ready (so it surely ignores it by then).
    let script = format!(
        "(trap '' HUP; echo ready > {ready}; exec sleep 1002) & echo $! > {pid}; \
         while [ ! -s {ready} ]; do :; done; exit 0",
        ready = ready.display(),
        pid = marker.display()
    );
    let window = conn.new_window_id(
        &session,
        json!({"command": ["sh", "-c", script], "remain": true}),
    );
    conn.ok(
        "wait-for",
        json!({"session": session, "window": window, "condition": "window-exit", "timeout": 10000}),
    );
    let pid: i32 = std::fs::read_to_string(&marker)
        .expect("the program wrote its job's pid")
        .trim()
        .parse()
        .expect("a pid");
    let alive = |pid: i32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| !s.contains(") Z "))
            .unwrap_or(false)
    };
    assert!(
        alive(pid),
        "the job outlives its program while the window stays"
    );
    conn.ok(
        "close-window",
        json!({"session": session, "window": window}),
    );
    poll(DEADLINE, "the leftover job to end with its window", || {
        if alive(pid) {
            Err(format!("job {pid} outlived its closed window"))
        } else {
            Ok(())
        }
    });
}
