//! `tuios tape run FILE`: a `.tape` script run against a session over the JSON protocol, so a
//! tape is a readable CI script. Text and keys go to the focused window (`send-text`,
//! `send-keys`), window commands through `run-command`, and the waits are real: `Wait` is the
//! protocol's `window-idle`, `WaitUntilRegex` its `window-output`, each with a timeout that fails
//! the run with the `timeout` code (exit status 2). Every failure names the file, line and column.
//!
//! With `--attached` the tape drives the attached client instead (keys and commands are routed
//! through it, so the leader key and tiling act as if typed); the waits stay in the daemon.

pub mod library;
pub mod parse;
pub mod play;
pub mod trust;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};

use crate::failure::{DaemonError, Failure};
use crate::json_client::JsonClient;
use parse::{Cmd, Setting, Step};

/// How deep `Source` may nest; deeper is a loop in all but name.
const MAX_SOURCE_DEPTH: usize = 8;
/// Longest a tape waits for a window it opened to draw its first output.
const WINDOW_READY_LIMIT: Duration = Duration::from_secs(10);

/// One command and the file it came from (a `Source`d tape keeps its own name in errors).
#[derive(Debug, Clone)]
pub struct Located {
    pub file: PathBuf,
    pub step: Step,
}

/// What `tape run` was asked to do.
pub struct RunOptions<'a> {
    pub file: &'a Path,
    pub session: Option<&'a str>,
    pub attached: bool,
    /// Run the tape only if its bytes hash to this (hex SHA-256).
    pub sha256: Option<&'a str>,
}

/// Reads and parses a tape and every tape it sources, before anything runs: a typo anywhere
/// fails the run with nothing sent.
pub fn load(file: &Path) -> Result<Vec<Located>, Failure> {
    load_checked(file, None)
}

/// [`load`], refusing the tape unless its bytes hash to `sha256` (a project tape runs only as
/// the user reviewed it). The bytes hashed are the bytes parsed: the file is read once.
pub fn load_checked(file: &Path, sha256: Option<&str>) -> Result<Vec<Located>, Failure> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Failure::msg(format!("cannot read the tape {}: {e}", file.display())))?;
    if let Some(want) = sha256 {
        if trust::sha256_hex(text.as_bytes()) != want.to_ascii_lowercase() {
            return Err(Failure::msg(format!(
                "{} changed since it was reviewed: it was not run",
                file.display()
            )));
        }
    }
    let mut out = Vec::new();
    let mut stack = Vec::new();
    load_into(file, text, &mut stack, &mut out)?;
    if sha256.is_some() && out.iter().any(|l| l.file != file) {
        // What a sourced tape holds was never reviewed with this one.
        return Err(Failure::msg(format!(
            "{} sources other tapes, which a reviewed project tape may not: it was not run",
            file.display()
        )));
    }
    Ok(out)
}

fn load_into(
    file: &Path,
    text: String,
    stack: &mut Vec<PathBuf>,
    out: &mut Vec<Located>,
) -> Result<(), Failure> {
    let steps = parse::parse(&text).map_err(|e| {
        let mut hint = json!({"param": "file", "detail": format!("in {}", file.display())});
        if let Some(h) = &e.hint {
            hint["detail"] = json!(h);
        }
        Failure::Verb(DaemonError {
            code: "invalid_params".into(),
            message: format!("{}:{e}", file.display()),
            hint: Some(hint),
        })
    })?;
    let canonical = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    stack.push(canonical);
    for step in steps {
        if let Cmd::Source(path) = &step.cmd {
            let target = file
                .parent()
                .map(|dir| dir.join(path))
                .unwrap_or_else(|| PathBuf::from(path));
            let at = |message: String| {
                Failure::Verb(DaemonError {
                    code: "invalid_params".into(),
                    message: format!(
                        "{}:{}:{}: {message}",
                        file.display(),
                        step.line,
                        step.column
                    ),
                    hint: None,
                })
            };
            let canon = std::fs::canonicalize(&target)
                .map_err(|e| at(format!("Source: cannot read {}: {e}", target.display())))?;
            if stack.contains(&canon) {
                return Err(at(format!(
                    "Source: {} is already being run (a tape cannot source itself)",
                    target.display()
                )));
            }
            if stack.len() >= MAX_SOURCE_DEPTH {
                return Err(at(format!(
                    "Source: tapes nest deeper than {MAX_SOURCE_DEPTH}"
                )));
            }
            let text = std::fs::read_to_string(&target).map_err(|e| {
                Failure::msg(format!("cannot read the tape {}: {e}", target.display()))
            })?;
            load_into(&target, text, stack, out)?;
            continue;
        }
        out.push(Located {
            file: file.to_path_buf(),
            step,
        });
    }
    stack.pop();
    Ok(())
}

/// Settings a tape changes as it runs.
struct TapeSettings {
    typing_speed: Option<Duration>,
    wait_timeout: Duration,
}

/// Runs a tape; returns the number of commands run.
pub fn run(socket: &Path, opts: &RunOptions<'_>) -> Result<usize, Failure> {
    let steps = load_checked(opts.file, opts.sha256)?;
    let mut client = JsonClient::connect(socket)?;
    // Pin the session once: "the most recently active" could change under a long tape.
    let mut info_params = json!({});
    if let Some(s) = opts.session {
        info_params["session"] = json!(s);
    }
    let info = client.call("session-info", Some(&info_params))?;
    let session = info
        .get("session_name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if opts.attached && info.get("tui_attached").and_then(Value::as_bool) != Some(true) {
        return Err(Failure::Verb(DaemonError {
            code: "needs_client".into(),
            message: format!(
                "--attached runs the tape through the attached client, and session {session} has none"
            ),
            hint: Some(json!({
                "command": format!("tuios attach {session}"),
                "detail": "attach a client first, or leave out --attached to run the tape headless",
            })),
        }));
    }
    let mut state = TapeSettings {
        typing_speed: None,
        wait_timeout: parse::DEFAULT_WAIT_TIMEOUT,
    };
    for located in &steps {
        run_step(
            &mut client,
            &session,
            opts.attached,
            &mut state,
            &located.step,
        )
        .map_err(|f| locate(f, located))?;
    }
    Ok(steps.len())
}

/// A failure with the tape's file, line and column in front, code and hint kept.
fn locate(f: Failure, at: &Located) -> Failure {
    let place = format!(
        "{}:{}:{}: {}",
        at.file.display(),
        at.step.line,
        at.step.column,
        describe(&at.step.cmd)
    );
    match f {
        Failure::Verb(mut e) => {
            e.message = format!("{place}: {}", e.message);
            Failure::Verb(e)
        }
        Failure::Other { message, hints } => Failure::Other {
            message: format!("{place}: {message}"),
            hints,
        },
        // "No daemon" is about the socket, not the line; keep its own hints.
        other @ Failure::NoDaemon(_) => other,
    }
}

/// The command as a reader would recognise it in the tape.
pub fn describe(cmd: &Cmd) -> String {
    match cmd {
        Cmd::Type { text, .. } => format!("Type {text:?}"),
        Cmd::Key { name, count: 1 } => (*name).to_string(),
        Cmd::Key { name, count } => format!("{name} {count}"),
        Cmd::Combo { written, .. } => written.clone(),
        Cmd::Sleep(d) => format!("Sleep {}ms", d.as_millis()),
        Cmd::WaitIdle { idle, .. } => format!("Wait {}ms", idle.as_millis()),
        Cmd::WaitRegex { pattern, .. } => format!("WaitUntilRegex {pattern:?}"),
        Cmd::Set(Setting::TypingSpeed(d)) => format!("Set TypingSpeed {}ms", d.as_millis()),
        Cmd::Set(Setting::WaitTimeout(d)) => format!("Set WaitTimeout {}ms", d.as_millis()),
        Cmd::Source(p) => format!("Source {p}"),
        Cmd::Run { name, args } if args.is_empty() => (*name).to_string(),
        Cmd::Run { name, args } => format!("{name} {}", args.join(" ")),
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

fn run_step(
    client: &mut JsonClient,
    session: &str,
    attached: bool,
    state: &mut TapeSettings,
    step: &Step,
) -> Result<(), Failure> {
    let run_command = |client: &mut JsonClient, name: &str, args: &[String]| {
        client
            .call(
                "run-command",
                Some(&json!({"session": session, "command": name, "args": args})),
            )
            .map(drop)
    };
    match &step.cmd {
        // Typing nothing sends nothing (send-text refuses empty text).
        Cmd::Type { text, .. } if text.is_empty() => Ok(()),
        Cmd::Type { text, delay } => {
            let delay = delay.or(state.typing_speed).filter(|d| !d.is_zero());
            // One request for the whole text unless a typing speed spaces the characters out.
            let chunks: Vec<String> = match delay {
                None => vec![text.clone()],
                Some(_) => text.chars().map(String::from).collect(),
            };
            for (i, chunk) in chunks.iter().enumerate() {
                if i > 0 {
                    if let Some(d) = delay {
                        std::thread::sleep(d);
                    }
                }
                if attached {
                    run_command(client, "Type", std::slice::from_ref(chunk))?;
                } else {
                    client.call(
                        "send-text",
                        Some(&json!({"session": session, "text": chunk})),
                    )?;
                }
            }
            Ok(())
        }
        Cmd::Key { name, count } => {
            if attached {
                run_command(client, name, &[count.to_string()])
            } else {
                let keys = vec![*name; *count as usize].join(" ");
                client
                    .call(
                        "send-keys",
                        Some(&json!({"session": session, "keys": keys})),
                    )
                    .map(drop)
            }
        }
        Cmd::Combo { token, .. } => {
            if attached {
                return run_command(client, "KeyCombo", std::slice::from_ref(token));
            }
            if let Some(d) = token
                .strip_prefix("alt+")
                .filter(|d| d.len() == 1 && d.as_bytes()[0].is_ascii_digit() && *d != "0")
            {
                // Alt+1..9 switch workspace in the Go tape; headless, the daemon does that.
                return run_command(client, "SwitchWorkspace", &[d.to_string()]);
            }
            client
                .call(
                    "send-keys",
                    Some(&json!({"session": session, "keys": token})),
                )
                .map(drop)
        }
        // The tape asked for time to pass; that is what Sleep is.
        Cmd::Sleep(d) => {
            std::thread::sleep(*d);
            Ok(())
        }
        Cmd::WaitIdle { idle, timeout } => {
            let timeout = timeout.unwrap_or(state.wait_timeout);
            client
                .call(
                    "wait-for",
                    Some(&json!({
                        "session": session,
                        "condition": "window-idle",
                        "idle": ms(*idle),
                        "timeout": ms(timeout),
                    })),
                )
                .map(drop)
        }
        Cmd::WaitRegex { pattern, timeout } => {
            let timeout = timeout.unwrap_or(state.wait_timeout);
            client
                .call(
                    "wait-for",
                    Some(&json!({
                        "session": session,
                        "condition": "window-output",
                        "pattern": pattern,
                        "timeout": ms(timeout),
                    })),
                )
                .map(drop)
        }
        Cmd::Set(Setting::TypingSpeed(d)) => {
            state.typing_speed = Some(*d);
            Ok(())
        }
        Cmd::Set(Setting::WaitTimeout(d)) => {
            state.wait_timeout = *d;
            Ok(())
        }
        Cmd::Source(_) => Ok(()), // expanded by `load`
        Cmd::Run { name, args } => {
            run_command(client, name, args)?;
            if matches!(&**name, "NewWindow" | "Split" | "SmartSplit") {
                wait_window_ready(client, session, state);
            }
            Ok(())
        }
    }
}

/// After a command that opens a window (focused), wait until its program has drawn something:
/// a shell that is still setting up its terminal may flush what the next `Type` sends. A
/// window that stays blank (a silent program) only delays the tape, never fails it.
fn wait_window_ready(client: &mut JsonClient, session: &str, state: &TapeSettings) {
    let timeout = state.wait_timeout.min(WINDOW_READY_LIMIT);
    let _ = client.call(
        "wait-for",
        Some(&json!({
            "session": session,
            "condition": "window-output",
            "pattern": r"\S",
            "timeout": ms(timeout),
        })),
    );
}
