//! Resizing: reflowing the primary screen, pulling scrollback rows back into view, and
//! keeping the alternate screen aside while it happens.

use std::mem;

use alacritty_terminal::grid::{Dimensions, Grid};
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::Cell;
use alacritty_terminal::term::{Term, TermMode};
use alacritty_terminal::vte::ansi::{Color, Handler, KeyboardModes, KeyboardModesApplyBehavior};

use crate::effects::Listener;
use crate::history::{
    drain_history, exact_grid, history_cap, rebuild_active_grid, swap_rows, RESIZE_HISTORY,
};
use crate::state::{flush_events, Region};
use crate::{Emulator, Size};

impl Emulator {
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
        if cols > old_cols {
            // Wider rows may rejoin what a narrower width wrapped, freeing screen rows: hand
            // alacritty the newest scrollback rows as history, so its reflow rejoins them too
            // and brings them down into the freed rows (tmux does). Those not needed go back
            // to the store at the new width.
            self.lend_history(rows, self.rows_to_lend(rows, old_cols));
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

    /// How many of the newest scrollback rows to lend alacritty before widening a `rows`
    /// high screen that is `cols` wide: up to a screen's worth, made up to whole lines (a
    /// row left behind must not wrap into the oldest one lent), and none written wider than
    /// `cols`, which the screen would cut.
    fn rows_to_lend(&self, rows: usize, cols: usize) -> usize {
        let len = self.store.len();
        let mut k = 0;
        while k < len && self.store.width(len - 1 - k) <= cols {
            if k >= rows && !self.store.wrapped(len - 1 - k) {
                break;
            }
            k += 1;
        }
        k
    }

    /// Moves `k` of the newest scrollback rows into the (empty) history of the primary
    /// screen, which is `rows` high; the screen itself is left as it was.
    fn lend_history(&mut self, rows: usize, k: usize) {
        if k == 0 {
            return;
        }
        let cols = self.term.columns();
        // k blank rows below the screen, the store's rows pulled in at the top, then scrolled
        // up into the history: the blank rows come back at the bottom and are cut off.
        self.term.resize(Size {
            cols,
            rows: rows + k,
        });
        drain_history(&mut self.term, &mut self.store);
        let k = self.pull_back(k);
        let grid = self.term.grid_mut();
        grid.scroll_up::<Color>(&(Line(0)..Line((rows + k) as i32)), k);
        grid.cursor.point.line -= k;
        grid.saved_cursor.point.line -= k;
        self.term.resize(Size { cols, rows });
    }

    /// Switches to the primary screen without touching the alternate screen's content,
    /// which is returned.
    pub(crate) fn leave_alt(&mut self) -> (Grid<Cell>, TermMode) {
        let kitty = *self.term.mode() & TermMode::KITTY_KEYBOARD_PROTOCOL;
        let (rows, cols) = (self.term.screen_lines(), self.term.columns());
        let alt = mem::replace(self.term.grid_mut(), Grid::new(rows, cols, 0));
        self.term.swap_alt();
        (alt, kitty)
    }

    /// Undoes `leave_alt`, with `alt` resized to the current size.
    pub(crate) fn reenter_alt(&mut self, mut alt: Grid<Cell>, kitty: TermMode) {
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
}

/// Screen swaps re-derive the kitty keyboard mode from the mode stack; put back the mode
/// the program had (it may have changed it with `CSI = flags u`, outside the stack).
fn restore_kitty_mode(term: &mut Term<Listener>, kitty: TermMode) {
    if *term.mode() & TermMode::KITTY_KEYBOARD_PROTOCOL != kitty {
        let modes = KeyboardModes::from_bits_truncate((kitty.bits() >> 18) as u8);
        Handler::set_keyboard_mode(term, modes, KeyboardModesApplyBehavior::Replace);
    }
}
