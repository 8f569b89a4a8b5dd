//! The session rail drawn, as [`plan_rail`] planned it: a full rail of rows, or on a narrow
//! terminal the collapsed strip of session initials.

use termwiz::cell::Intensity;

use super::paint::{bold, chrome, rgb, Canvas, Palette};
use crate::tui::layout::Rect;
use crate::tui::model::{Hits, Target};
use crate::tui::rail::{marquee, plan_rail, scrolling_text, session_colour, RailRow, STRIP_W};
use crate::tui::view::View;

/// The rule between the rail and the windows.
const DIVIDER: &str = "│";

pub(super) fn draw_rail(v: &View, c: &mut Canvas, pal: &Palette, hits: &mut Hits) {
    let Some(r) = v.rail_rect else {
        return;
    };
    c.fill_rect(r, &pal.plain());
    // The divider on the windows' side; the rows use the other columns.
    let left_edge = r.x == v.area.x;
    let div_x = if left_edge { r.right() - 1 } else { r.x };
    let rule = chrome(pal, pal.ansi(8));
    for y in r.y..r.bottom() {
        c.text(div_x, y, 1, DIVIDER, &rule);
    }
    let body = Rect::new(
        if left_edge { r.x } else { r.x + 1 },
        r.y,
        r.w.saturating_sub(1),
        r.h,
    );
    if r.w <= STRIP_W {
        draw_strip(v, c, pal, body, left_edge);
        return;
    }
    let hovered = v.rail_hover.map(|(_, y)| y);
    for (i, row) in plan_rail(v, body.h).iter().enumerate() {
        let y = body.y + i as u16;
        // The hovered row's overflowing title scrolls round, when the marquee is on.
        let shown = match scrolling_text(row, body.w) {
            Some((text, room)) if v.settings.rail.marquee && hovered == Some(y) => {
                Some(marquee(text, room, v.marquee_step))
            }
            _ => None,
        };
        let row = match shown {
            Some(t) => retitled(row, t),
            None => row.clone(),
        };
        draw_row(c, pal, Rect::new(body.x, y, body.w, 1), &row, hits);
    }
}

/// `row` with its scrolling text replaced.
fn retitled(row: &RailRow, text: String) -> RailRow {
    let mut row = row.clone();
    match &mut row {
        RailRow::Session { name, .. } => *name = text,
        RailRow::Window { title, .. } | RailRow::Agent { title, .. } => *title = text,
        RailRow::Heading(_) => {}
    }
    row
}

/// The collapsed strip: each session's initial in its colour, the current one reversed; with
/// `tooltips`, the hovered one's name beside the strip.
fn draw_strip(v: &View, c: &mut Canvas, pal: &Palette, body: Rect, left_edge: bool) {
    let current = &v.session.name;
    let names: Vec<(&str, &str)> = if v.sessions.is_empty() {
        vec![(current.as_str(), v.session.accent.as_str())]
    } else {
        v.sessions
            .iter()
            .map(|s| (s.name.as_str(), s.accent.as_str()))
            .collect()
    };
    for (i, (name, accent)) in names.iter().take(usize::from(body.h)).enumerate() {
        let mut a = if v.settings.rail.session_colors {
            chrome(pal, rgb(session_colour(name, accent)))
        } else {
            pal.plain()
        };
        if name == current {
            a.set_reverse(true);
            a.set_intensity(Intensity::Bold);
        }
        let initial: String = name.chars().next().into_iter().collect();
        let y = body.y + i as u16;
        c.text(body.x, y, body.w, &format!("{initial} "), &a);
        if v.settings.rail.tooltips && v.rail_hover.is_some_and(|(_, hy)| hy == y) {
            // The label covers window cells for as long as the pointer rests here; it is no
            // trust UI, and the windows' area cannot draw on the strip it points from.
            let label = format!(" {name} ");
            let lw = (label.chars().count() as u16).min(v.area.w.saturating_sub(body.w + 1));
            let x = if left_edge {
                body.right() + 1
            } else {
                body.x.saturating_sub(1 + lw)
            };
            let mut la = bold(pal);
            la.set_reverse(true);
            c.text(x, y, lw, &label, &la);
        }
    }
}

fn draw_row(c: &mut Canvas, pal: &Palette, r: Rect, row: &RailRow, hits: &mut Hits) {
    let (x, y, w) = (r.x, r.y, r.w);
    match row {
        RailRow::Heading(t) => {
            let mut a = pal.plain();
            a.set_intensity(Intensity::Half);
            c.text(x, y, w, &format!(" {t}"), &a);
        }
        RailRow::Session {
            name,
            count,
            attached,
            current,
            colour,
        } => {
            let mut a = match colour {
                Some(col) => chrome(pal, rgb(*col)),
                None => pal.plain(),
            };
            if *current {
                a.set_reverse(true);
                a.set_intensity(Intensity::Bold);
                c.fill(x, y, w, ' ', &a);
            }
            let mark = if *current { "▸" } else { " " };
            let tail = match count {
                Some(n) => format!("{n}{}", if *attached { "*" } else { " " }),
                None if *attached => "*".to_string(),
                None => String::new(),
            };
            let tail_w = tail.chars().count() as u16;
            let name_w = w.saturating_sub(tail_w + 2);
            c.text(x, y, w, mark, &a);
            c.text(x + 1, y, name_w, name, &a);
            if w > tail_w + 1 {
                c.text(x + w - tail_w - 1, y, tail_w, &tail, &a);
            }
        }
        RailRow::Window {
            id,
            title,
            glyph,
            focused,
        } => {
            let a = if *focused { bold(pal) } else { pal.plain() };
            let g = glyph.map_or(' ', |g| g);
            c.text(x, y, w, &format!("  {g} {title}"), &a);
            hits.targets.push((r, Target::Window(id.clone())));
        }
        RailRow::Agent {
            id,
            title,
            state,
            glyph,
        } => {
            let g = glyph.map_or(' ', |g| g);
            let used = c.text(x, y, w, &format!(" {g} {title} "), &pal.plain());
            let mut a = chrome(pal, pal.ansi(3));
            a.set_intensity(Intensity::Half);
            c.text(x + used, y, w.saturating_sub(used), state, &a);
            hits.targets.push((r, Target::Window(id.clone())));
        }
    }
}
