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
    match reader.read_line(&mut line) {
        // An error (the binary on disk cannot take over) is reported as it is.
        Ok(n) if n > 0 => {
            parse_response(line.trim_end())?;
        }
        _ => {
            return Err(Failure::msg(
                "the daemon closed the connection without answering the upgrade request",
            ))
        }
    }
    // The old daemon closes every connection just before it executes the new binary: a
    // daemon that answers after that is the new one.
    let mut rest = Vec::new();
    let _ = reader.read_to_end(&mut rest);
    let deadline = Instant::now() + COMEBACK_WAIT;
    let after = loop {
        match hello(socket) {
            Ok(v) => break v,
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
