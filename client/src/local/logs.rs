//! `tuios logs`: the running daemon's log, wherever it goes. The daemon's stderr says where:
//! a file (a daemon started in the background writes `$XDG_STATE_HOME/tuios/daemon.log`), the
//! systemd journal (read with journalctl), or the terminal it was started in. With no daemon
//! running, the last background daemon's file is shown.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use clap::Args;

use crate::failure::Failure;
use crate::json_client::JsonClient;

/// How often `--follow` looks for new lines.
const FOLLOW_EVERY: Duration = Duration::from_millis(250);

#[derive(Debug, Args)]
pub struct LogsArgs {
    /// How many of the last lines to show.
    #[arg(short = 'n', long, default_value_t = 50, value_name = "N")]
    pub lines: usize,
    /// Every line kept, the rotated file (`daemon.log.1`) first.
    #[arg(long, conflicts_with = "lines")]
    pub all: bool,
    /// Keep printing lines as the daemon writes them (Ctrl-C ends).
    #[arg(short = 'f', long)]
    pub follow: bool,
    /// Print where the log goes instead of the log.
    #[arg(long)]
    pub path: bool,
}

/// Where the daemon's log goes.
#[derive(Debug, Clone, PartialEq)]
enum LogTarget {
    File(PathBuf),
    Journal(u32),
    /// A terminal or a pipe: only whoever holds its other end sees the log.
    Elsewhere(String),
}

pub fn run(socket: &Path, args: &LogsArgs) -> Result<i32, Failure> {
    let (target, running) = match daemon_pid(socket) {
        Some(pid) => (target_of(pid)?, true),
        None => {
            let file = daemon::default_log_path().ok_or_else(|| {
                Failure::msg("no daemon is running, and there is no state directory for its log")
            })?;
            if !file.exists() {
                return Err(Failure::with_hints(
                    format!(
                        "no daemon is running, and {} does not exist",
                        file.display()
                    ),
                    vec!["a daemon started in the background logs there: tuios new -d".into()],
                ));
            }
            (LogTarget::File(file), false)
        }
    };
    if args.path {
        return crate::emit(&match &target {
            LogTarget::File(p) => format!("{}\n", p.display()),
            LogTarget::Journal(pid) => format!("journal (journalctl _PID={pid})\n"),
            LogTarget::Elsewhere(what) => format!("{what}\n"),
        });
    }
    match target {
        LogTarget::File(path) => {
            if !running {
                eprintln!("(no daemon is running: the log of the last one started in the background)");
            }
            show_file(&path, args)
        }
        LogTarget::Journal(pid) => {
            let mut cmd = Command::new("journalctl");
            cmd.arg("--no-pager").arg(format!("_PID={pid}"));
            if !args.all {
                cmd.arg("-n").arg(args.lines.to_string());
            }
            if args.follow {
                cmd.arg("-f");
            }
            let status = cmd.status().map_err(|e| {
                Failure::msg(format!("the daemon logs to the journal, but journalctl did not run: {e}"))
            })?;
            Ok(status.code().unwrap_or(1))
        }
        LogTarget::Elsewhere(what) => Err(Failure::with_hints(
            format!("the daemon writes its log to {what}, not to a file"),
            vec![
                "it was started in the foreground: its log is on the terminal it runs in".into(),
                "started in the background (tuios new -d) or by systemd, it logs to a file or the journal".into(),
            ],
        )),
    }
}

/// The running daemon's pid, from `hello`; None when none answers.
fn daemon_pid(socket: &Path) -> Option<u32> {
    let mut client = JsonClient::connect(socket).ok()?;
    let reply = client.call("hello", None).ok()?;
    reply["pid"].as_u64().and_then(|p| u32::try_from(p).ok())
}

fn target_of(pid: u32) -> Result<LogTarget, Failure> {
    let link = std::fs::read_link(format!("/proc/{pid}/fd/2")).map_err(|e| {
        Failure::msg(format!(
            "cannot see where daemon {pid} logs (/proc/{pid}/fd/2: {e}); is it another user's?"
        ))
    })?;
    let text = link.to_string_lossy();
    Ok(if text.starts_with("socket:") && journal_is_stderr(pid) {
        LogTarget::Journal(pid)
    } else if link.is_absolute() && !text.starts_with("/dev/") && link.is_file() {
        LogTarget::File(link)
    } else if text.starts_with("pipe:") {
        LogTarget::Elsewhere("a pipe (whoever started the daemon reads it)".into())
    } else {
        LogTarget::Elsewhere(text.into_owned())
    })
}

/// Whether the daemon's environment says systemd connected its stderr to the journal.
fn journal_is_stderr(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/environ"))
        .map(|env| {
            env.split(|&b| b == 0)
                .any(|v| v.starts_with(b"JOURNAL_STREAM="))
        })
        .unwrap_or(false)
}

/// The last lines (or all of it), then, with `--follow`, what is written after.
fn show_file(path: &Path, args: &LogsArgs) -> Result<i32, Failure> {
    let read = |p: &Path| std::fs::read(p).unwrap_or_default();
    let mut text = Vec::new();
    if args.all {
        let mut rotated = path.as_os_str().to_owned();
        rotated.push(".1");
        text.extend(read(Path::new(&rotated)));
    }
    let current = read(path);
    let shown_to = current.len() as u64;
    text.extend(current);
    let text = if args.all {
        &text[..]
    } else {
        last_lines(&text, args.lines)
    };
    let mut out = std::io::stdout().lock();
    if write_all(&mut out, text).is_err() {
        return Ok(0);
    }
    if !args.follow {
        return Ok(0);
    }
    follow(path, shown_to, &mut out)
}

/// Prints what is appended to `path` from `from` on, starting over when the file is replaced
/// (the daemon rotates it at 1 MiB) or cut short. Runs until output fails (a closed pipe).
fn follow(path: &Path, from: u64, out: &mut impl Write) -> Result<i32, Failure> {
    let open = |p: &Path| {
        File::open(p)
            .ok()
            .and_then(|f| Some((f.metadata().ok()?.ino(), f)))
    };
    let mut pos = from;
    let mut current = open(path);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        if let Ok(meta) = std::fs::metadata(path) {
            let replaced = current.as_ref().is_none_or(|(ino, _)| *ino != meta.ino());
            if replaced || meta.len() < pos {
                current = open(path);
                pos = 0;
            }
        }
        if let Some((_, f)) = current.as_mut() {
            if f.seek(SeekFrom::Start(pos)).is_ok() {
                loop {
                    match f.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            pos += n as u64;
                            if write_all(out, &buf[..n]).is_err() {
                                return Ok(0);
                            }
                        }
                    }
                }
            }
        }
        std::thread::sleep(FOLLOW_EVERY);
    }
}

fn write_all(out: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    out.write_all(bytes)?;
    out.flush()
}

/// The last `n` lines of `text` (a last line without its newline counts).
fn last_lines(text: &[u8], n: usize) -> &[u8] {
    if n == 0 {
        return &text[text.len()..];
    }
    let body = text.strip_suffix(b"\n").unwrap_or(text);
    let mut seen = 0;
    for (i, &b) in body.iter().enumerate().rev() {
        if b == b'\n' {
            seen += 1;
            if seen == n {
                return &text[i + 1..];
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::last_lines;

    #[test]
    fn last_lines_counts_from_the_end() {
        assert_eq!(last_lines(b"a\nb\nc\n", 2), b"b\nc\n");
        assert_eq!(last_lines(b"a\nb\nc", 2), b"b\nc");
        assert_eq!(last_lines(b"a\nb\n", 5), b"a\nb\n");
        assert_eq!(last_lines(b"a\nb\n", 0), b"");
        assert_eq!(last_lines(b"", 3), b"");
    }
}
