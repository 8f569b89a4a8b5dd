//! Drawing a frame into a termwiz `Surface`: windows (borders, titles, screen rows from the
//! daemon's runs), the dock, notices and dialogs. Everything but window content is chrome, drawn
//! by the client alone. The run loop diffs the result against what is on screen. Drawing reads
//! only the view model ([`super::view::View`]), never the client's state itself.

use termwiz::cell::{CellAttributes, Intensity};
use termwiz::color::ColorAttribute;
use termwiz::surface::Surface;

use std::collections::HashMap;

use super::keys::InputMode;
use super::layout::{content_rect, Rect};
use super::model::{DamagedRows, Hits, Overlay, Target, WindowScreen};
use super::settings::{fill_template, Edge};
use super::text::title_of;
use super::view::View;

mod dock;
mod frame;
mod paint;
mod rail;
mod tray;

use dock::{draw_dock, draw_help, draw_whichkey};
use paint::{bold, chrome, draw_row, rgb, Canvas, Palette};
use rail::draw_rail;
use tray::draw_tray;

/// What a frame's drawing tells the run loop: click targets and where the cursor goes.
pub struct Drawn {
    pub hits: Hits,
    pub cursor: Option<(u16, u16)>,
}

pub fn draw(v: &View, surface: &mut Surface) -> Drawn {
    let (w, h) = surface.dimensions();
    let mut c = Canvas {
        s: surface,
        w: w.min(usize::from(u16::MAX)) as u16,
        h: h.min(usize::from(u16::MAX)) as u16,
    };
    let pal = Palette::new(v.settings.theme.as_ref());
    let mut hits = Hits::default();
    let mut cursor = None;

    let area = v.area;
    // The theme's background under everything the session uses.
    if v.settings.theme.is_some() {
        c.fill_rect(area, &pal.plain());
    }
    let win_area = v.windows_area;
    if v.frames.is_empty() {
        let ws = v.session.current_workspace;
        let minimized = v
            .session
            .windows
            .iter()
            .any(|w| w.workspace == ws && w.minimized);
        let msg = if !v.attached {
            "attaching…"
        } else if minimized {
            "every window here is minimized: + (or click it in the dock) restores one"
        } else {
            "no windows on this workspace: c (or the leader, then c) opens one"
        };
        let mut a = pal.plain();
        a.set_intensity(Intensity::Half);
        let len = msg.chars().count() as u16;
        c.text(
            win_area.x + win_area.w.saturating_sub(len) / 2,
            win_area.y + win_area.h / 2,
            win_area.w,
            msg,
            &a,
        );
    }
    for (k, f) in v.frames.iter().enumerate() {
        // A window opening is drawn in its growing box (`appearance.animations_enabled`).
        let rect = v
            .opening
            .iter()
            .find(|(id, _)| *id == f.id)
            .map_or(f.rect, |(_, r)| *r);
        let mut buttons = Vec::new();
        if let Some(cur) = draw_window(v, &mut c, &pal, &f.id, rect, &mut buttons) {
            cursor = Some(cur);
        }
        // A button under a later (higher) window is hidden, so it must not take clicks.
        buttons.retain(|(r, _)| !v.frames[k + 1..].iter().any(|g| overlaps(g.rect, *r)));
        hits.targets.extend(buttons);
    }
    if v.shared_borders {
        frame::mend_junctions(&mut c, v.frames, v.settings.border);
    }
    draw_rail(v, &mut c, &pal, &mut hits);
    // The tray before the dock: a prompt with no dock row is drawn by the dock code in a row
    // of the tray.
    draw_tray(v, &mut c, &pal, &mut hits);
    if let Some(cur) = draw_dock(v, &mut c, &pal, &mut hits) {
        cursor = Some(cur);
    }
    match v.overlay {
        Overlay::None | Overlay::Prompt(_) => {}
        // Confirmations are in the tray; the cursor stays hidden while one waits.
        Overlay::Paste(_) | Overlay::Link(_) | Overlay::Tape(_) | Overlay::Confirm { .. } => {
            cursor = None
        }
        // Help is no trust UI: it may cover the windows. A tiny terminal gets one line.
        Overlay::Help if area.w < 24 || area.h < 8 => {
            cursor = None;
            let msg = "too small for the help; any key closes it";
            c.fill(area.x, area.y, area.w, ' ', &pal.plain());
            c.text(area.x, area.y, area.w, msg, &bold(&pal));
        }
        Overlay::Help => {
            cursor = None;
            draw_help(v, &mut c, &pal, area);
        }
    }
    if let (Some(corner), Overlay::None) = (v.whichkey, v.overlay) {
        draw_whichkey(v, &mut c, &pal, v.windows_area, corner);
    }
    Drawn { hits, cursor }
}

/// Draws one window; returns the cursor position when the cursor belongs there.
fn draw_window(
    v: &View,
    c: &mut Canvas,
    pal: &Palette,
    id: &str,
    rect: Rect,
    buttons: &mut Vec<(Rect, Target)>,
) -> Option<(u16, u16)> {
    let win = v.window(id)?;
    let focused = v.session.focused.as_deref() == Some(id);
    let bordered = v.bordered;
    let inner = content_rect(rect, bordered);
    let copy = v.copy.filter(|cm| cm.window == id);
    let ws = v.session.current_workspace;
    let zoomed = v.layout.workspace(ws).and_then(|w| w.zoomed.as_deref()) == Some(id);

    if bordered && rect.w >= 2 && rect.h >= 2 {
        let colour = if focused {
            v.settings.focused_color.map(rgb).unwrap_or_else(|| {
                if v.settings.theme.is_some() {
                    pal.ansi(6)
                } else {
                    ColorAttribute::PaletteIndex(14)
                }
            })
        } else {
            v.settings
                .unfocused_color
                .map(rgb)
                .unwrap_or_else(|| pal.ansi(8))
        };
        let mut battr = chrome(pal, colour);
        if focused {
            battr.set_intensity(Intensity::Bold);
        }
        let g = v.settings.border.glyphs();
        let horiz: String = std::iter::repeat_n(g.h, usize::from(rect.w - 2)).collect();
        c.text(
            rect.x,
            rect.y,
            rect.w,
            &format!("{}{horiz}{}", g.tl, g.tr),
            &battr,
        );
        let side = g.v.to_string();
        for y in rect.y + 1..rect.bottom() - 1 {
            c.text(rect.x, y, 1, &side, &battr);
            c.text(rect.right() - 1, y, 1, &side, &battr);
        }
        c.text(
            rect.x,
            rect.bottom() - 1,
            rect.w,
            &format!("{}{horiz}{}", g.bl, g.br),
            &battr,
        );
        if let Some(s) = &v.settings.scrollbar {
            let position = copy.and_then(|cm| cm.scroll_position());
            frame::draw_scrollbar(c, pal, s, rect, &battr, position);
        }
        // The buttons sit on the title's row (the top border when titles are hidden).
        let bar_y = if v.settings.title == Edge::Bottom {
            rect.bottom() - 1
        } else {
            rect.y
        };
        let bar = v
            .settings
            .buttons
            .filter(|b| frame::button_cells(rect, *b).is_some());
        if let Some(b) = bar {
            frame::draw_buttons(c, pal, b, rect, bar_y, id, focused, colour, buttons);
        }
        // The title keeps clear of the buttons (and the space beside them).
        let (title_x, title_w) = match bar {
            Some(b) if b.left => (
                rect.x + 3 + frame::buttons_width(b),
                rect.w.saturating_sub(5 + frame::buttons_width(b)),
            ),
            Some(b) => (
                rect.x + 2,
                rect.w.saturating_sub(5 + frame::buttons_width(b)),
            ),
            // A tiny box (a window opening grows from one cell) has no room for a title.
            None => (rect.x + 2, rect.w.saturating_sub(4)),
        };

        if v.settings.title != Edge::Hidden && rect.w > 6 {
            let mut title = if v.settings.title_format.is_empty() {
                format!(" {} ", title_of(win))
            } else {
                // {index} is the window's number in the dock; the client is not told a
                // window's directory, so {cwd} stays empty.
                let index = v
                    .session
                    .windows
                    .iter()
                    .filter(|w| w.workspace == win.workspace)
                    .position(|w| w.id == win.id)
                    .map_or(0, |i| i + 1)
                    .to_string();
                let fields = [
                    ("title", title_of(win)),
                    ("index", index),
                    ("cwd", String::new()),
                ];
                let fields: Vec<(&str, &str)> =
                    fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
                format!(" {} ", fill_template(&v.settings.title_format, &fields))
            };
            if !win.alive {
                title.push_str("[exited] ");
            }
            if zoomed {
                title.push_str("[zoom] ");
            }
            if !win.agent_state.is_empty() && win.agent_state != "none" {
                title.push_str(&format!("● {} ", win.agent_state.replace('_', " ")));
            }
            if let Some(cm) = copy {
                let total = cm.total().max(1);
                title.push_str(&format!("[copy {}/{}] ", cm.line + 1, total));
            }
            let ty = if v.settings.title == Edge::Top {
                rect.y
            } else {
                rect.bottom() - 1
            };
            let mut tattr = battr.clone();
            if focused {
                tattr.set_reverse(true);
            }
            c.text(title_x, ty, title_w, &title, &tattr);
        }
    }
    if inner.is_empty() {
        return None;
    }
    let pad = pal.plain();
    if let Some(cm) = copy {
        for r in 0..inner.h {
            let i = cm.top + usize::from(r);
            match cm.line_row(i) {
                Some(row) => draw_row(
                    c,
                    Rect::new(inner.x, inner.y + r, inner.w, 1),
                    row,
                    pal,
                    cm.selection_on(i),
                    &pad,
                ),
                None => c.fill(inner.x, inner.y + r, inner.w, ' ', &pad),
            }
        }
        let cy = cm.line.checked_sub(cm.top)?;
        return (cy < usize::from(inner.h)).then(|| {
            (
                inner.x + cm.col.min(usize::from(inner.w) - 1) as u16,
                inner.y + cy as u16,
            )
        });
    }
    let screen = v.screens.get(id);
    for r in 0..inner.h {
        content_row(c, pal, screen, inner, r, &pad);
    }
    content_cursor(v, id, inner)
}

/// Row `r` of a window's content (not in copy mode).
fn content_row(
    c: &mut Canvas,
    pal: &Palette,
    screen: Option<&WindowScreen>,
    inner: Rect,
    r: u16,
    pad: &CellAttributes,
) {
    match screen.and_then(|s| s.lines.get(usize::from(r))) {
        Some(row) => draw_row(
            c,
            Rect::new(inner.x, inner.y + r, inner.w, 1),
            row,
            pal,
            None,
            pad,
        ),
        None => c.fill(inner.x, inner.y + r, inner.w, ' ', pad),
    }
}

/// Where the cursor goes for window `id` with content area `inner`: only the focused window's
/// cursor shows, in terminal mode with nothing over it.
fn content_cursor(v: &View, id: &str, inner: Rect) -> Option<(u16, u16)> {
    let s = v.screens.get(id)?;
    let show = v.session.focused.as_deref() == Some(id)
        && v.mode == InputMode::Terminal
        && *v.overlay == Overlay::None
        && s.cursor_visible
        && s.cursor.0 < inner.w
        && s.cursor.1 < inner.h;
    show.then(|| (inner.x + s.cursor.0, inner.y + s.cursor.1))
}

/// A frame patched in place: the cells redrawn (one row each) and where the cursor goes.
pub struct Patched {
    pub spans: Vec<Rect>,
    pub cursor: Option<(u16, u16)>,
}

/// Redraws only the damaged rows of window content into `surface`, which holds the last whole
/// frame; the cells are exactly what [`draw`] would draw there. None when the damage cannot be
/// drawn alone (copy mode, a dialog or prompt, a window partly under another one): draw the
/// whole frame instead.
pub fn draw_damage(
    v: &View,
    surface: &mut Surface,
    damage: &HashMap<String, DamagedRows>,
) -> Option<Patched> {
    // An opening window changes its box every frame: those frames are drawn whole.
    if v.copy.is_some() || *v.overlay != Overlay::None || !v.opening.is_empty() {
        return None;
    }
    let (w, h) = surface.dimensions();
    let mut c = Canvas {
        s: surface,
        w: w.min(usize::from(u16::MAX)) as u16,
        h: h.min(usize::from(u16::MAX)) as u16,
    };
    let pal = Palette::new(v.settings.theme.as_ref());
    let pad = pal.plain();
    let mut spans = Vec::new();
    for (id, rows) in damage {
        let Some(k) = v.frames.iter().position(|f| &f.id == id) else {
            // Not on screen: nothing to draw.
            continue;
        };
        let rect = v.frames[k].rect;
        let inner = content_rect(rect, v.bordered);
        // Only content under a later window matters: shared borders overlap on the border.
        if v.frames[k + 1..].iter().any(|f| overlaps(f.rect, inner)) {
            return None;
        }
        if inner.is_empty() || v.window(id).is_none() {
            continue;
        }
        let screen = v.screens.get(id.as_str());
        let mut redraw = |r: u16| {
            content_row(&mut c, &pal, screen, inner, r, &pad);
            spans.push(Rect::new(inner.x, inner.y + r, inner.w, 1));
        };
        match rows {
            DamagedRows::All => (0..inner.h).for_each(&mut redraw),
            DamagedRows::Rows(rows) => rows
                .iter()
                .copied()
                .filter(|r| *r < inner.h)
                .for_each(&mut redraw),
        }
    }
    let cursor = v.session.focused.as_deref().and_then(|id| {
        let f = v.frames.iter().find(|f| f.id == id)?;
        let inner = content_rect(f.rect, v.bordered);
        if inner.is_empty() {
            return None;
        }
        content_cursor(v, id, inner)
    });
    Some(Patched { spans, cursor })
}

fn overlaps(a: Rect, b: Rect) -> bool {
    a.x < b.right() && b.x < a.right() && a.y < b.bottom() && b.y < a.bottom()
}
