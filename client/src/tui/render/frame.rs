//! The extras on a window's frame: the title-bar buttons and the scrollbar on the right border.

use termwiz::cell::{CellAttributes, Intensity};
use termwiz::color::ColorAttribute;

use super::paint::{chrome, rgb, Canvas, Palette};
use crate::tui::layout::{Rect, WindowFrame};
use crate::tui::model::{Target, WinButton};
use crate::tui::settings::{BorderStyle, Buttons, Scrollbar, Tint};

/// Cells the buttons take on the title row: three 3-cell pills, or three dots a cell apart.
pub(super) fn buttons_width(b: Buttons) -> u16 {
    if b.dots {
        5
    } else {
        9
    }
}

/// Where each button sits on a frame's title row (x, width, button), or None when the frame
/// is too narrow to keep some title beside them.
pub(super) fn button_cells(rect: Rect, b: Buttons) -> Option<Vec<(u16, u16, WinButton)>> {
    let bw = buttons_width(b);
    // Two corners, a space each side and a few cells of title.
    if rect.w < bw + 10 {
        return None;
    }
    let x0 = if b.left {
        rect.x + 2
    } else {
        rect.right() - 2 - bw
    };
    Some(if b.dots {
        // macOS order: close, minimize, zoom.
        [WinButton::Close, WinButton::Minimize, WinButton::Zoom]
            .into_iter()
            .enumerate()
            .map(|(i, k)| (x0 + 2 * i as u16, 1, k))
            .collect()
    } else {
        [WinButton::Minimize, WinButton::Zoom, WinButton::Close]
            .into_iter()
            .enumerate()
            .map(|(i, k)| (x0 + 3 * i as u16, 3, k))
            .collect()
    })
}

/// Draws the buttons on row `y` and records them as click targets for window `id`.
#[allow(clippy::too_many_arguments)]
pub(super) fn draw_buttons(
    c: &mut Canvas,
    pal: &Palette,
    b: Buttons,
    rect: Rect,
    y: u16,
    id: &str,
    focused: bool,
    border: ColorAttribute,
    targets: &mut Vec<(Rect, Target)>,
) {
    let Some(cells) = button_cells(rect, b) else {
        return;
    };
    if b.dots {
        // Blank under the dots, so the border line does not run between them.
        c.fill(cells[0].0, y, buttons_width(b), ' ', &pal.plain());
    }
    for (x, w, k) in cells {
        let a = if b.dots {
            // Traffic lights are lit on the focused window only, as on macOS.
            let colour = match (focused, k) {
                (false, _) => pal.ansi(8),
                (true, WinButton::Close) => pal.ansi(1),
                (true, WinButton::Minimize) => pal.ansi(3),
                (true, WinButton::Zoom) => pal.ansi(2),
            };
            chrome(pal, colour)
        } else {
            let mut a = chrome(pal, pal.ansi(0));
            a.set_background(match k {
                WinButton::Close if focused => pal.ansi(1),
                _ => border,
            });
            a
        };
        let glyph = match (b.dots, k) {
            (true, _) => "●",
            (false, WinButton::Minimize) => " − ",
            (false, WinButton::Zoom) => " □ ",
            (false, WinButton::Close) => " × ",
        };
        c.text(x, y, w, glyph, &a);
        targets.push((Rect::new(x, y, w, 1), Target::Button(id.to_string(), k)));
    }
}

/// The thumb's first cell and length on a track of `track` cells. `position` is (first line
/// shown, lines in all) when known; without it (live, or before copy mode has heard how far
/// back the scrollback goes) the view is at the bottom and the thumb is one cell there.
pub(super) fn thumb_span(track: u16, visible: u16, position: Option<(usize, usize)>) -> (u16, u16) {
    if track == 0 {
        return (0, 0);
    }
    let Some((top, total)) = position.filter(|(_, t)| *t > usize::from(visible)) else {
        return match position {
            // Everything fits: the thumb is the whole track.
            Some(_) => (0, track),
            None => (track - 1, 1),
        };
    };
    let t = track as usize;
    let len = (t * usize::from(visible) / total).clamp(1, t);
    let span = total - usize::from(visible);
    let start = (t - len) * top.min(span) / span;
    (start as u16, len as u16)
}

/// Draws the scrollbar down the right border of `rect` (between the corners).
pub(super) fn draw_scrollbar(
    c: &mut Canvas,
    pal: &Palette,
    s: &Scrollbar,
    rect: Rect,
    battr: &CellAttributes,
    position: Option<(usize, usize)>,
) {
    if rect.w < 2 || rect.h < 3 {
        return;
    }
    let track = rect.h - 2;
    let visible = track;
    let (start, len) = thumb_span(track, visible, position);
    let mut a = battr.clone();
    match s.tint {
        Tint::Border => {}
        Tint::Quiet => {
            a.set_foreground(pal.ansi(8));
        }
        Tint::Muted => {
            a.set_foreground(pal.ansi(7));
            a.set_intensity(Intensity::Half);
        }
        Tint::Rgb(v) => {
            a.set_foreground(rgb(v));
        }
    }
    let x = rect.right() - 1;
    let (thumb, track_glyph) = (s.thumb.to_string(), s.track.map(|t| t.to_string()));
    for i in 0..track {
        let y = rect.y + 1 + i;
        if (start..start + len).contains(&i) {
            c.text(x, y, 1, &thumb, &a);
        } else if let Some(t) = &track_glyph {
            c.text(x, y, 1, t, &a);
        }
    }
}

/// Shared borders: where frames' lines meet, the corner a later frame drew becomes the
/// junction the lines make (a tee or a cross), keeping the colour drawn there.
pub(super) fn mend_junctions(c: &mut Canvas, frames: &[WindowFrame], style: BorderStyle) {
    let rects: Vec<Rect> = frames
        .iter()
        .map(|f| f.rect)
        .filter(|r| r.w >= 2 && r.h >= 2)
        .collect();
    for r in &rects {
        let corners = [
            (r.x, r.y),
            (r.right() - 1, r.y),
            (r.x, r.bottom() - 1),
            (r.right() - 1, r.bottom() - 1),
        ];
        for (x, y) in corners {
            let Some(g) = junction(style, lines_at(&rects, x, y)) else {
                continue;
            };
            let Some(attrs) = c.attrs_at(x, y) else {
                continue;
            };
            c.text(x, y, 1, &g.to_string(), &attrs);
        }
    }
}

/// Which ways border lines leave cell (`x`, `y`): up, down, left, right.
fn lines_at(rects: &[Rect], x: u16, y: u16) -> [bool; 4] {
    let mut out = [false; 4];
    for r in rects {
        let (x1, y1) = (r.right() - 1, r.bottom() - 1);
        if (y == r.y || y == y1) && (r.x..=x1).contains(&x) {
            out[2] |= x > r.x;
            out[3] |= x < x1;
        }
        if (x == r.x || x == x1) && (r.y..=y1).contains(&y) {
            out[0] |= y > r.y;
            out[1] |= y < y1;
        }
    }
    out
}

/// The glyph for lines leaving a cell, for junctions only (three or four ways); corners and
/// straight lines are left as drawn.
fn junction(style: BorderStyle, [u, d, l, r]: [bool; 4]) -> Option<char> {
    let set = match style {
        BorderStyle::Rounded | BorderStyle::Normal => ['├', '┤', '┬', '┴', '┼'],
        BorderStyle::Thick => ['┣', '┫', '┳', '┻', '╋'],
        BorderStyle::Double => ['╠', '╣', '╦', '╩', '╬'],
        BorderStyle::Ascii => ['+'; 5],
        BorderStyle::Block | BorderStyle::Hidden => return None,
    };
    Some(match (u, d, l, r) {
        (true, true, true, true) => set[4],
        (true, true, false, true) => set[0],
        (true, true, true, false) => set[1],
        (false, true, true, true) => set[2],
        (true, false, true, true) => set[3],
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_thumb_sits_at_the_bottom_when_live_and_follows_the_view() {
        assert_eq!(thumb_span(10, 10, None), (9, 1));
        // 100 lines, 10 shown: a one-cell thumb from the top to the bottom.
        assert_eq!(thumb_span(10, 10, Some((0, 100))), (0, 1));
        assert_eq!(thumb_span(10, 10, Some((90, 100))), (9, 1));
        assert_eq!(thumb_span(10, 10, Some((45, 100))), (4, 1));
        // 20 lines, 10 shown: half the track.
        assert_eq!(thumb_span(10, 10, Some((10, 20))), (5, 5));
        assert_eq!(thumb_span(10, 10, Some((0, 5))), (0, 10));
        assert_eq!(thumb_span(0, 0, None), (0, 0));
    }

    #[test]
    fn buttons_keep_to_their_end_and_need_room() {
        let r = Rect::new(0, 0, 30, 5);
        let pill = Buttons {
            left: false,
            dots: false,
        };
        let cells = button_cells(r, pill).unwrap();
        assert_eq!(cells.last().unwrap(), &(25, 3, WinButton::Close));
        assert_eq!(cells[0], (19, 3, WinButton::Minimize));
        let dots = Buttons {
            left: true,
            dots: true,
        };
        let cells = button_cells(r, dots).unwrap();
        assert_eq!(cells[0], (2, 1, WinButton::Close));
        assert_eq!(cells[2], (6, 1, WinButton::Zoom));
        assert!(button_cells(Rect::new(0, 0, 18, 5), pill).is_none());
    }

    #[test]
    fn junctions_where_shared_lines_meet() {
        // a on the left, b over c on the right, overlapping by their borders.
        let rects = [
            Rect::new(0, 0, 11, 10),
            Rect::new(10, 0, 10, 6),
            Rect::new(10, 5, 10, 5),
        ];
        let at = |x, y| junction(BorderStyle::Rounded, lines_at(&rects, x, y));
        assert_eq!(at(10, 0), Some('┬'));
        assert_eq!(at(10, 9), Some('┴'));
        assert_eq!(at(10, 5), Some('├'));
        assert_eq!(at(19, 5), Some('┤'));
        assert_eq!(at(0, 0), None, "a plain corner stays");
        assert_eq!(at(19, 0), None);
    }
}
