//! What the client's own tests share: the real `tuios` binary on a socket in a temporary
//! directory, and a guard that stops a daemon such a command started.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// `tuios ARGS...` on `socket`, with its config and state directories next to it (never the
/// user's) and a known shell for the windows of a daemon it starts.
pub fn tuios_command(socket: &Path, args: &[&str]) -> Command {
    let home = socket.parent().expect("socket has a directory");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tuios"));
    cmd.args(args)
        .env("TUIOS_SOCKET", socket)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("SHELL", "/bin/sh");
    cmd
}

/// Runs `tuios ARGS...` on `socket` to completion.
pub fn tuios(socket: &Path, args: &[&str]) -> Output {
    tuios_command(socket, args)
        .output()
        .expect("the tuios binary runs")
}

/// Stops the daemon on a socket, by the pid in its pid file, when the test ends, even when it
/// fails: SIGTERM, then SIGKILL for one that does not stop (a wedged one, after a failure).
pub struct DaemonGuard(pub PathBuf);

impl Drop for DaemonGuard {
    fn drop(&mut self) {
        let Some(pid) = std::fs::read_to_string(daemon::paths::pid_path(&self.0))
            .ok()
            .and_then(|t| t.trim().parse::<i32>().ok())
            .filter(|&p| p > 1)
        else {
            return;
        };
        // SAFETY: kill has no memory preconditions; the pid is the daemon this test started.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        let end = Instant::now() + Duration::from_secs(5);
        while alive(pid) && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(20));
        }
        if alive(pid) {
            // SAFETY: as above.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// Whether a process still runs (a zombie waiting to be reaped does not count).
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().to_string())
        })
        .is_some_and(|rest| !rest.starts_with('Z'))
}
