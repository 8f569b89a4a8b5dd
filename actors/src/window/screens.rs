//! The visible screen's hash, the screens a window remembers for `capture-pane`'s `since`, and
//! `wait-for screen-settled`.
//!
//! Settling is tracked only while someone waits for it. Each output that lands while the screen
//! still reads as last seen is hashed (only rows whose change count moved are rehashed), so a
//! change that is undone before the next look is still seen. Once a change is seen, output is
//! not hashed again until the settle timer fires: a flood costs at most a couple of hashes per
//! `idle` period, however fast it prints.
use std::collections::VecDeque;
use std::time::{Duration, Instant};

use actix::prelude::*;
use emulator::ScreenDigest;
use tokio::sync::oneshot;

use super::Window;

/// Screens remembered per window for `since`; the oldest is forgotten first.
pub const REMEMBERED: usize = 16;

/// A screen handed out (its hash was in a reply), kept to diff against.
struct Remembered {
    hash: u64,
    rows: Vec<u64>,
}

/// A `screen-settled` wait.
pub(super) struct SettleWatch {
    idle: Duration,
    /// Quiet is counted from the wait's start, as for `window-idle`: a wait begun right after
    /// sending keys gives the program `idle` to react before its old screen counts as settled.
    since: Instant,
    reply: oneshot::Sender<String>,
}

impl SettleWatch {
    fn due(&self, stable_since: Instant) -> Instant {
        stable_since.max(self.since) + self.idle
    }
}

/// What settling knows while waits are live.
struct Settling {
    /// The screen's hash as last seen.
    hash: u64,
    /// Since when the screen has read `hash` for sure.
    stable_since: Instant,
    /// A change was seen since the timer last fired; output is not hashed until it fires again.
    changed: bool,
    /// The last resize while waits were live: it changes the screen without output.
    resized_at: Option<Instant>,
}

#[derive(Default)]
pub(super) struct Screens {
    digest: ScreenDigest,
    remembered: VecDeque<Remembered>,
    watches: Vec<SettleWatch>,
    settling: Option<Settling>,
    timer: Option<SpawnHandle>,
}

/// Hashes travel as 16 hex digits.
pub fn hash_text(hash: u64) -> String {
    format!("{hash:016x}")
}

impl Screens {
    /// The screen's hash now, remembered as handed out (most recent first, no duplicates).
    fn hand_out(&mut self, emulator: &emulator::Emulator) -> u64 {
        let hash = self.digest.update(emulator);
        if let Some(i) = self.remembered.iter().position(|r| r.hash == hash) {
            let r = self.remembered.remove(i).expect("found above");
            self.remembered.push_front(r);
        } else {
            if self.remembered.len() == REMEMBERED {
                self.remembered.pop_back();
            }
            self.remembered.push_front(Remembered {
                hash,
                rows: self.digest.row_hashes(),
            });
        }
        hash
    }
}

/// A visible-screen capture, with the screen's hash. With `since`, only the rows that differ
/// from the screen of that hash.
#[derive(Message)]
#[rtype(result = "ScreenCapture")]
pub struct CaptureScreen {
    /// Capture the scrollback too (ignored with `since`).
    pub scrollback: bool,
    pub styled: bool,
    pub since: Option<String>,
    /// Only these lines (`start`, `end`, as capture-pane numbers them), read wherever they are
    /// kept, history on disk included (ignored with `since`).
    pub range: Option<(i64, i64)>,
}

pub struct ScreenCapture {
    /// The capture; `None` with `since`.
    pub content: Option<String>,
    pub hash: String,
    /// With `since`: (row, text) of the rows that differ.
    pub rows: Option<Vec<(u32, String)>>,
    /// With `since`: whether that screen was remembered.
    pub since_known: Option<bool>,
}

impl Handler<CaptureScreen> for Window {
    type Result = MessageResult<CaptureScreen>;
    fn handle(&mut self, msg: CaptureScreen, _: &mut Self::Context) -> Self::Result {
        let Some(since) = msg.since else {
            let content = match msg.range {
                Some((start, end)) => {
                    self.emulator
                        .capture_lines(msg.scrollback, msg.styled, start, end)
                }
                None => self.emulator.capture(msg.scrollback, msg.styled),
            };
            let hash = self.screens.hand_out(&self.emulator);
            return MessageResult(ScreenCapture {
                content: Some(content),
                hash: hash_text(hash),
                rows: None,
                since_known: None,
            });
        };
        // Looked up before this screen is remembered, which may push the oldest out.
        let old = u64::from_str_radix(since.trim(), 16)
            .ok()
            .and_then(|h| self.screens.remembered.iter().find(|r| r.hash == h))
            .map(|r| r.rows.clone());
        let hash = self.screens.hand_out(&self.emulator);
        let now = self.screens.digest.row_hashes();
        let rows = now
            .iter()
            .enumerate()
            .filter(|(r, h)| old.as_ref().and_then(|o| o.get(*r)) != Some(h))
            .map(|(r, _)| {
                let text = self.emulator.screen_row_text(r as u16, msg.styled);
                (r as u32, text)
            })
            .collect();
        MessageResult(ScreenCapture {
            content: None,
            hash: hash_text(hash),
            rows: Some(rows),
            since_known: Some(old.is_some()),
        })
    }
}

/// Wait until the visible screen has not changed for `idle` (a `screen-settled` wait). `reply`
/// gets the settled screen's hash; it is dropped unanswered if the window closes first.
#[derive(Message)]
#[rtype(result = "()")]
pub struct WatchSettled {
    pub idle: Duration,
    pub reply: oneshot::Sender<String>,
}

impl Handler<WatchSettled> for Window {
    type Result = ();
    fn handle(&mut self, msg: WatchSettled, ctx: &mut Self::Context) {
        if self.screens.settling.is_none() {
            // Nothing tracked the screen before: it has surely read as it does now since the
            // last output.
            let hash = self.screens.digest.update(&self.emulator);
            self.screens.settling = Some(Settling {
                hash,
                stable_since: self.last_output,
                changed: false,
                resized_at: None,
            });
        }
        self.screens.watches.push(SettleWatch {
            idle: msg.idle,
            since: Instant::now(),
            reply: msg.reply,
        });
        self.check_settled(ctx);
    }
}

impl Window {
    /// After output (or a resize): note whether the screen changed, cheaply.
    pub(super) fn screen_touched(&mut self, resized: bool) {
        let s = &mut self.screens;
        let Some(settling) = s.settling.as_mut() else {
            return;
        };
        if resized {
            settling.resized_at = Some(Instant::now());
            settling.changed = true;
            return;
        }
        if settling.changed {
            return;
        }
        if s.digest.update(&self.emulator) != settling.hash {
            settling.changed = true;
        }
    }

    /// Answer the settled waits whose quiet time has passed; arm the timer for the rest.
    fn check_settled(&mut self, ctx: &mut Context<Self>) {
        if let Some(h) = self.screens.timer.take() {
            ctx.cancel_future(h);
        }
        self.screens.watches.retain(|w| !w.reply.is_closed());
        if self.screens.watches.is_empty() {
            // Nobody waits: stop tracking, so output costs nothing more.
            self.screens.settling = None;
            return;
        }
        let last_output = self.last_output;
        let Some(settling) = self.screens.settling.as_mut() else {
            return;
        };
        if settling.changed {
            // Whatever changed, the screen has read as it does now since the last output (or
            // resize).
            settling.hash = self.screens.digest.update(&self.emulator);
            settling.stable_since = settling
                .resized_at
                .map_or(last_output, |r| r.max(last_output));
            settling.changed = false;
        }
        let stable_since = settling.stable_since;
        let now = Instant::now();
        let (due, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut self.screens.watches)
            .into_iter()
            .partition(|w| w.due(stable_since) <= now);
        self.screens.watches = waiting;
        if !due.is_empty() {
            let hash = hash_text(self.screens.hand_out(&self.emulator));
            for w in due {
                let _ = w.reply.send(hash.clone());
            }
        }
        let Some(next) = self
            .screens
            .watches
            .iter()
            .map(|w| w.due(stable_since))
            .min()
        else {
            self.screens.settling = None;
            return;
        };
        let wait = next.saturating_duration_since(now);
        self.screens.timer = Some(ctx.run_later(wait, |act, ctx| {
            act.screens.timer = None;
            act.check_settled(ctx);
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_sixteen_hex_digits() {
        assert_eq!(hash_text(0), "0000000000000000");
        assert_eq!(hash_text(u64::MAX), "ffffffffffffffff");
        assert_eq!(hash_text(0xab), "00000000000000ab");
    }

    #[test]
    fn remembered_screens_are_bounded_and_recent_first() {
        let mut s = Screens::default();
        let mut e = emulator::Emulator::new(10, 2, 10);
        let mut hashes = Vec::new();
        for i in 0..(REMEMBERED + 3) {
            e.feed(format!("\r{i:>4}").as_bytes());
            hashes.push(s.hand_out(&e));
        }
        assert_eq!(s.remembered.len(), REMEMBERED);
        assert_eq!(s.remembered[0].hash, *hashes.last().unwrap());
        assert!(!s.remembered.iter().any(|r| r.hash == hashes[0]));
        // Handing out a remembered screen again moves it to the front, not in twice.
        e.feed(format!("\r{:>4}", 5).as_bytes());
        assert_eq!(s.hand_out(&e), hashes[5]);
        assert_eq!(s.remembered.len(), REMEMBERED);
        assert_eq!(s.remembered[0].hash, hashes[5]);
    }
}
