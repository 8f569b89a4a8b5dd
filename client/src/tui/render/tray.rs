//! The tray drawn: confirmations and notices in rows of chrome next to the dock, as
//! [`plan_tray`] laid them out.

use protocol::attach::NoticeLevel;
use termwiz::cell::Intensity;
use termwiz::color::ColorAttribute;

use super::paint::{bold, chrome, Canvas, Palette};
use crate::tui::layout::Rect;
use crate::tui::model::Hits;
use crate::tui::view::{plan_tray, TrayRow, View, LABEL_W};

/// The mark at the start of every tray row but a dialog's rule.
const GUTTER: &str = "┃";
/// ANSI colour of confirmations.
const CONFIRM_COLOUR: u8 = 3;

pub(super) fn draw_tray(v: &View, c: &mut Canvas, pal: &Palette, hits: &mut Hits) {
    let Some(r) = v.tray_rect else {
        return;
    };
    let plan = plan_tray(v);
    // The dialog sits next to the dock (or the bottom edge), the notices on the windows' side.
    let top_dock = r.y == v.below_dock.y && v.dock_row.is_some();
    let rows: Vec<&TrayRow> = if top_dock {
        plan.dialog.iter().chain(plan.notices.iter()).collect()
    } else {
        plan.notices.iter().chain(plan.dialog.iter()).collect()
    };
    // More rows than room (a tiny terminal): the ones nearest the dock stay.
    let n = rows.len().min(usize::from(r.h));
    let rows = if top_dock {
        &rows[..n]
    } else {
        &rows[rows.len() - n..]
    };
    for (i, row) in rows.iter().enumerate() {
        let y = r.y + i as u16;
        c.fill(r.x, y, r.w, ' ', &pal.plain());
        draw_tray_row(c, pal, Rect::new(r.x, y, r.w, 1), row, hits);
    }
}

fn draw_tray_row(c: &mut Canvas, pal: &Palette, r: Rect, row: &TrayRow, hits: &mut Hits) {
    let accent = pal.ansi(CONFIRM_COLOUR);
    let (x, y, w) = (r.x, r.y, r.w);
    let badge = |colour: ColorAttribute| {
        let mut a = chrome(pal, pal.ansi(0));
        a.set_background(colour);
        a.set_intensity(Intensity::Bold);
        a
    };
    let gutter = |c: &mut Canvas, colour: ColorAttribute| {
        let mut a = chrome(pal, colour);
        a.set_intensity(Intensity::Bold);
        c.text(x, y, w, GUTTER, &a);
    };
    let inner_w = w.saturating_sub(3);
    match row {
        TrayRow::Rule(title) => {
            c.fill(x, y, w, '─', &chrome(pal, accent));
            if w > 4 {
                c.text(x + 2, y, w - 4, &format!(" {title} "), &badge(accent));
            }
        }
        TrayRow::Text(text) => {
            gutter(c, accent);
            c.text(x + 2, y, inner_w, text, &pal.plain());
        }
        TrayRow::Preview(text) => {
            gutter(c, accent);
            let mut pv = pal.plain();
            pv.set_background(pal.ansi(0));
            pv.set_foreground(pal.ansi(15));
            c.fill(x + 2, y, inner_w, ' ', &pv);
            c.text(x + 2, y, inner_w, text, &pv);
        }
        TrayRow::Choices { choices, note } => {
            gutter(c, accent);
            let mut a = bold(pal);
            a.set_foreground(accent);
            let mut cx = x + 2;
            for (label, target) in choices {
                let n = c.text(cx, y, (x + w).saturating_sub(cx + 1), label, &a);
                if n > 0 {
                    hits.targets.push((Rect::new(cx, y, n, 1), target.clone()));
                }
                cx += n + 3;
            }
            if !note.is_empty() {
                let mut dim = pal.plain();
                dim.set_intensity(Intensity::Half);
                c.text(cx, y, (x + w).saturating_sub(cx + 1), note, &dim);
            }
        }
        TrayRow::Compact { title, text } => {
            let n = c.text(x, y, w, &format!(" {title} "), &badge(accent));
            c.text(x + n + 1, y, w.saturating_sub(n + 1), text, &bold(pal));
        }
        TrayRow::Notice { level, first, text } => {
            let (label, colour) = match level {
                NoticeLevel::Info => ("info", 4),
                NoticeLevel::Warning => ("warning", 3),
                NoticeLevel::Error => ("error", 1),
            };
            let colour = pal.ansi(colour);
            gutter(c, colour);
            if *first {
                let mut a = chrome(pal, colour);
                a.set_intensity(Intensity::Bold);
                c.text(x + 2, y, LABEL_W.min(inner_w), label, &a);
            }
            let tx = x + 2 + LABEL_W;
            c.text(tx, y, (x + w).saturating_sub(tx + 1), text, &pal.plain());
        }
        TrayRow::Prompt => {}
    }
}
