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

use std::cell::{Ref, RefCell};
use std::collections::VecDeque;
use std::ops::Deref;

use alacritty_terminal::term::cell::{Cell, Flags, Hyperlink};
use alacritty_terminal::vte::ansi::{Color, NamedColor, Rgb};
use unicode_width::UnicodeWidthChar;

use crate::render::{
    self, cell_char, flags_of_attrs, is_default_bg, is_default_fg, is_plain_blank, push_char,
    same_style, Link, Pen, DEFAULT_BG, DEFAULT_FG, STYLE_FLAGS,
};

/// Arena block size. Small enough that the partly used first and last blocks waste little,
/// large enough that block bookkeeping is negligible.
const BLOCK: usize = 32 * 1024;
/// Row length value meaning "the row fills its own dedicated block".
const LEN_WHOLE: u16 = 0x7FFF;
const LEN_MASK: u16 = 0x7FFF;
const WRAPPED: u16 = 0x8000;
/// zstd level for packing: level 1 packs as tightly as 3–6 on terminal text, several times
/// faster.
const PACK_LEVEL: i32 = 1;

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
}

/// A row's encoded bytes: in an open block, in the unpacked-block cache, or unpacked for this
/// view alone (when another view still holds the cache).
pub(crate) enum RowBytes<'a> {
    Slice(&'a [u8]),
    Cached(Ref<'a, [u8]>),
    Owned(Vec<u8>),
}

impl Deref for RowBytes<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            RowBytes::Slice(s) => s,
            RowBytes::Cached(r) => r,
            RowBytes::Owned(v) => v,
        }
    }
}

/// One stored row, borrowed from the arena.
pub(crate) struct RowView<'a> {
    pub bytes: RowBytes<'a>,
    pub width: usize,
    #[allow(dead_code)] // kept for a future unwrapped capture
    pub wrapped: bool,
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
        if self.rows.len() > self.capacity {
            self.drop_oldest();
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
        }
        let off = self.blocks.back().and_then(Block::open_len).unwrap_or(0);
        RowMeta {
            block: self.current_block(),
            off: off as u16,
            len: total as u16,
        }
    }

    /// Fills `runs` and `text` from cells (already trimmed); spacer cells are skipped.
    fn encode(&mut self, cells: &[Cell]) {
        self.runs.clear();
        self.text.clear();
        let mut styled = false;
        let mut run_cell = &cells[0];
        let mut run_start = 0;
        let mut i = 0;
        loop {
            // Most cells are ASCII in the style of the run they continue: copy a whole
            // stretch of them at once, without per-cell style or encoding work.
            if run_cell.extra.is_none() {
                let rest = &cells[i..];
                let n = plain_prefix(rest, run_cell);
                self.text
                    .extend(rest[..n].iter().map(|c| cell_char(c) as u8));
                i += n;
            }
            let Some(cell) = cells.get(i) else {
                break;
            };
            i += 1;
            if cell.flags.contains(Flags::WIDE_CHAR_SPACER) {
                continue;
            }
            if !same_style(run_cell, cell) {
                styled |= self.close_run(run_cell, run_start);
                run_start = self.text.len();
                run_cell = cell;
            }
            push_char(&mut self.text, cell_char(cell));
            if cell.extra.is_some() {
                if let Some(zw) = cell.zerowidth() {
                    for &c in zw {
                        push_char(&mut self.text, c);
                    }
                }
            }
        }
        styled |= self.close_run(run_cell, run_start);
        if !styled {
            self.runs.clear();
        }
    }

    /// Writes the run that started at text byte `start` with the style of `cell`; returns
    /// whether that style is not the default one.
    fn close_run(&mut self, cell: &Cell, start: usize) -> bool {
        let bytes = self.text.len() - start;
        if bytes == 0 {
            return false;
        }
        put_varint(&mut self.runs, bytes as u64);
        let pen = Pen::of(cell);
        let link = if cell.extra.is_some() {
            cell.hyperlink()
        } else {
            None
        };
        put_style(
            &mut self.runs,
            &pen,
            link.as_ref().map(|l| (render::link_id(l.id()), l.uri())),
        );
        pen != Pen::DEFAULT || link.is_some()
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

    /// The `i`-th row, oldest first.
    pub fn row(&self, i: usize) -> RowView<'_> {
        let meta = self.rows[i];
        let seq = self.pushed - self.rows.len() as u64 + i as u64;
        let width = match self.widths.partition_point(|&(first, _)| first <= seq) {
            0 => 0,
            n => self.widths[n - 1].1 as usize,
        };
        let len = meta.len & LEN_MASK;
        let off = meta.off as usize;
        let range = |block_len: usize| {
            if len == LEN_WHOLE {
                off..block_len
            } else {
                off..off + len as usize
            }
        };
        let bytes = if len == 0 {
            RowBytes::Slice(&[])
        } else {
            match &self.blocks[meta.block.wrapping_sub(self.first_block) as usize] {
                Block::Open(block) => RowBytes::Slice(&block[range(block.len())]),
                Block::Packed { bytes, len } => self.unpack(meta.block, bytes, *len, range),
            }
        };
        RowView {
            bytes,
            width,
            wrapped: meta.len & WRAPPED != 0,
        }
    }
}

impl Store {
    /// A row's bytes from packed block `seq`, through the one-block cache.
    fn unpack<'a>(
        &'a self,
        seq: u32,
        packed: &[u8],
        len: usize,
        range: impl Fn(usize) -> std::ops::Range<usize>,
    ) -> RowBytes<'a> {
        let unpack = || {
            // Packed by `compact` from exactly `len` bytes; a failure would be a bug, and the
            // row then reads as empty rather than taking the daemon down.
            zstd::bulk::decompress(packed, len).unwrap_or_else(|e| {
                tracing::error!(error = %e, "cannot unpack a scrollback block");
                Vec::new()
            })
        };
        let Ok(mut cache) = self.unpacked.try_borrow_mut() else {
            // Another view holds the cache: this one unpacks on its own.
            let bytes = unpack();
            return RowBytes::Owned(bytes.get(range(bytes.len())).unwrap_or(&[]).to_vec());
        };
        if cache.as_ref().is_none_or(|(s, _)| *s != seq) {
            *cache = Some((seq, unpack()));
        }
        drop(cache);
        let cache = self.unpacked.borrow();
        RowBytes::Cached(Ref::map(cache, |c| {
            let bytes = c.as_ref().map_or(&[][..], |(_, v)| v.as_slice());
            bytes.get(range(bytes.len())).unwrap_or(&[])
        }))
    }

    /// Packs every sealed block not packed yet; returns the heap bytes saved. A block that
    /// does not shrink by at least an eighth stays as it is (already dense, or tiny).
    pub fn compact(&mut self) -> usize {
        let sealed = self.blocks.len().saturating_sub(1);
        let mut saved = 0;
        let mut compressor = None;
        let mut scratch = Vec::new();
        for block in self.blocks.iter_mut().take(sealed) {
            let Block::Open(raw) = block else { continue };
            if raw.is_empty() {
                continue;
            }
            let c = match &mut compressor {
                Some(c) => c,
                None => match zstd::bulk::Compressor::new(PACK_LEVEL) {
                    Ok(c) => compressor.insert(c),
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot pack scrollback");
                        return saved;
                    }
                },
            };
            // Packed into scratch space first, then copied into an allocation of exactly its
            // size: shrinking a bound-sized buffer in place would leave a free tail behind
            // every packed block.
            scratch.clear();
            scratch.reserve(zstd::zstd_safe::compress_bound(raw.len()));
            let Ok(n) = c.compress_to_buffer(raw.as_slice(), &mut scratch) else {
                continue;
            };
            if n > raw.len() - raw.len() / 8 {
                continue;
            }
            saved += raw.capacity() - n;
            *block = Block::Packed {
                len: raw.len(),
                bytes: Box::from(&scratch[..n]),
            };
        }
        saved
    }
}

impl RowView<'_> {
    fn parts(&self) -> (usize, &[u8], &[u8]) {
        if self.bytes.is_empty() {
            return (0, &[], &[]);
        }
        let mut pos = 0;
        let cells = get_varint(&self.bytes, &mut pos) as usize;
        let runs_len = get_varint(&self.bytes, &mut pos) as usize;
        let runs = &self.bytes[pos..pos + runs_len];
        let text = &self.bytes[pos + runs_len..];
        (cells, runs, text)
    }

    fn text_str(text: &[u8]) -> &str {
        // The arena only ever receives text pushed from `char`s.
        std::str::from_utf8(text).unwrap_or("")
    }

    /// Plain text, trailing spaces trimmed.
    pub fn render_plain(&self, out: &mut String) {
        let (_, _, text) = self.parts();
        out.push_str(Self::text_str(text).trim_end_matches(' '));
    }

    /// Calls `f` with each stretch of the row's text and its pen, in order. Hyperlinks are
    /// not reported, so adjacent stretches may share a pen.
    pub fn for_each_run(&self, mut f: impl FnMut(&str, &Pen)) {
        let (_, runs, text) = self.parts();
        let text = Self::text_str(text);
        if runs.is_empty() {
            if !text.is_empty() {
                f(text, &Pen::DEFAULT);
            }
            return;
        }
        let mut rpos = 0;
        let mut tpos = 0;
        while rpos < runs.len() {
            let n = get_varint(runs, &mut rpos) as usize;
            let (pen, _) = get_style(runs, &mut rpos);
            let end = (tpos + n).min(text.len());
            f(text.get(tpos..end).unwrap_or(""), &pen);
            tpos = end;
        }
    }

    /// Appends the row's cells (trailing blanks trimmed as stored): the inverse of `push`.
    pub fn decode_cells(&self, out: &mut Vec<Cell>) {
        let (_, runs, text) = self.parts();
        let text = Self::text_str(text);
        if runs.is_empty() {
            push_cells(out, text, &Pen::DEFAULT, None);
            return;
        }
        let mut rpos = 0;
        let mut tpos = 0;
        while rpos < runs.len() {
            let n = get_varint(runs, &mut rpos) as usize;
            let (pen, link) = get_style(runs, &mut rpos);
            // One link object per run, so its cells compare equal when captured again.
            let link =
                link.map(|(id, uri)| Hyperlink::new((!id.is_empty()).then_some(id), uri.into()));
            let end = (tpos + n).min(text.len());
            push_cells(out, text.get(tpos..end).unwrap_or(""), &pen, link.as_ref());
            tpos = end;
        }
    }

    /// Styled text padded with default blanks to the row's width.
    pub fn render_styled(&self, out: &mut String) {
        let (cells, runs, text) = self.parts();
        let text = Self::text_str(text);
        let mut pen = Pen::DEFAULT;
        let mut link: Link<'_> = None;
        let mut prev: Option<char> = None;
        if runs.is_empty() {
            push_with_breaks(out, text, &mut prev);
        } else {
            let mut rpos = 0;
            let mut tpos = 0;
            while rpos < runs.len() {
                let n = get_varint(runs, &mut rpos) as usize;
                let (next_pen, next_link) = get_style(runs, &mut rpos);
                render::write_sgr(out, &pen, &next_pen);
                render::write_link(out, link, next_link);
                pen = next_pen;
                link = next_link;
                let end = (tpos + n).min(text.len());
                push_with_breaks(out, text.get(tpos..end).unwrap_or(""), &mut prev);
                tpos = end;
            }
        }
        if link.is_some() {
            render::write_link(out, link, None);
        }
        render::write_sgr(out, &pen, &Pen::DEFAULT);
        for _ in cells..self.width {
            out.push(' ');
        }
    }
}

/// Appends the cells showing `text` in `pen`, as alacritty would have written them: a wide
/// character takes a spacer cell after it, a zero-width one joins the previous cell.
fn push_cells(out: &mut Vec<Cell>, text: &str, pen: &Pen, link: Option<&Hyperlink>) {
    let flags = flags_of_attrs(pen.attrs);
    let styled = |c: char, flags: Flags| {
        let mut cell = Cell {
            c,
            fg: pen.fg,
            bg: pen.bg,
            flags,
            ..Cell::default()
        };
        if pen.underline.is_some() {
            cell.set_underline_color(pen.underline);
        }
        if link.is_some() {
            cell.set_hyperlink(link.cloned());
        }
        cell
    };
    for c in text.chars() {
        if !render::starts_cell(c) {
            let base = out
                .iter_mut()
                .rev()
                .find(|cell| !cell.flags.contains(Flags::WIDE_CHAR_SPACER));
            if let Some(cell) = base {
                cell.push_zerowidth(c);
            }
            continue;
        }
        if c.width() == Some(2) {
            out.push(styled(c, flags | Flags::WIDE_CHAR));
            out.push(styled(' ', flags | Flags::WIDE_CHAR_SPACER));
        } else {
            out.push(styled(c, flags));
        }
    }
}

/// How many leading cells are ASCII, carry nothing extra (zero-width characters, underline
/// colour, hyperlink), are not wide-char spacers and look like `key`, which has no extra part.
#[inline]
fn plain_prefix(cells: &[Cell], key: &Cell) -> usize {
    let flags = key.flags & STYLE_FLAGS;
    let rest = |c: &Cell| {
        (c.c as u32) < 0x80
            && c.flags & (STYLE_FLAGS | Flags::WIDE_CHAR_SPACER) == flags
            && c.extra.is_none()
    };
    // Default colours are by far the most common: comparing with constants is cheaper.
    if is_default_fg(key.fg) && is_default_bg(key.bg) {
        cells
            .iter()
            .take_while(|c| is_default_fg(c.fg) && is_default_bg(c.bg) && rest(c))
            .count()
    } else {
        let (fg, bg) = (key.fg, key.bg);
        cells
            .iter()
            .take_while(|c| c.fg == fg && c.bg == bg && rest(c))
            .count()
    }
}

/// How many trailing cells are blanks that trimming may drop (see `is_plain_blank`).
#[inline]
fn blank_suffix(cells: &[Cell]) -> usize {
    cells.iter().rev().take_while(|c| is_plain_blank(c)).count()
}

fn push_with_breaks(out: &mut String, text: &str, prev: &mut Option<char>) {
    for c in text.chars() {
        if let Some(p) = *prev {
            if render::starts_cell(c) && render::needs_cluster_break(p, c) {
                out.push_str(render::CLUSTER_BREAK);
            }
        }
        out.push(c);
        *prev = Some(c);
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_varint_into(buf: &mut [u8], mut pos: usize, mut v: u64) -> usize {
    while v >= 0x80 {
        buf[pos] = (v as u8) | 0x80;
        pos += 1;
        v >>= 7;
    }
    buf[pos] = v as u8;
    pos + 1
}

fn get_varint(buf: &[u8], pos: &mut usize) -> u64 {
    let mut v = 0u64;
    let mut shift = 0;
    while let Some(&b) = buf.get(*pos) {
        *pos += 1;
        v |= u64::from(b & 0x7F) << shift;
        if b & 0x80 == 0 {
            break;
        }
        shift += 7;
    }
    v
}

// Style tag bits: two bits of colour kind for fg and bg, then presence bits.
const K_DEFAULT: u8 = 0;
const K_NAMED: u8 = 1;
const K_INDEXED: u8 = 2;
const K_RGB: u8 = 3;
const T_ATTRS: u8 = 1 << 4;
const T_UNDERLINE: u8 = 1 << 5;
const T_LINK: u8 = 1 << 6;

/// Every named colour, indexed by the compact code used in the store.
const NAMED: [NamedColor; 29] = [
    NamedColor::Black,
    NamedColor::Red,
    NamedColor::Green,
    NamedColor::Yellow,
    NamedColor::Blue,
    NamedColor::Magenta,
    NamedColor::Cyan,
    NamedColor::White,
    NamedColor::BrightBlack,
    NamedColor::BrightRed,
    NamedColor::BrightGreen,
    NamedColor::BrightYellow,
    NamedColor::BrightBlue,
    NamedColor::BrightMagenta,
    NamedColor::BrightCyan,
    NamedColor::BrightWhite,
    NamedColor::Foreground,
    NamedColor::Background,
    NamedColor::Cursor,
    NamedColor::DimBlack,
    NamedColor::DimRed,
    NamedColor::DimGreen,
    NamedColor::DimYellow,
    NamedColor::DimBlue,
    NamedColor::DimMagenta,
    NamedColor::DimCyan,
    NamedColor::DimWhite,
    NamedColor::BrightForeground,
    NamedColor::DimForeground,
];

fn named_to_code(n: NamedColor) -> u8 {
    let i = n as usize;
    if i < 16 {
        i as u8
    } else {
        (16 + i - 256) as u8
    }
}

fn kind_of(c: Color) -> u8 {
    match c {
        Color::Named(_) => K_NAMED,
        Color::Indexed(_) => K_INDEXED,
        Color::Spec(_) => K_RGB,
    }
}

fn color_kind(c: Color, default: Color) -> u8 {
    if c == default {
        K_DEFAULT
    } else {
        kind_of(c)
    }
}

fn put_color(out: &mut Vec<u8>, c: Color) {
    match c {
        Color::Named(n) => out.push(named_to_code(n)),
        Color::Indexed(i) => out.push(i),
        Color::Spec(rgb) => out.extend_from_slice(&[rgb.r, rgb.g, rgb.b]),
    }
}

fn get_color(buf: &[u8], pos: &mut usize, kind: u8, default: Color) -> Color {
    let byte = |pos: &mut usize| {
        let b = buf.get(*pos).copied().unwrap_or(0);
        *pos += 1;
        b
    };
    match kind {
        K_NAMED => Color::Named(
            NAMED
                .get(byte(pos) as usize)
                .copied()
                .unwrap_or(NamedColor::Foreground),
        ),
        K_INDEXED => Color::Indexed(byte(pos)),
        K_RGB => Color::Spec(Rgb {
            r: byte(pos),
            g: byte(pos),
            b: byte(pos),
        }),
        _ => default,
    }
}

fn put_style(out: &mut Vec<u8>, pen: &Pen, link: Link<'_>) {
    let fg = color_kind(pen.fg, DEFAULT_FG);
    let bg = color_kind(pen.bg, DEFAULT_BG);
    let mut tag = fg | bg << 2;
    if pen.attrs != 0 {
        tag |= T_ATTRS;
    }
    if pen.underline.is_some() {
        tag |= T_UNDERLINE;
    }
    if link.is_some() {
        tag |= T_LINK;
    }
    out.push(tag);
    if fg != K_DEFAULT {
        put_color(out, pen.fg);
    }
    if bg != K_DEFAULT {
        put_color(out, pen.bg);
    }
    if pen.attrs != 0 {
        put_varint(out, u64::from(pen.attrs));
    }
    if let Some(ul) = pen.underline {
        // Kind byte first: an underline colour has no "default" kind.
        out.push(kind_of(ul));
        put_color(out, ul);
    }
    if let Some((id, uri)) = link {
        put_varint(out, id.len() as u64);
        out.extend_from_slice(id.as_bytes());
        put_varint(out, uri.len() as u64);
        out.extend_from_slice(uri.as_bytes());
    }
}

fn get_style<'a>(buf: &'a [u8], pos: &mut usize) -> (Pen, Link<'a>) {
    let tag = buf.get(*pos).copied().unwrap_or(0);
    *pos += 1;
    let fg = get_color(buf, pos, tag & 3, DEFAULT_FG);
    let bg = get_color(buf, pos, (tag >> 2) & 3, DEFAULT_BG);
    let attrs = if tag & T_ATTRS != 0 {
        get_varint(buf, pos) as u16
    } else {
        0
    };
    let underline = if tag & T_UNDERLINE != 0 {
        let kind = buf.get(*pos).copied().unwrap_or(K_INDEXED);
        *pos += 1;
        Some(get_color(buf, pos, kind, Color::Indexed(0)))
    } else {
        None
    };
    let link = if tag & T_LINK != 0 {
        let get_str = |pos: &mut usize| {
            let n = get_varint(buf, pos) as usize;
            let s = buf
                .get(*pos..*pos + n)
                .and_then(|b| std::str::from_utf8(b).ok())
                .unwrap_or("");
            *pos += n;
            s
        };
        let id = get_str(pos);
        let uri = get_str(pos);
        Some((id, uri))
    } else {
        None
    };
    (
        Pen {
            fg,
            bg,
            attrs,
            underline,
        },
        link,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use alacritty_terminal::term::cell::{Cell, Hyperlink};

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
