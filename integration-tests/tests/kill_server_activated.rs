//! `tuios kill-server` against a socket-activated daemon: the socket belongs to systemd and
//! stays, so kill-server learns the daemon stopped from its pid file and process going, and says
//! that the socket stays, instead of timing out waiting for the socket to disappear.
//!
//! The test plays systemd as tests/socket_activation.rs does: it binds the listener and starts
//! the real daemon through `sh -c 'LISTEN_PID=$$ exec tuios daemon'`, and reaps it as systemd
//! would.

use std::os::fd::AsRawFd;
use std::os::unix::net::UnixListener;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::json;
use tuios_integration_tests::{
    describe, poll, run_with_deadline, tuios_bin, JsonConn, TestEnv, DEADLINE,
};

/// The activated daemon; killed by pid if the test fails before it exits.
struct Activated(Child);

impl Drop for Activated {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

fn start_activated(env: &TestEnv, listener: &UnixListener) -> Activated {
    let fd = listener.as_raw_fd();
    let base = env.command(&["daemon"]);
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg("LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=tuios exec \"$0\" daemon")
        .arg(tuios_bin());
    for (key, value) in base.get_envs() {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    cmd.env_remove("TUIOS_SOCKET")
        .env("XDG_RUNTIME_DIR", env.dir().join("elsewhere"))
        .current_dir(env.dir())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(env.dir().join("activated.stderr")).unwrap());
    // SAFETY: only async-signal-safe calls (dup2, fcntl) between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            if fd == 3 {
                if libc::fcntl(3, libc::F_SETFD, 0) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
            } else if libc::dup2(fd, 3) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    Activated(cmd.spawn().expect("spawn the activated daemon"))
}

#[test]
fn kill_server_stops_an_activated_daemon_and_leaves_the_socket() {
    let env = TestEnv::new();
    let socket = env.socket().to_path_buf();
    let listener = UnixListener::bind(&socket).unwrap();
    let mut daemon = start_activated(&env, &listener);
    drop(listener);
    let hello = JsonConn::connect(&socket).ok("hello", json!({}));
    assert_eq!(
        hello["pid"].as_u64(),
        Some(u64::from(daemon.0.id())),
        "{hello}"
    );
    poll(DEADLINE, "the pid file", || {
        env.pid_file()
            .exists()
            .then_some(())
            .ok_or_else(String::new)
    });

    // kill-server runs while this thread reaps the daemon, as systemd would.
    let cmd = env.command(&["kill-server"]);
    let cli = std::thread::spawn(move || run_with_deadline(cmd, Duration::from_secs(30)));
    let status = poll(DEADLINE, "the activated daemon to exit", || {
        daemon.0.try_wait().unwrap().ok_or_else(String::new)
    });
    assert!(status.success(), "{status}");
    let out = cli.join().expect("kill-server thread");
    assert!(out.status.success(), "{}", describe(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("stopped"), "{said}");
    assert!(said.contains("socket activation"), "{said}");
    assert!(
        std::fs::symlink_metadata(&socket).is_ok(),
        "the socket belongs to systemd and stays"
    );
    assert!(!env.pid_file().exists());
}

#[test]
fn kill_server_of_a_plain_daemon_still_waits_for_its_socket() {
    let env = TestEnv::new();
    let daemon = env.start_daemon();
    let out = daemon.cli(&["kill-server"]);
    assert!(out.status.success(), "{}", describe(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("stopped"), "{said}");
    assert!(!said.contains("socket activation"), "{said}");
    assert!(!daemon.socket().exists(), "returned before the socket went");
}
