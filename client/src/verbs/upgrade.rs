//! `tuios upgrade`: ask the daemon to replace itself with the tuios binary now on disk (live
//! upgrade), then wait until the new one answers and say what changed.
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use protocol::verbs::hello;
use protocol::verbs::upgrade::{Params, Reply, SPEC};

use crate::failure::Failure;
use crate::json_client::{connect_socket, parse_response};

pub const NAME: Option<&str> = Some("upgrade");
pub const ALIASES: &[&str] = &[];

/// How long the old daemon may take to freeze its windows and exec.
const HANDOVER_WAIT: Duration = Duration::from_secs(120);
/// How long the new daemon may take to answer after the exec.
const COMEBACK_WAIT: Duration = Duration::from_secs(30);
/// Pause between attempts to reach the new daemon.
const RETRY: Duration = Duration::from_millis(50);

#[derive(Debug, clap::Args)]
pub struct Args {}

/// A real upgrade, never the check.
pub fn params(_a: &Args) -> Params {
    Params { check: None }
}

/// The daemon's hello, without a protocol check: the one after the upgrade may speak another.
fn daemon_hello(socket: &Path) -> Result<hello::Reply, Failure> {
    let result = super::send(socket, hello::SPEC.name, &hello::Params::default())?;
    super::typed_reply(hello::SPEC.name, &result)
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    let before = daemon_hello(socket)?;
    let stream = connect_socket(socket)?;
    let _ = stream.set_read_timeout(Some(HANDOVER_WAIT));
    let mut writer = stream
        .try_clone()
        .map_err(|e| Failure::msg(format!("cannot use the daemon connection: {e}")))?;
    let line =
        crate::request_line::request_line(SPEC.name, super::params_value(&params(&a)).as_ref());
    writer
        .write_all(line.as_bytes())
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
    // A path, so read as sent (not escaped). An answer of another shape names no binary, and
    // then any daemon that answers counts as the new one.
    let binary = match serde_json::from_value::<Reply>(answer) {
        Ok(Reply::Upgrading(u)) => u.binary,
        Ok(Reply::Check(c)) => c.binary,
        Err(_) => String::new(),
    };
    let deadline = Instant::now() + COMEBACK_WAIT;
    let after = loop {
        // The old daemon may still answer for a moment after closing the connections: the
        // new one runs the binary the answer named (same file, so same inode).
        let switched = runs_binary(before.pid, &binary).unwrap_or(true);
        match daemon_hello(socket) {
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
    crate::emit(&print(&before, &after))
}

/// What changed, from the hellos of the daemon before and after.
fn print(before: &hello::Reply, after: &hello::Reply) -> String {
    let same_pid = before.pid == after.pid;
    let mut out = format!(
        "tuios daemon upgraded: {} -> {}, pid {}{}, {} session{} kept\n",
        before.daemon_version,
        after.daemon_version,
        after.pid,
        if same_pid { "" } else { " (a new process!)" },
        after.sessions,
        if after.sessions == 1 { "" } else { "s" },
    );
    if !same_pid {
        out.push_str("warning: another daemon answered; the programs of the old one are gone\n");
    }
    out
}

/// Whether process `pid` executes the file at `binary` (the same inode), or `None` when that
/// cannot be told (no /proc, another user's process).
fn runs_binary(pid: u32, binary: &str) -> Option<bool> {
    use std::os::unix::fs::MetadataExt;
    if pid == 0 || binary.is_empty() {
        return None;
    }
    let running = std::fs::metadata(format!("/proc/{pid}/exe")).ok()?;
    let on_disk = std::fs::metadata(binary).ok()?;
    Some(running.dev() == on_disk.dev() && running.ino() == on_disk.ino())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn daemon(version: &str, pid: u32, sessions: usize) -> hello::Reply {
        hello::Reply {
            daemon_version: version.into(),
            pid,
            sessions,
            ..Default::default()
        }
    }

    #[test]
    fn the_summary_says_what_changed() {
        assert_eq!(
            print(&daemon("0.1.0", 7, 1), &daemon("0.2.0", 7, 1)),
            "tuios daemon upgraded: 0.1.0 -> 0.2.0, pid 7, 1 session kept\n"
        );
        assert_eq!(
            print(&daemon("0.1.0", 7, 2), &daemon("0.2.0", 9, 0)),
            "tuios daemon upgraded: 0.1.0 -> 0.2.0, pid 9 (a new process!), 0 sessions kept\n\
             warning: another daemon answered; the programs of the old one are gone\n"
        );
    }

    #[test]
    fn upgrade_sends_no_params() {
        assert_eq!(super::super::params_value(&params(&Args {})), None);
    }
}
