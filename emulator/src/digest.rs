//! Hashes of the visible screen for `capture-pane`'s `hash`/`since` and `wait-for`'s
//! `screen-settled`. Each row is hashed from its styled rendering (text, colours, attributes and
//! links, never the cursor), so two screens hash alike exactly when a styled capture of them
//! reads alike. Rows are rehashed only when their change count (`row_generation`) moved, so
//! checking an unchanged screen costs one comparison per row.
//!
//! The hash is 64-bit FNV-1a: simple, fast on short rows, and stable across Rust releases and
//! daemon restarts (std's `DefaultHasher` promises neither). Clients treat it as opaque.

use alacritty_terminal::index::Line;

use crate::Emulator;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// 64-bit FNV-1a of `bytes`, continuing from `state` (start with [`fnv1a_start`]).
pub fn fnv1a(mut state: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        state ^= u64::from(*b);
        state = state.wrapping_mul(FNV_PRIME);
    }
    state
}

/// The initial FNV-1a state.
pub const fn fnv1a_start() -> u64 {
    FNV_OFFSET
}

/// A screen's hash and its rows' hashes, kept up to date by [`ScreenDigest::update`].
#[derive(Debug, Default, Clone)]
pub struct ScreenDigest {
    cols: u16,
    /// Per visible row: the change count it was hashed at, and its hash.
    rows: Vec<(u64, u64)>,
    hash: u64,
    /// Reused between rows to render into.
    buf: String,
}

impl ScreenDigest {
    /// The screen's hash now; rehashes only the rows that may have changed since the last call.
    pub fn update(&mut self, e: &Emulator) -> u64 {
        let rows = usize::from(e.rows());
        // A resize changes every row, but row change counts only move on the next output.
        let fresh = self.cols != e.cols() || self.rows.len() != rows;
        if fresh {
            self.cols = e.cols();
            self.rows = vec![(u64::MAX, 0); rows];
        }
        let mut changed = fresh;
        let grid = e.term.grid();
        for (r, slot) in self.rows.iter_mut().enumerate() {
            let generation = e.row_generation(r as u16);
            if !fresh && slot.0 == generation {
                continue;
            }
            self.buf.clear();
            crate::render::render_cells_styled(&mut self.buf, &grid[Line(r as i32)][..]);
            let h = fnv1a(fnv1a_start(), self.buf.as_bytes());
            changed |= h != slot.1;
            *slot = (generation, h);
        }
        if changed {
            let mut h = fnv1a(fnv1a_start(), &self.cols.to_le_bytes());
            h = fnv1a(h, &(rows as u64).to_le_bytes());
            for (_, row) in &self.rows {
                h = fnv1a(h, &row.to_le_bytes());
            }
            self.hash = h;
        }
        self.hash
    }

    /// The rows' hashes as of the last [`ScreenDigest::update`], top row first.
    pub fn row_hashes(&self) -> Vec<u64> {
        self.rows.iter().map(|(_, h)| *h).collect()
    }
}

impl Emulator {
    /// Visible row `r` (0-based) as `capture` renders it: plain without trailing spaces, or
    /// styled. Empty past the last row.
    pub fn screen_row_text(&self, r: u16, styled: bool) -> String {
        let grid = self.term.grid();
        let mut out = String::new();
        if usize::from(r) < usize::from(self.rows()) {
            crate::render_row(&mut out, &grid[Line(i32::from(r))][..], styled);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash_of(e: &Emulator) -> u64 {
        ScreenDigest::default().update(e)
    }

    #[test]
    fn fnv_matches_the_reference_values() {
        assert_eq!(fnv1a(fnv1a_start(), b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a(fnv1a_start(), b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a(fnv1a_start(), b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn text_and_style_count_the_cursor_does_not() {
        let mut e = Emulator::new(20, 4, 100);
        e.feed(b"hello\r\nworld");
        let mut d = ScreenDigest::default();
        let h = d.update(&e);
        assert_eq!(h, hash_of(&e));
        // Moving the cursor, hiding and showing it: the same screen.
        e.feed(b"\x1b[3;5H\x1b[?25l\x1b[?25h\x1b[1;1H");
        assert_eq!(d.update(&e), h);
        assert_eq!(hash_of(&e), h);
        // Same text, another colour: another screen.
        e.feed(b"\x1b[1;1H\x1b[31mhello\x1b[m");
        let red = d.update(&e);
        assert_ne!(red, h);
        assert_eq!(red, hash_of(&e), "the cache agrees with a fresh digest");
        // Back to the plain text: the first hash again.
        e.feed(b"\x1b[1;1Hhello");
        assert_eq!(d.update(&e), h);
        // A one-row change changes only that row's hash.
        let before = d.row_hashes();
        e.feed(b"\x1b[3;1Hthird");
        d.update(&e);
        let after = d.row_hashes();
        let changed: Vec<usize> = (0..4).filter(|&r| before[r] != after[r]).collect();
        assert_eq!(changed, [2]);
        assert_eq!(e.screen_row_text(2, false), "third");
        assert_eq!(e.screen_row_text(9, false), "");
    }

    #[test]
    fn a_resize_is_a_new_screen() {
        let mut e = Emulator::new(20, 4, 100);
        e.feed(b"x");
        let mut d = ScreenDigest::default();
        let h = d.update(&e);
        e.resize(30, 4);
        assert_ne!(d.update(&e), h);
        assert_eq!(d.row_hashes().len(), 4);
    }
}
