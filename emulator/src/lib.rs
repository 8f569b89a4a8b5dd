//! The daemon's terminal emulator for one window.
//!
//! alacritty_terminal runs the VT state machine. Its own history is kept short (a few dozen
//! rows): every row that scrolls into it is moved into `store`, a compact ring of UTF-8 text
//! plus style runs (packed with zstd once sealed), so a window with 10,000 lines of scrollback
//! costs well under 1 MB instead of alacritty's 24 bytes per cell.
//!
//! The parser drives a thin wrapper around alacritty's `Term` (`Sink`). Before every action
//! that can push rows into the history (line feed, wrapping input, `CSI n S`, `CSI n M`,
//! `CSI 2 J`) the wrapper makes sure the history has room for all of them, draining it first
//! if not, so no row is ever lost however many lines a few bytes scroll.
//!
//! alacritty's grid storage grows by at least 1,000 rows whenever it needs one more row than
//! it holds. To avoid that cost, the grids are rebuilt with exactly the capacity they need at
//! creation and after each resize, and the history never holds more than that capacity.

mod osc;
mod render;
mod rows;
mod snapshot;
mod store;

use std::mem;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use alacritty_terminal::event::{Event, EventListener};
use alacritty_terminal::grid::{Cursor, Dimensions, Grid, GridCell, Row};
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::term::{Config, Osc52, Term, TermMode};
use alacritty_terminal::vte::ansi::{
    self, Attr, CharsetIndex, ClearMode, Color, CursorShape, CursorStyle, Handler, Hyperlink,
    KeyboardModes, KeyboardModesApplyBehavior, LineClearMode, ModifyOtherKeys, NamedPrivateMode,
    PrivateMode, Processor, Rgb, ScpCharPath, ScpUpdateMode, StandardCharset, TabulationClearMode,
    Timeout,
};

use crate::osc::OscGuard;
use crate::store::Store;

pub use crate::osc::MAX_OSC_BYTES;

/// Longest window title kept, in bytes (OSC 0/2). Longer titles are cut at a character
/// boundary: a title travels in every session-state frame and `list-windows` line, so a
/// program must not be able to make those frames huge.
pub const MAX_TITLE_BYTES: usize = 4096;

/// Smallest history alacritty keeps between drains. It is also never below the screen
/// height, the most rows one action can scroll at once.
const MIN_HISTORY: usize = 16;
/// History limit while a resize reflows, so the reflow itself drops nothing.
const RESIZE_HISTORY: usize = usize::MAX / 4;

fn history_cap(rows: usize) -> usize {
    rows.max(MIN_HISTORY)
}

/// Side effects of the output fed since the last `take_effects`.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Effects {
    /// Answers to DA / DSR / DECRQM / colour queries, to be written back to the PTY.
    pub pty_replies: Vec<u8>,
    pub title_changed: bool,
    pub bells: u32,
    /// Mode switches in the order they happened.
    pub mode_changes: Vec<(Mode, bool)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    AltScreen,
    BracketedPaste,
    AppCursor,
    MouseReporting,
    FocusReporting,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::AltScreen => "alt-screen",
            Mode::BracketedPaste => "bracketed-paste",
            Mode::AppCursor => "app-cursor",
            Mode::MouseReporting => "mouse",
            Mode::FocusReporting => "focus",
        }
    }
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Modes {
    pub alt_screen: bool,
    pub bracketed_paste: bool,
    pub app_cursor: bool,
    pub mouse: bool,
    /// Always false: focus reporting (1004) is refused by policy (DESIGN, Lumen input rules).
    pub focus: bool,
}

impl Modes {
    fn of(mode: TermMode) -> Modes {
        Modes {
            alt_screen: mode.contains(TermMode::ALT_SCREEN),
            bracketed_paste: mode.contains(TermMode::BRACKETED_PASTE),
            app_cursor: mode.contains(TermMode::APP_CURSOR),
            mouse: mode.intersects(TermMode::MOUSE_MODE),
            focus: mode.contains(TermMode::FOCUS_IN_OUT),
        }
    }

    fn push_changes(before: Modes, after: Modes, out: &mut Vec<(Mode, bool)>) {
        for (mode, a, b) in [
            (Mode::AltScreen, before.alt_screen, after.alt_screen),
            (
                Mode::BracketedPaste,
                before.bracketed_paste,
                after.bracketed_paste,
            ),
            (Mode::AppCursor, before.app_cursor, after.app_cursor),
            (Mode::MouseReporting, before.mouse, after.mouse),
            (Mode::FocusReporting, before.focus, after.focus),
        ] {
            if a != b {
                out.push((mode, b));
            }
        }
    }
}

/// Collects alacritty's events; the emulator turns them into effects after each feed.
#[derive(Clone, Default)]
struct Listener(Arc<Mutex<Vec<Event>>>);

impl Listener {
    fn queue(&self) -> MutexGuard<'_, Vec<Event>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl EventListener for Listener {
    fn send_event(&self, event: Event) {
        if matches!(
            event,
            Event::PtyWrite(_)
                | Event::Title(_)
                | Event::ResetTitle
                | Event::Bell
                | Event::ColorRequest(..)
        ) {
            self.queue().push(event);
        }
    }
}

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

/// The scrolling region (DECSTBM) as screen rows `top..bottom`. alacritty keeps its own
/// copy private; this one follows the same rules and is reset in the same places.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Region {
    top: usize,
    bottom: usize,
}

impl Region {
    fn full(rows: usize) -> Region {
        Region {
            top: 0,
            bottom: rows,
        }
    }
}

struct State {
    listener: Listener,
    effects: Effects,
    title: Option<String>,
    region: Region,
    /// While the alternate screen is active: the primary screen's saved cursor (DECSC), to put
    /// back on leaving. alacritty's screen swap overwrites it, which is right for `?1049` only.
    primary_saved: Option<Cursor<Cell>>,
    /// Screen rows changed by our own handlers, which bypass alacritty's damage tracking (it
    /// only sees its own cursor moves); `touched_all` when that is not worth listing.
    touched: Vec<usize>,
    touched_all: bool,
}

impl State {
    fn touch(&mut self, line: usize) {
        if self.touched.len() >= TOUCHED_MAX {
            self.touched_all = true;
        } else {
            self.touched.push(line);
        }
    }
}

/// Rows listed one by one before a feed counts as touching the whole screen.
const TOUCHED_MAX: usize = 64;

/// A terminal emulator with a compact scrollback. `Send`, not `Sync`.
pub struct Emulator {
    term: Term<Listener>,
    parser: Processor<NoSync>,
    store: Store,
    /// Rows alacritty's history may hold between drains.
    history: usize,
    state: State,
    osc: OscGuard,
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
            state: State {
                listener,
                effects: Effects::default(),
                title: None,
                region: Region::full(rows),
                primary_saved: None,
                touched: Vec::new(),
                touched_all: false,
            },
            osc: OscGuard::default(),
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
        let mut sink = Sink {
            term: &mut self.term,
            store: &mut self.store,
            history: self.history,
            state: &mut self.state,
            credit: 0,
        };
        let parser = &mut self.parser;
        // OSC strings are held back here, so the parser never buffers more than the cap.
        self.osc
            .feed(bytes, |segment| parser.advance(&mut sink, segment));
        sink.drain();
        flush_events(&self.term, &mut self.state);
        self.note_damage();
    }

    pub fn take_effects(&mut self) -> Effects {
        mem::take(&mut self.state.effects)
    }

    /// Resizes the screen. No line is lost either way: the primary screen reflows to the new
    /// width (alacritty's reflow; rows already in the scrollback keep the width they had), a
    /// shrink pushes the rows above the cursor into the scrollback, and a grow brings the
    /// newest scrollback rows back into view above the screen's content, as tmux does, so
    /// shrinking then growing back shows the same screen. The alternate screen is cut or
    /// padded, never reflowed, and takes nothing from the scrollback.
    pub fn resize(&mut self, cols: u16, rows: u16) {
        let cols = usize::from(cols.max(2));
        let rows = usize::from(rows.max(1));
        if cols == self.term.columns() && rows == self.term.screen_lines() {
            return;
        }
        // Every row may move or reflow: the next change count covers the whole screen.
        self.state.touched_all = true;
        drain_history(&mut self.term, &mut self.store);
        let saved_alt = self
            .term
            .mode()
            .contains(TermMode::ALT_SCREEN)
            .then(|| self.leave_alt());

        // The primary screen is active now, with an empty history.
        self.term.grid_mut().update_history(RESIZE_HISTORY);
        let (old_cols, old_rows) = (self.term.columns(), self.term.screen_lines());
        let mut pulled = 0;
        if rows > old_rows {
            // Height first, at the old width: with an empty history alacritty adds blank rows
            // at the bottom, which the rows pulled back from the store then push down.
            self.term.resize(Size {
                cols: old_cols,
                rows,
            });
            drain_history(&mut self.term, &mut self.store);
            pulled = self.pull_back(rows - old_rows);
        }
        self.term.resize(Size { cols, rows });
        drain_history(&mut self.term, &mut self.store);
        self.history = history_cap(rows);
        rebuild_active_grid(&mut self.term, self.history);
        // alacritty resets the scrolling region on resize.
        self.state.region = Region::full(rows);
        if let Some(saved) = self.state.primary_saved.as_mut() {
            saved.point.line += pulled;
            saved.point.line = Line(saved.point.line.0.min(rows as i32 - 1));
            saved.point.column = Column(saved.point.column.0.min(cols - 1));
        }

        match saved_alt {
            Some((alt, kitty)) => self.reenter_alt(alt, kitty),
            None => self.rebuild_inactive_alt(),
        }
        flush_events(&self.term, &mut self.state);
    }

    /// Moves up to `rows` of the newest scrollback rows back to the top of the (primary,
    /// active) screen, whose bottom `rows` rows must be blank; returns how many moved.
    fn pull_back(&mut self, rows: usize) -> usize {
        let k = rows.min(self.store.len());
        if k == 0 {
            return 0;
        }
        let grid = self.term.grid_mut();
        let (lines, cols) = (grid.screen_lines(), grid.columns());
        for i in (k..lines).rev() {
            swap_rows(grid, i, i - k);
        }
        for i in (0..k).rev() {
            let cells = self.store.pop_newest(cols);
            let row = &mut grid[Line(i as i32)];
            for (c, cell) in cells.into_iter().enumerate() {
                row[Column(c)] = cell;
            }
        }
        let last = Line(lines as i32 - 1);
        grid.cursor.point.line = (grid.cursor.point.line + k).min(last);
        grid.saved_cursor.point.line = (grid.saved_cursor.point.line + k).min(last);
        k
    }

    /// Switches to the primary screen without touching the alternate screen's content,
    /// which is returned.
    fn leave_alt(&mut self) -> (Grid<Cell>, TermMode) {
        let kitty = *self.term.mode() & TermMode::KITTY_KEYBOARD_PROTOCOL;
        let (rows, cols) = (self.term.screen_lines(), self.term.columns());
        let alt = mem::replace(self.term.grid_mut(), Grid::new(rows, cols, 0));
        self.term.swap_alt();
        (alt, kitty)
    }

    /// Undoes `leave_alt`, with `alt` resized to the current size.
    fn reenter_alt(&mut self, mut alt: Grid<Cell>, kitty: TermMode) {
        let (rows, cols) = (self.term.screen_lines(), self.term.columns());
        alt.resize::<Color>(false, rows, cols);
        let alt = exact_grid(&mut alt, 0);
        self.term.swap_alt();
        *self.term.grid_mut() = alt;
        restore_kitty_mode(&mut self.term, kitty);
    }

    /// Gives the (inactive) alternate grid exactly the rows it needs.
    fn rebuild_inactive_alt(&mut self) {
        let saved = self.term.grid().saved_cursor.clone();
        let kitty = *self.term.mode() & TermMode::KITTY_KEYBOARD_PROTOCOL;
        // Entering the alternate screen clears it and clobbers the primary's saved cursor;
        // neither matters here, and the saved cursor is put back.
        self.term.swap_alt();
        rebuild_active_grid(&mut self.term, 0);
        self.term.swap_alt();
        self.term.grid_mut().saved_cursor = saved;
        restore_kitty_mode(&mut self.term, kitty);
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
        (self.store.len() + self.pending_rows()).min(self.store.capacity())
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
        let grid = self.term.grid();
        let rows = grid.screen_lines();
        let cols = grid.columns();
        let pushed = self.rows_pushed();
        let mut out = String::with_capacity((rows + 1) * (cols + 1));
        if from < pushed {
            let pending = self.pending_rows();
            let kept = self.store.len() + pending;
            // Rows beyond the configured scrollback, then rows before `from`, are skipped.
            let over = kept.saturating_sub(self.store.capacity());
            let first_kept = pushed - (kept - over) as u64;
            let skip = over + from.saturating_sub(first_kept) as usize;
            for i in skip.min(self.store.len())..self.store.len() {
                let row = self.store.row(i);
                if styled {
                    row.render_styled(&mut out);
                } else {
                    row.render_plain(&mut out);
                }
                out.push('\n');
            }
            let skip_pending = skip.saturating_sub(self.store.len());
            for i in (1..=pending.saturating_sub(skip_pending)).rev() {
                render_row(&mut out, &grid[Line(-(i as i32))][..], styled);
                out.push('\n');
            }
        }
        let first_visible = from.saturating_sub(pushed).min(rows as u64) as usize;
        for r in first_visible..rows {
            if r > first_visible {
                out.push('\n');
            }
            render_row(&mut out, &grid[Line(r as i32)][..], styled);
        }
        out
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
        let kept = (self.store.len() + self.pending_rows()).min(self.store.capacity());
        self.rows_pushed() - kept as u64
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
        let store_first = store_end - self.store.len() as u64;
        for n in start..end {
            let row = if n < store_end {
                let mut b = rows::RowBuilder::default();
                self.store
                    .row((n - store_first) as usize)
                    .for_each_run(|text, pen| b.push_str(text, rows::style_of_pen(pen)));
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

fn render_row(out: &mut String, cells: &[Cell], styled: bool) {
    if styled {
        render::render_cells_styled(out, cells);
    } else {
        render::render_cells_plain(out, cells);
    }
}

fn swap_rows(grid: &mut Grid<Cell>, a: usize, b: usize) {
    let (a, b) = (Line(a as i32), Line(b as i32));
    // An empty row does not allocate.
    let row_a = mem::replace(&mut grid[a], Row::from_vec(Vec::new(), 0));
    let row_b = mem::replace(&mut grid[b], row_a);
    grid[a] = row_b;
}

/// Scrolls screen rows `top..bottom` up by `n` without touching the history (DL). New rows
/// get the pen's background.
fn scroll_rows_up(grid: &mut Grid<Cell>, top: usize, bottom: usize, n: usize) {
    let n = n.min(bottom.saturating_sub(top));
    if n == 0 {
        return;
    }
    for i in top..bottom - n {
        swap_rows(grid, i, i + n);
    }
    let template = grid.cursor.template.clone();
    for i in bottom - n..bottom {
        grid[Line(i as i32)].reset(&template);
    }
}

fn screen_is_blank(grid: &Grid<Cell>) -> bool {
    (0..grid.screen_lines() as i32).all(|r| grid[Line(r)][..].iter().all(GridCell::is_empty))
}

/// Moves every row of the active grid's history into the store, oldest first.
fn drain_history(term: &mut Term<Listener>, store: &mut Store) {
    let grid = term.grid_mut();
    let pending = grid.history_size();
    if pending == 0 {
        return;
    }
    let cols = grid.columns();
    for i in (1..=pending).rev() {
        store.push(&grid[Line(-(i as i32))][..], cols);
    }
    grid.clear_history();
}

/// A copy of `old`'s screen (rows moved, not cloned) in a grid that allocates exactly
/// `rows + history` rows, so alacritty never grows it by its 1,000-row step. `old` must
/// have an empty history.
fn exact_grid(old: &mut Grid<Cell>, history: usize) -> Grid<Cell> {
    debug_assert_eq!(old.history_size(), 0);
    let rows = old.screen_lines();
    let cols = old.columns();
    let mut fresh = Grid::new(rows + history, cols, history);
    if history > 0 {
        // Shrinking the screen keeps the rows as spare capacity for the history.
        fresh.resize::<Color>(false, rows, cols);
    }
    for i in 0..rows as i32 {
        mem::swap(&mut fresh[Line(i)], &mut old[Line(i)]);
    }
    fresh.cursor = old.cursor.clone();
    fresh.saved_cursor = old.saved_cursor.clone();
    fresh
}

fn rebuild_active_grid(term: &mut Term<Listener>, history: usize) {
    let fresh = exact_grid(term.grid_mut(), history);
    *term.grid_mut() = fresh;
}

/// Screen swaps re-derive the kitty keyboard mode from the mode stack; put back the mode
/// the program had (it may have changed it with `CSI = flags u`, outside the stack).
fn restore_kitty_mode(term: &mut Term<Listener>, kitty: TermMode) {
    if *term.mode() & TermMode::KITTY_KEYBOARD_PROTOCOL != kitty {
        let modes = KeyboardModes::from_bits_truncate((kitty.bits() >> 18) as u8);
        Handler::set_keyboard_mode(term, modes, KeyboardModesApplyBehavior::Replace);
    }
}

fn flush_events(term: &Term<Listener>, state: &mut State) {
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

/// Colours reported to programs that query them (OSC 4/10/11/12) and never set them:
/// the xterm palette on a dark background.
fn default_color(index: usize) -> Rgb {
    const BASE: [(u8, u8, u8); 16] = [
        (0, 0, 0),
        (205, 0, 0),
        (0, 205, 0),
        (205, 205, 0),
        (0, 0, 238),
        (205, 0, 205),
        (0, 205, 205),
        (229, 229, 229),
        (127, 127, 127),
        (255, 0, 0),
        (0, 255, 0),
        (255, 255, 0),
        (92, 92, 255),
        (255, 0, 255),
        (0, 255, 255),
        (255, 255, 255),
    ];
    let level = |v: usize| if v == 0 { 0 } else { (55 + 40 * v) as u8 };
    let (r, g, b) = match index {
        0..=15 => BASE[index],
        16..=231 => {
            let n = index - 16;
            (level(n / 36), level(n / 6 % 6), level(n % 6))
        }
        232..=255 => {
            let v = (8 + 10 * (index - 232)) as u8;
            (v, v, v)
        }
        257 => (0, 0, 0),
        _ => (229, 229, 229),
    };
    Rgb { r, g, b }
}

/// The parser's handler: alacritty's `Term`, plus the bookkeeping that keeps its history
/// drained and applies the daemon's policies. Every method forwards to `Term`.
struct Sink<'a> {
    term: &'a mut Term<Listener>,
    store: &'a mut Store,
    history: usize,
    state: &'a mut State,
    /// How many more actions that scroll at most one row each (characters, line feeds,
    /// tabs) are known to fit in the history: the per-character check is then a counter
    /// instead of a look into the grid. Zero forces a real check; anything that scrolls
    /// several rows or switches grids resets it.
    credit: usize,
}

impl Sink<'_> {
    /// Makes sure `rows` more rows fit in the history without it dropping any.
    #[inline(always)]
    fn make_room(&mut self, rows: usize) {
        self.credit = 0;
        if self.term.grid().history_size() + rows > self.history {
            self.drain();
        }
    }

    /// `make_room(1)` for the frequent one-row actions.
    #[inline(always)]
    fn make_room_for_one(&mut self) {
        if self.credit == 0 {
            self.make_room(1);
            // At least 1: make_room left room for one more row.
            self.credit = self.history - self.term.grid().history_size();
        }
        self.credit -= 1;
    }

    fn drain(&mut self) {
        drain_history(self.term, self.store);
    }

    fn set_region(&mut self, region: Region) {
        self.state.region = region;
    }

    /// Moves the cursor to screen row `line` (absolute, whatever the origin mode).
    fn set_cursor_line(&mut self, line: usize, col: Option<usize>) {
        // What was written since the last move ends on the old line; the new one gets the next.
        let old = self.term.grid().cursor.point.line.0.max(0) as usize;
        self.state.touch(old);
        self.state.touch(line);
        let cursor = &mut self.term.grid_mut().cursor;
        cursor.point.line = Line(line as i32);
        if let Some(col) = col {
            cursor.point.column = Column(col);
        }
        cursor.input_needs_wrap = false;
    }

    /// CUU target: stops at the top margin when the cursor is inside the region, else at
    /// the top of the screen (xterm, VT510).
    fn row_up(&self, n: usize) -> usize {
        let line = self.term.grid().cursor.point.line.0.max(0) as usize;
        let floor = if line >= self.state.region.top {
            self.state.region.top
        } else {
            0
        };
        line.saturating_sub(n).max(floor)
    }

    /// CUD target: stops at the bottom margin when the cursor is inside the region (or
    /// above it), else at the bottom of the screen.
    fn row_down(&self, n: usize) -> usize {
        let line = self.term.grid().cursor.point.line.0.max(0) as usize;
        let ceil = if line < self.state.region.bottom {
            self.state.region.bottom - 1
        } else {
            self.term.screen_lines() - 1
        };
        line.saturating_add(n).min(ceil)
    }

    /// Switches to the alternate screen for `?47`/`?1047`/`?1049`; alacritty only knows 1049.
    fn enter_alt(&mut self, mode: u16) {
        if self.term.mode().contains(TermMode::ALT_SCREEN) {
            return;
        }
        // Rows scrolled so far belong to the primary screen's history.
        self.drain();
        self.state.touched_all = true;
        let saved = self.term.grid().saved_cursor.clone();
        let cursor = self.term.grid().cursor.clone();
        self.tracking_modes(|term| term.swap_alt());
        // 1049 saves the cursor as DECSC does (which is what the swap did to the primary's
        // saved cursor); 47 and 1047 leave the saved cursor alone.
        self.state.primary_saved = Some(if mode == 1049 { cursor } else { saved });
    }

    /// Leaves the alternate screen. `?1049` puts the cursor back where it was on entry;
    /// `?47`/`?1047` keep it where the program left it (and its pen), as xterm does.
    fn leave_alt(&mut self, mode: u16) {
        if !self.term.mode().contains(TermMode::ALT_SCREEN) {
            return;
        }
        let alt_cursor = self.term.grid().cursor.clone();
        self.state.touched_all = true;
        self.tracking_modes(|term| term.swap_alt());
        let grid = self.term.grid_mut();
        if mode != 1049 {
            grid.cursor = alt_cursor;
        }
        if let Some(saved) = self.state.primary_saved.take() {
            grid.saved_cursor = saved;
        }
    }

    /// Runs `f` and records the mode switches it made.
    fn tracking_modes(&mut self, f: impl FnOnce(&mut Term<Listener>)) {
        // The active grid may change (alternate screen): count its room afresh.
        self.credit = 0;
        let before = Modes::of(*self.term.mode());
        f(self.term);
        let after = Modes::of(*self.term.mode());
        if before != after {
            Modes::push_changes(before, after, &mut self.state.effects.mode_changes);
        }
    }
}

macro_rules! forward {
    ($(fn $name:ident(&mut self $(, $arg:ident: $ty:ty)*);)*) => {
        $(
            #[inline]
            fn $name(&mut self $(, $arg: $ty)*) {
                Handler::$name(&mut *self.term $(, $arg)*)
            }
        )*
    };
}

impl Handler for Sink<'_> {
    #[inline]
    fn input(&mut self, c: char) {
        // A wrapping character scrolls at most one row.
        self.make_room_for_one();
        Handler::input(&mut *self.term, c)
    }

    #[inline]
    fn put_tab(&mut self, count: u16) {
        self.make_room_for_one();
        Handler::put_tab(&mut *self.term, count)
    }

    #[inline]
    fn linefeed(&mut self) {
        self.make_room_for_one();
        Handler::linefeed(&mut *self.term)
    }

    #[inline]
    fn newline(&mut self) {
        self.make_room_for_one();
        Handler::newline(&mut *self.term)
    }

    fn scroll_up(&mut self, rows: usize) {
        // A region that starts at the top feeds the scrollback, as in xterm and tmux.
        // alacritty scrolls at most the scroll region's height.
        self.make_room(rows.min(self.term.screen_lines()));
        Handler::scroll_up(&mut *self.term, rows)
    }

    fn delete_lines(&mut self, rows: usize) {
        // DL never feeds the scrollback (xterm, tmux); alacritty's does at the screen's top.
        let line = self.term.grid().cursor.point.line.0.max(0) as usize;
        let Region { top, bottom } = self.state.region;
        if (top..bottom).contains(&line) {
            scroll_rows_up(self.term.grid_mut(), line, bottom, rows.max(1));
            self.state.touched_all = true;
        }
    }

    fn delete_chars(&mut self, count: usize) {
        // alacritty clears from `columns - count`, left of the cursor when count is large.
        let line = self.term.grid().cursor.point.line.0.max(0) as usize;
        self.state.touch(line);
        let grid = self.term.grid_mut();
        let cols = grid.columns();
        let point = grid.cursor.point;
        let col = point.column.0.min(cols - 1);
        let n = count.max(1).min(cols - col);
        let bg = grid.cursor.template.bg;
        let row = &mut grid[point.line][..];
        row[col..].rotate_left(n);
        for cell in &mut row[cols - n..] {
            *cell = bg.into();
        }
    }

    fn move_up(&mut self, rows: usize) {
        // alacritty's goes through `goto`, which adds the origin-mode margin a second time
        // and ignores the margins otherwise.
        let line = self.row_up(rows);
        self.set_cursor_line(line, None)
    }

    fn move_down(&mut self, rows: usize) {
        let line = self.row_down(rows);
        self.set_cursor_line(line, None)
    }

    fn move_up_and_cr(&mut self, rows: usize) {
        let line = self.row_up(rows);
        self.set_cursor_line(line, Some(0))
    }

    fn move_down_and_cr(&mut self, rows: usize) {
        let line = self.row_down(rows);
        self.set_cursor_line(line, Some(0))
    }

    fn goto_col(&mut self, col: usize) {
        // CHA/HPA keep the row; alacritty's `goto` would add the origin margin to it.
        let last = self.term.columns() - 1;
        let line = self.term.grid().cursor.point.line.0.max(0) as usize;
        self.state.touch(line);
        let cursor = &mut self.term.grid_mut().cursor;
        cursor.point.column = Column(col.min(last));
        cursor.input_needs_wrap = false;
    }

    fn set_scrolling_region(&mut self, top: usize, bottom: Option<usize>) {
        // The same rules as alacritty's, which keeps its region private.
        let rows = self.term.screen_lines();
        let end = bottom.unwrap_or(rows);
        if top < end {
            self.set_region(Region {
                top: top.saturating_sub(1).min(rows),
                bottom: end.min(rows),
            });
        }
        Handler::set_scrolling_region(&mut *self.term, top, bottom)
    }

    fn terminal_attribute(&mut self, attr: Attr) {
        let template = &mut self.term.grid_mut().cursor.template;
        match attr {
            // alacritty drops blink; it is kept for capture (a flag bit alacritty leaves free).
            Attr::BlinkSlow | Attr::BlinkFast => template.flags.insert(render::BLINK),
            Attr::CancelBlink => template.flags.remove(render::BLINK),
            // vte reads SGR 21 as "bold off"; ECMA-48, xterm and tmux: double underline.
            Attr::CancelBold => {
                template.flags.remove(Flags::ALL_UNDERLINES);
                template.flags.insert(Flags::DOUBLE_UNDERLINE);
            }
            _ => Handler::terminal_attribute(&mut *self.term, attr),
        }
    }

    fn set_title(&mut self, title: Option<String>) {
        let title = title.map(|mut t| {
            if t.len() > MAX_TITLE_BYTES {
                let mut end = MAX_TITLE_BYTES;
                while !t.is_char_boundary(end) {
                    end -= 1;
                }
                t.truncate(end);
            }
            t
        });
        Handler::set_title(&mut *self.term, title)
    }

    fn clear_screen(&mut self, mode: ClearMode) {
        match mode {
            // Clearing the primary screen scrolls its content into the history.
            ClearMode::All if !self.term.mode().contains(TermMode::ALT_SCREEN) => {
                self.make_room(self.term.screen_lines());
                if self.term.grid().history_size() == 0 && screen_is_blank(self.term.grid()) {
                    // With an empty history alacritty scrolls one blank row of an empty
                    // screen into it; with any history it scrolls none. Be consistent.
                    Handler::clear_screen(&mut *self.term, mode);
                    self.term.grid_mut().clear_history();
                    return;
                }
            }
            ClearMode::Saved if !self.term.mode().contains(TermMode::ALT_SCREEN) => {
                self.drain();
                self.store.clear();
            }
            ClearMode::Above if self.term.grid().cursor.point.line == 1 => {
                // alacritty clears the rows above only when there are two or more.
                Handler::clear_screen(&mut *self.term, mode);
                self.term.grid_mut().reset_region(..Line(1));
                self.state.touched_all = true;
                return;
            }
            _ => {}
        }
        Handler::clear_screen(&mut *self.term, mode)
    }

    fn decaln(&mut self) {
        Handler::decaln(&mut *self.term);
        // xterm and the VT510 also reset the margins and home the cursor.
        self.set_region(Region::full(self.term.screen_lines()));
        Handler::set_scrolling_region(&mut *self.term, 1, None);
    }

    fn reset_state(&mut self) {
        // alacritty empties its history on RIS; the scrollback keeps it.
        self.drain();
        self.state.touched_all = true;
        self.tracking_modes(Handler::reset_state);
        self.state.primary_saved = None;
        self.set_region(Region::full(self.term.screen_lines()));
    }

    fn set_private_mode(&mut self, mode: PrivateMode) {
        match mode {
            // Focus reporting stays off (DESIGN: Lumen input rules).
            PrivateMode::Named(NamedPrivateMode::ReportFocusInOut) => return,
            PrivateMode::Named(NamedPrivateMode::SwapScreenAndSetRestoreCursor) => {
                return self.enter_alt(1049)
            }
            PrivateMode::Unknown(m @ (47 | 1047)) => return self.enter_alt(m),
            // DECCOLM resets the region (alacritty does, inside).
            PrivateMode::Named(NamedPrivateMode::ColumnMode) => {
                self.set_region(Region::full(self.term.screen_lines()))
            }
            _ => {}
        }
        self.tracking_modes(|term| Handler::set_private_mode(term, mode));
    }

    fn unset_private_mode(&mut self, mode: PrivateMode) {
        match mode {
            PrivateMode::Named(NamedPrivateMode::SwapScreenAndSetRestoreCursor) => {
                return self.leave_alt(1049)
            }
            PrivateMode::Unknown(m @ (47 | 1047)) => return self.leave_alt(m),
            PrivateMode::Named(NamedPrivateMode::ColumnMode) => {
                self.set_region(Region::full(self.term.screen_lines()))
            }
            _ => {}
        }
        self.tracking_modes(|term| Handler::unset_private_mode(term, mode));
        if mode == PrivateMode::Named(NamedPrivateMode::Origin) {
            // Resetting DECOM homes the cursor too (xterm, VT510); alacritty only does so
            // when setting it.
            Handler::goto(&mut *self.term, 0, 0);
        }
    }

    fn report_private_mode(&mut self, mode: PrivateMode) {
        // Focus reporting (1004) and in-band resize reports (2048) are refused by policy (no
        // terminal-origin input on a PTY): both are "permanently reset", after any reply
        // already queued.
        let refused: Option<&[u8]> = match mode {
            PrivateMode::Named(NamedPrivateMode::ReportFocusInOut) => Some(b"\x1b[?1004;4$y"),
            PrivateMode::Unknown(2048) => Some(b"\x1b[?2048;4$y"),
            _ => None,
        };
        if let Some(reply) = refused {
            flush_events(self.term, self.state);
            self.state.effects.pty_replies.extend_from_slice(reply);
            return;
        }
        Handler::report_private_mode(&mut *self.term, mode)
    }

    forward! {
        fn set_cursor_style(&mut self, style: Option<CursorStyle>);
        fn set_cursor_shape(&mut self, shape: CursorShape);
        fn goto(&mut self, line: i32, col: usize);
        fn goto_line(&mut self, line: i32);
        fn insert_blank(&mut self, count: usize);
        fn identify_terminal(&mut self, intermediate: Option<char>);
        fn device_status(&mut self, arg: usize);
        fn move_forward(&mut self, cols: usize);
        fn move_backward(&mut self, cols: usize);
        fn backspace(&mut self);
        fn carriage_return(&mut self);
        fn bell(&mut self);
        fn substitute(&mut self);
        fn set_horizontal_tabstop(&mut self);
        fn scroll_down(&mut self, rows: usize);
        fn insert_blank_lines(&mut self, rows: usize);
        fn erase_chars(&mut self, count: usize);
        fn move_backward_tabs(&mut self, count: u16);
        fn move_forward_tabs(&mut self, count: u16);
        fn save_cursor_position(&mut self);
        fn restore_cursor_position(&mut self);
        fn clear_line(&mut self, mode: LineClearMode);
        fn clear_tabs(&mut self, mode: TabulationClearMode);
        fn set_tabs(&mut self, interval: u16);
        fn reverse_index(&mut self);
        fn set_mode(&mut self, mode: ansi::Mode);
        fn unset_mode(&mut self, mode: ansi::Mode);
        fn report_mode(&mut self, mode: ansi::Mode);
        fn set_keypad_application_mode(&mut self);
        fn unset_keypad_application_mode(&mut self);
        fn set_active_charset(&mut self, index: CharsetIndex);
        fn configure_charset(&mut self, index: CharsetIndex, charset: StandardCharset);
        fn set_color(&mut self, index: usize, color: Rgb);
        fn dynamic_color_sequence(&mut self, prefix: String, index: usize, terminator: &str);
        fn reset_color(&mut self, index: usize);
        fn clipboard_store(&mut self, clipboard: u8, base64: &[u8]);
        fn clipboard_load(&mut self, clipboard: u8, terminator: &str);
        fn push_title(&mut self);
        fn pop_title(&mut self);
        fn text_area_size_pixels(&mut self);
        fn text_area_size_chars(&mut self);
        fn set_hyperlink(&mut self, link: Option<Hyperlink>);
        fn set_mouse_cursor_icon(&mut self, icon: ansi::cursor_icon::CursorIcon);
        fn report_keyboard_mode(&mut self);
        fn push_keyboard_mode(&mut self, mode: KeyboardModes);
        fn pop_keyboard_modes(&mut self, to_pop: u16);
        fn set_keyboard_mode(&mut self, mode: KeyboardModes, behavior: KeyboardModesApplyBehavior);
        fn set_modify_other_keys(&mut self, mode: ModifyOtherKeys);
        fn report_modify_other_keys(&mut self);
        fn set_scp(&mut self, char_path: ScpCharPath, update_mode: ScpUpdateMode);
    }
}

#[cfg(test)]
mod tests;
