//! A window's lines by number, wherever they are kept (disk, memory, screen): captures of a
//! range, the history's byte budgets, and search.
//!
//! Lines are numbered as `capture_from` numbers them: from the window's first line, never
//! renumbered when old lines are dropped; visible row `r` is `rows_pushed() + r`.

use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::Line;

use crate::store::history_file::Loaded;
use crate::store::HistoryPlan;
use crate::store::RowView;
use crate::{render_row, Emulator};

/// Which end a search starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchOrder {
    Newest,
    Oldest,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    pub line: u64,
    pub text: String,
}

/// Where the history stands: lines and bytes in memory and on disk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HistoryStats {
    pub first_line: u64,
    pub disk_lines: u64,
    pub disk_bytes: u64,
    pub memory_bytes: usize,
}

impl Emulator {
    /// Bounds the history by bytes too: past `memory_bytes` the oldest packed blocks go to
    /// `file` (created 0600 when first needed, removed with the emulator), counted in the
    /// shared disk budget; without one they are dropped (see `Effects::history_dropped`).
    pub fn set_history_limits(&mut self, memory_bytes: usize, file: Option<HistoryPlan>) {
        self.store.set_limits(memory_bytes, file);
    }

    pub fn history_stats(&self) -> HistoryStats {
        HistoryStats {
            first_line: self.first_row(),
            disk_lines: self.store.disk_rows(),
            disk_bytes: self.store.disk_bytes(),
            memory_bytes: self.store.heap_bytes(),
        }
    }

    /// Number of the oldest line kept in memory (not on disk).
    pub fn memory_first_row(&self) -> u64 {
        self.first_row()
            .max(self.store.pushed() - self.store.len() as u64)
    }

    /// Lines numbered `from..to` that are kept (history, then screen), joined by '\n'.
    pub fn capture_between(&self, from: u64, to: u64, styled: bool) -> String {
        let grid = self.term.grid();
        let pushed = self.rows_pushed();
        let store_end = self.store.pushed();
        let to = to.min(pushed + grid.screen_lines() as u64);
        let from = from.max(self.first_row());
        let mut out = String::new();
        for n in from..to {
            if n > from {
                out.push('\n');
            }
            if n < store_end {
                if let Some(row) = self.store.line(n) {
                    if styled {
                        row.render_styled(&mut out);
                    } else {
                        row.render_plain(&mut out);
                    }
                }
            } else if n < pushed {
                // Still in alacritty's history (only while feeding).
                let line = -((pushed - n) as i32);
                render_row(&mut out, &grid[Line(line)][..], styled);
            } else {
                render_row(&mut out, &grid[Line((n - pushed) as i32)][..], styled);
            }
        }
        out
    }

    /// capture-pane's `start`/`end` (1-based, inclusive; `end <= 0` or past the last line
    /// means the last) over the kept history and the screen, or the screen alone: only those
    /// lines are read, so a range deep in a history on disk costs its blocks, not the whole.
    pub fn capture_lines(&self, scrollback: bool, styled: bool, start: i64, end: i64) -> String {
        let first = if scrollback {
            self.first_row()
        } else {
            self.rows_pushed()
        };
        let end_line = self.rows_pushed() + self.term.screen_lines() as u64;
        let mut count = (end_line - first) as i64;
        // As in slicing the whole capture: an empty last row reads as the newline ending the
        // text, not a row of its own, and a non-empty result keeps it.
        let trailing = count > 1
            && self
                .capture_between(end_line - 1, end_line, styled)
                .is_empty();
        count -= i64::from(trailing);
        let lo = start.max(1);
        let hi = if end <= 0 || end > count { count } else { end };
        if lo > count || lo > hi {
            return String::new();
        }
        let mut out = self.capture_between(first + lo as u64 - 1, first + hi as u64, styled);
        if trailing && !out.is_empty() {
            out.push('\n');
        }
        out
    }

    /// Up to `limit` lines whose plain text `matches`, from the oldest kept line or the
    /// newest visible one (`from`: start at that line for `Oldest`, before it for `Newest`),
    /// and where to go on (None at the end). Blocks on disk are read one at a time.
    pub fn search(
        &self,
        matches: &mut dyn FnMut(&str) -> bool,
        order: SearchOrder,
        from: Option<u64>,
        limit: usize,
    ) -> (Vec<SearchHit>, Option<u64>) {
        let first = self.first_row();
        let pushed = self.rows_pushed();
        let end = pushed + self.term.screen_lines() as u64;
        let (lo, hi) = match order {
            SearchOrder::Oldest => (from.unwrap_or(0).max(first), end),
            SearchOrder::Newest => (first, from.unwrap_or(end).min(end)),
        };
        let mut s = Scan {
            hits: Vec::new(),
            limit: limit.max(1),
            matches,
            lo,
            hi,
        };
        if lo < hi {
            let newest = order == SearchOrder::Newest;
            // Oldest first: disk, memory, screen; newest first the other way round.
            let _ = if newest {
                self.scan_screen(&mut s, true)
                    && self.scan_memory(&mut s, true)
                    && self.scan_disk(&mut s, true)
            } else {
                self.scan_disk(&mut s, false)
                    && self.scan_memory(&mut s, false)
                    && self.scan_screen(&mut s, false)
            };
        }
        let next = if s.hits.len() < s.limit {
            None
        } else {
            let last = s.hits.last().map_or(lo, |h| h.line);
            match order {
                SearchOrder::Oldest => Some(last + 1).filter(|&n| n < hi),
                SearchOrder::Newest => Some(last).filter(|&n| n > lo),
            }
        };
        (s.hits, next)
    }

    fn scan_disk(&self, s: &mut Scan<'_>, newest: bool) -> bool {
        let Some(disk) = self.store.disk() else {
            return true;
        };
        let range = disk.block_range(s.lo, s.hi);
        let visit = |i: usize, s: &mut Scan<'_>| -> bool {
            let Some(block) = disk.load(i) else {
                return true;
            };
            let rows = 0..block.rows.len();
            if newest {
                rows.rev().all(|k| s.visit_loaded(&block, k))
            } else {
                rows.into_iter().all(|k| s.visit_loaded(&block, k))
            }
        };
        if newest {
            range.rev().all(|i| visit(i, s))
        } else {
            range.into_iter().all(|i| visit(i, s))
        }
    }

    fn scan_memory(&self, s: &mut Scan<'_>, newest: bool) -> bool {
        let mem_first = self.store.pushed() - self.store.len() as u64;
        let lo = s.lo.max(mem_first);
        let hi = s.hi.min(self.store.pushed());
        let visit = |n: u64, s: &mut Scan<'_>| {
            let row = self.store.row((n - mem_first) as usize);
            s.visit(n, row.plain())
        };
        if newest {
            (lo..hi).rev().all(|n| visit(n, s))
        } else {
            (lo..hi).all(|n| visit(n, s))
        }
    }

    fn scan_screen(&self, s: &mut Scan<'_>, newest: bool) -> bool {
        let pushed = self.rows_pushed();
        let lo = s.lo.max(pushed);
        let hi = s.hi.min(pushed + self.term.screen_lines() as u64);
        let grid = self.term.grid();
        let mut text = String::new();
        let mut visit = |n: u64, s: &mut Scan<'_>| {
            text.clear();
            render_row(&mut text, &grid[Line((n - pushed) as i32)][..], false);
            s.visit(n, &text)
        };
        if newest {
            (lo..hi).rev().all(|n| visit(n, s))
        } else {
            (lo..hi).all(|n| visit(n, s))
        }
    }
}

struct Scan<'a> {
    hits: Vec<SearchHit>,
    limit: usize,
    matches: &'a mut dyn FnMut(&str) -> bool,
    lo: u64,
    hi: u64,
}

impl Scan<'_> {
    /// Checks line `n`; false once the limit is reached.
    fn visit(&mut self, n: u64, text: &str) -> bool {
        if n >= self.lo && n < self.hi && (self.matches)(text) {
            self.hits.push(SearchHit {
                line: n,
                text: text.to_owned(),
            });
        }
        self.hits.len() < self.limit
    }

    fn visit_loaded(&mut self, block: &Loaded, k: usize) -> bool {
        let n = block.first + k as u64;
        if n < self.lo || n >= self.hi {
            return true;
        }
        let (bytes, width, wrapped) = block.row(k);
        let row = RowView::borrowed(bytes, width, wrapped);
        self.visit(n, row.plain())
    }
}
