//! `tuios attach`: the full-screen client. The daemon renders, this draws: it shows the current
//! workspace's windows from the screen rows the daemon streams, computes the layout, and turns
//! keys, mouse and pastes into operations.
//!
//! The client draws on a [`term::Term`]: the local terminal (`tuios attach`) or a byte stream
//! ([`StreamTerminal`], for `tuios web` and `tuios ssh`, entered by [`attach_stream`]), through
//! the same run loop.
//!
//! Files: `conn` (socket; the daemon's messages read on the run loop's thread, or by a reader
//! thread for stream terminals), `app` (state and behaviour; `app/` by concern: daemon
//! messages, typing and overlays, actions, mouse, routed requests, commands), `model` (the
//! state's parts drawing reads: window screens, notices, dialogs, click targets), `view` (the
//! view model [`app::App::view`] builds, and the tray's plan), `layout` (geometry;
//! `layout/hits` for hit testing), `render` (drawing from the view model; `render/` paint,
//! dock, tray), `text` (widths, wrapping, names), `input` (key and mouse encoding), `keys`
//! (bindings and modes), `copy` (copy mode), `settings` (options and themes), `replies` (the
//! outer terminal's reports and replies, kept away from windows), `term` (the terminal
//! abstraction), `stream` (the byte-stream terminal), `sysstat` (CPU and memory figures),
//! `rail` (the session rail's rows) and `sessions_poll` (its session list, off the loop).
//!
//! Dependencies point one way, so no file reaches back to a file that uses it (`layout` and its
//! `hits` re-export aside): `text`, `layout`, `input`, `term`, `sysstat` and `replies` are
//! leaves; `model`, `keys`, `copy`, `alerts`, `settings` and `templates` build on them; `view`
//! reads those; `app` (the state) builds a view and `render` draws one, neither using the
//! other; `conn`, `stream` and `reconnect` serve this file's run loop, which ties it all to the
//! terminal and the daemon.

mod alerts;
mod animate;
mod app;
mod conn;
pub use conn::set_attach_mode;
mod copy;
mod hooks;
mod input;
mod keys;
mod layout;
mod model;
mod project_tape;
mod rail;
mod reconnect;
mod render;
mod replies;
mod sessions_poll;
mod settings;
mod stream;
mod sysstat;
pub mod templates;
mod term;
mod text;
mod view;

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use termwiz::escape::osc::{OperatingSystemCommand, Selection};
use termwiz::input::InputEvent;
use termwiz::surface::{Change, CursorVisibility, Position, Surface};

use crate::failure::Failure;
use app::{App, Exit, FrameDue};
use conn::{DaemonConn, FromDaemon};
use keys::KeyConfig;
use replies::ReplyFilter;
// The API `tuios web` and `tuios ssh` use (see stream.rs and `attach_stream` below).
pub use keys::{keys_in_effect, KeysInEffect};
pub use stream::{AttachEnd, SendError, StreamInput, StreamTerminal};
use sysstat::Sampler;
use term::{clamp16, BufferedTerm, LocalTerminal, Polled, Term, TermError};

/// Input events handled per wake-up before the screen gets a chance to redraw.
const INPUT_BURST: usize = 512;
/// Longest sleep when nothing is scheduled (the clock still ticks over).
const IDLE_WAIT: Duration = Duration::from_secs(1);
/// How often the loop looks for a copy-mode search's answer while one runs.
const SEARCH_LOOK: Duration = Duration::from_millis(20);
/// Frames drawn back to back before the frame rate applies.
const FRAME_BURST: f64 = 3.0;
/// DECRST 1004: no focus-in/out reports from the outer terminal.
const DISABLE_FOCUS_REPORTS: &str = "\x1b[?1004l";

/// Attaches to `session` (None: the most recently active one) in this process's terminal and
/// runs until detached. Returns the exit status.
pub fn attach(socket: &Path, session: Option<String>, create: bool) -> Result<i32, Failure> {
    let conn = DaemonConn::connect(socket)?;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(Failure::with_hints(
            "tuios attach needs a terminal: stdin and stdout must both be one",
            vec!["drive a session without a terminal: tuios send-text, tuios capture-pane".into()],
        ));
    }
    let mut terminal = LocalTerminal::open().map_err(Failure::msg)?;
    let ended = attach_on(socket, conn, session, create, &mut terminal);
    // Leave the alternate screen and raw mode before saying anything.
    drop(terminal);
    let end = ended?;
    let line = end.message();
    let _ = match end {
        AttachEnd::Detached { .. } => writeln!(std::io::stdout(), "{line}"),
        _ => writeln!(std::io::stderr(), "{line}"),
    };
    Ok(end.exit_code())
}

/// Runs the attach client on `term` until it detaches or the session ends, on the calling
/// thread (it blocks; run one per thread, as many as wanted). `session` None is the most
/// recently active session; `create` makes it when missing, as `tuios attach -c`. At the end
/// the stream is back on the main screen with the reports turned off, and the line
/// `tuios attach` would print (e.g. `[detached from session work]`) is written to it.
///
/// Errors are the attach's failures before it starts (no daemon: [`Failure::NoDaemon`]; the
/// session does not exist) and a broken connection to the daemon; the far end going away is
/// not an error but [`AttachEnd::Detached`].
pub fn attach_stream(
    socket: &Path,
    session: Option<String>,
    create: bool,
    mut term: StreamTerminal,
) -> Result<AttachEnd, Failure> {
    let conn = DaemonConn::connect(socket)?;
    let ended = attach_on(socket, conn, session, create, &mut term);
    term.restore();
    let end = match ended {
        Ok(end) => end,
        // The far end going away mid-frame is a detach, not a failure.
        Err(_) if term.is_broken() => AttachEnd::Detached {
            session: String::new(),
        },
        Err(e) => return Err(e),
    };
    term.write_line(&end.message());
    Ok(end)
}

/// The attach on any terminal: attach over `conn`, set the terminal up, run the loop. The
/// caller restores the terminal afterwards (dropping a local one does).
fn attach_on<T: Term>(
    socket: &Path,
    mut conn: DaemonConn,
    session: Option<String>,
    create: bool,
    term: T,
) -> Result<AttachEnd, Failure> {
    let mut term = term;
    let (cols, rows) = term
        .size()
        .map_err(|e| Failure::msg(format!("cannot read the terminal size: {e}")))?;
    let (cols, rows) = (clamp16(cols), clamp16(rows));
    let state = conn.attach(session, create, cols, rows)?;

    let keys = KeyConfig::load(
        config::default_config_path().as_deref(),
        Some(&config::options::policy_file_path()),
    );
    let mut app = App::new(keys, (cols, rows));
    let (links, mut warnings) =
        settings::LinkPolicy::load(Some(&config::options::policy_file_path()));
    let (mut hooks, hook_warnings) = hooks::Hooks::load(config::default_config_path().as_deref());
    warnings.extend(hook_warnings);
    app.set_link_policy(links, warnings);
    app.on_op(protocol::attach::DaemonOp::Attached { state });
    if first_attach() {
        app.first_run_hint();
    }

    term.set_raw_mode()
        .map_err(|e| Failure::msg(format!("cannot put the terminal in raw mode: {e}")))?;
    // Focus reports stay off (Lumen): a program that ran in this terminal before may have left
    // them on. Any that still come are dropped by the reply filter.
    term.write_raw(DISABLE_FOCUS_REPORTS.as_bytes());
    term.enter_alternate_screen()
        .map_err(|e| Failure::msg(format!("cannot switch to the alternate screen: {e}")))?;
    conn.start_for(&term);
    let mut screen = BufferedTerm::new(term)
        .map_err(|e| Failure::msg(format!("cannot set up the screen: {e}")))?;

    let exit = run_loop(socket, &mut app, &mut conn, &mut screen, &mut hooks);
    hooks.exit(matches!(exit, Ok(Exit::Detached)));
    let exit = exit?;
    let session = app.session_name().to_string();
    Ok(match exit {
        Exit::Detached => AttachEnd::Detached { session },
        Exit::Ended { session, reason } => AttachEnd::Ended { session, reason },
        Exit::Lost(why) => AttachEnd::Lost { session, why },
    })
}

/// Whether this is the user's first attach (no marker in the state directory yet); the marker
/// is made now, atomically, so the hint shows once even with many attaches starting at once.
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
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&marker)
        .is_ok()
}

fn run_loop<T: Term>(
    socket: &Path,
    app: &mut App,
    conn: &mut DaemonConn,
    bt: &mut BufferedTerm<T>,
    hooks: &mut hooks::Hooks,
) -> Result<Exit, Failure> {
    let mut budget = FRAME_BURST;
    let mut budget_at = Instant::now();
    let mut last_clock = String::new();
    let mut sampler = Sampler::default();
    let mut last_frame: Option<Surface> = None;
    let mut alerts = alerts::Alerts::default();
    let mut filter = ReplyFilter::new();
    let mut tapes = project_tape::ProjectTapes::new(socket);
    let mut sessions = sessions_poll::SessionsPoll::new(socket);
    let mut searcher = copy::Searcher::new(socket);
    loop {
        while let Some(incoming) = conn.next_incoming() {
            match incoming {
                FromDaemon::Message(m) => app.on_daemon(*m),
                FromDaemon::Closed(why) => {
                    if !app.exiting() {
                        // The daemon may be restarting (live upgrade): attach again.
                        match reconnect::again(socket, app, bt) {
                            Some(c) => *conn = c,
                            None => app.lose(why),
                        }
                    }
                    break;
                }
                FromDaemon::ReaderGone => {
                    app.lose("the connection reader stopped".into());
                    break;
                }
            }
        }
        // Timers first: what they queue (window sizes when a notice goes, a late reply) goes
        // out now, not after the next wait.
        let now = Instant::now();
        let next_timer = app.tick(now);
        hooks.look(app.session(), app.layout_mode(), app.term_size());
        tapes.tick(app);
        if let Some(exit) = send_out(socket, app, conn, bt) {
            return Ok(exit);
        }
        if let Some(exit) = app.take_exit() {
            return Ok(exit);
        }
        for text in app.take_clipboard() {
            set_clipboard(bt.terminal(), &text);
        }
        for url in app.take_links_to_open() {
            if bt.terminal().is_remote() {
                // The opener would start on this machine, not in front of the user: hand them
                // the link instead.
                set_clipboard(bt.terminal(), &url);
                app.notice(
                    protocol::attach::NoticeLevel::Info,
                    "this terminal is remote: the link was copied to its clipboard",
                );
            } else if let Err(e) = open_link(app.link_opener(), &url) {
                app.notice(protocol::attach::NoticeLevel::Error, e);
            }
        }

        let (session, settings) = (app.session(), app.settings());
        alerts.observe(&session.windows, &settings.alerts, now);
        let fired = alerts.due(
            &session.windows,
            session.focused.as_deref(),
            &settings.alerts,
            now,
            alerts::local_minute,
        );
        for f in fired {
            raise_alert(app, bt.terminal(), &f);
        }
        if let Some(list) = sessions.take(app.rail_shown()) {
            app.set_sessions(list);
        }
        if let Some((session, ask)) = app.take_search() {
            searcher.start(&session, ask);
        }
        if let Some((window, answer)) = searcher.take() {
            app.search_found(&window, answer);
            if let Some(exit) = send_out(socket, app, conn, bt) {
                return Ok(exit);
            }
        }
        let settings = app.settings();
        if (settings.show_cpu || settings.show_ram) && sampler.refresh(now) {
            app.set_figures(sampler.figures());
        }
        if app.settings().show_clock {
            let minute = now_minute();
            if minute != last_clock {
                last_clock = minute;
                app.redraw();
            }
        }
        // A small budget of frames, refilled at the frame rate: an echo right after another
        // frame is drawn at once, a flood averages the frame rate.
        let per_sec = f64::from(app.settings().max_fps.max(1));
        budget = (budget + now.duration_since(budget_at).as_secs_f64() * per_sec).min(FRAME_BURST);
        budget_at = now;
        let due = if budget >= 1.0 {
            now
        } else {
            now + Duration::from_secs_f64((1.0 - budget) / per_sec)
        };
        // A typed key's echo is drawn at once; it is charged to the budget like any frame
        // (which may go below zero), so the frames of a flood beside it wait instead, and the
        // rate stays bounded by the typing.
        if app.needs_draw() && (budget >= 1.0 || app.echo_waiting()) {
            draw(app, bt, &mut last_frame)?;
            budget = (budget - 1.0).max(-FRAME_BURST);
        }
        let wait = if app.needs_draw() {
            due.saturating_duration_since(Instant::now())
        } else {
            next_timer
                .map(|t| t.saturating_duration_since(Instant::now()))
                .unwrap_or(IDLE_WAIT)
                .min(IDLE_WAIT)
        };
        // A search's answer comes on a channel no wait watches: look again soon.
        let wait = if searcher.busy() {
            wait.min(SEARCH_LOOK)
        } else {
            wait
        };

        // A connection made again since the last look may hold frames read with its attach
        // answer, which no wait would report: only a glance at the input first.
        let mut timeout = if conn.has_unread() {
            Duration::ZERO
        } else {
            wait
        };
        for _ in 0..INPUT_BURST {
            // Keys that may start a terminal reply wait a moment for the rest of it; the
            // daemon's messages wait with them (its socket is left out of that wait).
            let deadline = filter.deadline();
            if let Some(d) = deadline {
                timeout = d.saturating_duration_since(Instant::now());
            }
            let daemon = if deadline.is_some() {
                None
            } else {
                conn.poll_fd()
            };
            let polled = match bt.terminal().poll_input_or(Some(timeout), daemon) {
                Ok(p) => p,
                // The far end went away: as a detach (the daemon sees the connection close).
                Err(TermError::Closed) => return Ok(Exit::Detached),
                Err(TermError::Failed(e)) => {
                    return Err(Failure::msg(format!("reading the terminal failed: {e}")))
                }
            };
            timeout = Duration::ZERO;
            let holding = filter.deadline().is_some_and(|d| Instant::now() < d);
            match polled {
                Polled::Input(Some(InputEvent::Resized { cols, rows })) => {
                    bt.resize(cols, rows);
                    // A resized terminal's contents are unknown: paint everything.
                    bt.repaint()
                        .map_err(|e| Failure::msg(format!("drawing failed: {e}")))?;
                    app.on_resize(clamp16(cols), clamp16(rows));
                }
                // Still waiting for the rest of a sequence; the daemon's messages can wait too.
                Polled::Input(None | Some(InputEvent::Wake)) | Polled::Daemon if holding => {}
                Polled::Input(None | Some(InputEvent::Wake)) | Polled::Daemon => {
                    if matches!(polled, Polled::Daemon) {
                        conn.mark_readable();
                    }
                    for ev in filter.flush() {
                        app.on_input(ev);
                    }
                    break;
                }
                Polled::Input(Some(ev)) => {
                    for ev in filter.push(ev, Instant::now()) {
                        app.on_input(ev);
                    }
                }
            }
        }
        // The burst is over: what the keys queued goes to the daemon now, before anything
        // else, so a typed key's frame leaves as soon as it is read.
        if let Some(exit) = send_out(socket, app, conn, bt) {
            return Ok(exit);
        }
    }
}

/// Sends the operations the app queued. A failed write is handled as when the daemon's side
/// closes (it may be restarting: attach again); `Some` when the attach is lost.
fn send_out<T: Term>(
    socket: &Path,
    app: &mut App,
    conn: &mut DaemonConn,
    bt: &mut BufferedTerm<T>,
) -> Option<Exit> {
    for op in app.take_ops() {
        if let Err(e) = conn.send_op(op) {
            match reconnect::again(socket, app, bt) {
                Some(c) => *conn = c,
                None => return Some(Exit::Lost(e)),
            }
            break;
        }
    }
    None
}

/// Draws what changed. When only window content changed, just those rows are drawn again and
/// compared with the screen (a typed key's echo is one row); anything else draws the whole
/// frame, compared cell by cell with what the terminal shows. `last` keeps the last frame.
fn draw<T: Term>(
    app: &mut App,
    bt: &mut BufferedTerm<T>,
    last: &mut Option<Surface>,
) -> Result<(), Failure> {
    let (w, h) = bt.dimensions();
    let FrameDue { whole, damage } = app.begin_frame();
    let frame = last.as_mut().filter(|f| !whole && f.dimensions() == (w, h));
    let patched = frame.and_then(|f| render::draw_damage(&app.view(), f, &damage).map(|p| (p, f)));
    let mut hits = None;
    let cursor = match patched {
        Some((p, frame)) => {
            for r in &p.spans {
                let (x, y, cols) = (usize::from(r.x), usize::from(r.y), usize::from(r.w));
                let changes = bt.diff_region(x, y, cols, 1, frame, x, y);
                bt.add_changes(changes);
            }
            // A diff starts from default attributes: leave the model there, as a whole-frame
            // draw does.
            bt.add_change(Change::AllAttributes(Default::default()));
            let seq = frame.current_seqno();
            frame.flush_changes_older_than(seq);
            p.cursor
        }
        None => {
            let mut frame = Surface::new(w, h);
            let drawn = render::draw(&app.view(), &mut frame);
            hits = Some(drawn.hits);
            bt.draw_from_screen(&frame, 0, 0);
            // Kept for the next patch; its change log is not needed.
            let seq = frame.current_seqno();
            frame.flush_changes_older_than(seq);
            *last = Some(frame);
            drawn.cursor
        }
    };
    app.end_frame(hits);
    match cursor {
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
fn set_clipboard<T: Term>(term: &mut T, text: &str) {
    let osc = OperatingSystemCommand::SetSelection(Selection::CLIPBOARD, text.to_string());
    term.write_raw(osc.to_string().as_bytes());
}

/// Raises one agent alert the ways `notifications.agent.*` asks for.
fn raise_alert<T: Term>(app: &mut App, term: &mut T, f: &alerts::Fired) {
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
        term.write_raw(format!("\x1b]9;tuios: {text}\x1b\\").as_bytes());
    }
    if f.bell {
        term.write_raw(b"\x07");
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
