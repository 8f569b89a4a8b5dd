//! Attached clients showing the window: frames sent to them at their frame rate, and the rows
//! copy mode asks for.
use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;

use super::{Window, FRAME_BURST};
use crate::screen::{self, Viewer};

impl Window {
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

    pub(super) fn schedule_flush(&mut self, ctx: &mut Context<Self>) {
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
/// Answers (first row sent, rows, older rows exist, oldest row still kept).
#[derive(Message)]
#[rtype(result = "(u64, Vec<protocol::attach::Row>, bool, u64)")]
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
        MessageResult((first, rows, more, self.emulator.first_row()))
    }
}
