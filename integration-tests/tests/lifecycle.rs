//! Daemon lifecycle: no daemon, racing starts, SIGTERM, and who may connect.

use serde_json::{json, Value};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::Duration;
use tuios_integration_tests::*;

const CONTROL_COMMANDS: [&[&str]; 6] = [
    &["ls"],
    &["list-windows"],
    &["capture-pane", "-s", "work"],
    &["send-text", "-s", "work", "hello"],
    &["kill-session", "work"],
    &["session-info"],
];

fn assert_exit_3(env: &TestEnv) {
    for args in CONTROL_COMMANDS {
        let out = env.cli(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(3),
            "`tuios {}` without a daemon: {}\nstderr: {stderr}",
            args.join(" "),
            out.status
        );
        assert!(
            stderr.contains(&env.socket().display().to_string()),
            "`tuios {}`: the message names no socket: {stderr}",
            args.join(" ")
        );
    }
}

#[test]
fn control_commands_without_a_daemon_exit_3() {
    let env = TestEnv::new();
    assert_exit_3(&env);
    // Control commands never start a daemon.
    assert!(!env.socket().exists(), "a control command started a daemon");
}

#[test]
fn control_commands_with_a_stale_socket_exit_3() {
    let env = TestEnv::new();
    drop(UnixListener::bind(env.socket()).expect("bind"));
    assert!(env.socket().exists());
    assert!(
        UnixStream::connect(env.socket()).is_err(),
        "the socket should be stale"
    );
    assert_exit_3(&env);
}

#[test]
fn two_racing_starts_leave_exactly_one_daemon() {
    let env = TestEnv::new();
    let mut a = env.spawn_daemon();
    let mut b = env.spawn_daemon();
    let a_lost = wait_until(DEADLINE, "one of two racing daemons to give up", || {
        if a.try_wait().is_some() {
            Some(true)
        } else {
            b.try_wait().is_some().then_some(false)
        }
    });
    let (winner, loser) = if a_lost {
        (&mut b, &mut a)
    } else {
        (&mut a, &mut b)
    };
    let status = loser.try_wait().expect("the loser has exited");
    assert!(
        !status.success(),
        "the daemon that did not serve exited with success; its stderr:\n{}",
        loser.log_text()
    );
    env.wait_for_socket(winner);
    let hello = JsonConn::connect(env.socket()).ok("hello", Value::Null);
    assert_eq!(hello["pid"], json!(winner.pid()), "{hello}");
    assert!(winner.try_wait().is_none(), "the winning daemon exited");

    // A third start while one serves also gives up, and the first keeps serving.
    let mut third = env.spawn_daemon();
    let status = third
        .wait_timeout(DEADLINE)
        .expect("a start beside a running daemon must exit");
    assert!(
        !status.success(),
        "a second daemon exited 0; stderr:\n{}",
        third.log_text()
    );
    let hello = JsonConn::connect(env.socket()).ok("hello", Value::Null);
    assert_eq!(hello["pid"], json!(winner.pid()));
    assert!(winner.try_wait().is_none(), "the serving daemon exited");
}

fn process_is_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // A zombie has already died; only its parent's bookkeeping remains.
        Ok(stat) => stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.trim_start().starts_with('Z'))
            .unwrap_or(false),
    }
}

#[test]
fn sigterm_stops_the_daemon_cleanly() {
    let mut daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("work");
    let pid_file = daemon.env().pid_file();
    let recorded = std::fs::read_to_string(&pid_file)
        .unwrap_or_else(|e| panic!("no pid file at {}: {e}", pid_file.display()));
    assert_eq!(
        recorded.trim(),
        daemon.pid().to_string(),
        "pid file content"
    );

    // Learn the shell's pid, to check it does not outlive the daemon.
    let mut conn = daemon.conn();
    conn.ok(
        "send-text",
        json!({"session": session, "window": window, "text": "echo shell-pid=$$\n"}),
    );
    let content = conn.wait_for_capture(&session, &window, "the shell's pid", DEADLINE, |c| {
        // A prompt may precede the output on its line; the typed `$$` never parses.
        c.lines()
            .filter_map(|l| l.split_once("shell-pid=").map(|(_, pid)| pid.trim()))
            .find_map(|p| p.parse::<u32>().ok())
    });
    drop(conn);

    let status = daemon.terminate();
    assert_eq!(status.code(), Some(0), "SIGTERM exit status: {status}");
    assert!(!daemon.socket().exists(), "the socket file was left behind");
    assert!(!pid_file.exists(), "the pid file was left behind");
    wait_until(DEADLINE, "the session's shell to be gone", || {
        process_is_gone(content).then_some(())
    });
}

#[test]
fn a_new_daemon_starts_after_a_clean_stop() {
    let env = TestEnv::new();
    let mut first = env.spawn_daemon();
    env.wait_for_socket(&mut first);
    assert_eq!(first.terminate().code(), Some(0));
    let mut second = env.spawn_daemon();
    env.wait_for_socket(&mut second);
    let hello = JsonConn::connect(env.socket()).ok("hello", Value::Null);
    assert_eq!(hello["pid"], json!(second.pid()));
}

#[test]
fn a_daemon_replaces_a_stale_socket() {
    let env = TestEnv::new();
    drop(UnixListener::bind(env.socket()).expect("bind"));
    let mut proc = env.spawn_daemon();
    env.wait_for_socket(&mut proc);
    let hello = JsonConn::connect(env.socket()).ok("hello", Value::Null);
    assert_eq!(hello["pid"], json!(proc.pid()));
}

#[test]
fn the_socket_is_private() {
    let daemon = TestDaemon::start();
    let mode = std::fs::metadata(daemon.socket())
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode & 0o077, 0, "socket mode {mode:o} lets others in");
}

/// As root, a client running as `nobody` can reach the socket once we open up the file
/// modes; the daemon must still refuse it because of its uid.
#[test]
fn a_peer_of_another_uid_is_refused() {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    assert!(
        root,
        "this test runs a client as another user (nobody), which needs root (CI runs as root)"
    );
    if Command::new("socat").arg("-V").output().is_err() {
        panic!("socat is needed for this test (apt-get install socat)");
    }
    let daemon = TestDaemon::start();
    std::fs::set_permissions(daemon.dir(), std::fs::Permissions::from_mode(0o711)).unwrap();
    std::fs::set_permissions(daemon.socket(), std::fs::Permissions::from_mode(0o666)).unwrap();

    let mut child = Command::new("socat")
        .args(["-t", "20", "-"])
        .arg(format!("UNIX-CONNECT:{}", daemon.socket().display()))
        .uid(65534)
        .gid(65534)
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn socat as nobody");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"id\":1,\"verb\":\"list-sessions\"}\n")
        .ok();
    let out = run_output(child);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("Permission denied"),
        "the test could not reach the socket, so it proves nothing: {stderr}"
    );
    assert!(
        !stdout.contains("\"result\""),
        "a foreign uid was served: {stdout}"
    );
    // The daemon is unharmed.
    assert_eq!(daemon.conn().ok("hello", Value::Null)["type"], "hello");
}

fn run_output(child: std::process::Child) -> std::process::Output {
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(Duration::from_secs(40)) {
        Ok(out) => out.expect("socat output"),
        Err(_) => {
            // SAFETY: kill(2) on our own child's pid; it is not reaped while the waiter blocks.
            unsafe {
                libc::kill(pid as libc::pid_t, libc::SIGKILL);
            }
            panic!("socat as nobody did not finish");
        }
    }
}

#[test]
fn sigint_stops_the_daemon_cleanly_too() {
    let mut daemon = TestDaemon::start();
    daemon.new_session("work");
    daemon.process().signal(libc::SIGINT);
    let status = daemon
        .process()
        .wait_timeout(DEADLINE)
        .expect("the daemon exits on SIGINT");
    assert_eq!(status.code(), Some(0), "SIGINT exit status: {status}");
    assert!(!daemon.socket().exists(), "the socket file was left behind");
    assert!(
        !daemon.env().pid_file().exists(),
        "the pid file was left behind"
    );
}

/// Whether `sig` is pending for `pid` (thread- or process-wide), from /proc.
fn signal_pending(pid: u32, sig: libc::c_int) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let bit = 1u64 << (sig - 1);
    status
        .lines()
        .filter_map(|l| {
            l.strip_prefix("SigPnd:")
                .or_else(|| l.strip_prefix("ShdPnd:"))
        })
        .any(|mask| u64::from_str_radix(mask.trim(), 16).unwrap_or(0) & bit != 0)
}

#[test]
fn sighup_does_not_stop_the_daemon() {
    let mut daemon = TestDaemon::start();
    let pid = daemon.pid();
    daemon.process().signal(libc::SIGHUP);
    // Once the signal is no longer pending, the daemon has been through its handling of it.
    wait_until(DEADLINE, "SIGHUP to be delivered", || {
        (!signal_pending(pid, libc::SIGHUP)).then_some(())
    });
    assert_eq!(daemon.conn().ok("hello", Value::Null)["type"], "hello");
    assert!(
        daemon.process().try_wait().is_none(),
        "SIGHUP stopped the daemon"
    );
}

#[test]
fn a_socket_directory_open_to_others_is_refused() {
    let env = TestEnv::new();
    let open = env.dir().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let socket = open.join("tuios.sock");
    let mut proc = env.spawn_daemon_on(&socket);
    let status = proc
        .wait_timeout(DEADLINE)
        .expect("the daemon must refuse a world-writable socket directory and exit");
    let stderr = proc.log_text();
    assert!(
        !status.success(),
        "daemon served from a world-writable directory; stderr: {stderr}"
    );
    assert!(!stderr.trim().is_empty(), "the refusal says nothing");
    assert!(
        !socket.exists(),
        "a socket was created in the open directory"
    );
}
