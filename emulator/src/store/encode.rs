//! Row encoding: a row's text and style runs, LEB128 integers, and the style tag format
//! (see the format in the parent module's documentation).

use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::vte::ansi::{Color, NamedColor, Rgb};

use super::varint::{get_varint, put_varint};
use super::Store;
use crate::render::{
    self, cell_char, is_default_bg, is_default_fg, push_char, same_style, Link, Pen, DEFAULT_BG,
    DEFAULT_FG, STYLE_FLAGS,
};

impl Store {
    /// Fills `runs` and `text` from cells (already trimmed); spacer cells are skipped.
    pub(super) fn encode(&mut self, cells: &[Cell]) {
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
    pub(super) fn close_run(&mut self, cell: &Cell, start: usize) -> bool {
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

pub(super) fn get_style<'a>(buf: &'a [u8], pos: &mut usize) -> (Pen, Link<'a>) {
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
