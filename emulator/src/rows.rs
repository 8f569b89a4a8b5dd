//! Rows as styled runs for attached clients (`protocol::attach::Row`), from the visible grid
//! and from the compact scrollback store.

use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::vte::ansi::{Color, NamedColor};
use protocol::attach::{self, attr, Row, Run, Style};

use crate::render::{
    attrs_of, cell_char, Pen, A_BOLD, A_DASHED_UNDERLINE, A_DIM, A_DOTTED_UNDERLINE,
    A_DOUBLE_UNDERLINE, A_HIDDEN, A_INVERSE, A_ITALIC, A_STRIKE, A_UNDERCURL, A_UNDERLINE,
};

/// The protocol's colour for an alacritty colour. Named colours that are not one of the 16
/// ANSI ones (foreground, background, cursor) are the client's defaults; dim variants are
/// only a rendering detail, so they map back to their base colour.
pub(crate) fn color(c: Color) -> attach::Color {
    match c {
        Color::Named(n) => {
            let i = n as usize;
            match n {
                _ if i < 16 => attach::Color::Indexed(i as u8),
                NamedColor::DimBlack
                | NamedColor::DimRed
                | NamedColor::DimGreen
                | NamedColor::DimYellow
                | NamedColor::DimBlue
                | NamedColor::DimMagenta
                | NamedColor::DimCyan
                | NamedColor::DimWhite => {
                    attach::Color::Indexed((i - NamedColor::DimBlack as usize) as u8)
                }
                _ => attach::Color::Default,
            }
        }
        Color::Indexed(i) => attach::Color::Indexed(i),
        Color::Spec(rgb) => attach::Color::Rgb(rgb.r, rgb.g, rgb.b),
    }
}

/// Protocol attribute bits for the crate's compact attribute bits. The protocol has no
/// dotted or dashed underline; they show as a plain underline.
fn attrs(a: u16) -> u16 {
    if a == 0 {
        return 0;
    }
    let mut out = 0;
    for (bit, proto) in [
        (A_BOLD, attr::BOLD),
        (A_DIM, attr::DIM),
        (A_ITALIC, attr::ITALIC),
        (A_UNDERLINE, attr::UNDERLINE),
        (A_INVERSE, attr::INVERSE),
        (A_HIDDEN, attr::HIDDEN),
        (A_STRIKE, attr::STRIKE),
        (A_DOUBLE_UNDERLINE, attr::DOUBLE_UNDERLINE),
        (A_UNDERCURL, attr::CURLY_UNDERLINE),
        (A_DOTTED_UNDERLINE, attr::UNDERLINE),
        (A_DASHED_UNDERLINE, attr::UNDERLINE),
    ] {
        if a & bit != 0 {
            out |= proto;
        }
    }
    out
}

pub(crate) fn style_of_pen(pen: &Pen) -> Style {
    Style {
        fg: color(pen.fg),
        bg: color(pen.bg),
        attrs: attrs(pen.attrs),
    }
}

/// Style of a cell, ignoring its underline colour (the protocol has none); the hyperlink is
/// carried beside the style, in the run.
fn style_of_cell(cell: &Cell) -> Style {
    Style {
        fg: color(cell.fg),
        bg: color(cell.bg),
        attrs: attrs(attrs_of(cell.flags)),
    }
}

/// Accumulates runs, merging text of equal style.
#[derive(Default)]
pub(crate) struct RowBuilder {
    runs: Vec<Run>,
}

impl RowBuilder {
    /// The run that text of `style` and hyperlink `link` goes into: the last one if it has both.
    fn run(&mut self, style: Style, link: Option<&str>) -> &mut String {
        if self
            .runs
            .last()
            .is_none_or(|r| r.style != style || r.link.as_deref() != link)
        {
            self.runs.push(Run {
                text: String::new(),
                style,
                link: link.map(str::to_owned),
            });
        }
        &mut self.runs.last_mut().expect("just pushed").text
    }

    pub fn push_str(&mut self, text: &str, style: Style) {
        if !text.is_empty() {
            self.run(style, None).push_str(text);
        }
    }

    /// Appends grid cells; wide-char spacer cells are skipped (the client gives a wide
    /// character its two columns). A cell's OSC 8 hyperlink goes into its run's `link`.
    pub fn push_cells(&mut self, cells: &[Cell]) {
        let mut last: Option<(&Cell, Style)> = None;
        for cell in cells {
            if cell.flags.contains(Flags::WIDE_CHAR_SPACER) {
                continue;
            }
            // Neighbouring cells mostly share colours and flags: skip the conversion then.
            let style = match last {
                Some((prev, style))
                    if prev.fg == cell.fg
                        && prev.bg == cell.bg
                        && ((prev.flags ^ cell.flags) & crate::render::STYLE_FLAGS).is_empty() =>
                {
                    style
                }
                _ => style_of_cell(cell),
            };
            last = Some((cell, style));
            let link = cell.hyperlink();
            let text = self.run(style, link.as_ref().map(|h| h.uri()));
            text.push(cell_char(cell));
            if let Some(zw) = cell.zerowidth() {
                text.extend(zw.iter());
            }
        }
    }

    /// The row, without its trailing default-styled, unlinked blanks (the client clears the
    /// rest).
    pub fn finish(mut self) -> Row {
        while let Some(last) = self.runs.last_mut() {
            if last.style != Style::default() || last.link.is_some() {
                break;
            }
            let kept = last.text.trim_end_matches(' ').len();
            if kept > 0 {
                last.text.truncate(kept);
                break;
            }
            self.runs.pop();
        }
        Row { runs: self.runs }
    }
}

pub(crate) fn row_of_cells(cells: &[Cell]) -> Row {
    let mut b = RowBuilder::default();
    b.push_cells(cells);
    b.finish()
}
