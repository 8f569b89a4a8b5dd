//! `tuios upgrade`: ask the daemon to replace itself with the tuios binary now on disk (live
//! upgrade), then wait until the new one answers and say what changed.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::failure::Failure;
use crate::json_client::{connect_socket, parse_response, JsonClient};

/// How long the old daemon may take to freeze its windows and exec.
const HANDOVER_WAIT: Duration = Duration::from_secs(120);
/// How long the new daemon may take to answer after the exec.
const COMEBACK_WAIT: Duration = Duration::from_secs(30);
/// Pause between attempts to reach the new daemon.
const RETRY: Duration = Duration::from_millis(50);

fn hello(socket: &Path) -> Result<Value, Failure> {
    JsonClient::connect(socket)?.call("hello", None)
}

fn text(v: &Value, key: &str) -> String {
    crate::output::escape_controls(v.get(key).and_then(Value::as_str).unwrap_or("?")).into_owned()
}

/// Run the upgrade; the text to print on success.
pub fn run(socket: &Path) -> Result<String, Failure> {
    let before = hello(socket)?;
    let stream = connect_socket(socket)?;
    let _ = stream.set_read_timeout(Some(HANDOVER_WAIT));
    let mut writer = stream
        .try_clone()
        .map_err(|e| Failure::msg(format!("cannot use the daemon connection: {e}")))?;
    writer
        .write_all(crate::params::request_line("upgrade", None).as_bytes())
        .map_err(|e| Failure::msg(format!("cannot send the upgrade request: {e}")))?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    let answer = match reader.read_line(&mut line) {
        // An error (the binary on disk cannot take over) is reported as it is.
        Ok(n) if n > 0 => parse_response(line.trim_end())?,
        _ => {
            return Err(Failure::msg(
                "the daemon closed the connection without answering the upgrade request",
            ))
        }
    };
    // The old daemon closes every connection just before it executes the new binary: a
    // daemon that answers after that is the new one.
    let mut rest = Vec::new();
    let _ = reader.read_to_end(&mut rest);
    let pid = before.get("pid").and_then(Value::as_u64).unwrap_or(0);
    let binary = answer.get("binary").and_then(Value::as_str).unwrap_or("");
    let deadline = Instant::now() + COMEBACK_WAIT;
    let after = loop {
        // The old daemon may still answer for a moment after closing the connections: the
        // new one runs the binary the answer named (same file, so same inode).
        let switched = runs_binary(pid, binary).unwrap_or(true);
        match hello(socket) {
            Ok(v) if switched => break v,
            Ok(_) if Instant::now() >= deadline => {
                return Err(Failure::msg(format!(
                "the daemon still runs its old binary {} s after the upgrade began; see its log",
                COMEBACK_WAIT.as_secs()
            )))
            }
            Ok(_) => std::thread::sleep(RETRY),
            Err(e) if Instant::now() >= deadline => {
                return Err(Failure::with_hints(
                    format!(
                        "the daemon did not come back within {} s after the upgrade",
                        COMEBACK_WAIT.as_secs()
                    ),
                    e.lines(),
                ))
            }
            Err(_) => std::thread::sleep(RETRY),
        }
    };
    let same_pid = before.get("pid") == after.get("pid");
    let mut out = format!(
        "tuios daemon upgraded: {} -> {}, pid {}{}, {} session{} kept\n",
        text(&before, "daemon_version"),
        text(&after, "daemon_version"),
        after.get("pid").and_then(Value::as_u64).unwrap_or(0),
        if same_pid { "" } else { " (a new process!)" },
        after.get("sessions").and_then(Value::as_u64).unwrap_or(0),
        if after.get("sessions").and_then(Value::as_u64) == Some(1) {
            ""
        } else {
            "s"
        },
    );
    if !same_pid {
        out.push_str("warning: another daemon answered; the programs of the old one are gone\n");
    }
    Ok(out)
}

/// Whether process `pid` executes the file at `binary` (the same inode), or `None` when that
/// cannot be told (no /proc, another user's process).
fn runs_binary(pid: u64, binary: &str) -> Option<bool> {
    use std::os::unix::fs::MetadataExt;
    if pid == 0 || binary.is_empty() {
        return None;
    }
    let running = std::fs::metadata(format!("/proc/{pid}/exe")).ok()?;
    let on_disk = std::fs::metadata(binary).ok()?;
    Some(running.dev() == on_disk.dev() && running.ino() == on_disk.ino())
}
