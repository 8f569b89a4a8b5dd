//! Starting a background daemon for `tuios new`, and waiting for a socket to come or go.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::failure::Failure;

/// How long `tuios new` waits for a daemon it started to answer.
const START_DEADLINE: Duration = Duration::from_secs(5);
/// If our daemon exits early (another start won the race), how long to wait for the winner.
const RACE_GRACE: Duration = Duration::from_secs(1);
/// Interval between socket probes while waiting.
const POLL_INTERVAL: Duration = Duration::from_millis(20);

/// Make sure a daemon answers on `socket`, starting one in the background if needed.
/// Returns whether this call started it.
pub fn ensure_daemon(socket: &Path) -> Result<bool, Failure> {
    // Before probing or starting anything: a planted socket is refused, not "found running".
    crate::socket_check::check_socket_dir(socket)?;
    if matches!(daemon::probe(socket), daemon::Probe::Running) {
        return Ok(false);
    }
    eprintln!("starting the tuios daemon on {}", socket.display());
    let exe = std::env::current_exe()
        .map_err(|e| Failure::msg(format!("cannot find the tuios executable to start: {e}")))?;
    let mut cmd = Command::new(exe);
    cmd.arg("--socket")
        .arg(socket)
        .arg("daemon")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // Its log: the journal when our own stderr is the journal (a systemd service), else a file
    // in the state directory. Never our stderr otherwise: a caller reading our output until it
    // closes would wait as long as the daemon lives.
    let log_file = if daemon::stderr_is_journal() {
        cmd.stderr(Stdio::inherit());
        None
    } else {
        daemon::default_log_path()
    };
    if let Some(log) = &log_file {
        check_log_path(log)?;
        cmd.arg("--log-file").arg(log);
    }
    // SAFETY: setsid is async-signal-safe and touches no memory of the parent; running it
    // between fork and exec detaches the daemon from our terminal and process group, so a
    // Ctrl+C or a closed terminal does not reach it.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| Failure::msg(format!("cannot start the tuios daemon: {e}")))?;

    let mut deadline = Instant::now() + START_DEADLINE;
    let mut exited = false;
    loop {
        if matches!(daemon::probe(socket), daemon::Probe::Running) {
            return Ok(true);
        }
        if !exited {
            if let Ok(Some(_)) = child.try_wait() {
                // Lost a start race, or failed outright: give a concurrent start a moment.
                exited = true;
                deadline = deadline.min(Instant::now() + RACE_GRACE);
            }
        }
        if Instant::now() >= deadline {
            break;
        }
        thread::sleep(POLL_INTERVAL);
    }
    let flag = format!(
        "--socket {}",
        crate::output::shell_quote(&socket.to_string_lossy())
    );
    Err(Failure::with_hints(
        format!(
            "the tuios daemon did not start answering on {} within {} s",
            socket.display(),
            START_DEADLINE.as_secs()
        ),
        log_file
            .iter()
            .map(|log| format!("its log may say why: {}", log.display()))
            .chain([format!(
                "run it in the foreground to see why: tuios {flag} daemon --log-level debug"
            )])
            .collect(),
    ))
}

/// The daemon refuses to log through a symlink or into anything but a regular file, and then
/// exits with nobody to tell; say why here instead of "did not start answering".
fn check_log_path(log: &Path) -> Result<(), Failure> {
    let Ok(meta) = std::fs::symlink_metadata(log) else {
        return Ok(());
    };
    let what = if meta.file_type().is_symlink() {
        "a symbolic link, which tuios never follows"
    } else if !meta.is_file() {
        "not a regular file"
    } else {
        return Ok(());
    };
    Err(Failure::with_hints(
        format!(
            "cannot start the tuios daemon in the background: its log file {} is {what}",
            log.display()
        ),
        vec![format!(
            "remove it (tuios creates it itself): rm {}",
            crate::output::shell_quote(&log.to_string_lossy())
        )],
    ))
}

/// How a daemon asked to stop was seen to go.
#[derive(Debug, PartialEq, Eq)]
pub enum Stopped {
    /// It removed its socket, as a daemon that bound the socket itself does last.
    SocketGone,
    /// Its pid file is gone and so is the process, yet the socket stays: systemd passed it
    /// (socket activation), owns it, and will start a daemon again on the next connection.
    SocketStays,
}

/// Wait until the daemon `pid` on `socket` has stopped; `None` if it has not within `timeout`.
/// A daemon removes its pid file and then (unless systemd owns the socket) its socket, so the
/// socket going is the signal, or, with a socket that stays, the pid file going (`had_pid_file`:
/// it was there before the daemon was asked, so its absence means something) and the process
/// with it.
pub fn wait_stopped(
    socket: &Path,
    had_pid_file: bool,
    pid: Option<i32>,
    timeout: Duration,
) -> Option<Stopped> {
    let pid_file = daemon::paths::pid_path(socket);
    let deadline = Instant::now() + timeout;
    loop {
        if !socket.exists() {
            return Some(Stopped::SocketGone);
        }
        if had_pid_file && !pid_file.exists() && !pid.is_some_and(process_alive) {
            // The process is gone, so the socket is where it will stay; one last look in case
            // it was removed just before the exit.
            return Some(if socket.exists() {
                Stopped::SocketStays
            } else {
                Stopped::SocketGone
            });
        }
        if Instant::now() >= deadline {
            return None;
        }
        thread::sleep(POLL_INTERVAL);
    }
}

/// Whether process `pid` still runs: it exists (signal 0 reaches it, or it is someone else's)
/// and has not exited yet as a zombie its parent has not reaped.
fn process_alive(pid: i32) -> bool {
    let Some(pid) = rustix::process::Pid::from_raw(pid) else {
        return false;
    };
    match rustix::process::test_kill_process(pid) {
        Ok(()) | Err(rustix::io::Errno::PERM) => {}
        Err(_) => return false,
    }
    // State is the field after the parenthesised command name, which may itself hold spaces.
    let stat =
        std::fs::read_to_string(format!("/proc/{}/stat", pid.as_raw_nonzero())).unwrap_or_default();
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().next());
    state != Some("Z") && state != Some("X")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_process_is_alive_and_a_reaped_one_is_not() {
        assert!(process_alive(std::process::id() as i32));
        let mut child = std::process::Command::new("/bin/sh")
            .args(["-c", "exit 0"])
            .spawn()
            .unwrap();
        let pid = child.id() as i32;
        child.wait().unwrap();
        assert!(!process_alive(pid));
    }
}
