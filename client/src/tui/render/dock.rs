//! The dock (session, workspaces, windows, mode, hints, clock; prompts take its place) and the help.

use config::themes::parse_hex;
use termwiz::cell::{CellAttributes, Intensity, Underline};
use termwiz::color::ColorAttribute;

use super::paint::{bold, chrome, rgb, Canvas, Palette};
use crate::tui::keys::{InputMode, HELP};
use crate::tui::layout::Rect;
use crate::tui::model::{Hits, Overlay, Target};
use crate::tui::settings::fill_template;
use crate::tui::text::{char_width, title_of};
use crate::tui::view::View;

/// Widest a workspace's name is drawn on its tab, in columns.
const TAB_NAME_MAX: usize = 16;
/// Columns a copy-mode search prompt or message keeps in a narrow dock.
const SEARCH_SHORT: usize = 24;

/// `s` cut to `max` columns, the last one an ellipsis when anything was cut.
fn cut(s: &str, max: usize) -> String {
    if s.chars().map(char_width).sum::<usize>() <= max {
        return s.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for ch in s.chars() {
        if used + char_width(ch) > max - 1 {
            break;
        }
        used += char_width(ch);
        out.push(ch);
    }
    out.push('…');
    out
}

/// Local wall-clock time as HH:MM.
pub(super) fn clock() -> String {
    let t = crate::clock::local_now();
    format!("{:02}:{:02}", t.hour, t.minute)
}

/// The dock: session, workspace tabs, window list, mode, hints, clock. Prompts take its place.
/// Returns the cursor position while a prompt is open.
pub(super) fn draw_dock(
    v: &View,
    c: &mut Canvas,
    pal: &Palette,
    hits: &mut Hits,
) -> Option<(u16, u16)> {
    let area = v.area;
    let prompt = match &v.overlay {
        Overlay::Prompt(p) => Some(p),
        _ => None,
    };
    let y = match (v.dock_row, prompt) {
        (Some(y), _) => y,
        (None, Some(_)) => area.bottom().checked_sub(1)?,
        (None, None) => return None,
    };
    let w = area.w;
    let base = pal.plain();
    c.fill(area.x, y, w, ' ', &base);

    if let Some(p) = prompt {
        let mut label = chrome(pal, pal.ansi(0));
        label.set_background(pal.ansi(3));
        let mut x = area.x;
        x += c.text(x, y, w, &format!(" {} ", p.label()), &label);
        x += c.text(x, y, w.saturating_sub(x - area.x), " ", &base);
        let room = w.saturating_sub(x - area.x + 1);
        // Show the end of a long buffer.
        let chars: Vec<char> = p.buffer.chars().collect();
        let mut start = chars.len();
        let mut used = 0usize;
        while start > 0 && used + char_width(chars[start - 1]) <= usize::from(room) {
            start -= 1;
            used += char_width(chars[start]);
        }
        let shown: String = chars[start..].iter().collect();
        let n = c.text(x, y, room, &shown, &bold(pal));
        let hint = "  enter: ok · esc: cancel";
        let hx = x + n + 1;
        if hx + hint.len() as u16 <= area.right() {
            let mut dim = base.clone();
            dim.set_intensity(Intensity::Half);
            c.text(hx, y, area.right() - hx, hint, &dim);
        }
        return Some((x + n, y));
    }

    // Left part's pieces first, to know how much room the hints get.
    let name = if v.session.display_name.is_empty() {
        &v.session.name
    } else {
        &v.session.display_name
    };
    // A read-only client says so where the session is named: it is what the user looks at.
    let session_label = if v.read_only {
        format!(" {name} [read-only] ")
    } else {
        format!(" {name} ")
    };
    // (number, label as drawn, has windows, the label in full when its name was cut)
    let tabs: Vec<(i64, String, bool, Option<String>)> = if v.settings.dock_tabs {
        let order: Vec<i64> = match &v.session.workspace_order {
            Some(o) if !o.is_empty() => o.clone(),
            _ => (1..=v.session.num_workspaces.max(1)).collect(),
        };
        order
            .into_iter()
            .map(|n| {
                let used = v.session.windows.iter().any(|w| w.workspace == n);
                let name = v
                    .session
                    .workspace_names
                    .get(&n)
                    .filter(|nm| !nm.is_empty());
                let label = |name: Option<&str>| match name {
                    _ if !v.settings.tab_format.is_empty() => {
                        let index = n.to_string();
                        let name = name.unwrap_or(&index);
                        let fields = [("index", index.as_str()), ("name", name)];
                        format!(" {} ", fill_template(&v.settings.tab_format, &fields))
                    }
                    Some(nm) => format!(" {n}:{nm} "),
                    None => format!(" {n} "),
                };
                let short = name.map(|nm| cut(nm, TAB_NAME_MAX));
                match short {
                    Some(s) if Some(&s) != name => (
                        n,
                        label(Some(&s)),
                        used,
                        Some(label(name.map(String::as_str))),
                    ),
                    _ => (n, label(name.map(String::as_str)), used, None),
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    let ws = v.session.current_workspace;
    let windows: Vec<(&protocol::attach::WindowView, String)> = v
        .session
        .windows
        .iter()
        .filter(|w| w.workspace == ws)
        .enumerate()
        .map(|(i, win)| {
            let min = if win.minimized { "_" } else { "" };
            (win, format!(" {}:{}{min} ", i + 1, title_of(win)))
        })
        .collect();
    let width_of = |s: &str| s.chars().map(char_width).sum::<usize>() as u16;
    let left_needed = width_of(&session_label)
        + tabs.iter().map(|t| width_of(&t.1)).sum::<u16>()
        + 2
        + windows.iter().map(|t| width_of(&t.1)).sum::<u16>();

    // Right part: hint, mode badge, clock. The hint shrinks before the window list does.
    let (badge, badge_bg) = if v.copy.is_some() {
        (" COPY ", 5)
    } else if v.leader_armed {
        (" LEADER ", 1)
    } else if v.move_pending {
        (" MOVE TO ", 1)
    } else if v.mode == InputMode::Terminal {
        (" TERM ", 2)
    } else {
        (" WM ", 3)
    };
    let leader = v.leader.label();
    let chord = v.focus_return.map(|c| c.label()).unwrap_or_default();
    let keycast = v.settings.show_key_events && !v.keycast.is_empty();
    let (full, short): (String, String) = if let Some(text) = v.flash {
        (text.to_string(), text.to_string())
    } else if keycast {
        let keys: Vec<&str> = v.keycast.iter().map(String::as_str).collect();
        let last: Vec<&str> = keys.iter().rev().take(3).rev().copied().collect();
        (
            format!("keys: {}", keys.join(" ")),
            format!("keys: {}", last.join(" ")),
        )
    } else if let Some(cm) = v.copy {
        if let Some(search) = cm.search_status() {
            // Narrow docks keep the end: what is being typed, or the end of a message.
            let chars: Vec<char> = search.chars().collect();
            let short = match chars.len().checked_sub(SEARCH_SHORT) {
                Some(cut) if cut > 0 => {
                    format!("...{}", chars[cut + 3..].iter().collect::<String>())
                }
                _ => search.clone(),
            };
            (search, short)
        } else if cm.has_selection() {
            (
                "y copy the selection · v clear · q leave".into(),
                "y copy · q leave".into(),
            )
        } else {
            (
                "arrows move · v select · y copy the line · / ? search · q leave".into(),
                "v select · q leave".into(),
            )
        }
    } else if v.leader_armed {
        (
            "press a key (? lists them) · esc: window management".into(),
            "? lists keys".into(),
        )
    } else if v.move_pending {
        ("press 1-9 for the workspace".into(), "1-9".into())
    } else if v.mode == InputMode::Terminal {
        (
            format!("{leader} ? help · {chord}: window management"),
            format!("{chord}: WM"),
        )
    } else {
        (
            "i/enter: type in the window · ? help".into(),
            "i: type · ? help".into(),
        )
    };
    // CPU and RAM figures sit with the clock at the dock's right end.
    let stats = v
        .figures
        .dock_text(v.settings.show_cpu, v.settings.show_ram);
    let clock = match (stats, v.settings.show_clock.then(clock)) {
        (Some(s), Some(c)) => Some(format!("{s}  {c}")),
        (s, c) => s.or(c),
    };
    let fixed = width_of(badge) + 1 + clock.as_ref().map_or(0, |c| width_of(c) + 2);
    let flash = v.flash.is_some();
    let hint = if flash || fixed + width_of(&full) + left_needed <= w {
        full
    } else if fixed + width_of(&short) + left_needed.min(w / 2) <= w {
        short
    } else {
        String::new()
    };
    let right_w = (fixed + width_of(&hint)).min(w);
    let mut right_x = area.right() - right_w;
    let mut hint_attr = base.clone();
    if !flash {
        hint_attr.set_intensity(Intensity::Half);
    }
    right_x += c.text(right_x, y, area.right() - right_x, &hint, &hint_attr);
    right_x += c.text(right_x, y, area.right().saturating_sub(right_x), " ", &base);
    let mut battr = chrome(pal, pal.ansi(0));
    battr.set_background(pal.ansi(badge_bg));
    battr.set_intensity(Intensity::Bold);
    let badge_w = c.text(
        right_x,
        y,
        area.right().saturating_sub(right_x),
        badge,
        &battr,
    );
    if v.settings.pill_caps && badge_w == width_of(badge) {
        pill_caps(c, right_x, y, badge_w, pal.ansi(badge_bg), &base);
    }
    right_x += badge_w;
    if let Some(t) = clock {
        c.text(
            right_x,
            y,
            area.right().saturating_sub(right_x),
            &format!("  {t}"),
            &base,
        );
    }
    let limit = area.right().saturating_sub(right_w + 1);

    // Left: session, workspace tabs, the current workspace's windows.
    let mut x = area.x;
    let mut sess = bold(pal);
    if let Some(rgbv) = parse_hex(v.session.accent.trim()) {
        sess.set_foreground(rgb(rgbv));
    }
    x += c.text(x, y, limit.saturating_sub(x), &session_label, &sess);
    let mut tooltip = None;
    for (n, label, used, full) in &tabs {
        let mut a = base.clone();
        if *n == ws {
            a.set_foreground(pal.ansi(0));
            a.set_background(pal.ansi(4));
            a.set_intensity(Intensity::Bold);
        } else if *used {
            a.set_intensity(Intensity::Bold);
            a.set_underline(Underline::Single);
        } else {
            a.set_intensity(Intensity::Half);
        }
        let n_w = c.text(x, y, limit.saturating_sub(x), label, &a);
        if *n == ws && v.settings.pill_caps && n_w == width_of(label) {
            pill_caps(c, x, y, n_w, pal.ansi(4), &base);
        }
        if n_w > 0 {
            let r = Rect::new(x, y, n_w, 1);
            if let (Some(full), Some((hx, hy))) = (full, v.hover) {
                if r.contains(hx, hy) {
                    tooltip = Some((x, full.clone()));
                }
            }
            hits.targets.push((r, Target::Workspace(*n)));
        }
        x += n_w;
    }
    let mut sep = base.clone();
    sep.set_intensity(Intensity::Half);
    x += c.text(x, y, limit.saturating_sub(x), " │", &sep);
    // The cut name under the pointer, in full, on the row next to the dock.
    if let Some((tx, text)) = tooltip {
        let ty = if y == area.y {
            y + 1
        } else {
            y.saturating_sub(1)
        };
        let tw = width_of(&text).min(w);
        let tx = tx.min(area.right() - tw);
        let mut a = bold(pal);
        a.set_reverse(true);
        c.text(tx, ty, tw, &text, &a);
    }
    for (win, label) in &windows {
        let mut a = base.clone();
        if v.session.focused.as_deref() == Some(win.id.as_str()) && !win.minimized {
            a.set_intensity(Intensity::Bold);
            a.set_reverse(true);
        } else if win.minimized {
            a.set_intensity(Intensity::Half);
            a.set_italic(true);
        }
        let room = limit.saturating_sub(x);
        if room < 4 {
            break;
        }
        let n_w = if width_of(label) > room {
            let n = c.text(x, y, room - 1, label, &a);
            c.text(x + n, y, 1, "…", &a);
            n + 1
        } else {
            c.text(x, y, room, label, &a)
        };
        hits.targets
            .push((Rect::new(x, y, n_w, 1), Target::Window(win.id.clone())));
        x += n_w;
    }
    None
}

/// appearance.dock_pill_caps: the pill's padding cells at (`x`, `y`) and `w - 1` cells on
/// become half blocks in the pill's colour, so it reads as rounded. Half blocks rather than
/// powerline glyphs: every terminal font has them.
fn pill_caps(c: &mut Canvas, x: u16, y: u16, w: u16, pill: ColorAttribute, base: &CellAttributes) {
    if w < 3 {
        return;
    }
    let mut a = base.clone();
    a.set_foreground(pill);
    c.text(x, y, 1, "▐", &a);
    c.text(x + w - 1, y, 1, "▌", &a);
}

pub(super) fn draw_help(v: &View, c: &mut Canvas, pal: &Palette, area: Rect) {
    let leader = v.leader.label();
    let chord = v.focus_return.map(|c| c.label()).unwrap_or_default();
    let mut lines: Vec<(String, String)> = HELP
        .iter()
        .map(|b| (b.keys.to_string(), b.what.to_string()))
        .collect();
    lines.push((String::new(), String::new()));
    lines.push((
        "i / enter".into(),
        "from WM mode: type into the focused window".into(),
    ));
    lines.push((
        format!("{leader} {leader}"),
        "send the leader key to the window".into(),
    ));
    lines.push((format!("{leader} esc"), "back to window management".into()));
    lines.push((chord, "back to window management, always".into()));
    lines.push((
        "mouse".into(),
        "click focuses · drag a divider resizes · wheel scrolls back".into(),
    ));
    let what_w = lines
        .iter()
        .map(|(_, what)| what.chars().count())
        .max()
        .unwrap_or(0) as u16;
    let bw = (what_w + 28).max(56).min(area.w);
    let bh = (lines.len() as u16 + 4).min(area.h);
    let r = Rect::new(
        area.x + (area.w - bw) / 2,
        area.y + (area.h - bh) / 2,
        bw,
        bh,
    );
    let (frame, key_attr) = dialog_attrs(pal);
    c.dialog(
        r,
        &format!("keys: after {leader}, or directly in WM mode"),
        &frame,
        &pal.plain(),
    );
    for (i, (k, what)) in lines.iter().enumerate() {
        let y = r.y + 1 + i as u16;
        if y + 2 >= r.bottom() {
            break;
        }
        c.text(r.x + 2, y, 20.min(r.w.saturating_sub(4)), k, &key_attr);
        c.text(r.x + 24, y, r.w.saturating_sub(26), what, &pal.plain());
    }
    let mut dim = pal.plain();
    dim.set_intensity(Intensity::Half);
    c.text(
        r.x + 2,
        r.bottom() - 2,
        r.w - 4,
        "any key closes this",
        &dim,
    );
}

/// The which-key popup: the keys that act after the leader, in a corner (or the middle). It
/// covers windows (it is no trust UI) and goes with the next key.
pub(super) fn draw_whichkey(v: &View, c: &mut Canvas, pal: &Palette, area: Rect, corner: &str) {
    let lines: Vec<(&str, &str)> = HELP.iter().map(|b| (b.keys, b.what)).collect();
    let key_w = lines
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0) as u16;
    let what_w = lines
        .iter()
        .map(|(_, w)| w.chars().count())
        .max()
        .unwrap_or(0) as u16;
    let bw = (key_w + what_w + 6).min(area.w);
    let bh = (lines.len() as u16 + 2).min(area.h);
    if bw < 12 || bh < 4 {
        return;
    }
    let (left, top) = (area.x, area.y);
    let (right, bottom) = (area.x + area.w - bw, area.y + area.h - bh);
    let (x, y) = match corner {
        "top-left" => (left, top),
        "top-right" => (right, top),
        "bottom-left" => (left, bottom),
        "center" => (area.x + (area.w - bw) / 2, area.y + (area.h - bh) / 2),
        _ => (right, bottom),
    };
    let r = Rect::new(x, y, bw, bh);
    let (frame, key_attr) = dialog_attrs(pal);
    c.dialog(
        r,
        &format!("{} then", v.leader.label()),
        &frame,
        &pal.plain(),
    );
    for (i, (k, what)) in lines.iter().enumerate() {
        let row = r.y + 1 + i as u16;
        if row + 1 >= r.bottom() {
            break;
        }
        c.text(r.x + 2, row, key_w, k, &key_attr);
        c.text(
            r.x + 4 + key_w,
            row,
            r.w.saturating_sub(key_w + 5),
            what,
            &pal.plain(),
        );
    }
}

/// The frame of a key list and the look of its keys: the accent colour, keys in bold.
fn dialog_attrs(pal: &Palette) -> (CellAttributes, CellAttributes) {
    let mut key = bold(pal);
    key.set_foreground(pal.ansi(6));
    (chrome(pal, pal.ansi(6)), key)
}
