//! systemd socket activation: the daemon takes a listening socket passed as fd 3 with
//! LISTEN_FDS/LISTEN_PID instead of binding one, serves on it, keeps the variables from its
//! windows, and leaves the socket file (systemd's) in place when it stops.
//!
//! The test plays systemd: it binds the listener itself and starts the real daemon through
//! `sh -c 'LISTEN_PID=$$ exec tuios daemon'`, so LISTEN_PID names the daemon's own pid.

use std::os::fd::AsRawFd;
use std::os::unix::net::{UnixDatagram, UnixListener};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::json;
use tuios_integration_tests::{tuios_bin, JsonConn, TestEnv, DEADLINE, POLL_INTERVAL};

/// A daemon started the way systemd starts it; killed by pid if the test fails before it exits.
struct Activated {
    child: Child,
    log: std::path::PathBuf,
}

impl Activated {
    /// Start `tuios daemon` with `fd` as its fd 3 and the activation variables set.
    fn start(env: &TestEnv, fd: i32, names: &str) -> Activated {
        let base = env.command(&["daemon"]);
        let log = env.dir().join("activated.stderr");
        let mut cmd = Command::new("/bin/sh");
        cmd.arg("-c")
            .arg(format!(
                "LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES={names} exec \"$0\" daemon"
            ))
            .arg(tuios_bin());
        for (key, value) in base.get_envs() {
            match value {
                Some(v) => cmd.env(key, v),
                None => cmd.env_remove(key),
            };
        }
        // The daemon must learn the path from the socket, not from the environment.
        cmd.env_remove("TUIOS_SOCKET");
        cmd.env("XDG_RUNTIME_DIR", env.dir().join("elsewhere"));
        cmd.current_dir(env.dir())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap());
        // SAFETY: only async-signal-safe calls (dup2, fcntl) between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                if fd == 3 {
                    // dup2 onto itself keeps close-on-exec; clear it by hand.
                    if libc::fcntl(3, libc::F_SETFD, 0) == -1 {
                        return Err(std::io::Error::last_os_error());
                    }
                } else if libc::dup2(fd, 3) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().expect("spawn the activated daemon");
        Activated { child, log }
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn wait_exit(&mut self) -> std::process::ExitStatus {
        let deadline = std::time::Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the activated daemon did not exit within {DEADLINE:?}; stderr:\n{}",
                self.log_text()
            );
            std::thread::sleep(POLL_INTERVAL); // one poll step; the deadline bounds the loop
        }
    }
}

impl Drop for Activated {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        if std::thread::panicking() {
            eprintln!("---- activated daemon stderr ----\n{}", self.log_text());
        }
    }
}

fn sigterm(child: &Child) {
    // SAFETY: kill(2) on our own child, not yet reaped.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
    }
}

#[test]
fn serves_on_the_passed_socket_and_keeps_it() {
    let env = TestEnv::new();
    let socket = env.socket().to_path_buf();
    let listener = UnixListener::bind(&socket).unwrap();
    let mut daemon = Activated::start(&env, listener.as_raw_fd(), "tuios");
    // Ours is a copy of the daemon's socket; closing it leaves the daemon's open.
    drop(listener);

    // The connection is queued by the kernel whether or not the daemon is accepting yet: this is
    // what makes activation race-free.
    let mut conn = JsonConn::connect(&socket);
    let hello = conn.ok("hello", json!({}));
    assert_eq!(
        hello["pid"].as_u64(),
        Some(daemon.child.id() as u64),
        "{hello}"
    );
    assert_eq!(
        conn.ok("list-sessions", json!({}))["sessions"],
        json!([]),
        "a fresh daemon holds no sessions"
    );

    // The daemon knows its path from the socket itself: panes get it in TUIOS_SOCKET, and the
    // activation variables are not passed on.
    let out = env.cli(&["new", "-d", "act"]);
    assert!(out.status.success(), "{out:?}");
    let window = conn.first_window("act");
    conn.send_text(
        "act",
        &window,
        "echo \"fds=${LISTEN_FDS-unset} pid=${LISTEN_PID-unset} sock=$TUIOS_SOCKET\"\n",
    );
    let expected = format!("fds=unset pid=unset sock={}", socket.display());
    conn.wait_for_text("act", &window, &expected);
    // And the pid file sits beside the passed socket.
    let pid_file = format!("{}.pid", socket.display());
    assert_eq!(
        std::fs::read_to_string(&pid_file).unwrap().trim(),
        daemon.child.id().to_string()
    );

    sigterm(&daemon.child);
    let status = daemon.wait_exit();
    assert!(status.success(), "{status}; {}", daemon.log_text());
    assert!(
        std::fs::symlink_metadata(&socket).is_ok(),
        "the socket file belongs to systemd and must stay"
    );
    assert!(
        !Path::new(&pid_file).exists(),
        "the pid file is removed on exit"
    );
}

#[test]
fn a_socket_that_is_not_listening_is_refused() {
    let env = TestEnv::new();
    let dgram = UnixDatagram::bind(env.dir().join("dgram.sock")).unwrap();
    let mut daemon = Activated::start(&env, dgram.as_raw_fd(), "tuios");
    let status = daemon.wait_exit();
    assert_eq!(status.code(), Some(1), "{}", daemon.log_text());
    let log = daemon.log_text();
    assert!(log.contains("not a stream socket"), "{log}");
}

#[test]
fn variables_for_another_process_are_ignored_and_not_passed_on() {
    // LISTEN_PID names someone else (as when a service manager's variables leak into a shell):
    // the daemon binds its own socket and keeps the variables from its windows.
    let daemon = TestEnv::new().start_daemon_with(&[
        ("LISTEN_PID", "1".to_string()),
        ("LISTEN_FDS", "1".to_string()),
        ("LISTEN_FDNAMES", "tuios".to_string()),
    ]);
    let (session, window) = daemon.session_with_window("plain");
    let mut conn = daemon.conn();
    conn.send_text(
        &session,
        &window,
        "echo \"fds=${LISTEN_FDS-unset} pid=${LISTEN_PID-unset} names=${LISTEN_FDNAMES-unset}\"\n",
    );
    conn.wait_for_text(&session, &window, "fds=unset pid=unset names=unset");
}
