//! Windows opening (`appearance.animations_enabled`, the motion itself in `animate.rs`).

use super::super::animate::{grow, Opening, STEP};
use super::*;

#[derive(Debug, Default)]
pub(super) struct Animations {
    /// The session's windows at the last layout: a window not among them is new.
    known: HashSet<String>,
    /// A layout was made while attached, so what appears after it is new, not the first view.
    primed: bool,
    opening: Vec<Opening>,
}

impl App {
    /// After a layout: shown windows new to the session start opening (not at attach, and
    /// never with animations off).
    pub(super) fn start_openings(&mut self) {
        if self.anim.primed && self.settings.animations {
            let now = Instant::now();
            for f in &self.frames {
                if !self.anim.known.contains(&f.id) {
                    self.anim.opening.push(Opening {
                        window: f.id.clone(),
                        start: now,
                    });
                    self.dirty = true;
                }
            }
        }
        if !self.settings.animations {
            self.anim.opening.clear();
        }
        self.anim.known = self.session.windows.iter().map(|w| w.id.clone()).collect();
        self.anim
            .opening
            .retain(|o| self.anim.known.contains(&o.window));
        self.anim.primed |= self.attached;
    }

    /// On the timer: finished openings go; while any is left a frame is due every STEP.
    pub(super) fn tick_openings(&mut self, now: Instant) -> Option<Instant> {
        let before = self.anim.opening.len();
        self.anim.opening.retain(|o| !o.done(now));
        if self.anim.opening.len() != before {
            self.dirty = true;
        }
        if self.anim.opening.is_empty() {
            return None;
        }
        self.dirty = true;
        Some(now + STEP)
    }

    /// The boxes of the windows still opening, as they are drawn at `now`.
    pub(super) fn opening_boxes(&self, now: Instant) -> Vec<(String, Rect)> {
        self.anim
            .opening
            .iter()
            .filter_map(|o| {
                let f = self.frames.iter().find(|f| f.id == o.window)?;
                Some((o.window.clone(), grow(f.rect, o.progress(now))))
            })
            .collect()
    }
}
