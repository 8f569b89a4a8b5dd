//! Short chrome transitions (`appearance.animations_enabled`): a window that appears grows from
//! the middle of its place to its full box over [`OPEN`]. Only the frame's box moves; the
//! window's size on the daemon side is its final one from the start, and a frame with an echo
//! in it is drawn at once like any other (an animation never holds a frame back). Pure apart
//! from the times it is handed.

use std::time::{Duration, Instant};

use super::layout::Rect;

/// How long a window takes to open.
pub const OPEN: Duration = Duration::from_millis(120);
/// How often an animation asks for a frame (the frame rate limit may draw fewer).
pub const STEP: Duration = Duration::from_millis(16);

/// A window opening.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opening {
    pub window: String,
    pub start: Instant,
}

impl Opening {
    /// How far along at `now`, 0.0 to 1.0.
    pub fn progress(&self, now: Instant) -> f32 {
        let t = now.saturating_duration_since(self.start).as_secs_f32() / OPEN.as_secs_f32();
        t.clamp(0.0, 1.0)
    }

    pub fn done(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.start) >= OPEN
    }
}

/// The box `to` grows through: at `t` 0 a 2x2 (or smaller) box in its middle, at 1 `to` itself,
/// eased out so most of the growth is early.
pub fn grow(to: Rect, t: f32) -> Rect {
    let t = t.clamp(0.0, 1.0);
    let eased = 1.0 - (1.0 - t) * (1.0 - t);
    let size = |full: u16| {
        let start = f32::from(full.min(2));
        (start + (f32::from(full) - start) * eased).round() as u16
    };
    let (w, h) = (size(to.w), size(to.h));
    Rect::new(to.x + (to.w - w) / 2, to.y + (to.h - h) / 2, w, h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_from_the_middle_to_the_box() {
        let to = Rect::new(10, 5, 40, 20);
        assert_eq!(grow(to, 0.0), Rect::new(29, 14, 2, 2));
        assert_eq!(grow(to, 1.0), to);
        assert_eq!(grow(to, 7.0), to);
        let half = grow(to, 0.5);
        // Eased out: past the halfway size at half time, and centred.
        assert!(half.w > 21 && half.w < 40, "{half:?}");
        assert_eq!(half.x, 10 + (40 - half.w) / 2);
        // Never outside the final box, whatever the size.
        for w in 0..5 {
            for i in 0..=10 {
                let r = grow(Rect::new(3, 3, w, w), i as f32 / 10.0);
                assert!(r.x >= 3 && r.right() <= 3 + w && r.w <= w, "{r:?}");
            }
        }
    }

    #[test]
    fn progress_runs_over_the_opening_time() {
        let start = Instant::now();
        let o = Opening {
            window: "a".into(),
            start,
        };
        assert_eq!(o.progress(start), 0.0);
        assert!(!o.done(start + OPEN / 2));
        assert!((o.progress(start + OPEN / 2) - 0.5).abs() < 0.01);
        assert!(o.done(start + OPEN));
        assert_eq!(o.progress(start + OPEN * 3), 1.0);
    }
}
