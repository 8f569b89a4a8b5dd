//! The daemon's terminal emulator for one window.
//!
//! alacritty_terminal runs the VT state machine. Its own history is kept short (a few dozen
//! rows): every row that scrolls into it is moved into `store`, a compact ring of UTF-8 text
//! plus style runs (packed with zstd once sealed), so a window with 10,000 lines of scrollback
//! costs well under 1 MB instead of alacritty's 24 bytes per cell.
//!
//! The parser drives a thin wrapper around alacritty's `Term` (`TermSink`). Before every action
//! that can push rows into the history (line feed, wrapping input, `CSI n S`, `CSI n M`,
//! `CSI 2 J`) the wrapper makes sure the history has room for all of them, draining it first
//! if not, so no row is ever lost however many lines a few bytes scroll.
//!
//! alacritty's grid storage grows by at least 1,000 rows whenever it needs one more row than
//! it holds. To avoid that cost, the grids are rebuilt with exactly the capacity they need at
//! creation and after each resize, and the history never holds more than that capacity.

mod digest;
mod effects;
mod history;
mod lines;
mod osc;
mod render;
mod rep;
mod resize;
mod rows;
mod sink;
mod snapshot;
mod state;
mod store;

use std::mem;
use std::time::Duration;

use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::Line;
use alacritty_terminal::term::cell::Cell;
use alacritty_terminal::term::{Config, Osc52, Term, TermMode};
use alacritty_terminal::vte::ansi::{Processor, Timeout};

use crate::effects::Listener;
use crate::history::{history_cap, rebuild_active_grid};
use crate::osc::OscGuard;
use crate::rep::{Part, RepGuard};
use crate::sink::TermSink;
use crate::state::{flush_events, FeedState, Region};
use crate::store::Store;

pub use crate::digest::ScreenDigest;
pub use crate::effects::{Effects, Mode, Modes};
pub use crate::lines::{HistoryStats, SearchHit, SearchOrder};
pub use crate::osc::MAX_OSC_BYTES;
pub use crate::state::MAX_TITLE_BYTES;
pub use crate::store::history_file::{DiskBudget, HistoryFile};
pub use crate::store::HistoryPlan;
pub use crate::store::HistoryWriter;

/// Synchronized updates (mode 2026) stay off: alacritty would buffer output until a timer
/// that only a GUI event loop drives. The daemon coalesces frames anyway.
#[derive(Default)]
struct NoSync;

impl Timeout for NoSync {
    fn set_timeout(&mut self, _: Duration) {}
    fn clear_timeout(&mut self) {}
    fn pending_timeout(&self) -> bool {
        false
    }
}

struct Size {
    cols: usize,
    rows: usize,
}

impl Dimensions for Size {
    fn total_lines(&self) -> usize {
        self.rows
    }
    fn screen_lines(&self) -> usize {
        self.rows
    }
    fn columns(&self) -> usize {
        self.cols
    }
}

/// A terminal emulator with a compact scrollback. `Send`, not `Sync`.
pub struct Emulator {
    term: Term<Listener>,
    parser: Processor<NoSync>,
    store: Store,
    /// Rows alacritty's history may hold between drains.
    history: usize,
    state: FeedState,
    osc: OscGuard,
    rep: RepGuard,
    /// Per screen row, the change count when it last changed (see `row_generation`).
    row_gen: Vec<u64>,
    generation: u64,
}

impl Emulator {
    pub fn new(cols: u16, rows: u16, scrollback_lines: usize) -> Self {
        let cols = usize::from(cols.max(2));
        let rows = usize::from(rows.max(1));
        let history = history_cap(rows);
        let listener = Listener::default();
        let config = Config {
            scrolling_history: history,
            kitty_keyboard: true,
            osc52: Osc52::Disabled,
            ..Config::default()
        };
        let mut term = Term::new(config, &Size { cols, rows }, listener.clone());
        rebuild_active_grid(&mut term, history);
        Emulator {
            term,
            parser: Processor::new(),
            store: Store::new(scrollback_lines),
            history,
            state: FeedState {
                listener,
                effects: Effects::default(),
                title: None,
                region: Region::full(rows),
                primary_saved: None,
                touched: Vec::new(),
                touched_all: false,
                prints: 0,
            },
            osc: OscGuard::default(),
            rep: RepGuard::default(),
            row_gen: vec![0; rows],
            generation: 0,
        }
    }

    /// Records which screen rows changed since the last call: alacritty's damage plus the rows
    /// our handlers touched. A row's generation only moves when it may have changed, so a
    /// viewer converts and compares just those rows.
    fn note_damage(&mut self) {
        self.generation += 1;
        let g = self.generation;
        let rows = self.term.screen_lines();
        if self.row_gen.len() != rows {
            self.row_gen = vec![g; rows];
            self.state.touched_all = true;
        }
        let all = match self.term.damage() {
            alacritty_terminal::term::TermDamage::Full => true,
            alacritty_terminal::term::TermDamage::Partial(lines) => {
                for d in lines {
                    if let Some(x) = self.row_gen.get_mut(d.line) {
                        *x = g;
                    }
                }
                false
            }
        };
        self.term.reset_damage();
        if all || self.state.touched_all {
            self.row_gen.iter_mut().for_each(|x| *x = g);
        } else {
            for &line in &self.state.touched {
                if let Some(x) = self.row_gen.get_mut(line) {
                    *x = g;
                }
            }
        }
        self.state.touched.clear();
        self.state.touched_all = false;
    }

    /// A number that changes whenever visible row `r` may have changed (0 before any output;
    /// `u64::MAX` past the last row).
    pub fn row_generation(&self, r: u16) -> u64 {
        self.row_gen
            .get(usize::from(r))
            .copied()
            .unwrap_or(u64::MAX)
    }

    /// Feeds PTY output. Effects accumulate until `take_effects`.
    pub fn feed(&mut self, bytes: &[u8]) {
        let mut sink = TermSink {
            term: &mut self.term,
            store: &mut self.store,
            history: self.history,
            state: &mut self.state,
            credit: 0,
        };
        let parser = &mut self.parser;
        let rep = &mut self.rep;
        let mut advance = |part: &[u8], kind: Part| {
            // A REP xterm ignores becomes `ESC \`, which does nothing (vte dispatches it as
            // a no-op) yet, like the REP's own ESC, ends whatever string the parser was in.
            let part = match kind {
                Part::Rep { honoured: false } => &b"\x1b\\"[..],
                _ => part,
            };
            parser.advance(&mut sink, part);
            sink.state.prints
        };
        // OSC strings are held back here, so the parser never buffers more than the cap; REPs
        // are found in what passes.
        self.osc
            .feed(bytes, |segment| rep.feed(segment, &mut advance));
        sink.drain();
        if self.store.maybe_over_budget() {
            self.store.enforce_budget();
            self.state.effects.history_dropped += self.store.take_dropped();
        }
        flush_events(&self.term, &mut self.state);
        self.note_damage();
    }

    pub fn take_effects(&mut self) -> Effects {
        mem::take(&mut self.state.effects)
    }

    pub fn cols(&self) -> u16 {
        self.term.columns() as u16
    }

    pub fn rows(&self) -> u16 {
        self.term.screen_lines() as u16
    }

    /// (col, row), 0-based on the visible screen.
    pub fn cursor(&self) -> (u16, u16) {
        let point = self.term.grid().cursor.point;
        (point.column.0 as u16, point.line.0.max(0) as u16)
    }

    /// Whether the program shows the cursor (DECTCEM).
    pub fn cursor_visible(&self) -> bool {
        self.term.mode().contains(TermMode::SHOW_CURSOR)
    }

    /// The title set with OSC 0/2; None when unset, reset or empty.
    pub fn title(&self) -> Option<&str> {
        self.state.title.as_deref()
    }

    pub fn modes(&self) -> Modes {
        Modes::of(*self.term.mode())
    }

    /// Whether the program set application cursor keys (DECCKM, `CSI ? 1 h`): cursor keys
    /// (Up/Down/Right/Left/Home/End) must then be sent as `SS3 A`... instead of `CSI A`...
    pub fn app_cursor(&self) -> bool {
        self.term.mode().contains(TermMode::APP_CURSOR)
    }

    /// The kitty keyboard protocol flags the program pushed (`CSI > flags u`), 0 when none.
    pub fn kitty_keyboard_flags(&self) -> u8 {
        ((*self.term.mode() & TermMode::KITTY_KEYBOARD_PROTOCOL).bits() >> 18) as u8
    }

    /// Rows alacritty holds that are not yet in the store (zero outside `feed`/`resize`).
    fn pending_rows(&self) -> usize {
        self.term.grid().history_size()
    }

    /// Rows of scrollback, at most `scrollback_lines`.
    pub fn scrollback_len(&self) -> usize {
        (self.store.kept() as usize + self.pending_rows()).min(self.store.capacity())
    }

    /// Total rows pushed into scrollback. It only goes down when growing the window brings
    /// rows back into view (`resize`); rows keep their numbers either way.
    pub fn rows_pushed(&self) -> u64 {
        self.store.pushed() + self.pending_rows() as u64
    }

    /// Heap bytes held by the scrollback store.
    pub fn store_bytes(&self) -> usize {
        self.store.heap_bytes()
    }

    /// Packs the scrollback written since the last call (about a third of its size on typical
    /// output); returns the bytes saved. Costs ~0.1 ms per 32 KiB block packed: call it now and
    /// then while output flows, not per feed.
    pub fn compact_scrollback(&mut self) -> usize {
        self.store.compact()
    }

    /// Capture for capture-pane. Visible part: exactly `rows` rows joined by '\n', no trailing
    /// newline. With scrollback: every scrollback row, oldest first, each followed by '\n',
    /// then the visible part. Plain rows drop trailing spaces and wide-char spacer cells;
    /// styled rows carry SGR (and OSC 8) sequences, are padded to their full width and end
    /// with `ESC[m` whenever a style is still set there.
    pub fn capture(&self, include_scrollback: bool, styled: bool) -> String {
        let from = if include_scrollback {
            0
        } else {
            self.rows_pushed()
        };
        self.capture_from(from, styled)
    }

    /// Like `capture`, but only rows numbered `from` onwards. Rows are numbered from the first
    /// row ever pushed to scrollback (0); visible row `r` is number `rows_pushed() + r`. A row
    /// keeps its number as it scrolls, so a reader can resume where it stopped instead of
    /// re-reading the whole scrollback (rows already dropped from the ring are simply absent).
    pub fn capture_from(&self, from: u64, styled: bool) -> String {
        let end = self.rows_pushed() + self.term.screen_lines() as u64;
        self.capture_between(from, end, styled)
    }
}

impl Emulator {
    /// Visible row `r` (0-based) as styled runs: adjacent cells of the same style share a
    /// run, a wide character appears once (its spacer cell is skipped; the client gives it
    /// two columns) and trailing default-styled blanks are dropped. Empty past the last row.
    pub fn screen_row(&self, r: u16) -> protocol::attach::Row {
        let grid = self.term.grid();
        if usize::from(r) >= grid.screen_lines() {
            return protocol::attach::Row::default();
        }
        rows::row_of_cells(&grid[Line(i32::from(r))][..])
    }

    /// Number of the oldest row still kept (numbering as in `capture_from`). Equal to
    /// `rows_pushed()` when no scrollback is kept.
    pub fn first_row(&self) -> u64 {
        self.rows_pushed() - self.scrollback_len() as u64
    }

    /// Rows numbered `first..first + count` (numbering as in `capture_from`), oldest first;
    /// rows no longer kept and rows past the screen's last are left out. Returns the number
    /// of the first row returned (`max(first, first_row())` when none is) and the rows.
    pub fn rows_range(&self, first: u64, count: usize) -> (u64, Vec<protocol::attach::Row>) {
        let pushed = self.rows_pushed();
        let start = first.max(self.first_row());
        let end = first
            .saturating_add(count as u64)
            .min(pushed + self.term.screen_lines() as u64);
        let mut out = Vec::with_capacity(end.saturating_sub(start) as usize);
        let pending = self.pending_rows() as u64;
        let store_end = pushed - pending;
        for n in start..end {
            let row = if n < store_end {
                let mut b = rows::RowBuilder::default();
                if let Some(row) = self.store.line(n) {
                    row.for_each_run(|text, pen| b.push_str(text, rows::style_of_pen(pen)));
                }
                b.finish()
            } else if n < pushed {
                // Still in alacritty's history (only while feeding): oldest is furthest up.
                let line = -((pushed - n) as i32);
                rows::row_of_cells(&self.term.grid()[Line(line)][..])
            } else {
                self.screen_row((n - pushed) as u16)
            };
            out.push(row);
        }
        (start, out)
    }

    /// The modes a client needs to encode keys, pastes and mouse events for the program.
    pub fn window_modes(&self) -> protocol::attach::WindowModes {
        let mode = *self.term.mode();
        protocol::attach::WindowModes {
            app_cursor: mode.contains(TermMode::APP_CURSOR),
            bracketed_paste: mode.contains(TermMode::BRACKETED_PASTE),
            mouse: mode.intersects(TermMode::MOUSE_MODE),
            sgr_mouse: mode.contains(TermMode::SGR_MOUSE),
            alt_screen: mode.contains(TermMode::ALT_SCREEN),
            kitty_flags: self.kitty_keyboard_flags(),
        }
    }
}

pub(crate) fn render_row(out: &mut String, cells: &[Cell], styled: bool) {
    if styled {
        render::render_cells_styled(out, cells);
    } else {
        render::render_cells_plain(out, cells);
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_history;
#[cfg(test)]
mod tests_vttest;
