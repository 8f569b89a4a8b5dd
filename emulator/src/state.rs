//! What the emulator keeps about the output fed so far beside alacritty's own state: the
//! scrolling region, the title, the effects waiting to be taken, the rows its own handlers
//! changed. A leaf: the emulator, its parser handler and its effects all read it.

use std::mem;

use alacritty_terminal::event::Event;
use alacritty_terminal::grid::Cursor;
use alacritty_terminal::term::cell::Cell;
use alacritty_terminal::term::Term;

use crate::effects::{default_color, Effects, Listener};

/// Longest window title kept, in bytes (OSC 0/2). Longer titles are cut at a character
/// boundary: a title travels in every session-state frame and `list-windows` line, so a
/// program must not be able to make those frames huge.
pub const MAX_TITLE_BYTES: usize = 4096;

/// The scrolling region (DECSTBM) as screen rows `top..bottom`. alacritty keeps its own
/// copy private; this one follows the same rules and is reset in the same places.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Region {
    pub(crate) top: usize,
    pub(crate) bottom: usize,
}

impl Region {
    pub(crate) fn full(rows: usize) -> Region {
        Region {
            top: 0,
            bottom: rows,
        }
    }
}

pub(crate) struct FeedState {
    pub(crate) listener: Listener,
    pub(crate) effects: Effects,
    pub(crate) title: Option<String>,
    pub(crate) region: Region,
    /// While the alternate screen is active: the primary screen's saved cursor (DECSC), to put
    /// back on leaving. alacritty's screen swap overwrites it, which is right for `?1049` only.
    pub(crate) primary_saved: Option<Cursor<Cell>>,
    /// Screen rows changed by our own handlers, which bypass alacritty's damage tracking (it
    /// only sees its own cursor moves); `touched_all` when that is not worth listing.
    pub(crate) touched: Vec<usize>,
    pub(crate) touched_all: bool,
    /// Characters printed so far (wrapping): tells the REP guard whether a part printed.
    pub(crate) prints: u64,
}

impl FeedState {
    pub(crate) fn touch(&mut self, line: usize) {
        if self.touched.len() >= TOUCHED_MAX {
            self.touched_all = true;
        } else {
            self.touched.push(line);
        }
    }
}

/// Rows listed one by one before a feed counts as touching the whole screen.
const TOUCHED_MAX: usize = 64;

/// Turn the events alacritty raised while feeding into effects and title changes.
pub(crate) fn flush_events(term: &Term<Listener>, state: &mut FeedState) {
    let events = {
        let mut queue = state.listener.queue();
        if queue.is_empty() {
            return;
        }
        mem::take(&mut *queue)
    };
    let effects = &mut state.effects;
    for event in events {
        match event {
            Event::PtyWrite(text) => effects.pty_replies.extend_from_slice(text.as_bytes()),
            Event::Title(title) => {
                state.title = Some(title).filter(|t| !t.is_empty());
                effects.title_changed = true;
            }
            Event::ResetTitle => {
                state.title = None;
                effects.title_changed = true;
            }
            Event::Bell => effects.bells = effects.bells.saturating_add(1),
            Event::ColorRequest(index, format) => {
                let rgb = term.colors()[index].unwrap_or_else(|| default_color(index));
                effects
                    .pty_replies
                    .extend_from_slice(format(rgb).as_bytes());
            }
            _ => {}
        }
    }
}
