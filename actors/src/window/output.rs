//! What the program writes: output parsed into the emulator, and what the window tells others
//! of it, gathered into batches of events and notices.
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use actix::prelude::*;
use protocol::events::Event;

use super::{mode_name, Window, WindowNotice};
use crate::event_hub::Publish;
use crate::pty_input::{Queued, WriteJob};
use crate::pty_reader::{Drained, Output, OutputEnded};

/// Least time between two batches of a window's events and notices.
const EVENT_INTERVAL: Duration = Duration::from_millis(20);
/// How long after output starts the scrollback written meanwhile is packed: often enough that
/// a window's memory settles within seconds, rarely enough that packing costs a flood ~0.3%.
const COMPACT_AFTER: Duration = Duration::from_secs(2);

/// What happened since the last batch of events.
#[derive(Default)]
pub(super) struct PendingEvents {
    output_bytes: u64,
    bells: u32,
    /// Latest state of each mode switched since the last batch.
    modes: BTreeMap<&'static str, bool>,
    title: bool,
    /// The last failed Lumen frame's reason, when any failed since the last batch.
    frame_failed: Option<&'static str>,
    /// History lines dropped for a byte budget.
    history_dropped: u64,
}

impl PendingEvents {
    fn is_empty(&self) -> bool {
        self.output_bytes == 0
            && self.bells == 0
            && self.modes.is_empty()
            && !self.title
            && self.frame_failed.is_none()
            && self.history_dropped == 0
    }
}

impl Window {
    /// An event about this window, with its session, id and PTY filled in.
    pub(super) fn event(&self, kind: &'static str) -> Event {
        let mut e = Event::new(kind);
        e.session = self.links.session.clone();
        e.window = self.id.clone();
        e.pty_id = self.links.pty_id.clone();
        e
    }

    pub(super) fn publish(&self, event: Event) {
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
        self.screen_touched(false);
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
    pub(super) fn send_events(&mut self) {
        self.events_at = Some(Instant::now());
        let pending = std::mem::take(&mut self.pending);
        if pending.output_bytes > 0 {
            let mut output = self.event("output");
            output.bytes = pending.output_bytes;
            self.publish(output);
            // A shell that changed directory prints its prompt: output is when to look. One
            // readlink per event batch, so at most a few a second.
            let cwd = crate::agent::proc::window_cwd(self.pid)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !cwd.is_empty() && cwd != self.last_cwd {
                self.last_cwd = cwd.clone();
                self.links.notices.do_send(WindowNotice::Cwd {
                    window_id: self.id.clone(),
                    cwd,
                });
            }
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
        if pending.history_dropped > 0 {
            let mut e = self.event("history-dropped");
            e.lines = pending.history_dropped;
            self.publish(e);
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
        if let Some(recording) = &mut self.recording {
            recording.output(bytes);
        }
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
        self.pending.history_dropped += effects.history_dropped;
        self.pending.bells = self.pending.bells.saturating_add(effects.bells);
        for (mode, enabled) in effects.mode_changes {
            self.pending.modes.insert(mode_name(mode), enabled);
        }
    }
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
