//! The parser's handler (`TermSink`): forwards to alacritty's `Term`, keeps its history drained,
//! and fixes where alacritty departs from xterm.

use alacritty_terminal::grid::{Dimensions, Grid, GridCell};
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::term::{Term, TermMode};
use alacritty_terminal::vte::ansi::{
    self, Attr, CharsetIndex, ClearMode, CursorShape, CursorStyle, Handler, Hyperlink,
    KeyboardModes, KeyboardModesApplyBehavior, LineClearMode, ModifyOtherKeys, NamedPrivateMode,
    PrivateMode, Rgb, ScpCharPath, ScpUpdateMode, StandardCharset, TabulationClearMode,
};

use crate::effects::{Listener, Modes};
use crate::history::{drain_history, swap_rows};
use crate::render;
use crate::state::{flush_events, FeedState, Region, MAX_TITLE_BYTES};
use crate::store::Store;

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

/// The parser's handler: alacritty's `Term`, plus the bookkeeping that keeps its history
/// drained and applies the daemon's policies. Every method forwards to `Term`.
pub(crate) struct TermSink<'a> {
    pub(crate) term: &'a mut Term<Listener>,
    pub(crate) store: &'a mut Store,
    pub(crate) history: usize,
    pub(crate) state: &'a mut FeedState,
    /// How many more actions that scroll at most one row each (characters, line feeds,
    /// tabs) are known to fit in the history: the per-character check is then a counter
    /// instead of a look into the grid. Zero forces a real check; anything that scrolls
    /// several rows or switches grids resets it.
    pub(crate) credit: usize,
}

impl TermSink<'_> {
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

    pub(crate) fn drain(&mut self) {
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

impl Handler for TermSink<'_> {
    #[inline]
    fn input(&mut self, c: char) {
        self.state.prints = self.state.prints.wrapping_add(1);
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
            // `?1048` saves the cursor as DECSC does (xterm); alacritty ignores it, and
            // terminfo's smcup for 1047 relies on it.
            PrivateMode::Unknown(1048) => return Handler::save_cursor_position(&mut *self.term),
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
            PrivateMode::Unknown(1048) => return Handler::restore_cursor_position(&mut *self.term),
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
