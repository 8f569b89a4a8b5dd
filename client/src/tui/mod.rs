//! `tuios attach`: the full-screen client. The daemon renders, this draws: it shows the current
//! workspace's windows from the screen rows the daemon streams, computes the layout, and turns
//! keys, mouse and pastes into operations.
//!
//! Files: `conn` (socket, reader thread), `app` (state and behaviour), `layout` (geometry),
//! `render` (drawing), `input` (key and mouse encoding), `keys` (bindings and modes), `copy`
//! (copy mode), `settings` (options and themes), `replies` (the outer terminal's reports and
//! replies, kept away from windows).

mod alerts;
mod app;
mod conn;
mod copy;
mod input;
mod keys;
mod layout;
mod reconnect;
mod render;
mod replies;
mod settings;
mod sysstat;
mod templates;

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::mpsc::TryRecvError;
use std::time::{Duration, Instant};

use termwiz::caps::Capabilities;
use termwiz::escape::osc::{OperatingSystemCommand, Selection};
use termwiz::input::InputEvent;
use termwiz::surface::{Change, CursorVisibility, Position, Surface};
use termwiz::terminal::buffered::BufferedTerminal;
use termwiz::terminal::{new_terminal, Terminal};

use crate::failure::Failure;
use app::{App, Exit};
use conn::{Conn, Incoming};
use keys::KeyConfig;
use replies::ReplyFilter;

/// Input events handled per wake-up before the screen gets a chance to redraw.
const INPUT_BURST: usize = 512;
/// Longest sleep when nothing is scheduled (the clock still ticks over).
const IDLE_WAIT: Duration = Duration::from_secs(1);
/// Frames drawn back to back before the frame rate applies.
const FRAME_BURST: f64 = 3.0;
/// DECRST 1004: no focus-in/out reports from the outer terminal.
const DISABLE_FOCUS_REPORTS: &str = "\x1b[?1004l";

/// Attaches to `session` (None: the most recently active one) and runs until detached. Returns
/// the exit status.
pub fn attach(socket: &Path, session: Option<String>, create: bool) -> Result<i32, Failure> {
    let mut conn = Conn::connect(socket)?;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(Failure::with_hints(
            "tuios attach needs a terminal: stdin and stdout must both be one",
            vec!["drive a session without a terminal: tuios send-text, tuios capture-pane".into()],
        ));
    }
    let caps = Capabilities::new_from_env()
        .map_err(|e| Failure::msg(format!("cannot read the terminal's capabilities: {e}")))?;
    let mut terminal =
        new_terminal(caps).map_err(|e| Failure::msg(format!("cannot open the terminal: {e}")))?;
    let size = terminal
        .get_screen_size()
        .map_err(|e| Failure::msg(format!("cannot read the terminal size: {e}")))?;
    let (cols, rows) = (clamp16(size.cols), clamp16(size.rows));
    let state = conn.attach(session, create, cols, rows)?;

    let keys = KeyConfig::load(
        config::default_config_path().as_deref(),
        Some(&config::options::policy_file_path()),
    );
    let mut app = App::new(keys, (cols, rows));
    let (links, warnings) = settings::LinkPolicy::load(Some(&config::options::policy_file_path()));
    app.set_link_policy(links, warnings);
    app.on_op(protocol::attach::DaemonOp::Attached { state });
    if first_attach() {
        app.first_run_hint();
    }

    terminal
        .set_raw_mode()
        .map_err(|e| Failure::msg(format!("cannot put the terminal in raw mode: {e}")))?;
    // Focus reports stay off (Lumen): a program that ran in this terminal before may have left
    // them on. Any that still come are dropped by the reply filter.
    write_tty(DISABLE_FOCUS_REPORTS);
    terminal
        .enter_alternate_screen()
        .map_err(|e| Failure::msg(format!("cannot switch to the alternate screen: {e}")))?;
    let waker = terminal.waker();
    let mut bt = BufferedTerminal::new(terminal)
        .map_err(|e| Failure::msg(format!("cannot set up the screen: {e}")))?;

    let (tx, mut rx) = conn::channel();
    conn.start_reader(tx, move || {
        let _ = waker.wake();
    });

    let result = run_loop(socket, &mut app, &mut conn, &mut bt, &mut rx);
    // Leave the alternate screen and raw mode before saying anything.
    drop(bt);
    let exit = result?;
    let name = if app.view.name.is_empty() {
        "the session".to_string()
    } else {
        format!("session {}", app.view.name)
    };
    Ok(match exit {
        Exit::Detached => {
            let _ = writeln!(std::io::stdout(), "[detached from {name}]");
            0
        }
        Exit::Ended { session, reason } => {
            let why = if reason.is_empty() {
                String::new()
            } else {
                format!(": {reason}")
            };
            let _ = writeln!(std::io::stderr(), "session {session} ended{why}");
            crate::failure::EXIT_FAILURE
        }
        Exit::Lost(why) => {
            let _ = writeln!(std::io::stderr(), "error: lost {name}: {why}");
            crate::failure::EXIT_FAILURE
        }
    })
}

/// Whether this is the user's first `tuios attach` (no marker in the state directory yet); the
/// marker is written now, so the hint shows once.
fn first_attach() -> bool {
    let Some(marker) =
        daemon::paths::sessions_dir().and_then(|d| d.parent().map(|p| p.join("attach-hint-shown")))
    else {
        return false;
    };
    if marker.exists() {
        return false;
    }
    if let Some(dir) = marker.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::write(&marker, b"");
    true
}

fn clamp16(n: usize) -> u16 {
    n.min(usize::from(u16::MAX)) as u16
}

fn run_loop<T: Terminal>(
    socket: &Path,
    app: &mut App,
    conn: &mut Conn,
    bt: &mut BufferedTerminal<T>,
    rx: &mut std::sync::mpsc::Receiver<Incoming>,
) -> Result<Exit, Failure> {
    let mut budget = FRAME_BURST;
    let mut budget_at = Instant::now();
    let mut last_clock = String::new();
    let mut alerts = alerts::Alerts::default();
    let mut filter = ReplyFilter::new();
    loop {
        loop {
            match rx.try_recv() {
                Ok(Incoming::Message(m)) => app.on_daemon(*m),
                Ok(Incoming::Closed(why)) => {
                    if app.exit.is_none() {
                        // The daemon may be restarting (live upgrade): attach again.
                        match reconnect::again(socket, app, bt) {
                            Some((c, r)) => (*conn, *rx) = (c, r),
                            None => app.exit = Some(Exit::Lost(why)),
                        }
                    }
                    break;
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    if app.exit.is_none() {
                        app.exit = Some(Exit::Lost("the connection reader stopped".into()));
                    }
                    break;
                }
            }
        }
        // Timers first: what they queue (window sizes when a notice goes, a late reply) goes
        // out now, not after the next wait.
        let now = Instant::now();
        let next_timer = app.tick(now);
        for op in std::mem::take(&mut app.out) {
            if let Err(e) = conn.send_op(op) {
                // As when the reader sees the close: the daemon may be restarting.
                match reconnect::again(socket, app, bt) {
                    Some((c, r)) => (*conn, *rx) = (c, r),
                    None => return Ok(Exit::Lost(e)),
                }
                break;
            }
        }
        if let Some(exit) = app.exit.take() {
            return Ok(exit);
        }
        for text in std::mem::take(&mut app.clipboard) {
            set_clipboard(&text);
        }
        for url in std::mem::take(&mut app.open_links) {
            if let Err(e) = open_link(&app.links.opener, &url) {
                app.notice(protocol::attach::NoticeLevel::Error, e);
            }
        }

        alerts.observe(&app.view.windows, &app.settings.alerts, now);
        let fired = alerts.due(
            &app.view.windows,
            app.view.focused.as_deref(),
            &app.settings.alerts,
            now,
            alerts::local_minute(),
        );
        for f in fired {
            raise_alert(app, &f);
        }
        if (app.settings.show_cpu || app.settings.show_ram) && sysstat::refresh() {
            app.dirty = true;
        }
        if app.settings.show_clock {
            let minute = now_minute();
            if minute != last_clock {
                last_clock = minute;
                app.dirty = true;
            }
        }
        // A small budget of frames, refilled at the frame rate: an echo right after another
        // frame is drawn at once, a flood averages the frame rate.
        let per_sec = f64::from(app.settings.max_fps.max(1));
        budget = (budget + now.duration_since(budget_at).as_secs_f64() * per_sec).min(FRAME_BURST);
        budget_at = now;
        let due = if budget >= 1.0 {
            now
        } else {
            now + Duration::from_secs_f64((1.0 - budget) / per_sec)
        };
        if app.dirty && budget >= 1.0 {
            draw(app, bt)?;
            budget -= 1.0;
        }
        let wait = if app.dirty {
            due.saturating_duration_since(Instant::now())
        } else {
            next_timer
                .map(|t| t.saturating_duration_since(Instant::now()))
                .unwrap_or(IDLE_WAIT)
                .min(IDLE_WAIT)
        };

        let mut timeout = wait;
        for _ in 0..INPUT_BURST {
            // Keys that may start a terminal reply wait a moment for the rest of it.
            if let Some(d) = filter.deadline() {
                timeout = d.saturating_duration_since(Instant::now());
            }
            let ev = bt
                .terminal()
                .poll_input(Some(timeout))
                .map_err(|e| Failure::msg(format!("reading the terminal failed: {e}")))?;
            timeout = Duration::ZERO;
            let holding = filter.deadline().is_some_and(|d| Instant::now() < d);
            match ev {
                Some(InputEvent::Resized { cols, rows }) => {
                    bt.resize(cols, rows);
                    // A resized terminal's contents are unknown: paint everything.
                    bt.repaint()
                        .map_err(|e| Failure::msg(format!("drawing failed: {e}")))?;
                    app.on_resize(clamp16(cols), clamp16(rows));
                }
                // Still waiting for the rest of a sequence; the daemon's messages can wait too.
                None | Some(InputEvent::Wake) if holding => {}
                None | Some(InputEvent::Wake) => {
                    for ev in filter.flush() {
                        app.on_input(ev);
                    }
                    break;
                }
                Some(ev) => {
                    for ev in filter.push(ev, Instant::now()) {
                        app.on_input(ev);
                    }
                }
            }
        }
    }
}

fn draw<T: Terminal>(app: &mut App, bt: &mut BufferedTerminal<T>) -> Result<(), Failure> {
    let (w, h) = bt.dimensions();
    let mut frame = Surface::new(w, h);
    let drawn = render::draw(app, &mut frame);
    app.hits = drawn.hits;
    app.dirty = false;
    bt.draw_from_screen(&frame, 0, 0);
    match drawn.cursor {
        Some((x, y)) => {
            bt.add_change(Change::CursorPosition {
                x: Position::Absolute(usize::from(x)),
                y: Position::Absolute(usize::from(y)),
            });
            bt.add_change(Change::CursorVisibility(CursorVisibility::Visible));
        }
        None => {
            bt.add_change(Change::CursorVisibility(CursorVisibility::Hidden));
        }
    }
    bt.flush()
        .map_err(|e| Failure::msg(format!("drawing failed: {e}")))
}

fn now_minute() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() / 60)
        .unwrap_or(0);
    secs.to_string()
}

/// Puts text on the outer terminal's clipboard with OSC 52.
fn set_clipboard(text: &str) {
    let osc = OperatingSystemCommand::SetSelection(Selection::CLIPBOARD, text.to_string());
    write_tty(&osc.to_string());
}

/// Raises one agent alert the ways `notifications.agent.*` asks for.
fn raise_alert(app: &mut App, f: &alerts::Fired) {
    let text = f.text();
    if f.dock {
        let level = match f.state.as_str() {
            "needs_input" | "errored" => protocol::attach::NoticeLevel::Warning,
            _ => protocol::attach::NoticeLevel::Info,
        };
        app.notice(level, text.clone());
    }
    if f.notify {
        // OSC 9: a desktop notification from the outer terminal. The text has no control
        // characters (titles are filtered), so it cannot end the sequence early.
        write_tty(&format!("\x1b]9;tuios: {text}\x1b\\"));
    }
    if f.bell {
        write_tty("\x07");
    }
    if let Some(cmd) = &f.command {
        if let Err(e) = run_alert_command(cmd, f) {
            app.notice(protocol::attach::NoticeLevel::Error, e);
        }
    }
}

/// Runs `notifications.agent.command` with `sh -c`, the alert in its environment; stdio is
/// null and it has its own process group, as for the link opener. A thread reaps it.
fn run_alert_command(cmd: &str, f: &alerts::Fired) -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(cmd)
        .env("TUIOS_EVENT", "agent-alert")
        .env("TUIOS_WINDOW_ID", &f.window)
        .env("TUIOS_WINDOW_NAME", &f.title)
        .env("TUIOS_AGENT_STATE", &f.state)
        .env("TUIOS_AGENT_PREV_STATE", &f.previous)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot run notifications.agent.command: {e}"))?;
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    Ok(())
}

/// Starts the opener with the URL as its last argument: no shell, so nothing in the URL is
/// interpreted; stdio is null so it cannot draw on or read from this terminal; its own process
/// group so the terminal's signals do not reach it. A thread reaps it.
fn open_link(opener: &[String], url: &str) -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let (program, args) = opener
        .split_first()
        .ok_or_else(|| "no link opener is set".to_string())?;
    let mut child = Command::new(program)
        .args(args)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start the link opener {program}: {e}"))?;
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    Ok(())
}

/// Writes a control sequence straight to the terminal device, between frames, so the screen
/// model is not disturbed.
fn write_tty(seq: &str) {
    if let Ok(mut tty) = std::fs::OpenOptions::new().write(true).open("/dev/tty") {
        let _ = tty.write_all(seq.as_bytes());
        let _ = tty.flush();
    }
}
