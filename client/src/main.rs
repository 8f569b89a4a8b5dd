//! `tuios`: the daemon entry point and the command-line client that drives it.

mod autostart;
mod binary_client;
mod cli;
mod clock;
mod docs;
mod failure;
mod help;
mod import_theme;
mod json_client;
mod local;
mod output;
mod paste_check;
mod reference;
mod request_line;
mod serve;
mod socket_check;
mod tape;
mod tui;
mod verbs;

use std::io::{self, Read, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use clap::FromArgMatches;
use protocol::binary::{ClientMessage, DaemonMessage};
use serde_json::Value;

use crate::binary_client::{unexpected, BinaryClient};
use crate::cli::{Cli, Command};
use crate::failure::Failure;
use crate::json_client::JsonClient;

/// How long kill-server waits for the daemon to remove its socket.
const KILL_SERVER_DEADLINE: Duration = Duration::from_secs(10);

fn main() -> ExitCode {
    let json_errors = wants_json_errors(std::env::args_os().skip(1));
    let parsed = help::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        // clap would exit 2 on a usage error, which is wait-for's "timed out"; the documented
        // statuses make it a plain failure. Help and version still exit 0.
        Err(e) if e.use_stderr() => {
            if json_errors {
                usage_error_json(&e);
            } else {
                let _ = e.print();
            }
            return ExitCode::from(failure::EXIT_FAILURE as u8);
        }
        Err(e) => e.exit(),
    };
    let code = match run(cli) {
        Ok(code) => code,
        Err(failure) => {
            if json_errors {
                failure.report_json();
            } else {
                failure.report();
            }
            failure.exit_code()
        }
    };
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// `--json` among the options (before a `--`, after which everything is the command's own):
/// errors are then printed as JSON too. Read from the raw arguments so a usage error, found
/// before any parsed command exists, is JSON as well.
fn wants_json_errors(args: impl Iterator<Item = std::ffi::OsString>) -> bool {
    args.take_while(|a| a != "--").any(|a| a == "--json")
}

/// A usage error as the error envelope (`invalid_params`, as the daemon calls a wrong argument).
fn usage_error_json(e: &clap::Error) {
    let text = e.to_string();
    let message = text
        .lines()
        .next()
        .unwrap_or("invalid arguments")
        .trim_start_matches("error: ")
        .to_string();
    let detail = text
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.is_empty());
    let envelope = serde_json::json!({"error": {
        "code": "invalid_params",
        "message": message,
        "hint": {"detail": detail.collect::<Vec<_>>().join(" ")},
    }});
    let _ = writeln!(io::stdout().lock(), "{envelope}");
}

fn run(cli: Cli) -> Result<i32, Failure> {
    // Absolute, like the default path: it is handed to a daemon we start and shown in hints.
    let socket = match cli.socket.clone() {
        Some(p) => std::path::absolute(&p).unwrap_or(p),
        None => daemon::paths::socket_path(),
    };
    match cli.command {
        Command::Daemon(args) => Ok(serve::daemon::run(cli.socket, args)),
        Command::Schema(a) => print_json(&schema(a.verb.as_deref())?),
        Command::Completions(a) => emit_bytes(&docs::completions(a.shell)),
        Command::Man(a) => match &a.dir {
            None => emit_bytes(
                &docs::main_page()
                    .map_err(|e| Failure::msg(format!("cannot render the man page: {e}")))?,
            ),
            Some(dir) => {
                let written =
                    docs::write_man_pages(dir).map_err(|e| Failure::msg(e.to_string()))?;
                emit(&format!(
                    "wrote {} man pages to {}\n",
                    written.len(),
                    dir.display()
                ))
            }
        },
        Command::Config(a) => local::config_file::run(&a),
        Command::Logs(a) => local::logs::run(&socket, &a),
        Command::Keybinds(a) => local::keybinds::run(&a),
        Command::Layout(a) => local::layouts::run(&a),
        Command::Play(a) => local::play::run(&a),
        Command::Attach(a) => {
            if let Some(n) = &a.session {
                protocol::binary::validate_session_name(n)
                    .map_err(|e| Failure::msg(format!("invalid session name {n:?}: {e}")))?;
            }
            if !a.force {
                refuse_own_session(&socket, a.session.as_deref())?;
            }
            tui::set_attach_mode(a.read_only, String::new());
            tui::attach(&socket, a.session, a.create)
        }
        Command::KillServer => kill_server(&socket),
        Command::Call(a) => call_raw(&socket, &a.verb, a.params.as_deref()),
        // A `timeout` answer fails with its own exit status (see Failure::exit_code).
        Command::PasteCheck(a) => print_json(&paste_check::run(&a).map_err(Failure::msg)?),
        Command::ImportTheme(a) => emit(&import_theme::run(&a)?),
        Command::Tape(a) => tape_command(&socket, &a),
        Command::Record(a) => match a.command {
            cli::RecordCommand::Start(a) => verbs::record_start::run(&socket, a),
            cli::RecordCommand::Stop(a) => verbs::record_stop::run(&socket, a),
        },
        Command::Ssh(a) => serve::ssh::run(&socket, a),
        Command::Web(a) => serve::web::run(&socket, &a),
        Command::Docs(a) => match a.command {
            cli::DocsCommand::Reference { out } => {
                let written = reference::write(&out)?;
                let names: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
                emit(&format!("wrote {}\n", names.join(" ")))
            }
        },
        Command::Help(a) => help::run(&a).and_then(|text| emit(&text)),
        Command::Verb(v) => v.run(&socket),
    }
}

/// `tuios tape run|exec FILE`: the tape run, and a line (or JSON) saying how many commands ran.
struct TapeRun<'a> {
    session: Option<&'a str>,
    attached: bool,
    json: bool,
    sha256: Option<&'a str>,
}

fn tape_run(socket: &Path, given: &Path, run: &TapeRun<'_>) -> Result<i32, Failure> {
    let file = tape::library::resolve(given)?;
    let n = tape::run(
        socket,
        &tape::RunOptions {
            file: &file,
            session: run.session,
            attached: run.attached,
            sha256: run.sha256,
        },
    )?;
    if run.json {
        print_json(&serde_json::json!({
            "type": "tape_result",
            "file": file.display().to_string(),
            "commands": n,
        }))
    } else {
        emit(&format!(
            "{}: {n} command{} ran\n",
            output::escape_controls(&file.display().to_string()),
            if n == 1 { "" } else { "s" }
        ))
    }
}

/// `tuios tape ...`.
fn tape_command(socket: &Path, a: &cli::TapeArgs) -> Result<i32, Failure> {
    match &a.command {
        cli::TapeCommand::Run(r) => {
            let run = TapeRun {
                session: r.session.as_deref(),
                attached: r.attached,
                json: r.json,
                sha256: r.sha256.as_deref(),
            };
            tape_run(socket, &r.file, &run)
        }
        cli::TapeCommand::Exec(r) => {
            let run = TapeRun {
                session: r.session.as_deref(),
                attached: true,
                json: r.json,
                sha256: None,
            };
            tape_run(socket, &r.file, &run)
        }
        cli::TapeCommand::Play(p) => tape::play::play(
            socket,
            &tape::play::PlayOptions {
                file: &tape::library::resolve(&p.file)?,
                session: p.session.as_deref(),
                keep: p.keep,
            },
        ),
        cli::TapeCommand::Add(a) => {
            let path = tape::library::add(&a.file, a.name.as_deref(), a.force)?;
            emit(&format!("added {}\n", path.display()))
        }
        cli::TapeCommand::List(l) => {
            let dir = tape::library::dir()?;
            let entries = tape::library::entries(&dir);
            if l.json {
                return print_json(&serde_json::json!({"dir": dir, "tapes": entries}));
            }
            if entries.is_empty() {
                return emit(&format!(
                    "no tapes in the library ({}): tuios tape add FILE\n",
                    dir.display()
                ));
            }
            let width = entries.iter().map(|e| e.name.len()).max().unwrap_or(0);
            let mut out = String::new();
            for e in entries {
                let what = match (e.commands, &e.error) {
                    (Some(n), _) => format!("{n} commands"),
                    (None, Some(err)) => format!("does not parse: {err}"),
                    (None, None) => String::new(),
                };
                // A tape's comment is anyone's text: shown with its controls made visible.
                let (what, about) = (
                    output::escape_controls(&what),
                    output::escape_controls(&e.about),
                );
                out.push_str(&format!("{:<width$}  {what}  {about}\n", e.name));
            }
            emit(&out)
        }
        cli::TapeCommand::Show(n) => {
            let path = tape::library::existing(&n.name)?;
            let text = std::fs::read_to_string(&path)
                .map_err(|e| Failure::msg(format!("cannot read {}: {e}", path.display())))?;
            emit(&text)
        }
        cli::TapeCommand::Delete(n) => {
            let path = tape::library::existing(&n.name)?;
            std::fs::remove_file(&path)
                .map_err(|e| Failure::msg(format!("cannot delete {}: {e}", path.display())))?;
            emit(&format!("deleted {}\n", path.display()))
        }
        cli::TapeCommand::Dir => emit(&format!("{}\n", tape::library::dir()?.display())),
        cli::TapeCommand::Validate(v) => {
            let steps = tape::load(&tape::library::resolve(&v.file)?)?;
            if v.json {
                let rows: Vec<Value> = steps
                    .iter()
                    .map(|l| {
                        serde_json::json!({
                            "file": l.file.display().to_string(),
                            "line": l.step.line,
                            "column": l.step.column,
                            "command": tape::describe(&l.step.cmd),
                        })
                    })
                    .collect();
                print_json(&serde_json::json!({"type": "tape_check", "commands": rows}))
            } else {
                emit(&format!(
                    "{}: {} command{}, no errors\n",
                    output::escape_controls(&v.file.display().to_string()),
                    steps.len(),
                    if steps.len() == 1 { "" } else { "s" }
                ))
            }
        }
    }
}

/// Write text to stdout; a closed pipe (`tuios ls | head`) is not an error worth reporting.
fn emit(text: &str) -> Result<i32, Failure> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(0),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(0),
        Err(e) => Err(Failure::msg(format!("cannot write output: {e}"))),
    }
}

/// [`emit`] for generated bytes (completion scripts, roff).
fn emit_bytes(bytes: &[u8]) -> Result<i32, Failure> {
    emit(&String::from_utf8_lossy(bytes))
}

/// `tuios schema [VERB]`: one verb's schemas, or every verb's under "verbs".
fn schema(verb: Option<&str>) -> Result<Value, Failure> {
    let to_value = |s: protocol::verbs::VerbSchema| {
        serde_json::to_value(s).map_err(|e| Failure::msg(format!("cannot render JSON: {e}")))
    };
    match verb {
        None => Ok(serde_json::json!({
            "verbs": protocol::verbs::schemas()
                .into_iter()
                .map(to_value)
                .collect::<Result<Vec<_>, _>>()?
        })),
        Some(name) => match protocol::verbs::schema(name) {
            Some(s) => to_value(s),
            None => {
                let names = protocol::registry::verb_names();
                let mut hints = Vec::new();
                if let Some(near) = protocol::closest::closest_match(name, names.iter().copied()) {
                    hints.push(format!("did you mean {near}?"));
                }
                hints.push("tuios schema (without a verb) prints every verb".to_string());
                Err(Failure::with_hints(
                    format!("unknown verb {:?}", protocol::closest::echo_name(name)),
                    hints,
                ))
            }
        },
    }
}

fn print_json(value: &Value) -> Result<i32, Failure> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Failure::msg(format!("cannot render JSON: {e}")))?;
    emit(&format!("{text}\n"))
}

/// `tuios call VERB [PARAMS-JSON]`: the response line verbatim; exit 1 on an error response.
fn call_raw(socket: &Path, verb: &str, params_arg: Option<&str>) -> Result<i32, Failure> {
    let text = match params_arg {
        Some("-") => {
            let mut buf = String::new();
            io::stdin()
                .read_to_string(&mut buf)
                .map_err(|e| Failure::msg(format!("cannot read PARAMS-JSON from stdin: {e}")))?;
            Some(buf)
        }
        other => other.map(str::to_string),
    };
    let params = request_line::call_params(text.as_deref()).map_err(Failure::msg)?;
    let line = JsonClient::connect(socket)?.call_raw(verb, params.as_ref())?;
    emit(&format!("{line}\n"))?;
    Ok(if json_client::is_error_response(&line) {
        failure::EXIT_FAILURE
    } else {
        0
    })
}

/// The session this terminal is a window of: the daemon sets `TUIOS_SESSION` and
/// `TUIOS_SOCKET` in every window, and a session of the same name on another daemon is not it.
fn own_session(socket: &Path) -> Option<String> {
    let session = std::env::var("TUIOS_SESSION")
        .ok()
        .filter(|s| !s.is_empty())?;
    let ours = std::env::var_os("TUIOS_SOCKET").map(std::path::PathBuf::from)?;
    let same = |p: &Path| std::fs::canonicalize(p).ok();
    (same(&ours).is_some() && same(&ours) == same(socket)).then_some(session)
}

/// Attaching to the session this terminal is inside would draw the session inside one of its
/// own windows, forever nested; refuse, as tmux does, unless forced.
fn refuse_own_session(socket: &Path, target: Option<&str>) -> Result<(), Failure> {
    let Some(own) = own_session(socket) else {
        return Ok(());
    };
    let target = match target {
        Some(t) => t.to_string(),
        // The most recently active session is what attach would pick; ask which that is.
        None => match verbs::send(
            socket,
            protocol::verbs::session_info::SPEC.name,
            &protocol::verbs::session_info::Params::default(),
        ) {
            Ok(info) => info
                .get("session_name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            // No daemon or no session: attach reports that itself.
            Err(_) => return Ok(()),
        },
    };
    if target != own {
        return Ok(());
    }
    let shown = output::escape_controls(&own);
    Err(Failure::with_hints(
        format!("this terminal is a window of session {shown}; attaching to it here would show the session inside itself"),
        vec![
            "to get to its client, detach from the outer one or switch to it there".to_string(),
            "attach another session: tuios attach NAME (tuios ls lists them)".to_string(),
            format!("attach anyway: tuios attach --force {shown}"),
        ],
    ))
}

/// `tuios kill-server`: ask the daemon to stop and wait until its socket is gone.
fn kill_server(socket: &Path) -> Result<i32, Failure> {
    match daemon::probe(socket) {
        daemon::Probe::Absent => emit("tuios daemon is not running\n"),
        daemon::Probe::Stale => {
            remove_stale(socket)?;
            emit(&format!(
                "tuios daemon is not running (removed a stale socket at {})\n",
                socket.display()
            ))
        }
        daemon::Probe::Running => {
            let had_pid_file = daemon::paths::pid_path(socket).exists();
            let mut client = BinaryClient::connect(socket)?;
            let pid: Option<i32>;
            let who = match client.hello()? {
                Ok(welcome) => {
                    client.send(&ClientMessage::KillServer)?;
                    match client.recv()? {
                        DaemonMessage::Ok => {}
                        DaemonMessage::Error { message, .. } => return Err(Failure::msg(message)),
                        other => return Err(unexpected(&other)),
                    }
                    pid = i32::try_from(welcome.pid).ok();
                    format!("{} (pid {})", welcome.daemon_version, welcome.pid)
                }
                // A daemon of another protocol version refuses our messages, yet kill-server is
                // exactly what the refusal recommends: stop it by signal instead.
                Err((_, refusal)) => {
                    let signalled = signal_daemon(socket).map_err(|why| {
                        Failure::with_hints(
                            format!("the daemon refused this client ({refusal}) and {why}"),
                            vec!["stop it by hand: kill <pid of tuios daemon>".to_string()],
                        )
                    })?;
                    pid = Some(signalled);
                    format!("(pid {signalled})")
                }
            };
            drop(client);
            match autostart::wait_stopped(socket, had_pid_file, pid, KILL_SERVER_DEADLINE) {
                Some(autostart::Stopped::SocketGone) => {
                    emit(&format!("tuios daemon {who} stopped\n"))
                }
                Some(autostart::Stopped::SocketStays) => emit(&format!(
                    "tuios daemon {who} stopped; its socket {} stays because systemd listens on it \
                     (socket activation): the next tuios command starts a daemon again \
                     (to stop that too: systemctl --user stop tuios.socket)\n",
                    socket.display()
                )),
                None => Err(Failure::msg(format!(
                    "the daemon was asked to stop but is still running after {} s ({} and its pid \
                     file are still there)",
                    KILL_SERVER_DEADLINE.as_secs(),
                    socket.display(),
                ))),
            }
        }
    }
}

/// SIGTERM to the pid in the daemon's pid file; returns the pid.
fn signal_daemon(socket: &Path) -> Result<i32, String> {
    let pid_file = daemon::paths::pid_path(socket);
    let text = std::fs::read_to_string(&pid_file)
        .map_err(|e| format!("its pid file {} cannot be read: {e}", pid_file.display()))?;
    let pid: i32 = text
        .trim()
        .parse()
        .ok()
        .filter(|&p| p > 1)
        .ok_or_else(|| format!("its pid file {} holds no pid", pid_file.display()))?;
    // SAFETY: kill has no memory preconditions; the pid was checked to be a single process.
    if unsafe { libc::kill(pid, libc::SIGTERM) } == -1 {
        return Err(format!(
            "signalling pid {pid} failed: {}",
            io::Error::last_os_error()
        ));
    }
    Ok(pid)
}

/// Remove a socket nobody listens on; anything that is not a socket is left alone.
fn remove_stale(socket: &Path) -> Result<(), Failure> {
    use std::os::unix::fs::FileTypeExt;
    match std::fs::symlink_metadata(socket) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Ok(meta) if !meta.file_type().is_socket() => {
            return Err(Failure::msg(format!(
                "{} is not a socket; refusing to remove it",
                socket.display()
            )))
        }
        _ => {}
    }
    match std::fs::remove_file(socket) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Failure::msg(format!(
            "cannot remove the stale socket {}: {e}",
            socket.display()
        ))),
    }
}
