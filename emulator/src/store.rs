//! Compact scrollback: a ring of rows kept as UTF-8 text plus style runs in fixed-size byte
//! blocks, one row index entry (8 bytes) per row.
//!
//! Row encoding, all integers LEB128:
//! `cells` (columns covered before trailing blanks were trimmed), `runs_len`, `runs`, `text`.
//! `runs` is empty when the whole row has the default style; otherwise it is a sequence of
//! (`text bytes`, `style`) pairs covering `text`. A style is a tag byte followed by the parts
//! the tag announces (see `put_style`). Empty rows take no arena bytes at all.
//!
//! Sealed blocks (every block but the one rows are appended to) are compressed with zstd by
//! `compact`, which the window calls at most every few seconds while output flows, never on the
//! parsing path: a flood's blocks mostly leave the ring before they would be worth packing.
//! Reading a row of a packed block unpacks the whole block into a one-block cache, so reading
//! rows in order (capture, scrollback pages) unpacks each block once.

pub(crate) mod disk;
mod encode;
pub(crate) mod history_file;
mod pack;
mod read;
mod spill;
mod varint;
mod writer;

pub use self::spill::HistoryPlan;
pub use self::writer::HistoryWriter;

use std::cell::RefCell;
use std::collections::VecDeque;

use alacritty_terminal::term::cell::{Cell, Flags};

pub(crate) use self::read::RowView;
use self::varint::put_varint_into;
use crate::render::blank_suffix;

/// Arena block size. Small enough that the partly used first and last blocks waste little,
/// large enough that block bookkeeping is negligible.
const BLOCK: usize = 32 * 1024;
/// Row length value meaning "the row fills its own dedicated block".
const LEN_WHOLE: u16 = 0x7FFF;
const LEN_MASK: u16 = 0x7FFF;
const WRAPPED: u16 = 0x8000;
/// Most rows one block may hold: empty rows take no bytes, so without this a flood of blank
/// lines would keep one block open (and its row index in memory) forever.
const MAX_BLOCK_ROWS: usize = 4096;

/// One arena block: rows are appended to the last one while it is `Open`; `compact` packs the
/// others.
enum Block {
    Open(Vec<u8>),
    Packed { bytes: Box<[u8]>, len: usize },
}

impl Block {
    fn heap_bytes(&self) -> usize {
        match self {
            Block::Open(v) => v.capacity(),
            Block::Packed { bytes, .. } => bytes.len(),
        }
    }

    fn open_len(&self) -> Option<usize> {
        match self {
            Block::Open(v) => Some(v.len()),
            Block::Packed { .. } => None,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct RowMeta {
    /// Sequence number of the block holding the row.
    block: u32,
    off: u16,
    /// Encoded length (or `LEN_WHOLE`), plus `WRAPPED` when the row continues on the next.
    len: u16,
}

pub(crate) struct Store {
    capacity: usize,
    rows: VecDeque<RowMeta>,
    blocks: VecDeque<Block>,
    /// Sequence number of `blocks[0]`.
    first_block: u32,
    /// One emptied block kept for reuse, so a full ring does not allocate.
    spare: Option<Vec<u8>>,
    /// (sequence number of the first row pushed at this width, width).
    widths: VecDeque<(u64, u16)>,
    pushed: u64,
    runs: Vec<u8>,
    text: Vec<u8>,
    /// The last packed block read, unpacked: (sequence number, bytes).
    unpacked: RefCell<Option<(u32, Vec<u8>)>>,
    /// Heap bytes the store may hold (`history_bytes`); see `spill`.
    budget: usize,
    /// Heap bytes at the last budget check, and blocks opened since.
    heap_checked: usize,
    new_blocks: usize,
    /// Rows of the open block.
    open_rows: usize,
    /// Where rows past the budget go, when the window has a history file.
    disk: Option<disk::Disk>,
    /// The history file to create when the first block leaves memory.
    disk_plan: Option<HistoryPlan>,
    /// Rows dropped for a byte budget, not yet taken.
    dropped: u64,
}

impl Store {
    pub fn new(capacity: usize) -> Store {
        Store {
            capacity,
            rows: VecDeque::new(),
            blocks: VecDeque::new(),
            first_block: 0,
            spare: None,
            widths: VecDeque::new(),
            pushed: 0,
            runs: Vec::new(),
            text: Vec::new(),
            unpacked: RefCell::new(None),
            budget: usize::MAX,
            heap_checked: 0,
            new_blocks: 0,
            open_rows: 0,
            disk: None,
            disk_plan: None,
            dropped: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// Drops every row (ED 3). The count of rows pushed is kept.
    pub fn clear(&mut self) {
        self.rows = VecDeque::new();
        self.first_block = self.first_block.wrapping_add(self.blocks.len() as u32);
        self.blocks = VecDeque::new();
        self.spare = None;
        self.widths = VecDeque::new();
        self.unpacked = RefCell::new(None);
        if let Some(disk) = &mut self.disk {
            disk.clear();
        }
    }

    /// Heap bytes held, including the index and scratch buffers.
    pub fn heap_bytes(&self) -> usize {
        self.blocks.iter().map(Block::heap_bytes).sum::<usize>()
            + self.spare.as_ref().map_or(0, Vec::capacity)
            + self
                .unpacked
                .borrow()
                .as_ref()
                .map_or(0, |(_, v)| v.capacity())
            + self.blocks.capacity() * std::mem::size_of::<Block>()
            + self.rows.capacity() * std::mem::size_of::<RowMeta>()
            + self.widths.capacity() * std::mem::size_of::<(u64, u16)>()
            + self.runs.capacity()
            + self.text.capacity()
            + self
                .disk
                .as_ref()
                .map_or(0, |d| d.blocks() * std::mem::size_of::<disk::Spilled>())
    }

    /// Appends one row of `width` columns, dropping the oldest row when full.
    pub fn push(&mut self, cells: &[Cell], width: usize) {
        self.pushed += 1;
        if self.capacity == 0 {
            return;
        }
        let wrapped = cells
            .last()
            .is_some_and(|c| c.flags.contains(Flags::WRAPLINE));
        let end = cells.len() - blank_suffix(cells);
        if self.open_rows >= MAX_BLOCK_ROWS {
            if self.blocks.is_empty() {
                // The rows so far belong to block `first_block`: give it a body.
                self.blocks.push_back(Block::Open(Vec::new()));
            }
            self.blocks.push_back(Block::Open(Vec::new()));
            self.new_blocks += 1;
            self.open_rows = 0;
        }
        self.open_rows += 1;
        let mut meta = if end == 0 {
            RowMeta {
                block: self.current_block(),
                off: 0,
                len: 0,
            }
        } else {
            self.encode(&cells[..end]);
            let mut header = [0u8; 20];
            let mut h = put_varint_into(&mut header, 0, end as u64);
            h = put_varint_into(&mut header, h, self.runs.len() as u64);
            let total = h + self.runs.len() + self.text.len();
            let meta = self.alloc(total);
            let Some(Block::Open(block)) = self.blocks.back_mut() else {
                unreachable!("alloc leaves an open block last");
            };
            block.extend_from_slice(&header[..h]);
            block.extend_from_slice(&self.runs);
            block.extend_from_slice(&self.text);
            meta
        };
        if wrapped {
            meta.len |= WRAPPED;
        }
        if self.rows.len() == self.rows.capacity() && self.rows.len() < self.capacity {
            // Grow the index geometrically but never past the ring's size.
            let want = (self.rows.len() * 2).max(64).min(self.capacity);
            self.rows.reserve_exact(want - self.rows.len());
        }
        self.rows.push_back(meta);
        let width = width.min(u16::MAX as usize) as u16;
        if self.widths.back().is_none_or(|&(_, w)| w != width) {
            self.widths.push_back((self.pushed - 1, width));
        }
        if self.rows.len() as u64 + self.disk_rows() > self.capacity as u64 {
            self.drop_oldest_kept();
        }
    }

    fn drop_oldest(&mut self) {
        self.rows.pop_front();
        let Some(front) = self.rows.front() else {
            return;
        };
        // Release blocks that no remaining row uses.
        while !self.blocks.is_empty() && (front.block.wrapping_sub(self.first_block) as i32) > 0 {
            let block = self.blocks.pop_front().expect("not empty");
            if self
                .unpacked
                .get_mut()
                .as_ref()
                .is_some_and(|(seq, _)| *seq == self.first_block)
            {
                *self.unpacked.get_mut() = None;
            }
            self.first_block = self.first_block.wrapping_add(1);
            if let Block::Open(mut block) = block {
                if block.capacity() == BLOCK && self.spare.is_none() {
                    block.clear();
                    self.spare = Some(block);
                }
            }
        }
        let first_seq = self.pushed - self.rows.len() as u64;
        while self.widths.len() > 1 && self.widths[1].0 <= first_seq {
            self.widths.pop_front();
        }
    }

    fn current_block(&self) -> u32 {
        if self.blocks.is_empty() {
            self.first_block
        } else {
            self.first_block.wrapping_add(self.blocks.len() as u32 - 1)
        }
    }

    /// Makes room for `total` bytes at the end of the last block and says where they go.
    fn alloc(&mut self, total: usize) -> RowMeta {
        if total >= LEN_WHOLE as usize {
            self.new_blocks += 1;
            self.open_rows = 1;
            self.blocks
                .push_back(Block::Open(Vec::with_capacity(total)));
            return RowMeta {
                block: self.current_block(),
                off: 0,
                len: LEN_WHOLE,
            };
        }
        // A dedicated block is at least LEN_WHOLE long, so nothing is ever added to it.
        let fits = self
            .blocks
            .back()
            .and_then(Block::open_len)
            .is_some_and(|len| len < LEN_WHOLE as usize && len + total <= BLOCK);
        if !fits {
            let block = self
                .spare
                .take()
                .unwrap_or_else(|| Vec::with_capacity(BLOCK));
            self.blocks.push_back(Block::Open(block));
            self.new_blocks += 1;
            // The row being pushed is the new block's first.
            self.open_rows = 1;
        }
        let off = self.blocks.back().and_then(Block::open_len).unwrap_or(0);
        RowMeta {
            block: self.current_block(),
            off: off as u16,
            len: total as u16,
        }
    }

    /// Removes the newest row and returns it as exactly `width` cells (cut, or padded with
    /// blanks), with its styles, links and wrap flag: a resize brings it back into view.
    /// Blank cells when the store is empty.
    pub fn pop_newest(&mut self, width: usize) -> Vec<Cell> {
        let mut cells = Vec::with_capacity(width + 1);
        let Some(last) = self.rows.len().checked_sub(1) else {
            cells.resize(width, Cell::default());
            return cells;
        };
        let view = self.row(last);
        let wrapped = view.wrapped;
        view.decode_cells(&mut cells);
        drop(view);
        let meta = self.rows.pop_back().expect("not empty");
        self.pushed -= 1;
        // The newest row's bytes are the last ones written: give them back.
        let len = meta.len & LEN_MASK;
        if len != 0 && meta.block == self.current_block() && !self.blocks.is_empty() {
            if len == LEN_WHOLE {
                self.blocks.pop_back();
            } else if let Some(Block::Open(block)) = self.blocks.back_mut() {
                if block.len() == meta.off as usize + len as usize {
                    block.truncate(meta.off as usize);
                }
            }
        }
        while self
            .widths
            .back()
            .is_some_and(|&(first, _)| first >= self.pushed)
        {
            self.widths.pop_back();
        }
        if cells.len() > width {
            cells.truncate(width);
            // A wide character cut in half by a narrower screen becomes a blank.
            if let Some(cell) = cells.last_mut() {
                if cell.flags.contains(Flags::WIDE_CHAR) {
                    *cell = Cell::default();
                }
            }
        }
        cells.resize(width, Cell::default());
        if wrapped {
            if let Some(cell) = cells.last_mut() {
                cell.flags.insert(Flags::WRAPLINE);
            }
        }
        cells
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alacritty_terminal::term::cell::{Cell, Hyperlink};
    use alacritty_terminal::vte::ansi::{Color, NamedColor, Rgb};

    use super::varint::put_varint;
    use crate::render::{cell_char, push_char, same_style, DEFAULT_BG, DEFAULT_FG, STYLE_FLAGS};

    fn row(text: &str, width: usize) -> Vec<Cell> {
        let mut cells = vec![Cell::default(); width];
        for (cell, c) in cells.iter_mut().zip(text.chars()) {
            cell.c = c;
        }
        cells
    }

    #[test]
    fn ring_drops_oldest_and_releases_blocks() {
        let mut store = Store::new(100);
        for i in 0..10_000 {
            store.push(&row(&format!("line {i} {}", "x".repeat(100)), 120), 120);
        }
        assert_eq!(store.len(), 100);
        assert_eq!(store.pushed(), 10_000);
        let mut out = String::new();
        store.row(0).render_plain(&mut out);
        assert!(out.starts_with("line 9900 "), "{out}");
        assert!(store.blocks.len() <= 2, "{}", store.blocks.len());
    }

    #[test]
    fn packed_blocks_read_back_the_same_rows() {
        let mut store = Store::new(5_000);
        let text = |i: usize| format!("row {i} {}", ["alpha", "beta", "gamma"][i % 3].repeat(20));
        for i in 0..5_000 {
            let mut cells = row(&text(i), 120);
            cells[0].fg = Color::Indexed((i % 200) as u8);
            store.push(&cells, 120);
        }
        let render = |store: &Store| {
            (0..store.len())
                .map(|i| {
                    let mut out = String::new();
                    store.row(i).render_styled(&mut out);
                    out
                })
                .collect::<Vec<_>>()
        };
        let before = render(&store);
        let heap = store.heap_bytes();
        let saved = store.compact();
        assert!(saved > heap / 2, "saved {saved} of {heap}");
        assert!(
            store.heap_bytes() < heap / 2,
            "{} of {heap}",
            store.heap_bytes()
        );
        assert!(matches!(store.blocks.back(), Some(Block::Open(_))));
        assert_eq!(render(&store), before);
        // Two views alive at once, in different packed blocks: neither disturbs the other.
        let (a, b) = (store.row(0), store.row(2_500));
        let (mut x, mut y) = (String::new(), String::new());
        a.render_plain(&mut x);
        b.render_plain(&mut y);
        assert!(
            x.starts_with("row 0 ") && y.starts_with("row 2500 "),
            "{x} / {y}"
        );
        drop((a, b));
        // Still a ring: new rows go to an open block, old packed ones leave.
        for i in 5_000..10_000 {
            store.push(&row(&text(i), 120), 120);
        }
        let mut out = String::new();
        store.row(0).render_plain(&mut out);
        assert!(out.starts_with("row 5000 "), "{out}");
        // Rows come back out of packed blocks when the screen grows.
        store.compact();
        let mut popped = Vec::new();
        for _ in 0..300 {
            popped.push(store.pop_newest(120));
        }
        let last: String = popped[299].iter().map(|c| c.c).collect();
        assert!(
            last.starts_with(&format!("row {} ", 10_000 - 300)),
            "{last}"
        );
    }

    #[test]
    fn styles_round_trip() {
        let mut cells = row("ab cd", 10);
        cells[0].fg = Color::Named(NamedColor::Red);
        cells[1].fg = Color::Spec(Rgb { r: 1, g: 2, b: 3 });
        cells[1].flags = Flags::BOLD | Flags::UNDERCURL;
        cells[3].bg = Color::Indexed(200);
        let mut store = Store::new(10);
        store.push(&cells, 10);
        let mut out = String::new();
        store.row(0).render_styled(&mut out);
        assert_eq!(
            out,
            "\x1b[31ma\x1b[1;4:3;38;2;1;2;3mb\x1b[m \x1b[48;5;200mc\x1b[md     "
        );
        out.clear();
        store.row(0).render_plain(&mut out);
        assert_eq!(out, "ab cd");
    }

    #[test]
    fn oversized_rows_get_their_own_block() {
        let mut huge = row("ab", 4);
        for _ in 0..12_000 {
            huge[0].push_zerowidth('\u{301}');
        }
        let mut store = Store::new(10);
        store.push(&row("before", 10), 10);
        store.push(&huge, 4);
        store.push(&row("after", 10), 10);
        let mut out = String::new();
        store.row(1).render_plain(&mut out);
        assert_eq!(out.chars().count(), 12_002);
        assert!(out.starts_with("a\u{301}") && out.ends_with("\u{301}b"));
        for (i, want) in [(0, "before"), (2, "after")] {
            out.clear();
            store.row(i).render_plain(&mut out);
            assert_eq!(out, want);
        }
    }

    #[test]
    fn empty_rows_cost_no_arena() {
        let mut store = Store::new(1000);
        for _ in 0..1000 {
            store.push(&row("", 80), 80);
        }
        assert!(store.blocks.is_empty());
        let mut out = String::new();
        store.row(5).render_styled(&mut out);
        assert_eq!(out, " ".repeat(80));
    }

    /// The encoder as first written, one cell at a time, kept to check the fast paths.
    fn reference_row(cells: &[Cell]) -> Vec<u8> {
        let mut end = cells.len();
        while end > 0 && {
            let c = &cells[end - 1];
            (c.c == ' ' || c.c == '\t')
                && c.bg == DEFAULT_BG
                && c.fg == DEFAULT_FG
                && !c.flags.intersects(STYLE_FLAGS | Flags::WIDE_CHAR_SPACER)
                && c.extra.is_none()
        } {
            end -= 1;
        }
        if end == 0 {
            return Vec::new();
        }
        let cells = &cells[..end];
        let mut store = Store::new(0);
        let mut styled = false;
        let mut run_cell = &cells[0];
        let mut run_start = 0;
        for cell in cells {
            if cell.flags.contains(Flags::WIDE_CHAR_SPACER) {
                continue;
            }
            if !same_style(run_cell, cell) {
                styled |= store.close_run(run_cell, run_start);
                run_start = store.text.len();
                run_cell = cell;
            }
            push_char(&mut store.text, cell_char(cell));
            if let Some(zw) = cell.zerowidth() {
                for &c in zw {
                    push_char(&mut store.text, c);
                }
            }
        }
        styled |= store.close_run(run_cell, run_start);
        if !styled {
            store.runs.clear();
        }
        let mut out = Vec::new();
        put_varint(&mut out, end as u64);
        put_varint(&mut out, store.runs.len() as u64);
        out.extend_from_slice(&store.runs);
        out.extend_from_slice(&store.text);
        out
    }

    #[test]
    fn encoding_matches_the_cell_by_cell_reference() {
        let mut state = 7u64;
        let mut next = move |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        let chars = [' ', ' ', '\t', 'a', 'Z', '~', '漢', 'é'];
        let colors = |i: u64, default: Color| match i {
            0 => Color::Named(NamedColor::Red),
            1 => Color::Indexed(5),
            2 => Color::Spec(Rgb { r: 1, g: 2, b: 3 }),
            3 => Color::Named(NamedColor::Foreground),
            _ => default,
        };
        let flags = [
            Flags::BOLD,
            Flags::ITALIC,
            Flags::UNDERCURL,
            Flags::WIDE_CHAR_SPACER,
            Flags::WIDE_CHAR,
            Flags::LEADING_WIDE_CHAR_SPACER,
        ];
        let mut store = Store::new(1);
        for round in 0..20_000 {
            let width = 1 + next(40) as usize;
            // Long stretches of one look, as in real output, broken up now and then.
            let mut proto = Cell::default();
            let mut cells = Vec::with_capacity(width);
            for _ in 0..width {
                if next(6) == 0 {
                    proto = Cell::default();
                    proto.fg = colors(next(12), DEFAULT_FG);
                    proto.bg = colors(next(12), DEFAULT_BG);
                    if next(3) == 0 {
                        proto.flags = flags[next(flags.len() as u64) as usize];
                    }
                    match next(12) {
                        0 => proto.set_underline_color(Some(Color::Indexed(9))),
                        1 => proto.set_hyperlink(Some(Hyperlink::new(
                            Some("id"),
                            "http://x".to_string(),
                        ))),
                        _ => {}
                    }
                }
                let mut cell = proto.clone();
                cell.c = chars[next(chars.len() as u64) as usize];
                if next(40) == 0 {
                    cell.push_zerowidth('\u{301}');
                }
                cells.push(cell);
            }
            if next(4) == 0 {
                let blanks = next(10) as usize;
                let n = cells.len();
                for cell in &mut cells[n.saturating_sub(blanks)..] {
                    *cell = Cell::default();
                }
            }
            if next(3) == 0 {
                cells.last_mut().unwrap().flags.insert(Flags::WRAPLINE);
            }
            store.push(&cells, width);
            let got = store.row(0).bytes;
            assert_eq!(
                &*got,
                &reference_row(&cells)[..],
                "round {round}: {cells:?}"
            );
        }
    }
}
