//! Small helpers: polling, shell quoting, reading captures, stopping children.

use std::process::Child;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::R;

pub(crate) fn poll_until<T>(
    limit: Duration,
    interval: Duration,
    what: &str,
    mut f: impl FnMut() -> R<Option<T>>,
) -> R<T> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = f()? {
            return Ok(v);
        }
        if Instant::now() >= deadline {
            return Err(format!("timed out after {:?} waiting for {what}", limit));
        }
        if !interval.is_zero() {
            std::thread::sleep(interval);
        }
    }
}

/// Single quotes for /bin/sh.
pub(crate) fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

pub(crate) fn window_id(created: &Value) -> R<String> {
    created
        .get("window_id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("new-window result without window_id: {created}"))
}

/// Whether one row of a plain capture is exactly `needle` (rows come with trailing blanks trimmed,
/// but be lenient).
pub(crate) fn has_row(content: &str, needle: &str) -> bool {
    content.lines().any(|l| l.trim_end() == needle)
}

/// Whether the shell printed its next prompt after the row `result`. Rounds wait for this
/// (untimed) so a command is never typed while the previous prompt is still being printed,
/// which would put the prompt in front of the result on the same row.
fn prompt_after(content: &str, result: &str) -> bool {
    let mut rows = content.lines().map(str::trim_end);
    rows.any(|r| r == result) && rows.any(|r| r == "$" || r == "#")
}

/// Untimed pause between rounds: polls `capture` until the prompt follows `result`.
pub(crate) fn await_prompt(result: &str, mut capture: impl FnMut() -> R<String>) -> R<()> {
    poll_until(
        Duration::from_secs(10),
        Duration::from_millis(1),
        "the prompt after a round trip",
        || Ok(prompt_after(&capture()?, result).then_some(())),
    )
}

pub(crate) fn stop_child(child: &mut Child) {
    if let Ok(Some(_)) = child.try_wait() {
        return;
    }
    let pid = child.id() as libc::pid_t;
    // SAFETY: plain kill(2) on the pid of a child we spawned and have not reaped yet.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}
