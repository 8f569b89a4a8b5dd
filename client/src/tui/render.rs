//! Drawing a frame into a termwiz `Surface`: windows (borders, titles, screen rows from the
//! daemon's runs), the dock, notices and dialogs. Everything but window content is chrome, drawn
//! by the client alone. The run loop diffs the result against what is on screen.

use config::themes::{parse_hex, Theme};
use protocol::attach::{attr, Color, NoticeLevel, Row, Style};
use termwiz::cell::{grapheme_column_width, CellAttributes, Intensity, Underline};
use termwiz::color::{ColorAttribute, SrgbaTuple};
use termwiz::surface::{Change, Position, Surface};

use super::app::{title_of, App, Hits, Overlay, Target};
use super::keys::{Mode, HELP};
use super::layout::{content_rect, Rect};
use super::settings::{fill_template, Edge};

/// Display columns of one character (0 for combining marks, 2 for wide ones).
pub fn char_width(c: char) -> usize {
    let mut buf = [0u8; 4];
    grapheme_column_width(c.encode_utf8(&mut buf), None)
}

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

fn rgb(c: [u8; 3]) -> ColorAttribute {
    let [r, g, b] = c;
    ColorAttribute::TrueColorWithPaletteFallback(SrgbaTuple::from((r, g, b)), nearest_256(r, g, b))
}

/// The theme's colours, parsed once per frame.
struct Palette {
    fg: ColorAttribute,
    bg: ColorAttribute,
    ansi: Option<[ColorAttribute; 16]>,
}

impl Palette {
    fn new(theme: Option<&Theme>) -> Palette {
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

    fn color(&self, c: Color, fg: bool) -> ColorAttribute {
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
    fn ansi(&self, i: u8) -> ColorAttribute {
        self.color(Color::Indexed(i), true)
    }

    fn attrs(&self, s: &Style) -> CellAttributes {
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

    fn plain(&self) -> CellAttributes {
        let mut a = CellAttributes::default();
        a.set_foreground(self.fg);
        a.set_background(self.bg);
        a
    }
}

/// A surface with clipped text output.
struct Canvas<'a> {
    s: &'a mut Surface,
    w: u16,
    h: u16,
}

impl Canvas<'_> {
    /// Writes `text` at (x, y) in at most `max` columns; returns the columns used. Control
    /// characters are shown as spaces: nothing drawn here can be an escape sequence.
    fn text(&mut self, x: u16, y: u16, max: u16, text: &str, attrs: &CellAttributes) -> u16 {
        if y >= self.h || x >= self.w {
            return 0;
        }
        let max = usize::from(max.min(self.w - x));
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

    fn fill(&mut self, x: u16, y: u16, w: u16, c: char, attrs: &CellAttributes) {
        if w == 0 {
            return;
        }
        let s: String = std::iter::repeat_n(c, usize::from(w)).collect();
        self.text(x, y, w, &s, attrs);
    }

    fn fill_rect(&mut self, r: Rect, attrs: &CellAttributes) {
        for y in r.y..r.bottom() {
            self.fill(r.x, y, r.w, ' ', attrs);
        }
    }

    /// A rounded box with a title on its top edge, its inside cleared.
    fn dialog(&mut self, r: Rect, title: &str, frame: &CellAttributes, inside: &CellAttributes) {
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
fn draw_row(
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

/// What a frame's drawing tells the run loop: click targets and where the cursor goes.
pub struct Drawn {
    pub hits: Hits,
    pub cursor: Option<(u16, u16)>,
}

pub fn draw(app: &App, surface: &mut Surface) -> Drawn {
    let (w, h) = surface.dimensions();
    let mut c = Canvas {
        s: surface,
        w: w.min(usize::from(u16::MAX)) as u16,
        h: h.min(usize::from(u16::MAX)) as u16,
    };
    let pal = Palette::new(app.settings.theme.as_ref());
    let mut hits = Hits::default();
    let mut cursor = None;

    let area = app.area();
    // The theme's background under everything the session uses.
    if app.settings.theme.is_some() {
        c.fill_rect(area, &pal.plain());
    }
    let win_area = app.windows_area();
    if app.frames.is_empty() {
        let ws = app.view.current_workspace;
        let minimized = app
            .view
            .windows
            .iter()
            .any(|w| w.workspace == ws && w.minimized);
        let msg = if !app.attached {
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
    for f in &app.frames {
        if let Some(cur) = draw_window(app, &mut c, &pal, &f.id, f.rect) {
            cursor = Some(cur);
        }
    }
    // The tray before the dock: a prompt with no dock row is drawn by the dock code in a row
    // of the tray.
    draw_tray(app, &mut c, &pal, &mut hits);
    if let Some(cur) = draw_dock(app, &mut c, &pal, &mut hits) {
        cursor = Some(cur);
    }
    match &app.overlay {
        Overlay::None | Overlay::Prompt(_) => {}
        // Confirmations are in the tray; the cursor stays hidden while one waits.
        Overlay::Paste(_) | Overlay::Link(_) | Overlay::Confirm { .. } => cursor = None,
        // Help is no trust UI: it may cover the windows. A tiny terminal gets one line.
        Overlay::Help if area.w < 24 || area.h < 8 => {
            cursor = None;
            let msg = "too small for the help; any key closes it";
            c.fill(area.x, area.y, area.w, ' ', &pal.plain());
            c.text(area.x, area.y, area.w, msg, &bold(&pal));
        }
        Overlay::Help => {
            cursor = None;
            draw_help(app, &mut c, &pal, area);
        }
    }
    Drawn { hits, cursor }
}

fn bold(pal: &Palette) -> CellAttributes {
    let mut a = pal.plain();
    a.set_intensity(Intensity::Bold);
    a
}

fn chrome(pal: &Palette, fg: ColorAttribute) -> CellAttributes {
    let mut a = pal.plain();
    a.set_foreground(fg);
    a
}

/// Draws one window; returns the cursor position when the cursor belongs there.
fn draw_window(
    app: &App,
    c: &mut Canvas,
    pal: &Palette,
    id: &str,
    rect: Rect,
) -> Option<(u16, u16)> {
    let win = app.window(id)?;
    let focused = app.view.focused.as_deref() == Some(id);
    let bordered = app.bordered();
    let inner = content_rect(rect, bordered);
    let copy = app.copy.as_ref().filter(|cm| cm.window == id);
    let ws = app.view.current_workspace;
    let zoomed = app.layout.workspace(ws).and_then(|w| w.zoomed.as_deref()) == Some(id);

    if bordered && rect.w >= 2 && rect.h >= 2 {
        let colour = if focused {
            app.settings.focused_color.map(rgb).unwrap_or_else(|| {
                if app.settings.theme.is_some() {
                    pal.ansi(6)
                } else {
                    ColorAttribute::PaletteIndex(14)
                }
            })
        } else {
            app.settings
                .unfocused_color
                .map(rgb)
                .unwrap_or_else(|| pal.ansi(8))
        };
        let mut battr = chrome(pal, colour);
        if focused {
            battr.set_intensity(Intensity::Bold);
        }
        let g = app.settings.border.glyphs();
        let horiz: String = std::iter::repeat_n(g.h, usize::from(rect.w - 2)).collect();
        c.text(
            rect.x,
            rect.y,
            rect.w,
            &format!("{}{horiz}{}", g.tl, g.tr),
            &battr,
        );
        let v = g.v.to_string();
        for y in rect.y + 1..rect.bottom() - 1 {
            c.text(rect.x, y, 1, &v, &battr);
            c.text(rect.right() - 1, y, 1, &v, &battr);
        }
        c.text(
            rect.x,
            rect.bottom() - 1,
            rect.w,
            &format!("{}{horiz}{}", g.bl, g.br),
            &battr,
        );

        if app.settings.title != Edge::Hidden && rect.w > 6 {
            let mut title = if app.settings.title_format.is_empty() {
                format!(" {} ", title_of(win))
            } else {
                // {index} is the window's number in the dock; the client is not told a
                // window's directory, so {cwd} stays empty.
                let index = app
                    .view
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
                format!(" {} ", fill_template(&app.settings.title_format, &fields))
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
            let ty = if app.settings.title == Edge::Top {
                rect.y
            } else {
                rect.bottom() - 1
            };
            let mut tattr = battr.clone();
            if focused {
                tattr.set_reverse(true);
            }
            c.text(rect.x + 2, ty, rect.w - 4, &title, &tattr);
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
    let screen = app.screens.get(id);
    for r in 0..inner.h {
        match screen.and_then(|s| s.lines.get(usize::from(r))) {
            Some(row) => draw_row(
                c,
                Rect::new(inner.x, inner.y + r, inner.w, 1),
                row,
                pal,
                None,
                &pad,
            ),
            None => c.fill(inner.x, inner.y + r, inner.w, ' ', &pad),
        }
    }
    let s = screen?;
    let show = focused
        && app.mode() == Mode::Terminal
        && app.overlay == Overlay::None
        && s.cursor_visible
        && s.cursor.0 < inner.w
        && s.cursor.1 < inner.h;
    show.then(|| (inner.x + s.cursor.0, inner.y + s.cursor.1))
}

/// Local wall-clock time as HH:MM.
fn clock() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let t = now as libc::time_t;
    // SAFETY: localtime_r writes only into `tm`, which lives on this stack frame.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let ok = unsafe { !libc::localtime_r(&t, &mut tm).is_null() };
    if ok {
        format!("{:02}:{:02}", tm.tm_hour, tm.tm_min)
    } else {
        format!("{:02}:{:02}", (now / 3600) % 24, (now / 60) % 60)
    }
}

/// The dock: session, workspace tabs, window list, mode, hints, clock. Prompts take its place.
/// Returns the cursor position while a prompt is open.
fn draw_dock(app: &App, c: &mut Canvas, pal: &Palette, hits: &mut Hits) -> Option<(u16, u16)> {
    let area = app.area();
    let prompt = match &app.overlay {
        Overlay::Prompt(p) => Some(p),
        _ => None,
    };
    let y = match (app.dock_row(), prompt) {
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
    let name = if app.view.display_name.is_empty() {
        &app.view.name
    } else {
        &app.view.display_name
    };
    let session_label = format!(" {name} ");
    let tabs: Vec<(i64, String, bool)> = if app.settings.dock_tabs {
        let order: Vec<i64> = match &app.view.workspace_order {
            Some(o) if !o.is_empty() => o.clone(),
            _ => (1..=app.view.num_workspaces.max(1)).collect(),
        };
        order
            .into_iter()
            .map(|n| {
                let used = app.view.windows.iter().any(|w| w.workspace == n);
                let name = app.view.workspace_names.get(&n).filter(|nm| !nm.is_empty());
                let label = match name {
                    _ if !app.settings.tab_format.is_empty() => {
                        let index = n.to_string();
                        let name = name.cloned().unwrap_or_else(|| index.clone());
                        let fields = [("index", index.as_str()), ("name", name.as_str())];
                        format!(" {} ", fill_template(&app.settings.tab_format, &fields))
                    }
                    Some(nm) => format!(" {n}:{nm} "),
                    None => format!(" {n} "),
                };
                (n, label, used)
            })
            .collect()
    } else {
        Vec::new()
    };
    let ws = app.view.current_workspace;
    let windows: Vec<(&protocol::attach::WindowView, String)> = app
        .view
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
    let (badge, badge_bg) = if app.copy.is_some() {
        (" COPY ", 5)
    } else if app.router.leader_armed {
        (" LEADER ", 1)
    } else if app.router.move_pending {
        (" MOVE TO ", 1)
    } else if app.mode() == Mode::Terminal {
        (" TERM ", 2)
    } else {
        (" WM ", 3)
    };
    let leader = app.leader().label();
    let chord = app
        .router
        .focus_return
        .first()
        .map(|c| c.label())
        .unwrap_or_default();
    let keycast = app.settings.show_key_events && !app.keycast.is_empty();
    let (full, short): (String, String) = if let Some((text, _)) = &app.flash {
        (text.clone(), text.clone())
    } else if keycast {
        let keys: Vec<&str> = app.keycast.iter().map(String::as_str).collect();
        let last: Vec<&str> = keys.iter().rev().take(3).rev().copied().collect();
        (
            format!("keys: {}", keys.join(" ")),
            format!("keys: {}", last.join(" ")),
        )
    } else if let Some(cm) = &app.copy {
        if cm.has_selection() {
            (
                "y copy the selection · v clear · q leave".into(),
                "y copy · q leave".into(),
            )
        } else {
            (
                "arrows move · v select · y copy the line · q leave".into(),
                "v select · q leave".into(),
            )
        }
    } else if app.router.leader_armed {
        (
            "press a key (? lists them) · esc: window management".into(),
            "? lists keys".into(),
        )
    } else if app.router.move_pending {
        ("press 1-9 for the workspace".into(), "1-9".into())
    } else if app.mode() == Mode::Terminal {
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
    let stats = super::sysstat::dock_text(app.settings.show_cpu, app.settings.show_ram);
    let clock = match (stats, app.settings.show_clock.then(clock)) {
        (Some(s), Some(c)) => Some(format!("{s}  {c}")),
        (s, c) => s.or(c),
    };
    let fixed = width_of(badge) + 1 + clock.as_ref().map_or(0, |c| width_of(c) + 2);
    let flash = app.flash.is_some();
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
    right_x += c.text(
        right_x,
        y,
        area.right().saturating_sub(right_x),
        badge,
        &battr,
    );
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
    if let Some(rgbv) = parse_hex(app.view.accent.trim()) {
        sess.set_foreground(rgb(rgbv));
    }
    x += c.text(x, y, limit.saturating_sub(x), &session_label, &sess);
    for (n, label, used) in &tabs {
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
        if n_w > 0 {
            hits.targets
                .push((Rect::new(x, y, n_w, 1), Target::Workspace(*n)));
        }
        x += n_w;
    }
    let mut sep = base.clone();
    sep.set_intensity(Intensity::Half);
    x += c.text(x, y, limit.saturating_sub(x), " │", &sep);
    for (win, label) in &windows {
        let mut a = base.clone();
        if app.view.focused.as_deref() == Some(win.id.as_str()) && !win.minimized {
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

/// Wraps prose to `width` columns at spaces (words longer than a line are cut).
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    for para in text.split('\n') {
        let mut cur = String::new();
        let mut used = 0;
        for word in para.split(' ').filter(|w| !w.is_empty()) {
            let ww: usize = word.chars().map(char_width).sum();
            if ww > width {
                for piece in wrap(word, width) {
                    if !cur.is_empty() {
                        out.push(std::mem::take(&mut cur));
                    }
                    used = piece.chars().map(char_width).sum();
                    cur = piece;
                }
                continue;
            }
            if used > 0 && used + 1 + ww > width {
                out.push(std::mem::take(&mut cur));
                used = 0;
            }
            if used > 0 {
                cur.push(' ');
                used += 1;
            }
            cur.push_str(word);
            used += ww;
        }
        out.push(cur);
    }
    out
}

/// Wraps text to `width` columns (hard breaks at newlines).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    for line in text.split('\n') {
        let mut cur = String::new();
        let mut used = 0;
        for ch in line.chars() {
            let cw = char_width(ch);
            if used + cw > width {
                out.push(std::mem::take(&mut cur));
                used = 0;
            }
            cur.push(ch);
            used += cw;
        }
        out.push(cur);
    }
    out
}

fn draw_help(app: &App, c: &mut Canvas, pal: &Palette, area: Rect) {
    let leader = app.leader().label();
    let chord = app
        .router
        .focus_return
        .first()
        .map(|c| c.label())
        .unwrap_or_default();
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
    let frame = chrome(pal, pal.ansi(6));
    c.dialog(
        r,
        &format!("keys: after {leader}, or directly in WM mode"),
        &frame,
        &pal.plain(),
    );
    let key_attr = {
        let mut a = bold(pal);
        a.set_foreground(pal.ansi(6));
        a
    };
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

// ----- the tray ---------------------------------------------------------------------------
//
// Confirmations and notices are trust UI: they are drawn in rows of chrome next to the dock,
// taken from the windows' area (the windows are laid out without them), never over window
// content, where a program could draw a look-alike.

/// Rows the tray leaves to the windows when it can.
const MIN_WINDOW_ROWS: u16 = 3;
/// Most rows the notices take in all, and each notice.
const NOTICE_ROWS: u16 = 6;
const ROWS_PER_NOTICE: usize = 2;
/// Most lines of a held paste shown at once; the rest scroll.
const PREVIEW_ROWS: usize = 8;
/// Columns of a notice's level label.
const LABEL_W: u16 = 9;
/// The mark at the start of every tray row but a dialog's rule.
const GUTTER: &str = "┃";
/// ANSI colour of confirmations.
const CONFIRM_COLOUR: u8 = 3;

const LINK_INTRO: &str = "A window offers this link (control, bidi and invisible characters shown escaped). Nothing has been opened.";
const PASTE_INTRO: &str = "This window has not turned on bracketed paste, and the text holds line breaks or control characters, so it could run commands. Nothing has been sent yet.";

/// One row of the tray.
#[derive(Debug, Clone, PartialEq)]
enum TrayRow {
    /// A dialog's edge on the windows' side: a rule with the dialog's title.
    Rule(&'static str),
    /// Dialog prose.
    Text(String),
    /// A line of a held paste's text, controls made visible.
    Preview(String),
    /// A dialog's choices, clickable, and a dimmed note after them.
    Choices {
        choices: Vec<(String, Target)>,
        note: String,
    },
    /// The whole dialog in one row, for small terminals.
    Compact { title: &'static str, text: String },
    /// A line of a notice; the level is labelled on its first line.
    Notice {
        level: NoticeLevel,
        first: bool,
        text: String,
    },
    /// The command prompt when there is no dock row for it; the dock code draws it.
    Prompt,
}

/// What the tray shows: notices (oldest first) and the open dialog.
struct TrayPlan {
    notices: Vec<TrayRow>,
    dialog: Vec<TrayRow>,
}

fn plan_tray(app: &App) -> TrayPlan {
    let room = app.below_dock();
    let w = usize::from(room.w);
    let max = room.h.saturating_sub(MIN_WINDOW_ROWS);
    // Gutter and a space on the left, a space on the right.
    let dialog = plan_dialog(app, w.saturating_sub(3).max(1), usize::from(max));
    let left = max.saturating_sub(dialog.len() as u16).min(NOTICE_ROWS);
    let notices = plan_notices(app, w, usize::from(left));
    TrayPlan { notices, dialog }
}

/// Rows the tray needs now (the windows get the rest).
pub fn tray_rows(app: &App) -> u16 {
    let p = plan_tray(app);
    (p.notices.len() + p.dialog.len()).min(usize::from(u16::MAX)) as u16
}

fn plan_dialog(app: &App, text_w: usize, max: usize) -> Vec<TrayRow> {
    match &app.overlay {
        Overlay::Paste(d) => {
            let intro = wrap_words(PASTE_INTRO, text_w);
            let preview = wrap(&d.preview, text_w);
            // The rule, the prose, at least one line of the text, the choices.
            let fixed = intro.len() + 2;
            if fixed + 1 > max {
                let keep = if d.has_controls {
                    " · k keep controls"
                } else {
                    ""
                };
                return vec![TrayRow::Compact {
                    title: "held paste",
                    text: format!("p paste · o one line{keep} · esc cancel"),
                }];
            }
            let shown = preview.len().min(PREVIEW_ROWS).min(max - fixed).max(1);
            let scroll = d.scroll.min(preview.len().saturating_sub(shown));
            let mut rows = vec![TrayRow::Rule("held paste")];
            rows.extend(intro.into_iter().map(TrayRow::Text));
            rows.extend(
                preview
                    .iter()
                    .skip(scroll)
                    .take(shown)
                    .cloned()
                    .map(TrayRow::Preview),
            );
            let mut choices = vec![
                ("[p] paste".to_string(), Target::PasteChoice("send")),
                (
                    "[o] paste as one line".to_string(),
                    Target::PasteChoice("one-line"),
                ),
            ];
            if d.has_controls {
                choices.push((
                    "[k] keep controls".to_string(),
                    Target::PasteChoice("keep-controls"),
                ));
            }
            choices.push(("[esc] cancel".to_string(), Target::PasteChoice("")));
            let note = if preview.len() > shown {
                format!(
                    "lines {}-{} of {} (up/down scroll)",
                    scroll + 1,
                    scroll + shown,
                    preview.len()
                )
            } else {
                String::new()
            };
            rows.push(TrayRow::Choices { choices, note });
            rows
        }
        Overlay::Link(d) => {
            let intro = wrap_words(LINK_INTRO, text_w);
            let url = wrap(&d.shown, text_w);
            let fixed = intro.len() + 2;
            if fixed + 1 > max {
                return vec![TrayRow::Compact {
                    title: "open link",
                    text: format!("{} · o open · c copy · esc cancel", d.shown),
                }];
            }
            let shown = url.len().min(max - fixed).max(1);
            let scroll = d.scroll.min(url.len().saturating_sub(shown));
            let mut rows = vec![TrayRow::Rule("open link")];
            rows.extend(intro.into_iter().map(TrayRow::Text));
            rows.extend(
                url.iter()
                    .skip(scroll)
                    .take(shown)
                    .cloned()
                    .map(TrayRow::Preview),
            );
            let note = if url.len() > shown {
                format!(
                    "lines {}-{} of {} (up/down scroll)",
                    scroll + 1,
                    scroll + shown,
                    url.len()
                )
            } else {
                String::new()
            };
            rows.push(TrayRow::Choices {
                choices: vec![
                    ("[o] open".to_string(), Target::LinkChoice("open")),
                    ("[c] copy".to_string(), Target::LinkChoice("copy")),
                    ("[esc] cancel".to_string(), Target::LinkChoice("")),
                ],
                note,
            });
            rows
        }
        Overlay::Confirm { text, .. } => {
            let lines = wrap_words(text, text_w);
            if lines.len() + 2 > max {
                return vec![TrayRow::Compact {
                    title: "confirm",
                    text: format!("{text} · y / n"),
                }];
            }
            let mut rows = vec![TrayRow::Rule("confirm")];
            rows.extend(lines.into_iter().map(TrayRow::Text));
            rows.push(TrayRow::Choices {
                choices: vec![
                    ("[y] yes".to_string(), Target::Confirm(true)),
                    ("[n] no".to_string(), Target::Confirm(false)),
                ],
                note: String::new(),
            });
            rows
        }
        Overlay::Prompt(_) if app.dock_row().is_none() => vec![TrayRow::Prompt],
        _ => Vec::new(),
    }
}

/// The newest notices that fit in `rows`, oldest first, each in at most [`ROWS_PER_NOTICE`].
fn plan_notices(app: &App, w: usize, rows: usize) -> Vec<TrayRow> {
    let text_w = w.saturating_sub(usize::from(LABEL_W) + 3);
    if text_w < 8 {
        return Vec::new();
    }
    let mut left = rows;
    let mut picked: Vec<Vec<TrayRow>> = Vec::new();
    for n in app.notices.iter().rev() {
        let mut lines = wrap_words(&n.text, text_w);
        if lines.len() > ROWS_PER_NOTICE {
            lines.truncate(ROWS_PER_NOTICE);
            if let Some(last) = lines.last_mut() {
                while last.chars().map(char_width).sum::<usize>() + 1 > text_w {
                    last.pop();
                }
                last.push('…');
            }
        }
        if lines.len() > left {
            break;
        }
        left -= lines.len();
        picked.push(
            lines
                .into_iter()
                .enumerate()
                .map(|(i, text)| TrayRow::Notice {
                    level: n.level,
                    first: i == 0,
                    text,
                })
                .collect(),
        );
    }
    picked.into_iter().rev().flatten().collect()
}

fn draw_tray(app: &App, c: &mut Canvas, pal: &Palette, hits: &mut Hits) {
    let Some(r) = app.tray_rect() else {
        return;
    };
    let plan = plan_tray(app);
    // The dialog sits next to the dock (or the bottom edge), the notices on the windows' side.
    let top_dock = r.y == app.below_dock().y && app.dock_row().is_some();
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
    fn widths_and_wrapping() {
        assert_eq!(char_width('a'), 1);
        assert_eq!(char_width('漢'), 2);
        assert_eq!(wrap("abcdef\ngh", 4), vec!["abcd", "ef", "gh"]);
        assert_eq!(wrap("", 4), vec![""]);
        assert_eq!(
            wrap_words("the quick brown fox", 10),
            vec!["the quick", "brown fox"]
        );
        assert_eq!(
            wrap_words("abcdefghijkl x", 5),
            vec!["abcde", "fghij", "kl x"]
        );
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
}
