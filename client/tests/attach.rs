//! `tuios attach` end to end: a real daemon on a temporary socket, the client running inside a
//! tmux server of its own, keys typed with `tmux send-keys`, the screen read with
//! `tmux capture-pane` and the window's contents with `tuios capture-pane`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(20);

fn tuios_command(socket: &Path, args: &[&str]) -> Command {
    let home = socket.parent().expect("socket has a directory");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tuios"));
    cmd.args(args)
        .env("TUIOS_SOCKET", socket)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("SHELL", "/bin/sh");
    cmd
}

fn tuios(socket: &Path, args: &[&str]) -> Output {
    tuios_command(socket, args)
        .output()
        .expect("the tuios binary runs")
}

/// Stops the daemon a test started, by the pid in its pid file, even when the test fails.
struct DaemonGuard(PathBuf);

impl Drop for DaemonGuard {
    fn drop(&mut self) {
        if let Some(pid) = std::fs::read_to_string(daemon::paths::pid_path(&self.0))
            .ok()
            .and_then(|t| t.trim().parse::<i32>().ok())
            .filter(|&p| p > 1)
        {
            // SAFETY: kill has no memory preconditions; the pid is the daemon this test started.
            unsafe { libc::kill(pid, libc::SIGTERM) };
            // A daemon that does not stop (a wedged one, after a failed test) is killed.
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

/// A tmux server of the test's own (its own -L socket), killed when the test ends.
struct Tmux(String);

impl Tmux {
    fn cmd(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.0)
            .args(args)
            .output()
            .expect("tmux runs")
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        let out = self.cmd(&args);
        assert!(out.status.success(), "send-keys {keys:?}: {out:?}");
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-t", "t"]).stdout).into_owned()
    }

    /// Polls the screen until `pred` holds; panics with the last screen at the deadline.
    fn wait_screen(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let end = Instant::now() + DEADLINE;
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            assert!(
                Instant::now() < end,
                "timed out waiting for {what}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        // tmux leaves its socket file behind when the server is killed; remove it too.
        let socket = String::from_utf8_lossy(
            &self
                .cmd(&["display-message", "-p", "#{socket_path}"])
                .stdout,
        )
        .trim()
        .to_string();
        let _ = self.cmd(&["kill-server"]);
        if !socket.is_empty() {
            let _ = std::fs::remove_file(socket);
        }
    }
}

fn have_tmux() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Single quotes for sh.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Polls `tuios capture-pane --json` of the session until its content holds `needle`.
fn wait_capture(socket: &Path, needle: &str) -> String {
    let end = Instant::now() + DEADLINE;
    loop {
        let out = tuios(socket, &["capture-pane", "-s", "w", "--json"]);
        let content = serde_json::from_slice::<serde_json::Value>(&out.stdout)
            .ok()
            .and_then(|v| v["content"].as_str().map(str::to_string))
            .unwrap_or_default();
        if content.contains(needle) {
            return content;
        }
        assert!(
            Instant::now() < end,
            "timed out waiting for {needle:?} in capture-pane: {out:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn attach_types_into_a_window_splits_and_detaches() {
    if !have_tmux() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("tuios.sock");
    let _daemon = DaemonGuard(socket.clone());
    let out = tuios(&socket, &["new", "-d", "w"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");

    let tmux = Tmux(format!("tuios-attach-{}", std::process::id()));
    let home = dir.path();
    let client = format!(
        "TUIOS_SOCKET={} XDG_CONFIG_HOME={} XDG_STATE_HOME={} SHELL=/bin/sh {} attach w; echo EXIT=$?; sleep 60",
        quote(&socket.to_string_lossy()),
        quote(&home.join("config").to_string_lossy()),
        quote(&home.join("state").to_string_lossy()),
        quote(env!("CARGO_BIN_EXE_tuios")),
    );
    let out = tmux.cmd(&[
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        "t",
        "-x",
        "100",
        "-y",
        "30",
        &client,
    ]);
    assert!(out.status.success(), "tmux new-session: {out:?}");

    // The dock shows the session and the mode; the window has its border.
    let screen = tmux.wait_screen("the dock", |s| {
        s.lines()
            .last()
            .is_some_and(|l| l.contains(" w ") && l.ends_with(" WM"))
    });
    assert!(screen.starts_with('╭'), "{screen}");

    tmux.keys(&["i"]);
    tmux.wait_screen("terminal mode", |s| {
        s.lines().last().is_some_and(|l| l.ends_with(" TERM"))
    });
    // Typed as literal text, then Enter; the shell's answer is what proves it ran.
    tmux.keys(&["-l", "echo hi-$((1+1))"]);
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_screen("hi-2 on screen", |s| {
        s.lines().any(|l| l == "│hi-2" || l.starts_with("│hi-2 "))
    });
    assert!(screen.contains("echo hi-$((1+1))"), "{screen}");
    wait_capture(&socket, "\nhi-2");

    // Leader, then %: a second window side by side.
    tmux.keys(&["C-b", "%"]);
    let end = Instant::now() + DEADLINE;
    loop {
        let out = tuios(&socket, &["list-windows", "-s", "w", "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        let n = v["windows"].as_array().map_or(0, Vec::len);
        if n == 2 {
            break;
        }
        assert!(Instant::now() < end, "no second window: {out:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    tmux.wait_screen("two windows side by side", |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.matches('╭').count() == 2)
    });

    // Leader, then d: detached, exit status 0, the session still there.
    tmux.keys(&["C-b", "d"]);
    let screen = tmux.wait_screen("the client to exit", |s| s.contains("EXIT="));
    assert!(screen.contains("[detached from session w]"), "{screen}");
    assert!(screen.contains("EXIT=0"), "{screen}");
    let out = tuios(&socket, &["ls", "--json"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("\"w\""),
        "{out:?}"
    );
}

#[test]
fn attach_without_a_daemon_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("tuios.sock");
    let out = tuios(&socket, &["attach", "w"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no tuios daemon is running"), "{stderr}");
    assert!(!socket.exists(), "attach must not start a daemon");
}

#[test]
fn attach_without_a_terminal_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("tuios.sock");
    let _daemon = DaemonGuard(socket.clone());
    let out = tuios(&socket, &["new", "-d", "w"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = tuios(&socket, &["attach", "w"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("needs a terminal"),
        "{out:?}"
    );
    // `new` without --detach and without a terminal creates the session and says why it
    // does not attach.
    let out = tuios(&socket, &["new", "second"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("created session second"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not attaching"));
}
