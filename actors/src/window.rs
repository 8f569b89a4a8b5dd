//! The Window actor: one PTY, its child, and the server-side emulator of its screen. Every change
//! to a window's screen happens here. Windows run on the arbiter pool (one thread per core);
//! their PtyReader and writer task live on the same arbiter.
//!
//! What a window tells others is coalesced here before it leaves: output, bell, mode and title
//! events and the session notices go out at most once per `EVENT_INTERVAL` (the first at once),
//! so a program that prints, retitles or toggles modes in a tight loop costs the hub, the
//! session and every subscriber a bounded rate of messages.
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use emulator::{Emulator, Mode};
use portable_pty::MasterPty;
use protocol::VerbError;
use regex::Regex;
use tokio::sync::{oneshot, Notify};

use crate::errors;
use crate::event_hub::{EventHub, Publish};
use crate::pty::{self, ExitInfo, SpawnedPty};
use crate::pty_input::{PtyInput, Queued, Ticket, WriteJob};
use crate::pty_reader::{Drained, Output, OutputEnded, PtyReader, StopReading};
use crate::screen::{self, Viewer};
use crate::supervisor::{ChildExited, Supervisor, Watch, WatchForeign};
use protocol::events::Event;

/// Least time between two batches of a window's events and notices.
const EVENT_INTERVAL: Duration = Duration::from_millis(20);

/// Frames a window may send back to back before the frame rate applies.
const FRAME_BURST: f64 = 3.0;

/// How long a closed window's program gets to leave after SIGHUP before it is killed.
const HANGUP_GRACE: Duration = Duration::from_secs(2);
/// How long after output starts the scrollback written meanwhile is packed: often enough that
/// a window's memory settles within seconds, rarely enough that packing costs a flood ~0.3%.
const COMPACT_AFTER: Duration = Duration::from_secs(2);

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
}

pub struct Window {
    id: String,
    links: WindowLinks,
    emulator: Emulator,
    master: Box<dyn MasterPty + Send>,
    input: Option<Arc<PtyInput>>,
    reader: Option<Addr<PtyReader>>,
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
    me: actix::WeakAddr<Window>,
}

/// What happened since the last batch of events.
#[derive(Default)]
struct PendingEvents {
    output_bytes: u64,
    bells: u32,
    /// Latest state of each mode switched since the last batch.
    modes: BTreeMap<&'static str, bool>,
    title: bool,
    /// The last failed Lumen frame's reason, when any failed since the last batch.
    frame_failed: Option<&'static str>,
}

impl PendingEvents {
    fn is_empty(&self) -> bool {
        self.output_bytes == 0
            && self.bells == 0
            && self.modes.is_empty()
            && !self.title
            && self.frame_failed.is_none()
    }
}

/// A `window-output` wait: a pattern checked against rows not yet scanned, as output arrives.
struct OutputWatch {
    pattern: Regex,
    scan: ScanSince,
    reply: oneshot::Sender<String>,
}

/// A `window-idle` wait: answered once no output came for `idle`.
struct IdleWatch {
    idle: Duration,
    /// Quiet is counted from the wait's start, not from output before it.
    since: Instant,
    reply: oneshot::Sender<()>,
}

impl IdleWatch {
    fn due(&self, last_output: Instant) -> Instant {
        last_output.max(self.since) + self.idle
    }
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
        let reader_fd = pty::reader_fd(master.as_ref())?;
        let writer_fd = pty::writer_fd(master.as_ref())?;
        // Everything that registers with a reactor is made inside the arbiter it runs on.
        Ok(Window::start_in_arbiter(arbiter, move |ctx| {
            let input = match PtyInput::start(writer_fd, &id) {
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
                crate::handover::store_pty(&id, fd);
            }
            let emulator = Emulator::new(cols, rows, scrollback);
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
        reader: Option<Addr<PtyReader>>,
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
            me: ctx.address().downgrade(),
        }
    }

    /// Queue bytes for the PTY now, in message order (so a later message cannot overtake an
    /// earlier one), and resolve once they are written.
    fn queue_write(&self, bytes: Vec<u8>) -> ResponseFuture<Result<(), VerbError>> {
        let id = self.id.clone();
        let input = match (&self.input, self.exited.or(self.reaped)) {
            (Some(input), None) => input.clone(),
            _ => return Box::pin(async move { Err(errors::pty_not_found(&id)) }),
        };
        let (done, wait) = oneshot::channel();
        let job = WriteJob {
            bytes,
            done: Some(done),
        };
        // A full queue (the program is not reading) waits its turn; senders queue in order.
        let waiting = match input.queue(job) {
            Queued::Now => None,
            Queued::Full(waiting) => Some(waiting),
            Queued::Closed => return Box::pin(async move { Err(errors::pty_not_found(&id)) }),
        };
        Box::pin(async move {
            if let Some(waiting) = waiting {
                waiting
                    .send()
                    .await
                    .map_err(|_| errors::pty_not_found(&id))?;
            }
            match wait.await {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) if e.raw_os_error() == Some(libc::EIO) => {
                    Err(errors::pty_not_found(&id))
                }
                Ok(Err(e)) => Err(errors::internal(format!(
                    "writing to window {id} failed: {e}"
                ))),
                Err(_) => Err(errors::pty_not_found(&id)),
            }
        })
    }

    /// An event about this window, with its session, id and PTY filled in.
    fn event(&self, kind: &'static str) -> Event {
        let mut e = Event::new(kind);
        e.session = self.links.session.clone();
        e.window = self.id.clone();
        e.pty_id = self.links.pty_id.clone();
        e
    }

    fn publish(&self, event: Event) {
        if !self
            .links
            .events_heard
            .load(std::sync::atomic::Ordering::Acquire)
        {
            return;
        }
        self.links.hub.do_send(Publish(event));
    }

    /// A frame was dropped whole: count it, log it, and tell attached clients in chrome.
    fn frame_failed(&mut self, failure: protocol::lumen::FrameFailure) {
        self.failed_frames += 1;
        tracing::warn!(
            window = %self.id,
            reason = failure.reason.as_str(),
            bytes = failure.bytes,
            detail = failure.detail,
            "dropped a failed Lumen frame from program output"
        );
        self.pending.frame_failed = Some(failure.reason.as_str());
    }

    /// After output: report changed input modes and schedule a frame for the viewers.
    fn after_output(&mut self, ctx: &mut Context<Self>) {
        if !self.frames.is_idle() && !self.frame_timer {
            // A frame left open must still fail after its time limit, even if no more output
            // comes to trigger the check.
            self.frame_timer = true;
            ctx.run_later(protocol::lumen::FRAME_TIMEOUT, |act, ctx| {
                act.frame_timer = false;
                if let Some(f) = act.frames.check_timeout(std::time::Instant::now()) {
                    act.frame_failed(f);
                }
                act.after_output(ctx);
            });
        }
        if !self.compact_timer {
            self.compact_timer = true;
            ctx.run_later(COMPACT_AFTER, |act, _| {
                act.compact_timer = false;
                let saved = act.emulator.compact_scrollback();
                if saved > 0 {
                    let now = act.emulator.store_bytes();
                    tracing::trace!(window = %act.id, saved, now, "packed scrollback");
                    crate::memory::give_back();
                }
            });
        }
        // Screens first: a typed key's echo leaves before anything else is done for it.
        self.schedule_flush(ctx);
        self.check_output_watches();
        self.schedule_events(ctx);
    }

    /// Send the gathered events now if the last batch is old enough, else schedule them.
    fn schedule_events(&mut self, ctx: &mut Context<Self>) {
        if self.events_scheduled || self.pending.is_empty() {
            return;
        }
        let now = Instant::now();
        match self.events_at {
            Some(at) if now.duration_since(at) < EVENT_INTERVAL => {
                self.events_scheduled = true;
                ctx.run_later(EVENT_INTERVAL - now.duration_since(at), |act, ctx| {
                    act.events_scheduled = false;
                    act.schedule_events(ctx);
                });
            }
            _ => self.send_events(),
        }
    }

    /// One batch: output, then title, bell and mode events in that order, then the session's
    /// notices. Every event a batch stands for has happened by the time it is published.
    fn send_events(&mut self) {
        self.events_at = Some(Instant::now());
        let pending = std::mem::take(&mut self.pending);
        if pending.output_bytes > 0 {
            let mut output = self.event("output");
            output.bytes = pending.output_bytes;
            self.publish(output);
        }
        if pending.title {
            let title = self.emulator.title().map(str::to_owned);
            if title != self.last_title {
                self.last_title = title.clone();
                let mut e = self.event("window-retitled");
                e.title = Some(title.clone().unwrap_or_default());
                self.publish(e);
                self.links.notices.do_send(WindowNotice::Title {
                    window_id: self.id.clone(),
                    title,
                });
            }
        }
        // A batch stands for at most a few bells: a bell storm is noise, not information.
        for _ in 0..pending.bells.min(4) {
            let e = self.event("bell");
            self.publish(e);
        }
        for (mode, enabled) in pending.modes {
            let was = self.published_modes.get(mode).copied().unwrap_or(false);
            if was != enabled {
                self.published_modes.insert(mode, enabled);
                let mut e = self.event("mode-changed");
                e.mode = mode.to_string();
                e.enabled = Some(enabled);
                self.publish(e);
            }
        }
        let modes = self.emulator.window_modes();
        if modes != self.last_modes {
            self.last_modes = modes;
            self.links.notices.do_send(WindowNotice::Modes {
                window_id: self.id.clone(),
                modes,
            });
        }
        if let Some(reason) = pending.frame_failed {
            self.links.notices.do_send(WindowNotice::FrameFailed {
                window_id: self.id.clone(),
                reason,
                total: self.failed_frames,
            });
        }
    }

    /// Answer the `window-output` waits whose pattern now matches; forget those whose waiter
    /// is gone.
    fn check_output_watches(&mut self) {
        if self.output_watches.is_empty() {
            return;
        }
        let watches = std::mem::take(&mut self.output_watches);
        for mut w in watches {
            if w.reply.is_closed() {
                continue;
            }
            let (text, next) = scan(&self.emulator, &w.scan);
            w.scan = next;
            match w.pattern.find(&text) {
                Some(m) => {
                    let _ = w.reply.send(m.as_str().to_string());
                }
                None => self.output_watches.push(w),
            }
        }
    }

    /// (Re)arm the timer for the earliest `window-idle` wait.
    fn arm_idle_timer(&mut self, ctx: &mut Context<Self>) {
        if let Some(h) = self.idle_timer.take() {
            ctx.cancel_future(h);
        }
        self.idle_watches.retain(|w| !w.reply.is_closed());
        let last = self.last_output;
        let Some(due) = self.idle_watches.iter().map(|w| w.due(last)).min() else {
            return;
        };
        let wait = due.saturating_duration_since(Instant::now());
        self.idle_timer = Some(ctx.run_later(wait, |act, ctx| {
            act.idle_timer = None;
            let now = Instant::now();
            for w in std::mem::take(&mut act.idle_watches) {
                if w.due(act.last_output) <= now {
                    let _ = w.reply.send(());
                } else {
                    act.idle_watches.push(w);
                }
            }
            act.arm_idle_timer(ctx);
        }));
    }

    /// The shortest frame interval among the viewers.
    fn frame_interval(&self) -> Duration {
        self.viewers
            .iter()
            .map(|v| v.interval)
            .min()
            .unwrap_or(Duration::from_millis(16))
    }

    /// Refill the frame budget for the time since it was last refilled; returns frames per
    /// second.
    fn refill_frame_budget(&mut self) -> f64 {
        // A small budget of frames (refilled at the frame rate) lets a keystroke's echo go out at
        // once even right after another frame, while a flood still averages the frame rate.
        let now = std::time::Instant::now();
        let per_sec = 1.0 / self.frame_interval().as_secs_f64().max(1e-3);
        self.frame_budget = (self.frame_budget
            + now.duration_since(self.budget_at).as_secs_f64() * per_sec)
            .min(FRAME_BURST);
        self.budget_at = now;
        per_sec
    }

    /// Flush again once the budget holds a frame (or a frame interval from now when it already
    /// does), through a timer.
    fn flush_later(&mut self, per_sec: f64, ctx: &mut Context<Self>) {
        let wait = if self.frame_budget >= 1.0 {
            self.frame_interval()
        } else {
            Duration::from_secs_f64((1.0 - self.frame_budget) / per_sec)
        };
        self.flush_scheduled = true;
        ctx.run_later(wait, |act, ctx| {
            act.flush_scheduled = false;
            act.schedule_flush(ctx);
        });
    }

    fn schedule_flush(&mut self, ctx: &mut Context<Self>) {
        if self.viewers.is_empty() || self.flush_scheduled {
            return;
        }
        let per_sec = self.refill_frame_budget();
        if self.frame_budget >= 1.0 {
            self.frame_budget -= 1.0;
            self.flush_viewers(ctx);
            return;
        }
        self.flush_later(per_sec, ctx);
    }

    fn flush_viewers(&mut self, ctx: &mut Context<Self>) {
        let mut behind = false;
        for v in &mut self.viewers {
            behind |= !screen::flush(&self.id, &self.emulator, v);
        }
        if behind && !self.flush_scheduled {
            // A client's queue was full: look again at the next frame's time, on a timer (not
            // at once, which would spend the burst on retries), so a client that stopped
            // reading neither slows the others' frame rate nor spends their frames.
            let per_sec = self.refill_frame_budget();
            self.flush_later(per_sec, ctx);
        }
    }

    fn feed(&mut self, raw: &[u8]) {
        let scanned = self.frames.feed(raw, std::time::Instant::now());
        for failure in scanned.failures {
            self.frame_failed(failure);
        }
        for frame in scanned.frames {
            // v0 gives a frame from a program no effect here; it is only kept off the screen.
            tracing::debug!(window = %self.id, kind = ?frame.frame_type(), "lumen frame dropped");
        }
        let bytes: &[u8] = &scanned.passthrough;
        self.emulator.feed(bytes);
        self.agent.on_output(&self.links.agent, bytes);
        self.last_output = Instant::now();
        self.pending.output_bytes += raw.len() as u64;
        let effects = self.emulator.take_effects();
        if !effects.pty_replies.is_empty() {
            if let Some(input) = &self.input {
                // A program that floods queries while never reading its input loses replies
                // rather than growing the daemon's memory.
                if let Queued::Full(_) = input.queue(WriteJob {
                    bytes: effects.pty_replies,
                    done: None,
                }) {
                    tracing::debug!(window = %self.id, "input queue full; terminal replies dropped");
                }
            }
        }
        self.pending.title |= effects.title_changed;
        self.pending.bells = self.pending.bells.saturating_add(effects.bells);
        for (mode, enabled) in effects.mode_changes {
            self.pending.modes.insert(mode_name(mode), enabled);
        }
    }

    /// Finish the exit once both the child is reaped and its output is read: to the end, or as
    /// far as was buffered when it was reaped (a background process may hold the PTY open).
    fn settle_exit(&mut self) {
        if self.exited.is_some() {
            return;
        }
        let Some(exit) = self.reaped else { return };
        if !self.stream_done && !self.drained {
            return;
        }
        self.exited = Some(exit);
        if let Some(input) = self.input.take() {
            input.close();
        }
        // The last output's events come before the exit.
        self.send_events();
        // The session publishes window-exit as it records the exit, so whoever hears of it
        // finds the window listed as exited. Waits on the exit are answered once the session has recorded it, so a client that
        // lists windows right after its wait sees the window as exited.
        let recorded = self.links.notices.send(WindowNotice::Exited {
            window_id: self.id.clone(),
            exit,
        });
        let me = self.me.clone();
        let watches = std::mem::take(&mut self.exit_watches);
        actix::spawn(async move {
            let _ = recorded.await;
            // Answered here: the session may close the window (a command window) meanwhile.
            for w in watches {
                let _ = w.send(Some(exit));
            }
            if let Some(me) = me.upgrade() {
                me.do_send(ExitRecorded);
            }
        });
    }
}

/// The session has recorded the program's exit: answer the waits on it.
#[derive(Message)]
#[rtype(result = "()")]
struct ExitRecorded;

impl Handler<ExitRecorded> for Window {
    type Result = ();
    fn handle(&mut self, _: ExitRecorded, _: &mut Self::Context) {
        self.exit_recorded = true;
        let exit = self.exited;
        for w in self.exit_watches.drain(..) {
            let _ = w.send(exit);
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
        crate::handover::unstore_pty(&self.id);
        if self.exited.is_none() && self.reaped.is_none() {
            hang_up(self.pid);
        } else if let Some(leftovers) = self.leftovers.take() {
            pty::end_leftovers(self.pid, leftovers, HANGUP_GRACE);
        }
        if let Some(reader) = self.reader.take() {
            reader.do_send(StopReading);
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

impl Handler<Output> for Window {
    type Result = ();
    fn handle(&mut self, msg: Output, ctx: &mut Self::Context) {
        self.feed(&msg.0);
        self.after_output(ctx);
        // Parsed: the reader may hand over its next burst (dropping `msg` gives its credit back).
    }
}

impl Handler<OutputEnded> for Window {
    type Result = ();
    fn handle(&mut self, _: OutputEnded, ctx: &mut Self::Context) {
        // A window outlives its program until it is closed.
        self.stream_done = true;
        self.reader = None;
        self.settle_exit();
        self.schedule_flush(ctx);
    }
}

impl Handler<Drained> for Window {
    type Result = ();
    fn handle(&mut self, _: Drained, ctx: &mut Self::Context) {
        self.drained = true;
        self.settle_exit();
        self.schedule_flush(ctx);
    }
}

impl Handler<ChildExited> for Window {
    type Result = ();
    fn handle(&mut self, msg: ChildExited, ctx: &mut Self::Context) {
        self.reaped = Some(msg.0);
        if let Some(input) = &self.input {
            // Attached clients' keys now go through the window, which refuses them.
            input.close();
        }
        self.leftovers = Some(pty::find_leftovers(self.pid));
        for w in self.reap_waiters.drain(..) {
            let _ = w.send(());
        }
        if self.stream_done || self.reader.is_none() {
            self.settle_exit();
        } else {
            // Output read before the exit is still on its way: the reader delivers what is
            // buffered now, then `Drained` settles the exit.
            self.drain.notify_one();
        }
        self.schedule_flush(ctx);
    }
}

/// Write bytes to the PTY; resolves once they are written. The ticket (see `pty_input`) is
/// given back once the bytes are queued.
#[derive(Message)]
#[rtype(result = "Result<(), VerbError>")]
pub struct WriteInput(pub Vec<u8>, pub Option<Ticket>);

impl Handler<WriteInput> for Window {
    type Result = ResponseFuture<Result<(), VerbError>>;
    fn handle(&mut self, msg: WriteInput, _: &mut Self::Context) -> Self::Result {
        self.queue_write(msg.0)
    }
}

/// Key tokens for the PTY, encoded here with the modes in force (application cursor keys), so
/// a mode switch cannot fall between the encoding and the write.
#[derive(Message)]
#[rtype(result = "Result<(), VerbError>")]
pub struct SendKeys {
    pub keys: String,
    pub literal: bool,
    pub raw: bool,
    pub ticket: Option<Ticket>,
}

impl Handler<SendKeys> for Window {
    type Result = ResponseFuture<Result<(), VerbError>>;
    fn handle(&mut self, msg: SendKeys, _: &mut Self::Context) -> Self::Result {
        let modes = protocol::keys::KeyModes {
            app_cursor: self.emulator.app_cursor(),
        };
        match protocol::keys::keys_to_bytes_in(&msg.keys, msg.literal, msg.raw, modes) {
            Ok(bytes) => self.queue_write(bytes),
            Err(e) => {
                let e = e.to_verb_error();
                Box::pin(async move { Err(e) })
            }
        }
    }
}

/// Render the screen (and optionally scrollback) as text.
#[derive(Message)]
#[rtype(result = "String")]
pub struct Capture {
    pub scrollback: bool,
    pub styled: bool,
}

impl Handler<Capture> for Window {
    type Result = String;
    fn handle(&mut self, msg: Capture, _: &mut Self::Context) -> String {
        self.emulator.capture(msg.scrollback, msg.styled)
    }
}

/// Resize the PTY (TIOCSWINSZ, so the child gets SIGWINCH) and the emulator.
#[derive(Message)]
#[rtype(result = "Result<(), VerbError>")]
pub struct Resize {
    pub cols: u16,
    pub rows: u16,
}

impl Handler<Resize> for Window {
    type Result = Result<(), VerbError>;
    fn handle(&mut self, msg: Resize, ctx: &mut Self::Context) -> Self::Result {
        if self.exited.or(self.reaped).is_some() {
            return Err(errors::pty_not_found(&self.id));
        }
        // The emulator first, so output the program draws for the new size lands on a grid of it.
        self.emulator.resize(msg.cols, msg.rows);
        self.schedule_flush(ctx);
        self.master
            .resize(pty::pty_size(msg.cols, msg.rows))
            .map_err(|e| errors::internal(format!("resizing window {} failed: {e}", self.id)))
    }
}

/// Close the window: hang up its program and stop.
#[derive(Message)]
#[rtype(result = "()")]
pub struct CloseWindow;

impl Handler<CloseWindow> for Window {
    type Result = ();
    fn handle(&mut self, _: CloseWindow, ctx: &mut Self::Context) {
        ctx.stop();
    }
}

/// Kill the program at once (daemon shutdown) and resolve when it has been reaped.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Terminate;

impl Handler<Terminate> for Window {
    type Result = ResponseActFuture<Self, ()>;
    fn handle(&mut self, _: Terminate, _: &mut Self::Context) -> Self::Result {
        let pid = self.pid;
        let reaped = if self.reaped.is_some() {
            None
        } else {
            let (tx, rx) = oneshot::channel();
            self.reap_waiters.push(tx);
            pty::signal_child(pid, rustix::process::Signal::HUP);
            Some(rx)
        };
        Box::pin(
            async move {
                let Some(mut rx) = reaped else { return };
                // A program that ignores the hangup is killed after a short grace.
                if tokio::time::timeout(Duration::from_millis(500), &mut rx)
                    .await
                    .is_err()
                {
                    pty::signal_child(pid, rustix::process::Signal::KILL);
                    let _ = tokio::time::timeout(Duration::from_secs(2), rx).await;
                }
            }
            .into_actor(self)
            .map(|_, _, ctx| ctx.stop()),
        )
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

/// Where a `window-output` waiter is in a window's text: rows are counted from the first row the
/// window ever scrolled into its history, so a row keeps its number while it scrolls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanSince {
    /// First row to read; `None` reads everything there is.
    pub from_row: Option<u64>,
    /// For `fresh` waits: the screen when the wait began (first row number and the rows). A row
    /// that still reads the same is old text, not output that arrived since.
    pub baseline: Option<std::sync::Arc<(u64, Vec<String>)>>,
    pub visible_only: bool,
}

/// Rows re-read above the last one scanned, so a match spanning the boundary is still seen.
const SCAN_OVERLAP: u64 = 4;

impl ScanSince {
    pub fn start(visible_only: bool) -> Self {
        ScanSince {
            from_row: None,
            baseline: None,
            visible_only,
        }
    }
}

/// The screen as it is now, so a "fresh" wait matches only what changes from here on.
fn baseline(emulator: &Emulator, scan: ScanSince) -> ScanSince {
    let first = emulator.rows_pushed();
    let rows: Vec<String> = emulator
        .capture_from(first, false)
        .split('\n')
        .map(str::to_owned)
        .collect();
    ScanSince {
        from_row: Some(first),
        baseline: Some(Arc::new((first, rows))),
        ..scan
    }
}

/// Text not yet scanned (plus a small overlap), and where the next scan starts.
fn scan(emulator: &Emulator, scan: &ScanSince) -> (String, ScanSince) {
    let pushed = emulator.rows_pushed();
    let mut from = scan.from_row.unwrap_or(0).max(emulator.first_row());
    if scan.visible_only {
        from = from.max(pushed);
    }
    let mut text = emulator.capture_from(from, false);
    if let Some(base) = &scan.baseline {
        // Keep only rows that differ from what they showed when the wait began.
        let (first, rows) = (base.0, &base.1);
        text = text
            .split('\n')
            .enumerate()
            .filter(|(i, line)| {
                let n = from + *i as u64;
                n < first || rows.get((n - first) as usize).is_none_or(|old| old != line)
            })
            .map(|(_, line)| line)
            .collect::<Vec<_>>()
            .join("\n");
    }
    let mut next_from = pushed.saturating_sub(SCAN_OVERLAP);
    if let Some(base) = &scan.baseline {
        next_from = next_from.max(base.0);
    }
    (
        text,
        ScanSince {
            from_row: Some(next_from),
            ..scan.clone()
        },
    )
}

/// Watch for output matching `pattern` (a `window-output` wait). `reply` gets the matched text;
/// it is dropped unanswered if the window closes first. A waiter that goes away simply drops
/// its receiver, and the watch is forgotten at the next check.
#[derive(Message)]
#[rtype(result = "()")]
pub struct WatchOutput {
    pub pattern: Regex,
    pub visible_only: bool,
    /// Match only what is written after the wait began.
    pub fresh: bool,
    pub reply: oneshot::Sender<String>,
}

impl Handler<WatchOutput> for Window {
    type Result = ();
    fn handle(&mut self, msg: WatchOutput, _: &mut Self::Context) {
        let mut since = ScanSince::start(msg.visible_only);
        if msg.fresh {
            // The baseline is the screen now: only what is written from here can match.
            since = baseline(&self.emulator, since);
        }
        self.output_watches.retain(|w| !w.reply.is_closed());
        self.output_watches.push(OutputWatch {
            pattern: msg.pattern,
            scan: since,
            reply: msg.reply,
        });
        self.check_output_watches();
    }
}

/// Watch for the program's exit (a `window-exit` wait): answered at once when it has exited.
/// `None` never comes from a live window; a dropped sender means the window closed.
#[derive(Message)]
#[rtype(result = "()")]
pub struct WatchExit(pub oneshot::Sender<Option<ExitInfo>>);

impl Handler<WatchExit> for Window {
    type Result = ();
    fn handle(&mut self, msg: WatchExit, _: &mut Self::Context) {
        if self.exit_recorded {
            let _ = msg.0.send(self.exited);
            return;
        }
        self.exit_watches.retain(|w| !w.is_closed());
        self.exit_watches.push(msg.0);
    }
}

/// Watch for `idle` without output (a `window-idle` wait).
#[derive(Message)]
#[rtype(result = "()")]
pub struct WatchIdle {
    pub idle: Duration,
    pub reply: oneshot::Sender<()>,
}

impl Handler<WatchIdle> for Window {
    type Result = ();
    fn handle(&mut self, msg: WatchIdle, ctx: &mut Self::Context) {
        self.idle_watches.push(IdleWatch {
            idle: msg.idle,
            since: Instant::now(),
            reply: msg.reply,
        });
        self.arm_idle_timer(ctx);
    }
}

/// Start showing this window to a client (its first frame has every row).
#[derive(Message)]
#[rtype(result = "()")]
pub struct AddViewer {
    pub client: u64,
    pub sink: Arc<crate::outbox::Outbox>,
    pub fps: u16,
}

impl Handler<AddViewer> for Window {
    type Result = ();
    fn handle(&mut self, msg: AddViewer, ctx: &mut Self::Context) {
        self.viewers.retain(|v| v.client != msg.client);
        self.viewers
            .push(Viewer::new(msg.client, msg.sink, msg.fps));
        self.schedule_flush(ctx);
    }
}

#[derive(Message)]
#[rtype(result = "()")]
pub struct RemoveViewer(pub u64);

impl Handler<RemoveViewer> for Window {
    type Result = ();
    fn handle(&mut self, msg: RemoveViewer, _: &mut Self::Context) {
        self.viewers.retain(|v| v.client != msg.0);
    }
}

/// Rows for copy mode: `count` rows ending before row `before` (None: the top of the screen).
#[derive(Message)]
#[rtype(result = "(u64, Vec<protocol::attach::Row>, bool)")]
pub struct ScrollbackRows {
    pub before: Option<u64>,
    pub count: u32,
}

impl Handler<ScrollbackRows> for Window {
    type Result = MessageResult<ScrollbackRows>;
    fn handle(&mut self, msg: ScrollbackRows, _: &mut Self::Context) -> Self::Result {
        let end = msg.before.unwrap_or_else(|| self.emulator.rows_pushed());
        let count = msg.count.min(10_000) as u64;
        let first = end.saturating_sub(count).max(self.emulator.first_row());
        let (first, rows) = self
            .emulator
            .rows_range(first, end.saturating_sub(first) as usize);
        let more = first > self.emulator.first_row();
        MessageResult((first, rows, more))
    }
}

/// A paste from an attached client for this window, decided and queued in one step: the
/// bracketed-paste mode it is checked against is the one in force when it is written, and keys
/// typed after it (later messages) cannot overtake it.
#[derive(Message)]
#[rtype(result = "Result<crate::paste::Outcome, VerbError>")]
pub struct Paste {
    pub data: Vec<u8>,
    pub choice: String,
    pub ticket: Option<Ticket>,
}

impl Handler<Paste> for Window {
    type Result = ResponseFuture<Result<crate::paste::Outcome, VerbError>>;
    fn handle(&mut self, msg: Paste, _: &mut Self::Context) -> Self::Result {
        let bracketed = self.emulator.modes().bracketed_paste;
        let outcome = crate::paste::deliver(&msg.data, bracketed, &msg.choice);
        let crate::paste::Outcome::Write(bytes) = outcome else {
            return Box::pin(async move { Ok(outcome) });
        };
        let written = self.queue_write(bytes.clone());
        Box::pin(async move {
            written.await?;
            Ok(crate::paste::Outcome::Write(bytes))
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Live upgrade: a window handed to the next daemon, and one taken over from the previous one.

/// What the next daemon needs to carry on a window: its PTY master (a close-on-exec dup, for
/// the caller to pass on), its program, its size and its terminal as replay bytes.
pub struct WindowExport {
    pub master: std::os::fd::OwnedFd,
    pub pid: i32,
    pub cols: u16,
    pub rows: u16,
    pub replay: String,
    pub exit: Option<ExitInfo>,
    pub failed_frames: u64,
}

/// Stop reading the program's output and export the window. Output the program writes from
/// now on waits in the PTY for the next daemon; nothing read is lost between the two. If the
/// upgrade does not happen, [`Thaw`] starts reading again.
#[derive(Message)]
#[rtype(result = "Result<WindowExport, String>")]
pub struct Freeze;

impl Handler<Freeze> for Window {
    type Result = ResponseActFuture<Self, Result<WindowExport, String>>;
    fn handle(&mut self, _: Freeze, _: &mut Self::Context) -> Self::Result {
        let reader = self.reader.take();
        Box::pin(
            async move {
                if let Some(reader) = reader {
                    // Answered once the reader has stopped: every burst it read is already in
                    // this window's mailbox, ahead of the export below.
                    let _ = reader.send(StopReading).await;
                }
            }
            .into_actor(self)
            .map(|(), act, _| {
                let master = pty::reader_fd(act.master.as_ref())
                    .map_err(|e| format!("window {}: cannot duplicate its PTY: {e}", act.id))?;
                Ok(WindowExport {
                    master,
                    pid: act.pid,
                    cols: act.emulator.cols(),
                    rows: act.emulator.rows(),
                    replay: act.emulator.replay(),
                    exit: act.exited.or(act.reaped),
                    failed_frames: act.failed_frames,
                })
            }),
        )
    }
}

/// The upgrade did not happen: read the program's output again.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Thaw;

impl Handler<Thaw> for Window {
    type Result = ();
    fn handle(&mut self, _: Thaw, ctx: &mut Self::Context) {
        if self.reader.is_some() || self.stream_done {
            return;
        }
        match pty::reader_fd(self.master.as_ref()) {
            Ok(fd) => {
                self.reader = Some(PtyReader::start(
                    fd,
                    ctx.address(),
                    self.drain.clone(),
                    &self.links.readers,
                ));
            }
            Err(e) => {
                tracing::error!(window = %self.id, error = %e, "cannot read the PTY again after a failed upgrade");
            }
        }
    }
}

/// A window taken over from the daemon that ran before a live upgrade.
pub struct Adopted {
    pub id: String,
    pub master: std::os::fd::OwnedFd,
    pub pid: i32,
    pub cols: u16,
    pub rows: u16,
    pub scrollback: usize,
    pub replay: String,
    pub exit: Option<ExitInfo>,
    /// The session had recorded the exit (else it is told again here).
    pub exit_recorded: bool,
    pub failed_frames: u64,
    /// Taken over after a crash: the program is not this process's child (its end is watched
    /// through a pidfd), and its screen may be stale (a resize nudge makes it redraw).
    pub foreign: bool,
}

impl Window {
    /// Start the actor for a PTY whose program is already running (or has ended), with its
    /// terminal rebuilt from the replay. The program is still this process's child, so the
    /// supervisor reaps it as before.
    pub fn adopt(
        w: Adopted,
        links: WindowLinks,
        arbiter: &ArbiterHandle,
    ) -> std::io::Result<Addr<Window>> {
        let master: Box<dyn MasterPty + Send> = Box::new(pty::AdoptedMaster::new(w.master));
        let live = w.exit.is_none();
        let fds = if live {
            Some((
                pty::reader_fd(master.as_ref())?,
                pty::writer_fd(master.as_ref())?,
            ))
        } else {
            None
        };
        let emulator = Emulator::from_replay(w.cols, w.rows, w.scrollback, &w.replay);
        Ok(Window::start_in_arbiter(arbiter, move |ctx| {
            let drain = Arc::new(Notify::new());
            let (input, reader) = match fds {
                Some((reader_fd, writer_fd)) => {
                    let input = PtyInput::start(writer_fd, &w.id)
                        .map_err(|e| {
                            tracing::error!(window = %w.id, error = %e, "cannot write to the handed-over PTY")
                        })
                        .ok();
                    let reader =
                        PtyReader::start(reader_fd, ctx.address(), drain.clone(), &links.readers);
                    if w.foreign {
                        links.supervisor.do_send(WatchForeign {
                            pid: w.pid,
                            window: ctx.address().recipient(),
                        });
                        // SIGWINCH twice: a full-screen program draws its screen again.
                        let (cols, rows) = (w.cols, w.rows);
                        let _ = master.resize(pty::pty_size(cols, rows.saturating_sub(1).max(1)));
                        let _ = master.resize(pty::pty_size(cols, rows));
                    } else {
                        links.supervisor.do_send(Watch {
                            pid: w.pid,
                            window: ctx.address().recipient(),
                        });
                    }
                    (input, Some(reader))
                }
                None => (None, None),
            };
            let mut window = Window::assemble(
                w.id, links, emulator, master, input, reader, drain, w.pid, ctx,
            );
            window.failed_frames = w.failed_frames;
            match w.exit {
                Some(exit) if w.exit_recorded => {
                    window.exited = Some(exit);
                    window.reaped = Some(exit);
                    window.stream_done = true;
                    window.drained = true;
                    window.exit_recorded = true;
                }
                Some(exit) => {
                    // Reaped just before the handover, not yet recorded: settled as usual.
                    window.stream_done = true;
                    ctx.address().do_send(ChildExited(exit));
                }
                None => {}
            }
            window
        }))
    }
}

/// The visible screen as replay bytes, without scrollback (saved for a crash).
#[derive(Message)]
#[rtype(result = "String")]
pub struct ScreenReplay;

impl Handler<ScreenReplay> for Window {
    type Result = String;
    fn handle(&mut self, _: ScreenReplay, _: &mut Self::Context) -> String {
        self.emulator.replay_screen()
    }
}
