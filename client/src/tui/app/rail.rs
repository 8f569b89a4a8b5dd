//! The session rail's state: the session list the run loop polls, and where the pointer rests
//! on the rail (for the marquee of an overflowing title and the collapsed strip's labels).

use std::time::{Duration, Instant};

use super::App;
use crate::tui::rail::{plan_rail, scrolling_text, RailSession, MARQUEE_MS, STRIP_W};

impl App {
    /// Whether the rail is shown, so the run loop polls the session list only then.
    pub fn rail_shown(&self) -> bool {
        self.rail_rect().is_some()
    }

    /// The session list, polled; a change is drawn.
    pub fn set_sessions(&mut self, sessions: Vec<RailSession>) {
        if sessions != self.sessions {
            self.sessions = sessions;
            self.dirty = true;
        }
    }

    /// The pointer moved with no button held: it rests on the rail at (x, y), or left it.
    pub(super) fn hover_rail(&mut self, x: u16, y: u16, now: Instant) {
        let on = self
            .rail_rect()
            .filter(|r| r.contains(x, y))
            .map(|_| (x, y));
        if on.map(|p| p.1) != self.rail_hover.map(|h| h.0 .1) {
            self.rail_hover = on.map(|p| (p, now));
            self.marquee_step = 0;
            self.dirty = true;
        }
    }

    /// Advances the marquee of a hovered row whose title overflows; the next step's time.
    pub(super) fn tick_rail(&mut self, now: Instant) -> Option<Instant> {
        let ((_, y), since) = self.rail_hover?;
        let r = self.rail_rect()?;
        if !self.settings.rail.marquee || r.w <= STRIP_W {
            return None;
        }
        let rows = plan_rail(&self.view(), r.h);
        let row = rows.get(usize::from(y.checked_sub(r.y)?))?;
        scrolling_text(row, r.w - 1)?;
        let step_len = Duration::from_millis(MARQUEE_MS);
        let steps = now.duration_since(since).as_millis() / u128::from(MARQUEE_MS);
        let step = usize::try_from(steps).unwrap_or(0);
        if step != self.marquee_step {
            self.marquee_step = step;
            self.dirty = true;
        }
        Some(since + step_len * (step as u32 + 1))
    }
}
