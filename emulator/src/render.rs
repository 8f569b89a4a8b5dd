//! Turning cells into capture text: plain text, SGR "diff" sequences, OSC 8 links and
//! grapheme cluster breaks. Shared by the visible screen and the compact scrollback store.

use std::fmt::Write as _;

use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::vte::ansi::{Color, NamedColor};
use unicode_width::UnicodeWidthChar;

// Compact attribute bits, independent of alacritty's flag layout so the store format is ours.
pub(crate) const A_BOLD: u16 = 1;
pub(crate) const A_DIM: u16 = 1 << 1;
pub(crate) const A_ITALIC: u16 = 1 << 2;
pub(crate) const A_UNDERLINE: u16 = 1 << 3;
pub(crate) const A_INVERSE: u16 = 1 << 4;
pub(crate) const A_HIDDEN: u16 = 1 << 5;
pub(crate) const A_STRIKE: u16 = 1 << 6;
pub(crate) const A_DOUBLE_UNDERLINE: u16 = 1 << 7;
pub(crate) const A_UNDERCURL: u16 = 1 << 8;
pub(crate) const A_DOTTED_UNDERLINE: u16 = 1 << 9;
pub(crate) const A_DASHED_UNDERLINE: u16 = 1 << 10;
pub(crate) const A_BLINK: u16 = 1 << 11;

/// Blink (SGR 5/6), in the one bit alacritty's cell flags leave unused: alacritty parses
/// blink but drops it, and a capture must show what the program asked for.
pub(crate) const BLINK: Flags = Flags::from_bits_retain(1 << 15);

/// Cell flags that change how a cell looks (as opposed to wrap / wide-char bookkeeping).
pub(crate) const STYLE_FLAGS: Flags = Flags::INVERSE
    .union(Flags::BOLD)
    .union(Flags::ITALIC)
    .union(Flags::DIM)
    .union(Flags::HIDDEN)
    .union(Flags::STRIKEOUT)
    .union(Flags::ALL_UNDERLINES)
    .union(BLINK);

pub(crate) const DEFAULT_FG: Color = Color::Named(NamedColor::Foreground);
pub(crate) const DEFAULT_BG: Color = Color::Named(NamedColor::Background);

/// Colours and attributes of a cell, without its hyperlink.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Pen {
    pub fg: Color,
    pub bg: Color,
    pub attrs: u16,
    pub underline: Option<Color>,
}

impl Pen {
    pub const DEFAULT: Pen = Pen {
        fg: DEFAULT_FG,
        bg: DEFAULT_BG,
        attrs: 0,
        underline: None,
    };

    pub fn of(cell: &Cell) -> Pen {
        Pen {
            fg: cell.fg,
            bg: cell.bg,
            attrs: attrs_of(cell.flags),
            underline: if cell.extra.is_some() {
                cell.underline_color()
            } else {
                None
            },
        }
    }
}

pub(crate) fn attrs_of(flags: Flags) -> u16 {
    let flags = flags & STYLE_FLAGS;
    if flags.is_empty() {
        return 0;
    }
    let mut a = 0;
    for (flag, bit) in [
        (Flags::BOLD, A_BOLD),
        (Flags::DIM, A_DIM),
        (Flags::ITALIC, A_ITALIC),
        (Flags::UNDERLINE, A_UNDERLINE),
        (Flags::INVERSE, A_INVERSE),
        (Flags::HIDDEN, A_HIDDEN),
        (Flags::STRIKEOUT, A_STRIKE),
        (Flags::DOUBLE_UNDERLINE, A_DOUBLE_UNDERLINE),
        (Flags::UNDERCURL, A_UNDERCURL),
        (Flags::DOTTED_UNDERLINE, A_DOTTED_UNDERLINE),
        (Flags::DASHED_UNDERLINE, A_DASHED_UNDERLINE),
        (BLINK, A_BLINK),
    ] {
        if flags.contains(flag) {
            a |= bit;
        }
    }
    a
}

/// Cell flags for compact attribute bits (the inverse of `attrs_of`).
pub(crate) fn flags_of_attrs(a: u16) -> Flags {
    let mut flags = Flags::empty();
    if a == 0 {
        return flags;
    }
    for (flag, bit) in [
        (Flags::BOLD, A_BOLD),
        (Flags::DIM, A_DIM),
        (Flags::ITALIC, A_ITALIC),
        (Flags::UNDERLINE, A_UNDERLINE),
        (Flags::INVERSE, A_INVERSE),
        (Flags::HIDDEN, A_HIDDEN),
        (Flags::STRIKEOUT, A_STRIKE),
        (Flags::DOUBLE_UNDERLINE, A_DOUBLE_UNDERLINE),
        (Flags::UNDERCURL, A_UNDERCURL),
        (Flags::DOTTED_UNDERLINE, A_DOTTED_UNDERLINE),
        (Flags::DASHED_UNDERLINE, A_DASHED_UNDERLINE),
        (BLINK, A_BLINK),
    ] {
        if a & bit != 0 {
            flags.insert(flag);
        }
    }
    flags
}

/// A hyperlink as (id, uri); the id is empty when the program gave none.
pub(crate) type Link<'a> = Option<(&'a str, &'a str)>;

/// alacritty invents ids ending in this suffix for links without one; they are not the
/// program's and would make captures differ from run to run.
const GENERATED_LINK_ID: &str = "_alacritty";

pub(crate) fn link_id(id: &str) -> &str {
    if id.ends_with(GENERATED_LINK_ID) {
        ""
    } else {
        id
    }
}

/// Whether two cells look the same. Compares the cheap fields first; the rarely present
/// `extra` part (underline colour, hyperlink) is only examined when one of them has it.
#[inline]
pub(crate) fn same_style(a: &Cell, b: &Cell) -> bool {
    a.fg == b.fg
        && a.bg == b.bg
        && ((a.flags ^ b.flags) & STYLE_FLAGS).is_empty()
        && match (&a.extra, &b.extra) {
            (None, None) => true,
            (Some(x), Some(y)) if std::sync::Arc::ptr_eq(x, y) => true,
            _ => a.underline_color() == b.underline_color() && a.hyperlink() == b.hyperlink(),
        }
}

/// A cell that trimming may drop: a blank with no visible style.
#[inline(always)]
pub(crate) fn is_plain_blank(cell: &Cell) -> bool {
    (cell.c == ' ' || cell.c == '\t')
        && is_default_fg(cell.fg)
        && is_default_bg(cell.bg)
        && !cell.flags.intersects(STYLE_FLAGS | Flags::WIDE_CHAR_SPACER)
        && cell.extra.is_none()
}

// Matching against a constant compiles to two compares; `==` on `Color` dispatches on both
// operands' kinds.
#[inline(always)]
pub(crate) fn is_default_fg(c: Color) -> bool {
    matches!(c, Color::Named(NamedColor::Foreground))
}

#[inline(always)]
pub(crate) fn is_default_bg(c: Color) -> bool {
    matches!(c, Color::Named(NamedColor::Background))
}

/// The character a cell shows; a tab stop marker is a blank like the cells it skipped.
#[inline]
pub(crate) fn cell_char(cell: &Cell) -> char {
    if cell.c == '\t' {
        ' '
    } else {
        cell.c
    }
}

#[inline]
pub(crate) fn push_char(out: &mut Vec<u8>, c: char) {
    if (c as u32) < 0x80 {
        out.push(c as u8);
    } else {
        let mut buf = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }
}

fn is_regional_indicator(c: char) -> bool {
    ('\u{1F1E6}'..='\u{1F1FF}').contains(&c)
}

/// Whether an outer terminal would join `next` (first char of a cell) onto the cell ending
/// with `prev` into one grapheme, although the grid keeps them in separate cells.
#[inline]
pub(crate) fn needs_cluster_break(prev: char, next: char) -> bool {
    if (prev as u32) < 0x200D && (next as u32) < 0x1F1E6 {
        return false;
    }
    (is_regional_indicator(prev) && is_regional_indicator(next))
        || prev == '\u{200D}'
        || ('\u{1F3FB}'..='\u{1F3FF}').contains(&next)
}

/// Moves back and forward one column: no visible effect, but it splits a grapheme cluster.
pub(crate) const CLUSTER_BREAK: &str = "\x08\x1b[C";

/// Whether `c` starts a new cell (alacritty attaches zero-width characters to the previous
/// cell, with the same width table).
#[inline]
pub(crate) fn starts_cell(c: char) -> bool {
    (c as u32) < 0x300 || c.width().unwrap_or(0) > 0
}

fn named_code(n: NamedColor, base: u16, bright_base: u16) -> Option<u16> {
    let i = n as usize;
    match i {
        0..=7 => Some(base + i as u16),
        8..=15 => Some(bright_base + (i - 8) as u16),
        // Dim variants only arise in rendering; map them back to their normal colour.
        259..=266 => Some(base + (i - 259) as u16),
        _ => None,
    }
}

fn push_color(params: &mut String, color: Color, which: u8) {
    let (base, bright, ext, default) = match which {
        b'f' => (30, 90, 38, 39),
        b'b' => (40, 100, 48, 49),
        _ => (0, 0, 58, 59),
    };
    sep(params);
    match color {
        Color::Named(n) => match named_code(n, base, bright) {
            Some(code) if which != b'u' => {
                let _ = write!(params, "{code}");
            }
            Some(_) => {
                let idx = named_code(n, 0, 8).unwrap_or(0);
                let _ = write!(params, "{ext};5;{idx}");
            }
            None => {
                let _ = write!(params, "{default}");
            }
        },
        Color::Indexed(i) => {
            let _ = write!(params, "{ext};5;{i}");
        }
        Color::Spec(rgb) => {
            let _ = write!(params, "{ext};2;{};{};{}", rgb.r, rgb.g, rgb.b);
        }
    }
}

fn sep(params: &mut String) {
    if !params.is_empty() {
        params.push(';');
    }
}

const ATTR_CODES: [(u16, &str); 12] = [
    (A_BOLD, "1"),
    (A_DIM, "2"),
    (A_ITALIC, "3"),
    (A_UNDERLINE, "4"),
    (A_DOUBLE_UNDERLINE, "4:2"),
    (A_UNDERCURL, "4:3"),
    (A_DOTTED_UNDERLINE, "4:4"),
    (A_DASHED_UNDERLINE, "4:5"),
    (A_BLINK, "5"),
    (A_INVERSE, "7"),
    (A_HIDDEN, "8"),
    (A_STRIKE, "9"),
];

/// Appends the SGR sequence that changes the pen `from` into `to` (nothing when equal).
/// Turning an attribute off restarts from a full reset, which every terminal understands.
pub(crate) fn write_sgr(out: &mut String, from: &Pen, to: &Pen) {
    if from == to {
        return;
    }
    if *to == Pen::DEFAULT {
        out.push_str("\x1b[m");
        return;
    }
    let reset = from.attrs & !to.attrs != 0 || (from.underline.is_some() && to.underline.is_none());
    let base = if reset { Pen::DEFAULT } else { *from };
    let mut params = String::new();
    if reset {
        params.push('0');
    }
    let added = to.attrs & !base.attrs;
    if added != 0 {
        for (bit, code) in ATTR_CODES {
            if added & bit != 0 {
                sep(&mut params);
                params.push_str(code);
            }
        }
    }
    if to.fg != base.fg {
        push_color(&mut params, to.fg, b'f');
    }
    if to.bg != base.bg {
        push_color(&mut params, to.bg, b'b');
    }
    if to.underline != base.underline {
        if let Some(color) = to.underline {
            push_color(&mut params, color, b'u');
        }
    }
    out.push_str("\x1b[");
    out.push_str(&params);
    out.push('m');
}

/// Appends the OSC 8 sequence that changes the active hyperlink (nothing when equal).
pub(crate) fn write_link(out: &mut String, from: Link<'_>, to: Link<'_>) {
    if from == to {
        return;
    }
    match to {
        None => out.push_str("\x1b]8;;\x1b\\"),
        Some((id, uri)) => {
            out.push_str("\x1b]8;");
            if !id.is_empty() {
                out.push_str("id=");
                out.push_str(id);
            }
            out.push(';');
            out.push_str(uri);
            out.push_str("\x1b\\");
        }
    }
}

fn push_cell_text(out: &mut String, cell: &Cell) -> char {
    let mut last = cell_char(cell);
    out.push(last);
    if let Some(zw) = cell.zerowidth() {
        for &c in zw {
            out.push(c);
            last = c;
        }
    }
    last
}

/// Plain text of a grid row: spacer cells skipped, trailing spaces trimmed.
pub(crate) fn render_cells_plain(out: &mut String, cells: &[Cell]) {
    let start = out.len();
    for cell in cells {
        if !cell.flags.contains(Flags::WIDE_CHAR_SPACER) {
            push_cell_text(out, cell);
        }
    }
    let kept = out[start..].trim_end_matches(' ').len();
    out.truncate(start + kept);
}

/// Styled text of a grid row, full width, ending with the pen reset if it was left set.
pub(crate) fn render_cells_styled(out: &mut String, cells: &[Cell]) {
    let mut pen = Pen::DEFAULT;
    let mut link: Option<alacritty_terminal::term::cell::Hyperlink> = None;
    let mut prev: Option<char> = None;
    for cell in cells {
        if cell.flags.contains(Flags::WIDE_CHAR_SPACER) {
            continue;
        }
        let next = Pen::of(cell);
        write_sgr(out, &pen, &next);
        pen = next;
        let cell_link = if cell.extra.is_some() {
            cell.hyperlink()
        } else {
            None
        };
        if cell_link != link {
            write_link(
                out,
                link.as_ref().map(|l| (link_id(l.id()), l.uri())),
                cell_link.as_ref().map(|l| (link_id(l.id()), l.uri())),
            );
            link = cell_link;
        }
        let first = cell_char(cell);
        if prev.is_some_and(|p| needs_cluster_break(p, first)) {
            out.push_str(CLUSTER_BREAK);
        }
        prev = Some(push_cell_text(out, cell));
    }
    if link.is_some() {
        write_link(out, Some(("", "")), None);
    }
    write_sgr(out, &pen, &Pen::DEFAULT);
}

/// How many trailing cells are blanks that trimming may drop (see `is_plain_blank`).
#[inline]
pub(crate) fn blank_suffix(cells: &[Cell]) -> usize {
    cells.iter().rev().take_while(|c| is_plain_blank(c)).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alacritty_terminal::vte::ansi::Rgb;

    #[test]
    fn sgr_diff_adds_and_resets() {
        let mut out = String::new();
        let red = Pen {
            fg: Color::Named(NamedColor::Red),
            ..Pen::DEFAULT
        };
        write_sgr(&mut out, &Pen::DEFAULT, &red);
        assert_eq!(out, "\x1b[31m");
        out.clear();
        let bold_red = Pen {
            attrs: A_BOLD,
            ..red
        };
        write_sgr(&mut out, &red, &bold_red);
        assert_eq!(out, "\x1b[1m");
        out.clear();
        let rgb_bg = Pen {
            bg: Color::Spec(Rgb { r: 1, g: 2, b: 3 }),
            ..red
        };
        write_sgr(&mut out, &bold_red, &rgb_bg);
        assert_eq!(out, "\x1b[0;31;48;2;1;2;3m");
        out.clear();
        write_sgr(&mut out, &rgb_bg, &Pen::DEFAULT);
        assert_eq!(out, "\x1b[m");
    }

    #[test]
    fn cluster_breaks() {
        assert!(needs_cluster_break('\u{1F1FA}', '\u{1F1F8}'));
        assert!(needs_cluster_break('\u{200D}', '\u{1F469}'));
        assert!(!needs_cluster_break('a', 'b'));
        assert!(!starts_cell('\u{301}'));
        assert!(starts_cell('字'));
    }
}
