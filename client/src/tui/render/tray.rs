//! The tray: confirmations and notices in rows of chrome next to the dock.

use super::*;

// ----- the tray ---------------------------------------------------------------------------
//
// Confirmations and notices are trust UI: they are drawn in rows of chrome next to the dock,
// taken from the windows' area (the windows are laid out without them), never over window
// content, where a program could draw a look-alike.

/// Rows the tray leaves to the windows when it can.
pub(super) const MIN_WINDOW_ROWS: u16 = 3;
/// Most rows the notices take in all, and each notice.
pub(super) const NOTICE_ROWS: u16 = 6;
pub(super) const ROWS_PER_NOTICE: usize = 2;
/// Most lines of a held paste shown at once; the rest scroll.
pub(super) const PREVIEW_ROWS: usize = 8;
/// Columns of a notice's level label.
pub(super) const LABEL_W: u16 = 9;
/// The mark at the start of every tray row but a dialog's rule.
pub(super) const GUTTER: &str = "┃";
/// ANSI colour of confirmations.
pub(super) const CONFIRM_COLOUR: u8 = 3;

pub(super) const LINK_INTRO: &str = "A window offers this link (control, bidi and invisible characters shown escaped). Nothing has been opened.";
pub(super) const PASTE_INTRO: &str = "This window has not turned on bracketed paste, and the text holds line breaks or control characters, so it could run commands. Nothing has been sent yet.";

/// One row of the tray.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum TrayRow {
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
pub(super) struct TrayPlan {
    notices: Vec<TrayRow>,
    dialog: Vec<TrayRow>,
}

pub(super) fn plan_tray(v: &View) -> TrayPlan {
    let room = v.below_dock;
    let w = usize::from(room.w);
    let max = room.h.saturating_sub(MIN_WINDOW_ROWS);
    // Gutter and a space on the left, a space on the right.
    let dialog = plan_dialog(v, w.saturating_sub(3).max(1), usize::from(max));
    let left = max.saturating_sub(dialog.len() as u16).min(NOTICE_ROWS);
    let notices = plan_notices(v, w, usize::from(left));
    TrayPlan { notices, dialog }
}

/// Rows the tray needs now (the windows get the rest).
pub fn tray_rows(v: &View) -> u16 {
    let p = plan_tray(v);
    (p.notices.len() + p.dialog.len()).min(usize::from(u16::MAX)) as u16
}

pub(super) fn plan_dialog(v: &View, text_w: usize, max: usize) -> Vec<TrayRow> {
    match &v.overlay {
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
        Overlay::Prompt(_) if v.dock_row.is_none() => vec![TrayRow::Prompt],
        _ => Vec::new(),
    }
}

/// The newest notices that fit in `rows`, oldest first, each in at most [`ROWS_PER_NOTICE`].
pub(super) fn plan_notices(v: &View, w: usize, rows: usize) -> Vec<TrayRow> {
    let text_w = w.saturating_sub(usize::from(LABEL_W) + 3);
    if text_w < 8 {
        return Vec::new();
    }
    let mut left = rows;
    let mut picked: Vec<Vec<TrayRow>> = Vec::new();
    for n in v.notices.iter().rev() {
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

pub(super) fn draw_tray_row(
    c: &mut Canvas,
    pal: &Palette,
    r: Rect,
    row: &TrayRow,
    hits: &mut Hits,
) {
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
