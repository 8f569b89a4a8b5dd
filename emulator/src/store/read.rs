//! Reading stored rows: borrowed views of a row's bytes, and decoding them back to plain
//! text, styled text or cells.

use std::cell::Ref;
use std::ops::Deref;

use alacritty_terminal::term::cell::{Cell, Flags, Hyperlink};
use unicode_width::UnicodeWidthChar;

use super::encode::get_style;
use super::varint::get_varint;
use super::{Block, Store, LEN_MASK, LEN_WHOLE, WRAPPED};
use crate::render::{self, flags_of_attrs, Link, Pen};

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
    /// Whether the `i`-th row (oldest first) wraps into the next one.
    pub fn wrapped(&self, i: usize) -> bool {
        self.rows[i].len & WRAPPED != 0
    }

    /// The screen width the `i`-th row (oldest first) was written at.
    pub fn width(&self, i: usize) -> usize {
        let seq = self.pushed - self.rows.len() as u64 + i as u64;
        match self.widths.partition_point(|&(first, _)| first <= seq) {
            0 => 0,
            n => self.widths[n - 1].1 as usize,
        }
    }

    /// The `i`-th row, oldest first.
    pub fn row(&self, i: usize) -> RowView<'_> {
        let meta = self.rows[i];
        let width = self.width(i);
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

impl<'a> RowView<'a> {
    /// A view of a row's bytes read from elsewhere (a block loaded from disk).
    pub fn borrowed(bytes: &'a [u8], width: u16, wrapped: bool) -> Self {
        RowView {
            bytes: RowBytes::Slice(bytes),
            width: usize::from(width),
            wrapped,
        }
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
        // Bytes read back from disk are checked against their block, not trusted: a row that
        // does not hold together reads as empty rather than taking the window down.
        match (
            self.bytes.get(pos..pos.saturating_add(runs_len)),
            self.bytes.get(pos.saturating_add(runs_len)..),
        ) {
            (Some(runs), Some(text)) => (cells, runs, text),
            _ => (0, &[], &[]),
        }
    }

    fn text_str(text: &[u8]) -> &str {
        // The arena only ever receives text pushed from `char`s.
        std::str::from_utf8(text).unwrap_or("")
    }

    /// Plain text, trailing spaces trimmed, borrowed.
    pub fn plain(&self) -> &str {
        let (_, _, text) = self.parts();
        Self::text_str(text).trim_end_matches(' ')
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
