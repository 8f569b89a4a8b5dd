//! Small helpers: polled waits with a deadline, running a command with one, and the
//! `paste-check` and JSON-array helpers.

use serde_json::Value;
use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::{TestEnv, POLL_INTERVAL};

/// Poll `probe` until it yields a value or `timeout` passes (then panic naming `what`).
pub fn wait_until<T>(timeout: Duration, what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
    poll(timeout, what, || probe().ok_or_else(String::new))
}

/// Poll `probe` until it yields `Ok` or `timeout` passes; then panic naming `what` and the
/// last `Err`, which says what was seen instead.
pub fn poll<T>(timeout: Duration, what: &str, mut probe: impl FnMut() -> Result<T, String>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        let seen = match probe() {
            Ok(value) => return value,
            Err(seen) => seen,
        };
        if Instant::now() >= deadline {
            if seen.is_empty() {
                panic!("timed out after {timeout:?} waiting for {what}");
            }
            panic!("timed out after {timeout:?} waiting for {what}; {seen}");
        }
        std::thread::sleep(POLL_INTERVAL); // one poll step; the deadline bounds the loop
    }
}

/// A command's status and both outputs, for assertion messages.
pub fn describe(out: &Output) -> String {
    format!(
        "status {}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Run a command to completion with a deadline, capturing stdout and stderr.
/// A command still running at the deadline is killed and the test fails.
pub fn run_with_deadline(mut cmd: Command, timeout: Duration) -> Output {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let described = format!("{cmd:?}");
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {described}: {e}"));
    // Drain both pipes on threads so a chatty child never blocks on a full pipe.
    let mut out_pipe = child.stdout.take().expect("stdout piped");
    let mut err_pipe = child.stderr.take().expect("stderr piped");
    let out_thread = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out_pipe.read_to_end(&mut buf);
        buf
    });
    let err_thread = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err_pipe.read_to_end(&mut buf);
        buf
    });
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait().expect("try_wait") {
            Some(status) => break status,
            None if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{described} did not finish within {timeout:?}");
            }
            None => std::thread::sleep(POLL_INTERVAL), // one poll step inside the deadline
        }
    };
    Output {
        status,
        stdout: out_thread.join().unwrap_or_default(),
        stderr: err_thread.join().unwrap_or_default(),
    }
}

/// `tuios paste-check` on `paste` (through a file), as for a window with or without bracketed
/// paste; its JSON report.
pub fn paste_check(env: &TestEnv, paste: &[u8], bracketed: bool) -> Value {
    static N: AtomicUsize = AtomicUsize::new(0);
    let file = env
        .dir()
        .join(format!("paste-{}.bin", N.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&file, paste).expect("write the paste file");
    let path = file.to_str().expect("temporary paths are UTF-8");
    let mut args = vec!["paste-check", path];
    if bracketed {
        args.push("--bracketed");
    }
    let out = env.cli(&args);
    assert!(
        out.status.success(),
        "paste-check {paste:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "paste-check {paste:?} printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// The bytes of a paste-check field, undoing its `\xNN` escapes. Anything else than printable
/// ASCII and those escapes fails the test: the report escapes every other byte.
pub fn unescape(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = s.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b == b'\\' {
            assert!(
                tail.len() >= 3 && tail[0] == b'x',
                "only \\xNN escapes in {s:?}"
            );
            let hex = std::str::from_utf8(&tail[1..3]).expect("hex digits");
            out.push(u8::from_str_radix(hex, 16).expect("hex digits"));
            rest = &tail[3..];
        } else {
            assert!((0x20..0x7f).contains(&b), "raw byte {b:#x} in {s:?}");
            out.push(b);
            rest = tail;
        }
    }
    out
}

/// The strings of a JSON array of strings (panics on anything else).
pub fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("expected an array of strings, got {value}"))
        .iter()
        .map(|v| {
            v.as_str()
                .unwrap_or_else(|| panic!("expected a string, got {v}"))
                .to_string()
        })
        .collect()
}

/// Kills an autostarted daemon (not our child) by the pid it reports, whatever the test does.
pub struct PidGuard(pub Option<u32>);

impl Drop for PidGuard {
    fn drop(&mut self) {
        if let Some(pid) = self.0 {
            // SAFETY: kill(2) by the pid the daemon reported for itself.
            unsafe {
                libc::kill(pid as libc::pid_t, libc::SIGTERM);
            }
        }
    }
}
