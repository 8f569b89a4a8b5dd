//! The Window actor: one PTY, its child, and the server-side emulator of its screen. Every change
//! to a window's screen happens here. Windows run on the arbiter pool (one thread per core);
//! their PtyReader and writer task live on the same arbiter.
//!
//! What a window tells others is coalesced here before it leaves: output, bell, mode and title
//! events and the session notices go out at most once per `EVENT_INTERVAL` (the first at once),
//! so a program that prints, retitles or toggles modes in a tight loop costs the hub, the
//! session and every subscriber a bounded rate of messages.

mod handover;
mod input;
mod lifecycle;
mod output;
mod record;
mod screens;
mod viewers;
mod waits;

pub use handover::{Adopted, Freeze, ScreenReplay, Thaw, WindowExport};
pub use input::{Paste, SendKeys, WriteInput};
pub use lifecycle::{EndTree, HangUp, KillAndReap};
pub use record::{IsRecording, StartRecording, StopRecording};
pub use screens::{CaptureScreen, ScreenCapture, WatchSettled};
pub use viewers::{AddViewer, RemoveViewer, ScrollbackRows};
pub use waits::{ScanSince, WatchExit, WatchIdle, WatchOutput};

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use emulator::{Emulator, Mode};
use portable_pty::MasterPty;
use protocol::VerbError;
use tokio::sync::{oneshot, Notify};

use crate::errors;
use crate::event_hub::EventHub;
use crate::pty::{self, ExitInfo, SpawnedPty};
use crate::pty_input::PtyInput;
use crate::pty_reader::{PtyReader, StopReading};
use crate::screen::Viewer;
use crate::supervisor::{Supervisor, Watch};
use output::PendingEvents;
use waits::{IdleWatch, OutputWatch};

/// Frames a window may send back to back before the frame rate applies.
const FRAME_BURST: f64 = 3.0;

/// How long a closed window's program gets to leave after SIGHUP before it is killed.
const HANGUP_GRACE: Duration = Duration::from_secs(2);

/// Notices a window sends to its session: at most one batch per `EVENT_INTERVAL`, and an exit
/// once.
#[derive(Message)]
#[rtype(result = "()")]
pub enum WindowNotice {
    /// A Lumen frame in the program's output failed and was dropped.
    FrameFailed {
        window_id: String,
        reason: &'static str,
        total: u64,
    },
    /// The input modes an attached client needs changed (rare: a program switching modes).
    Modes {
        window_id: String,
        modes: protocol::attach::WindowModes,
    },
    Title {
        window_id: String,
        title: Option<String>,
    },
    /// The directory the window's program works in changed (a shell's `cd`).
    Cwd {
        window_id: String,
        cwd: String,
    },
    Exited {
        window_id: String,
        exit: ExitInfo,
    },
}

/// Where a window reports what happens to it.
#[derive(Clone)]
pub struct WindowLinks {
    pub session: String,
    pub pty_id: String,
    pub notices: Recipient<WindowNotice>,
    pub hub: Addr<EventHub>,
    /// Whether the hub has any subscription: unheard events are not sent.
    pub events_heard: Arc<std::sync::atomic::AtomicBool>,
    pub supervisor: Addr<Supervisor>,
    /// Agent-state notices and the shared time of the last output.
    pub agent: crate::agent::PaneLink,
    /// The arbiter the window's PtyReader runs on.
    pub readers: actix::ArbiterHandle,
    /// Where the window's PTY input is found by id.
    pub inputs: crate::pty_input::PtyInputs,
    /// Where the PTY master is kept for a crash (when the daemon keeps them).
    pub ptys: crate::fd_store::PtyStore,
    /// Per-window cgroups, when the daemon has them.
    pub cgroups: Option<crate::cgroup::WindowCgroups>,
    /// The history's memory budget and where what passes it goes.
    pub history: crate::history::WindowHistory,
}

pub struct Window {
    id: String,
    links: WindowLinks,
    emulator: Emulator,
    master: Box<dyn MasterPty + Send>,
    input: Option<Arc<PtyInput>>,
    reader: Option<Addr<PtyReader<Window>>>,
    /// Asks the reader for what is buffered now (the program was reaped).
    drain: Arc<Notify>,
    pid: i32,
    /// Set when the child has been reaped and its last output is in the emulator.
    exited: Option<ExitInfo>,
    /// The child was reaped, but the reader had not delivered its last output yet.
    reaped: Option<ExitInfo>,
    /// Background jobs the program left in its terminal session, looked up at the reap (ended
    /// if the window is closed).
    leftovers: Option<pty::Leftovers>,
    stream_done: bool,
    /// The reader delivered what was buffered after the child was reaped.
    drained: bool,
    last_title: Option<String>,
    /// The working directory last told to the session.
    last_cwd: String,
    /// Told when the child has been reaped (daemon shutdown waits on this).
    reap_waiters: Vec<oneshot::Sender<()>>,
    /// Lumen frames are taken out of the output before the emulator sees it (never rendered).
    frames: protocol::lumen::FrameScanner,
    /// Frames dropped whole because they failed (terminal-origin claims, malformed, ...).
    failed_frames: u64,
    frame_timer: bool,
    /// A scrollback packing is scheduled (armed by output, so an idle window has no timer).
    compact_timer: bool,
    /// Attached clients showing this window.
    viewers: Vec<Viewer>,
    flush_scheduled: bool,
    /// Frames that may go out at once, and when it was last refilled.
    frame_budget: f64,
    budget_at: std::time::Instant,
    last_modes: protocol::attach::WindowModes,
    /// OSC 9;4 progress and output notices for the session's agent tiers.
    agent: crate::agent::PaneProbe,
    /// Events and notices gathered since the last batch.
    pending: PendingEvents,
    /// When the last batch went out, and whether the next one is scheduled.
    events_at: Option<Instant>,
    events_scheduled: bool,
    /// Mode states as last published in mode-changed events.
    published_modes: BTreeMap<&'static str, bool>,
    /// `wait-for` conditions checked here, where the data is.
    output_watches: Vec<OutputWatch>,
    exit_watches: Vec<oneshot::Sender<Option<ExitInfo>>>,
    idle_watches: Vec<IdleWatch>,
    idle_timer: Option<SpawnHandle>,
    last_output: Instant,
    /// The session has recorded the exit (exit waits may be answered).
    exit_recorded: bool,
    /// The asciicast recording of this window, while one runs (record-start).
    recording: Option<crate::recorder::Recording>,
    /// A recording stopped for a live upgrade, resumed if the upgrade does not happen.
    paused_recording: Option<crate::recorder::RecordingResume>,
    /// Screen hashes: the screens handed out for `since`, and `screen-settled` waits.
    screens: screens::Screens,
    me: actix::WeakAddr<Window>,
}

impl Window {
    /// Start the actor for a freshly spawned PTY on `arbiter`.
    pub fn start(
        id: String,
        spawned: SpawnedPty,
        cols: u16,
        rows: u16,
        scrollback: usize,
        links: WindowLinks,
        arbiter: &ArbiterHandle,
    ) -> std::io::Result<Addr<Window>> {
        let SpawnedPty { master, pid } = spawned;
        // At once, on the spawning thread: the sooner the program is in its group, the less
        // it can have started outside it.
        if let Some(cgroups) = &links.cgroups {
            if let Err(e) = cgroups.adopt(&id, pid) {
                tracing::warn!(window = %id, error = %e, "cannot give the window a cgroup of its own");
            }
        }
        let reader_fd = pty::reader_fd(master.as_ref())?;
        let writer_fd = pty::writer_fd(master.as_ref())?;
        // Everything that registers with a reactor is made inside the arbiter it runs on.
        Ok(Window::start_in_arbiter(arbiter, move |ctx| {
            let input = match PtyInput::start(writer_fd, &id, &links.inputs) {
                Ok(input) => Some(input),
                Err(e) => {
                    tracing::error!(window = %id, error = %e, "cannot write to the new PTY");
                    None
                }
            };
            let drain = Arc::new(Notify::new());
            let reader = PtyReader::start(reader_fd, ctx.address(), drain.clone(), &links.readers);
            links.supervisor.do_send(Watch {
                pid,
                window: ctx.address().recipient(),
            });

            if let Some(raw) = master.as_raw_fd() {
                // SAFETY: the master stays open while this borrow is used (the call below).
                let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(raw) };
                links.ptys.store_pty(&id, fd);
            }
            let mut emulator = Emulator::new(cols, rows, scrollback);
            let (memory, file) = links.history.plan(&links.pty_id);
            emulator.set_history_limits(memory, file);
            Window::assemble(
                id,
                links,
                emulator,
                master,
                input,
                Some(reader),
                drain,
                pid,
                ctx,
            )
        }))
    }

    /// A window's state around its emulator and PTY, nothing yet said or watched.
    #[allow(clippy::too_many_arguments)]
    fn assemble(
        id: String,
        links: WindowLinks,
        emulator: Emulator,
        master: Box<dyn MasterPty + Send>,
        input: Option<Arc<PtyInput>>,
        reader: Option<Addr<PtyReader<Window>>>,
        drain: Arc<Notify>,
        pid: i32,
        ctx: &mut Context<Window>,
    ) -> Window {
        let last_title = emulator.title().map(str::to_owned);
        let last_modes = emulator.window_modes();
        let modes = emulator.modes();
        let published_modes = [
            (Mode::AltScreen, modes.alt_screen),
            (Mode::BracketedPaste, modes.bracketed_paste),
            (Mode::AppCursor, modes.app_cursor),
            (Mode::MouseReporting, modes.mouse),
        ]
        .into_iter()
        .filter(|(_, on)| *on)
        .map(|(m, on)| (mode_name(m), on))
        .collect();
        Window {
            id,
            links,
            emulator,
            master,
            input,
            reader,
            drain,
            pid,
            exited: None,
            reaped: None,
            leftovers: None,
            stream_done: false,
            drained: false,
            last_title,
            last_cwd: String::new(),
            reap_waiters: Vec::new(),
            frames: protocol::lumen::FrameScanner::new(),
            failed_frames: 0,
            frame_timer: false,
            compact_timer: false,
            viewers: Vec::new(),
            flush_scheduled: false,
            frame_budget: FRAME_BURST,
            budget_at: Instant::now(),
            last_modes,
            agent: Default::default(),
            pending: Default::default(),
            events_at: None,
            events_scheduled: false,
            published_modes,
            output_watches: Vec::new(),
            exit_watches: Vec::new(),
            idle_watches: Vec::new(),
            idle_timer: None,
            last_output: Instant::now(),
            exit_recorded: false,
            recording: None,
            paused_recording: None,
            screens: Default::default(),
            me: ctx.address().downgrade(),
        }
    }
}

fn mode_name(mode: Mode) -> &'static str {
    mode.as_str()
}

impl Actor for Window {
    type Context = Context<Self>;

    fn stopping(&mut self, _: &mut Self::Context) -> Running {
        // A closed window's PTY must not be kept for a restart (nor keep its program alive).
        self.links.ptys.unstore_pty(&self.id);
        if let Some(recording) = self.recording.take().filter(|r| r.is_live()) {
            let mut e = self.event("recording-stopped");
            e.path = recording.path.clone();
            e.reason = "window_closed".into();
            self.publish(e);
        }
        if self.exited.is_none() && self.reaped.is_none() {
            hang_up(self.pid);
        } else if let Some(leftovers) = self.leftovers.take() {
            pty::end_leftovers(self.pid, leftovers, HANGUP_GRACE);
        }
        if let Some(reader) = self.reader.take() {
            reader.do_send(StopReading);
        }
        if let Some(cgroups) = &self.links.cgroups {
            // Empty once the program and its session are gone; a job left running on purpose
            // keeps it until it ends.
            cgroups.remove(&self.id);
        }
        Running::Stop
    }
}

/// SIGHUP now to the program and everything started in its terminal session, SIGKILL after a
/// grace period to whatever is still there.
fn hang_up(pid: i32) {
    pty::signal_child(pid, rustix::process::Signal::HUP);
    pty::end_session_tree(pid, HANGUP_GRACE);
}

/// Render the screen as text, after the history in memory with `scrollback`. The daemon's own
/// readers (`run`, agent probes) never sweep up the history on disk on the window's thread:
/// capture-pane reads it when asked (`CaptureScreen`).
#[derive(Message)]
#[rtype(result = "String")]
pub struct Capture {
    pub scrollback: bool,
    pub styled: bool,
}

impl Handler<Capture> for Window {
    type Result = String;
    fn handle(&mut self, msg: Capture, _: &mut Self::Context) -> String {
        let from = if msg.scrollback {
            self.emulator.memory_first_row()
        } else {
            self.emulator.rows_pushed()
        };
        self.emulator.capture_from(from, msg.styled)
    }
}

/// Resize the PTY (TIOCSWINSZ, so the child gets SIGWINCH) and the emulator.
#[derive(Message)]
#[rtype(result = "Result<(), VerbError>")]
pub struct Resize {
    pub cols: u16,
    pub rows: u16,
    /// Asked by a client's layout: an exited window's screen still follows its box, as tmux's
    /// dead panes do, so its last rows (often the error) stay in view. The `resize` verb asks
    /// for the PTY and gets pty_not_found instead.
    pub layout: bool,
}

impl Handler<Resize> for Window {
    type Result = Result<(), VerbError>;
    fn handle(&mut self, msg: Resize, ctx: &mut Self::Context) -> Self::Result {
        let exited = self.exited.or(self.reaped).is_some();
        if exited && !msg.layout {
            return Err(errors::pty_not_found(&self.id));
        }
        // The emulator first, so output the program draws for the new size lands on a grid of it.
        self.emulator.resize(msg.cols, msg.rows);
        self.screen_touched(true);
        if let Some(recording) = &mut self.recording {
            recording.resize(msg.cols, msg.rows);
        }
        self.schedule_flush(ctx);
        if exited {
            return Ok(());
        }
        self.master
            .resize(pty::pty_size(msg.cols, msg.rows))
            .map_err(|e| errors::internal(format!("resizing window {} failed: {e}", self.id)))
    }
}

/// The live facts a session lists about a window.
#[derive(Debug, Clone)]
pub struct WindowState {
    pub cols: u16,
    pub rows: u16,
    pub exited: Option<ExitInfo>,
    pub title: Option<String>,
}

#[derive(Message)]
#[rtype(result = "WindowState")]
pub struct GetState;

impl Handler<GetState> for Window {
    type Result = MessageResult<GetState>;
    fn handle(&mut self, _: GetState, _: &mut Self::Context) -> Self::Result {
        MessageResult(WindowState {
            cols: self.emulator.cols(),
            rows: self.emulator.rows(),
            exited: self.exited,
            title: self.emulator.title().map(str::to_owned),
        })
    }
}

/// Lines of the history and screen matching a regex (the `search` verb), at most `limit`,
/// and where to go on.
#[derive(Message)]
#[rtype(result = "(Vec<emulator::SearchHit>, Option<u64>)")]
pub struct Search {
    pub regex: regex::Regex,
    pub newest: bool,
    pub from: Option<u64>,
    pub limit: usize,
}

impl Handler<Search> for Window {
    type Result = MessageResult<Search>;
    fn handle(&mut self, msg: Search, _: &mut Self::Context) -> Self::Result {
        let order = if msg.newest {
            emulator::SearchOrder::Newest
        } else {
            emulator::SearchOrder::Oldest
        };
        let mut matches = |text: &str| msg.regex.is_match(text);
        MessageResult(
            self.emulator
                .search(&mut matches, order, msg.from, msg.limit),
        )
    }
}

/// capture-pane's `start`/`end` range, read line by line (history on disk included) instead
/// of capturing everything and slicing it.
#[derive(Message)]
#[rtype(result = "String")]
pub struct CaptureLines {
    pub scrollback: bool,
    pub styled: bool,
    pub start: i64,
    pub end: i64,
}

impl Handler<CaptureLines> for Window {
    type Result = String;
    fn handle(&mut self, m: CaptureLines, _: &mut Self::Context) -> String {
        self.emulator
            .capture_lines(m.scrollback, m.styled, m.start, m.end)
    }
}
