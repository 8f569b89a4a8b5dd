//! Cells: colours from the theme, clipped text, styled rows.

use config::themes::{parse_hex, Theme};
use protocol::attach::{attr, Color, Row, Style};
use termwiz::cell::{Cell, CellAttributes, Intensity, Underline};
use termwiz::color::{ColorAttribute, SrgbaTuple};
use termwiz::surface::{Change, Position, Surface};

use crate::tui::layout::Rect;
use crate::tui::text::char_width;

/// The nearest colour of the xterm 256-colour palette, for terminals without true colour.
pub fn nearest_256(r: u8, g: u8, b: u8) -> u8 {
    let level = |v: u8| -> u8 {
        if v < 48 {
            0
        } else if v < 115 {
            1
        } else {
            (v - 35) / 40
        }
    };
    let (lr, lg, lb) = (level(r), level(g), level(b));
    let steps = [0u8, 95, 135, 175, 215, 255];
    let cube = (steps[lr as usize], steps[lg as usize], steps[lb as usize]);
    let dist = |a: (u8, u8, u8)| -> i32 {
        let d = |x: u8, y: u8| (i32::from(x) - i32::from(y)).pow(2);
        d(a.0, r) + d(a.1, g) + d(a.2, b)
    };
    let avg = (u16::from(r) + u16::from(g) + u16::from(b)) / 3;
    let grey_i = if avg > 238 {
        23
    } else {
        (avg.saturating_sub(3) / 10) as u8
    };
    let grey_v = 8 + 10 * grey_i;
    if dist((grey_v, grey_v, grey_v)) < dist(cube) {
        232 + grey_i
    } else {
        16 + 36 * lr + 6 * lg + lb
    }
}

pub(super) fn rgb(c: [u8; 3]) -> ColorAttribute {
    let [r, g, b] = c;
    ColorAttribute::TrueColorWithPaletteFallback(SrgbaTuple::from((r, g, b)), nearest_256(r, g, b))
}

/// The theme's colours, parsed once per frame.
pub(super) struct Palette {
    pub(super) fg: ColorAttribute,
    pub(super) bg: ColorAttribute,
    pub(super) ansi: Option<[ColorAttribute; 16]>,
}

impl Palette {
    pub(super) fn new(theme: Option<&Theme>) -> Palette {
        let hex = |s: &str| parse_hex(s).map(rgb).unwrap_or_default();
        match theme {
            None => Palette {
                fg: ColorAttribute::Default,
                bg: ColorAttribute::Default,
                ansi: None,
            },
            Some(t) => Palette {
                fg: hex(&t.fg),
                bg: hex(&t.bg),
                ansi: Some(std::array::from_fn(|i| hex(&t.ansi[i]))),
            },
        }
    }

    pub(super) fn color(&self, c: Color, fg: bool) -> ColorAttribute {
        match c {
            Color::Default => {
                if fg {
                    self.fg
                } else {
                    self.bg
                }
            }
            Color::Indexed(i) if i < 16 => match &self.ansi {
                Some(a) => a[usize::from(i)],
                None => ColorAttribute::PaletteIndex(i),
            },
            Color::Indexed(i) => ColorAttribute::PaletteIndex(i),
            Color::Rgb(r, g, b) => rgb([r, g, b]),
        }
    }

    /// ANSI colour `i` for chrome.
    pub(super) fn ansi(&self, i: u8) -> ColorAttribute {
        self.color(Color::Indexed(i), true)
    }

    pub(super) fn attrs(&self, s: &Style) -> CellAttributes {
        let mut a = CellAttributes::default();
        a.set_foreground(self.color(s.fg, true));
        a.set_background(self.color(s.bg, false));
        if s.attrs & attr::BOLD != 0 {
            a.set_intensity(Intensity::Bold);
        } else if s.attrs & attr::DIM != 0 {
            a.set_intensity(Intensity::Half);
        }
        if s.attrs & attr::ITALIC != 0 {
            a.set_italic(true);
        }
        if s.attrs & attr::CURLY_UNDERLINE != 0 {
            a.set_underline(Underline::Curly);
        } else if s.attrs & attr::DOUBLE_UNDERLINE != 0 {
            a.set_underline(Underline::Double);
        } else if s.attrs & attr::UNDERLINE != 0 {
            a.set_underline(Underline::Single);
        }
        if s.attrs & attr::INVERSE != 0 {
            a.set_reverse(true);
        }
        if s.attrs & attr::HIDDEN != 0 {
            a.set_invisible(true);
        }
        if s.attrs & attr::STRIKE != 0 {
            a.set_strikethrough(true);
        }
        a
    }

    pub(super) fn plain(&self) -> CellAttributes {
        let mut a = CellAttributes::default();
        a.set_foreground(self.fg);
        a.set_background(self.bg);
        a
    }
}

/// The theme's plain colours, bold: chrome's emphasis.
pub(super) fn bold(pal: &Palette) -> CellAttributes {
    let mut a = pal.plain();
    a.set_intensity(Intensity::Bold);
    a
}

/// The theme's plain colours with foreground `fg`.
pub(super) fn chrome(pal: &Palette, fg: ColorAttribute) -> CellAttributes {
    let mut a = pal.plain();
    a.set_foreground(fg);
    a
}

/// A surface with clipped text output.
pub(super) struct Canvas<'a> {
    pub(super) s: &'a mut Surface,
    pub(super) w: u16,
    pub(super) h: u16,
}

impl Canvas<'_> {
    /// Writes `text` at (x, y) in at most `max` columns; returns the columns used. Control
    /// characters are shown as spaces: nothing drawn here can be an escape sequence.
    pub(super) fn text(
        &mut self,
        x: u16,
        y: u16,
        max: u16,
        text: &str,
        attrs: &CellAttributes,
    ) -> u16 {
        if y >= self.h || x >= self.w {
            return 0;
        }
        let max = usize::from(max.min(self.w - x));
        if text.is_ascii() {
            let n = text.len().min(max);
            if self.put_ascii(x, y, text[..n].bytes(), attrs) {
                return n as u16;
            }
        }
        let mut out = String::with_capacity(text.len());
        let mut used = 0usize;
        for c in text.chars() {
            let c = if c.is_control() { ' ' } else { c };
            let cw = char_width(c);
            if used + cw > max {
                if cw == 2 && used < max {
                    // Half a wide character does not fit: pad instead.
                    out.push(' ');
                    used += 1;
                }
                break;
            }
            out.push(c);
            used += cw;
        }
        if out.is_empty() {
            return 0;
        }
        self.s.add_change(Change::CursorPosition {
            x: Position::Absolute(usize::from(x)),
            y: Position::Absolute(usize::from(y)),
        });
        self.s.add_change(Change::AllAttributes(attrs.clone()));
        self.s.add_change(Change::Text(out));
        used as u16
    }

    /// Writes ASCII straight into the surface's cells, one column each (controls as spaces):
    /// the common case, without the grapheme segmentation and change log of `Change::Text`
    /// (the surface is only compared cell by cell afterwards, never replayed). False when the
    /// row is not there or too short, for the general path to handle.
    fn put_ascii(
        &mut self,
        x: u16,
        y: u16,
        bytes: impl ExactSizeIterator<Item = u8>,
        attrs: &CellAttributes,
    ) -> bool {
        let (x, n) = (usize::from(x), bytes.len());
        let mut lines = self.s.screen_cells();
        let Some(row) = lines.get_mut(usize::from(y)) else {
            return false;
        };
        if x + n > row.len() {
            return false;
        }
        // Overwriting the right half of a wide character leaves its left half alone on screen:
        // blank it, as the surface itself does.
        if x > 0 && row[x - 1].width() > 1 {
            row[x - 1] = Cell::blank_with_attrs(row[x - 1].attrs().clone());
        }
        for (cell, b) in row[x..x + n].iter_mut().zip(bytes) {
            let ch = if b.is_ascii_control() {
                ' '
            } else {
                char::from(b)
            };
            *cell = Cell::new(ch, attrs.clone());
        }
        true
    }

    /// The attributes of the cell at (`x`, `y`), if it is on the surface.
    pub(super) fn attrs_at(&mut self, x: u16, y: u16) -> Option<CellAttributes> {
        let mut lines = self.s.screen_cells();
        let cell = lines.get_mut(usize::from(y))?.get(usize::from(x))?;
        Some(cell.attrs().clone())
    }

    pub(super) fn fill(&mut self, x: u16, y: u16, w: u16, c: char, attrs: &CellAttributes) {
        if w == 0 || y >= self.h || x >= self.w {
            return;
        }
        if c.is_ascii() {
            let n = usize::from(w.min(self.w - x));
            if self.put_ascii(x, y, std::iter::repeat_n(c as u8, n), attrs) {
                return;
            }
        }
        let s: String = std::iter::repeat_n(c, usize::from(w)).collect();
        self.text(x, y, w, &s, attrs);
    }

    pub(super) fn fill_rect(&mut self, r: Rect, attrs: &CellAttributes) {
        for y in r.y..r.bottom() {
            self.fill(r.x, y, r.w, ' ', attrs);
        }
    }

    /// A rounded box with a title on its top edge, its inside cleared.
    pub(super) fn dialog(
        &mut self,
        r: Rect,
        title: &str,
        frame: &CellAttributes,
        inside: &CellAttributes,
    ) {
        if r.w < 2 || r.h < 2 {
            return;
        }
        let horiz: String = std::iter::repeat_n('─', usize::from(r.w - 2)).collect();
        self.text(r.x, r.y, r.w, &format!("╭{horiz}╮"), frame);
        for y in r.y + 1..r.bottom() - 1 {
            self.text(r.x, y, 1, "│", frame);
            self.fill(r.x + 1, y, r.w - 2, ' ', inside);
            self.text(r.right() - 1, y, 1, "│", frame);
        }
        self.text(r.x, r.bottom() - 1, r.w, &format!("╰{horiz}╯"), frame);
        if !title.is_empty() && r.w > 6 {
            let mut t = frame.clone();
            t.set_intensity(Intensity::Bold);
            self.text(r.x + 2, r.y, r.w - 4, &format!(" {title} "), &t);
        }
    }
}

/// Draws a row of styled runs in `w` columns at (x, y). Columns in `sel` are drawn reversed;
/// the rest of the width is cleared with `pad`.
pub(super) fn draw_row(
    c: &mut Canvas,
    at: Rect,
    row: &Row,
    pal: &Palette,
    sel: Option<(usize, usize)>,
    pad: &CellAttributes,
) {
    let (x, y, w) = (at.x, at.y, at.w);
    let mut col: u16 = 0;
    let mut seg = String::new();
    let mut seg_start: u16 = 0;
    let mut seg_key: Option<(Style, bool)> = None;
    let flush = |c: &mut Canvas, seg: &mut String, start: u16, key: Option<(Style, bool)>| {
        if let Some((style, selected)) = key {
            if !seg.is_empty() {
                let mut a = pal.attrs(&style);
                if selected {
                    a.set_reverse(!a.reverse());
                }
                c.text(x + start, y, w - start, seg, &a);
            }
        }
        seg.clear();
    };
    'runs: for run in &row.runs {
        for ch in run.text.chars() {
            let cw = char_width(ch) as u16;
            if col + cw > w {
                break 'runs;
            }
            let selected = sel.is_some_and(|(s, e)| usize::from(col) >= s && usize::from(col) < e);
            let key = Some((run.style, selected));
            if key != seg_key {
                flush(c, &mut seg, seg_start, seg_key);
                seg_key = key;
                seg_start = col;
            }
            seg.push(ch);
            col += cw;
        }
    }
    flush(c, &mut seg, seg_start, seg_key);
    if col < w {
        let rest_selected = sel.map(|(s, e)| (s.max(usize::from(col)), e.min(usize::from(w))));
        c.fill(x + col, y, w - col, ' ', pad);
        if let Some((s, e)) = rest_selected.filter(|(s, e)| s < e) {
            let mut a = pad.clone();
            a.set_reverse(true);
            c.fill(x + s as u16, y, (e - s) as u16, ' ', &a);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palette_approximation() {
        assert_eq!(nearest_256(0, 0, 0), 16);
        assert_eq!(nearest_256(255, 255, 255), 231);
        assert_eq!(nearest_256(255, 0, 0), 196);
        assert_eq!(nearest_256(128, 128, 128), 244);
    }

    #[test]
    fn text_is_clipped_and_controls_are_blanked() {
        let mut s = Surface::new(10, 2);
        let mut c = Canvas {
            s: &mut s,
            w: 10,
            h: 2,
        };
        let a = CellAttributes::default();
        assert_eq!(c.text(0, 0, 5, "hello world", &a), 5);
        assert_eq!(c.text(8, 1, 5, "a漢b", &a), 2);
        assert_eq!(c.text(0, 1, 3, "\x1b[2J", &a), 3);
        let text = s.screen_chars_to_string();
        assert_eq!(text, "hello     \n [2     a \n");
    }

    #[test]
    fn ascii_over_half_a_wide_character_blanks_the_other_half() {
        let mut s = Surface::new(6, 1);
        let mut c = Canvas {
            s: &mut s,
            w: 6,
            h: 1,
        };
        let a = CellAttributes::default();
        assert_eq!(c.text(0, 0, 6, "a漢b", &a), 4);
        // Column 2 is the right half of 漢: writing there leaves no half character behind.
        assert_eq!(c.text(2, 0, 6, "xy", &a), 2);
        assert_eq!(s.screen_chars_to_string(), "a xy  \n");
        let cells = s.screen_cells();
        assert!(cells[0].iter().all(|cell| cell.width() == 1));
    }

    #[test]
    fn fill_is_clipped_and_styled() {
        let mut s = Surface::new(5, 2);
        let mut c = Canvas {
            s: &mut s,
            w: 5,
            h: 2,
        };
        let mut a = CellAttributes::default();
        a.set_reverse(true);
        c.fill(3, 1, 9, '-', &a);
        c.fill(0, 2, 3, '-', &a);
        assert_eq!(s.screen_chars_to_string(), "     \n   --\n");
        let cells = s.screen_cells();
        assert!(cells[1][3].attrs().reverse() && !cells[1][2].attrs().reverse());
    }
}
