//! `run`: type a command into a window's shell, wait for it to finish, and answer with its output
//! and exit status.
//!
//! How the end is found (the choice, and why): the typed line brackets the command with two
//! markers the *shell* prints, each carrying a per-run random token:
//!
//! ```text
//!  printf '%s%s\n' '#tuios-run:' TOKEN; command eval 'CMD'; printf '%s%s:%s;\n' '#tuios-end:' TOKEN "$?"
//! ```
//!
//! The echoed command line holds the marker split in two (`'#tuios-end:' TOKEN`), so only the
//! shell's own printf output reads `#tuios-end:TOKEN:STATUS;`, whatever the prompt looks like and
//! however slowly the command prints. The wait is the window's ordinary output watch (the one
//! behind `wait-for`), on the window's text, so nothing in the window's hot path changes. Once
//! the end marker shows, the output is the text between the two markers in scrollback plus
//! screen. OSC 133 marks were the alternative: they need a hook per shell flavour at window start
//! (dash has no prompt hook at all) and a raw-output tap in the window; the printed markers work
//! in any POSIX shell and fish, with any prompt, with nothing injected at start.
//!
//! `command eval` keeps the end marker running even when CMD has a syntax error (dash abandons
//! the rest of the line after a plain `eval` fails to parse). A command holding control
//! characters (tab would trigger completion, newline a continuation prompt) is typed octal-encoded
//! and decoded by the shell's printf, so every byte reaches eval unchanged.
use protocol::verbs::run::{Params, Reply};
use std::time::Duration;

use protocol::closest::echo_name;
use protocol::shell::{fish_quote, quote as posix_quote};
use protocol::{ErrorCode, Hint, VerbError};
use regex::Regex;

use tokio::sync::oneshot;
use tokio::time::{timeout_at, Instant};

use super::{live_window, mailbox, session, VerbEnv};
use crate::errors;
use crate::window as win;

const DEFAULT_TIMEOUT_MS: i64 = 30_000;
/// How long a shell whose foreground process group is not the shell alone is given to become
/// free before `run` refuses it.
const SHELL_BUSY_GRACE: Duration = Duration::from_secs(2);
const START: &str = "#tuios-run:";
const END: &str = "#tuios-end:";

/// The shell syntax the typed line is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    Posix,
    /// zsh's `command` runs external programs only, so eval is reached through `builtin`.
    Zsh,
    Fish,
}

/// Shells whose syntax the typed line is known to work in (the kernel's `comm` of the process).
const POSIX_SHELLS: &[&str] = &[
    "sh", "dash", "bash", "ksh", "ksh93", "mksh", "ash", "busybox", "yash", "posh",
];

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let command = p.command;
    // The registry refuses a missing or empty command; one of spaces only is refused here.
    if command.trim().is_empty() {
        return Err(VerbError::invalid_params(
            "command",
            "command is required: the command line to run, e.g. \"make test\"",
        ));
    }
    if command.contains('\0') {
        return Err(VerbError::invalid_params(
            "command",
            "command contains a NUL byte, which no shell can take",
        ));
    }
    if protocol::lumen::contains_frame_introducer(command.as_bytes()) {
        return Err(VerbError::invalid_params(
            "command",
            "command contains a Lumen frame introducer (APC \"lumen;\"), which is never written to a program's input",
        ));
    }
    let timeout_ms = match p.timeout {
        None => DEFAULT_TIMEOUT_MS,
        Some(t) if t > 0 => t,
        Some(t) => {
            return Err(VerbError::invalid_params(
                "timeout",
                format!("timeout must be a positive number of milliseconds, not {t}"),
            ))
        }
    };
    let now = Instant::now();
    // A huge timeout means "no limit"; adding it to an Instant must not overflow.
    let deadline = now
        .checked_add(Duration::from_millis(timeout_ms as u64))
        .unwrap_or_else(|| now + Duration::from_secs(365 * 24 * 3600));

    let s = session(env, p.session).await?;
    let w = live_window(&s, p.window).await?;
    super::send_keys::refuse_frames_in(env, &w.id, "command", command.as_bytes())?;
    // A shell whose process group is busy may be a subshell running a command, or a shell
    // just started whose start-up runs a helper (fish does): give it a moment before refusing.
    let busy_until = (now + SHELL_BUSY_GRACE).min(deadline);
    let flavour = loop {
        // A few /proc reads (a scan of the process table for the group check): off the
        // connection's thread.
        let (id, pid) = (w.id.clone(), w.pid);
        let probe = tokio::task::spawn_blocking(move || shell_flavour(&id, pid))
            .await
            .map_err(|e| errors::internal(format!("reading the window's processes failed: {e}")))?;
        match probe {
            Ok(ShellReadiness::Ready(f)) => break f,
            // Forked but not yet exec'd: a window created a moment ago. Its shell is a few
            // milliseconds away; nothing signals the exec, so look again shortly.
            Ok(ShellReadiness::Starting) if Instant::now() < deadline => {}
            Ok(ShellReadiness::Starting) => return Err(timed_out(&w.id, timeout_ms)),
            Err(r) if r.retry && Instant::now() < busy_until => {}
            Err(r) => return Err(r.error),
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let token = uuid::Uuid::new_v4().simple().to_string()[..16].to_string();
    let line = typed_line(flavour, &command, &token);
    let end_re = end_pattern(&token);

    let (found_tx, found_rx) = oneshot::channel();
    w.addr
        .send(win::WatchOutput {
            pattern: end_re,
            visible_only: false,
            fresh: false,
            reply: found_tx,
        })
        .await
        .map_err(|_| errors::window_gone(&w.id))?;
    let (exit_tx, exit_rx) = oneshot::channel();
    w.addr
        .send(win::WatchExit(exit_tx))
        .await
        .map_err(|_| errors::window_gone(&w.id))?;
    let ticket = crate::pty_input::ticket(&env.services.inputs, &w.id);
    mailbox(
        w.addr
            .send(win::WriteInput(line.into_bytes(), ticket))
            .await,
    )
    .map_err(|_| errors::window_gone(&w.id))??;

    let ended = timeout_at(deadline, async {
        tokio::select! {
            biased;
            found = found_rx => found.map(|_| Ended::Marker),
            exit = exit_rx => exit.map(Ended::ShellExited),
        }
    })
    .await;
    let ended = match ended {
        Err(_) => return Err(timed_out(&w.id, timeout_ms)),
        Ok(Err(_)) => {
            return Err(errors::window_not_found(
                &w.id,
                &[],
                &format!("window {} closed before the command finished", w.id),
            ))
        }
        Ok(Ok(ended)) => ended,
    };
    let text = mailbox(
        w.addr
            .send(win::Capture {
                scrollback: true,
                styled: false,
            })
            .await,
    )
    .map_err(|_| errors::window_gone(&w.id))?;
    let mut result = match ended {
        Ended::Marker => {
            let (output, exit_code, truncated) = extract(&text, &token).ok_or_else(|| {
                errors::internal(
                    "the command's end marker was seen but is no longer in the window's text",
                )
            })?;
            Reply {
                output,
                exit_code,
                truncated: truncated.then_some(true),
                ..Default::default()
            }
        }
        Ended::ShellExited(exit) => {
            let (output, truncated) = after_start(&text, &token);
            let code = exit.map_or(0, |e| match (e.code, e.signal) {
                (Some(c), _) => c,
                (None, Some(sig)) => 128 + sig,
                (None, None) => 0,
            });
            Reply {
                output,
                exit_code: code.into(),
                shell_exited: Some(true),
                truncated: truncated.then_some(true),
                ..Default::default()
            }
        }
    };
    result.window_id = w.id;
    Ok(result)
}

enum Ended {
    Marker,
    ShellExited(Option<crate::pty::ExitInfo>),
}

fn timed_out(window_id: &str, timeout_ms: i64) -> VerbError {
    VerbError::new(
        ErrorCode::Timeout,
        format!(
            "the command was still running after {timeout_ms} ms; it keeps running in window {window_id}"
        ),
    )
    .with_hint(
        Hint::new()
            .param("timeout")
            .verb("capture-pane")
            .command(format!("tuios send-keys -w {window_id} C-c"))
            .detail("Capture the pane to see how far it got, raise timeout (milliseconds), or interrupt it with C-c."),
    )
}

/// What the window's foreground process says about typing into it now.
enum ShellReadiness {
    Ready(Flavour),
    /// Still the daemon's fork, before its exec.
    Starting,
}

struct Refusal {
    error: VerbError,
    /// Worth looking again shortly (a shell that may be about to be free).
    retry: bool,
}

/// Which syntax to type in, from the window's foreground process: it must be a shell waiting
/// at its prompt, not a program the shell started.
fn shell_flavour(window_id: &str, pid: i32) -> Result<ShellReadiness, Refusal> {
    use crate::agent::proc;
    let refuse = |comm: &str, what: &str, retry: bool| Refusal {
        error: busy(window_id, comm, what),
        retry,
    };
    let Some(fg_pgid) = proc::foreground_pgid(pid) else {
        // No terminal yet: the fork before its setsid and exec. Without /proc to ask, assume
        // the common case rather than refuse.
        return Ok(match proc::read_process(pid) {
            Some(p) if is_daemon_exe(&p.exe) => ShellReadiness::Starting,
            _ => ShellReadiness::Ready(Flavour::Posix),
        });
    };
    let Some(fg) = proc::read_process(fg_pgid) else {
        return Ok(ShellReadiness::Ready(Flavour::Posix));
    };
    if fg_pgid == pid && is_daemon_exe(&fg.exe) {
        return Ok(ShellReadiness::Starting);
    }
    // The window's own shell, or a shell started from it (`bash` typed at the prompt), as long
    // as it is interactive: `sh script.sh` or `sh -c ...` in the foreground is a running program.
    // A subshell running a command (`(sleep 9; echo)`) looks like the shell itself, but its
    // process group has other members: a shell at its prompt is alone in the foreground.
    match flavour_of(&fg.comm) {
        Some(_) if !interactive(&fg.argv) => Err(refuse(
            &fg.comm,
            "is running a script in the foreground",
            false,
        )),
        Some(_) if group_has_others(fg_pgid) => Err(refuse(
            &fg.comm,
            "is running a command in the foreground",
            true,
        )),
        Some(flavour) => Ok(ShellReadiness::Ready(flavour)),
        None if fg_pgid != pid => Err(refuse(&fg.comm, "is running in the foreground", false)),
        None => Err(refuse(
            &fg.comm,
            "runs in it, and it is not a shell run knows",
            false,
        )),
    }
}

/// Whether `exe` (a process's `/proc/<pid>/exe`) is this daemon's own executable.
fn is_daemon_exe(exe: &str) -> bool {
    !exe.is_empty()
        && std::env::current_exe()
            .is_ok_and(|me| crate::agent::proc::clean_exe(&me.to_string_lossy()) == exe)
}

/// Whether a process other than `pgid` itself is in process group `pgid` (a few small /proc
/// reads per process of the machine, once per call).
fn group_has_others(pgid: i32) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return false;
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid != pgid)
        .any(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| stat_pgrp(&stat))
                == Some(pgid)
        })
}

/// Field `pgrp` of a `/proc/<pid>/stat` (counted after the command name's last `)`).
fn stat_pgrp(stat: &str) -> Option<i32> {
    stat[stat.rfind(')')? + 1..]
        .split_whitespace()
        .nth(2)?
        .parse()
        .ok()
}

/// A shell's argv with options only: it reads commands from its terminal.
pub fn interactive(argv: &[String]) -> bool {
    argv.iter().skip(1).all(|a| a.starts_with('-') && a != "-c")
}

/// The flavour of a shell from its process name.
pub fn flavour_of(comm: &str) -> Option<Flavour> {
    let name = comm.trim_start_matches('-');
    if name == "fish" {
        Some(Flavour::Fish)
    } else if name == "zsh" {
        Some(Flavour::Zsh)
    } else if POSIX_SHELLS.contains(&name) {
        Some(Flavour::Posix)
    } else {
        None
    }
}

fn busy(window_id: &str, comm: &str, what: &str) -> VerbError {
    VerbError::new(
        ErrorCode::InvalidParams,
        format!(
            "window {window_id} is not at a shell prompt: {} {what}",
            echo_name(comm)
        ),
    )
    .with_hint(
        Hint::new()
            .param("window")
            .verb("send-text")
            .detail("run types into a shell (sh, dash, bash, zsh, ksh or fish) waiting at its prompt. Wait for the program to end, or use send-text and wait-for to drive it."),
    )
}

/// The line typed into the shell: start marker, the command, end marker with its status.
pub fn typed_line(flavour: Flavour, command: &str, token: &str) -> String {
    let needs_encoding = command.chars().any(|c| c.is_control());
    match flavour {
        Flavour::Posix | Flavour::Zsh => {
            let cmd = if needs_encoding {
                format!("\"$(printf '{}')\"", octal(command))
            } else {
                posix_quote(command)
            };
            let eval = if flavour == Flavour::Zsh {
                "builtin eval"
            } else {
                "command eval"
            };
            // Leading space: shells that honour ignorespace keep it out of history.
            format!(
                " printf '%s%s\\n' '{START}' {token}; {eval} {cmd}; printf '%s%s:%s;\\n' '{END}' {token} \"$?\"\n"
            )
        }
        Flavour::Fish => {
            let cmd = if needs_encoding {
                format!("printf '{}' | source", octal(command))
            } else {
                format!("eval {}", fish_quote(command))
            };
            format!(
                " printf '%s%s\\n' '{START}' {token}; {cmd}; printf '%s%s:%s;\\n' '{END}' {token} $status\n"
            )
        }
    }
}

/// Every byte but ASCII letters and digits as a printf octal escape (`%` included, so the
/// format has no directives).
fn octal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 4);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\{b:03o}"));
        }
    }
    out
}

/// A marker as a pattern that also matches it split over two rows (a marker printed near the
/// right edge wraps, and the window's text has a line break there).
fn marker_pattern(marker: &str) -> String {
    marker
        .chars()
        .map(|c| regex::escape(&c.to_string()))
        .collect::<Vec<_>>()
        .join("\n?")
}

fn end_pattern(token: &str) -> Regex {
    // The status ends with `;`, so a prompt that starts with a digit is not read as part of it.
    let pattern = format!(
        r"{}\n?(\d(?:\n?\d)*)\n?;",
        marker_pattern(&format!("{END}{token}:"))
    );
    Regex::new(&pattern).expect("the end marker pattern is valid")
}

fn start_pattern(token: &str) -> Regex {
    let pattern = format!(r"{}\n", marker_pattern(&format!("{START}{token}")));
    Regex::new(&pattern).expect("the start marker pattern is valid")
}

/// Output, exit status and whether the start marker had left the scrollback, from the window's
/// text; `None` when the end marker is not in it.
pub fn extract(text: &str, token: &str) -> Option<(String, i64, bool)> {
    let end = end_pattern(token);
    let start = start_pattern(token);
    let (from, truncated) = match start.find_iter(text).last() {
        Some(m) => (m.end(), false),
        None => (0, true),
    };
    let caps = end.captures(&text[from..])?;
    let whole = caps.get(0)?;
    let code: i64 = caps.get(1)?.as_str().replace('\n', "").parse().ok()?;
    Some((
        text[from..from + whole.start()].to_string(),
        code,
        truncated,
    ))
}

/// The text after the start marker, for a shell that exited before printing the end marker:
/// blank rows below the last output are not output.
pub fn after_start(text: &str, token: &str) -> (String, bool) {
    let (from, truncated) = match start_pattern(token).find_iter(text).last() {
        Some(m) => (m.end(), false),
        None => (0, true),
    };
    let rest = text[from..].trim_end_matches(['\n', ' ']);
    let output = if rest.is_empty() {
        String::new()
    } else {
        format!("{rest}\n")
    };
    (output, truncated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_echoed_line_never_matches_a_marker() {
        for flavour in [Flavour::Posix, Flavour::Zsh, Flavour::Fish] {
            let line = typed_line(flavour, "printf 'a\\nb\\n'; false", "0123456789abcdef");
            assert!(!end_pattern("0123456789abcdef").is_match(&line), "{line}");
            assert!(!start_pattern("0123456789abcdef").is_match(&line), "{line}");
        }
    }

    #[test]
    fn output_is_the_text_between_the_markers() {
        let t = "0123456789abcdef";
        let screen = format!(
            "$  printf '%s%s\\n' '#tuios-run:' {t}; command eval 'x'\n#tuios-run:{t}\na\nb\n#tuios-end:{t}:3;\n$"
        );
        assert_eq!(extract(&screen, t), Some(("a\nb\n".into(), 3, false)));
        // No newline at the end of the output: the marker follows on the same row.
        let screen = format!("#tuios-run:{t}\nabc#tuios-end:{t}:0;\n1$");
        assert_eq!(extract(&screen, t), Some(("abc".into(), 0, false)));
        // The end marker wrapped at the right edge.
        let screen = format!("#tuios-run:{t}\nxyz#tuios-e\nnd:{t}:1\n2;\n$");
        assert_eq!(extract(&screen, t), Some(("xyz".into(), 12, false)));
        // The start marker scrolled out of the scrollback.
        let screen = format!("tail\n#tuios-end:{t}:0;\n");
        assert_eq!(extract(&screen, t), Some(("tail\n".into(), 0, true)));
        assert_eq!(extract("nothing here", t), None);
        // A marker of another run is not this run's.
        let screen = format!("#tuios-run:{t}\n#tuios-end:ffffffffffffffff:0;\n");
        assert_eq!(extract(&screen, t), None);
    }

    #[test]
    fn quoting_and_encoding() {
        assert_eq!(posix_quote("it's"), "'it'\\''s'");
        assert_eq!(fish_quote("a\\'b"), "'a\\\\\\'b'");
        assert_eq!(octal("a b%\n"), "a\\040b\\045\\012");
        let line = typed_line(Flavour::Posix, "echo\tx", "t");
        assert!(
            line.contains("command eval \"$(printf 'echo\\011x')\""),
            "{line}"
        );
        assert!(!line[..line.len() - 1].contains(['\t', '\n']));
        let line = typed_line(Flavour::Zsh, "echo x", "t");
        assert!(line.contains("; builtin eval 'echo x';"), "{line}");
        let line = typed_line(Flavour::Fish, "echo x", "t");
        assert!(
            line.contains("eval 'echo x'") && line.ends_with("$status\n"),
            "{line}"
        );
    }

    #[test]
    fn only_an_interactive_shell_takes_the_line() {
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(interactive(&argv(&["/bin/sh"])));
        assert!(interactive(&argv(&["-bash"])));
        assert!(interactive(&argv(&["bash", "--norc", "-i"])));
        assert!(!interactive(&argv(&["sh", "script.sh"])));
        assert!(!interactive(&argv(&["sh", "-c", "sleep 9"])));
    }

    #[test]
    fn pgrp_from_stat() {
        assert_eq!(stat_pgrp("42 (a b) c) S 1 4242 4242 0"), Some(4242));
        assert_eq!(stat_pgrp("garbage"), None);
    }

    #[test]
    fn shells_by_name() {
        assert_eq!(flavour_of("dash"), Some(Flavour::Posix));
        assert_eq!(flavour_of("-bash"), Some(Flavour::Posix));
        assert_eq!(flavour_of("fish"), Some(Flavour::Fish));
        assert_eq!(flavour_of("zsh"), Some(Flavour::Zsh));
        assert_eq!(flavour_of("vim"), None);
    }

    #[test]
    fn after_start_drops_blank_rows() {
        let t = "t";
        assert_eq!(
            after_start("#tuios-run:t\nbye\n\n\n", t),
            ("bye\n".to_string(), false)
        );
        assert_eq!(after_start("#tuios-run:t\n\n", t), (String::new(), false));
    }
}
