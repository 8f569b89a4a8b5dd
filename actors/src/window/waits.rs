//! `wait-for` conditions checked in the window, where the data is: output matching a pattern,
//! the program's exit, and quiet.
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use emulator::Emulator;
use regex::Regex;
use tokio::sync::oneshot;

use super::Window;
use crate::pty::ExitInfo;

/// A `window-output` wait: a pattern checked against rows not yet scanned, as output arrives.
pub(super) struct OutputWatch {
    pattern: Regex,
    scan: ScanSince,
    reply: oneshot::Sender<String>,
}

/// A `window-idle` wait: answered once no output came for `idle`.
pub(super) struct IdleWatch {
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
    /// Answer the `window-output` waits whose pattern now matches; forget those whose waiter
    /// is gone.
    pub(super) fn check_output_watches(&mut self) {
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
}

/// The session has recorded the program's exit: answer the waits on it.
#[derive(Message)]
#[rtype(result = "()")]
pub(super) struct ExitRecorded;

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
    // History on disk is left out: a wait scans what the window holds in memory and what
    // comes next, so its first scan costs at most the memory budget, not the disk's.
    let mut from = scan.from_row.unwrap_or(0).max(emulator.memory_first_row());
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
