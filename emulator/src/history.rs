//! alacritty's history, kept short: its cap, draining it into the store, and grids rebuilt
//! with exactly the capacity they need.

use std::mem;

use alacritty_terminal::grid::{Dimensions, Grid, Row};
use alacritty_terminal::index::Line;
use alacritty_terminal::term::cell::Cell;
use alacritty_terminal::term::Term;
use alacritty_terminal::vte::ansi::Color;

use crate::effects::Listener;
use crate::store::Store;

/// Smallest history alacritty keeps between drains. It is also never below the screen
/// height, the most rows one action can scroll at once.
const MIN_HISTORY: usize = 16;
/// History limit while a resize reflows, so the reflow itself drops nothing.
pub(crate) const RESIZE_HISTORY: usize = usize::MAX / 4;

pub(crate) fn history_cap(rows: usize) -> usize {
    rows.max(MIN_HISTORY)
}

pub(crate) fn swap_rows(grid: &mut Grid<Cell>, a: usize, b: usize) {
    let (a, b) = (Line(a as i32), Line(b as i32));
    // An empty row does not allocate.
    let row_a = mem::replace(&mut grid[a], Row::from_vec(Vec::new(), 0));
    let row_b = mem::replace(&mut grid[b], row_a);
    grid[a] = row_b;
}

/// Moves every row of the active grid's history into the store, oldest first.
pub(crate) fn drain_history(term: &mut Term<Listener>, store: &mut Store) {
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
pub(crate) fn exact_grid(old: &mut Grid<Cell>, history: usize) -> Grid<Cell> {
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

pub(crate) fn rebuild_active_grid(term: &mut Term<Listener>, history: usize) {
    let fresh = exact_grid(term.grid_mut(), history);
    *term.grid_mut() = fresh;
}
