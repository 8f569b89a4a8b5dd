//! The view model: what a frame shows, as one read-only value built from the client's state
//! ([`super::app::App::view`]) with the geometry worked out once. [`super::render`] draws from
//! it and never sees the state itself. Also what the tray shows (its rows are planned here, not
//! drawn), since the state needs the tray's height to lay the windows out.

use std::collections::{HashMap, VecDeque};

use protocol::attach::{NoticeLevel, SessionView, WindowView};

use super::copy::CopyMode;
use super::keys::{InputMode, KeyChord};
use super::layout::{Layout, Rect, WindowFrame};
use super::model::{Notice, Overlay, Target, WindowScreen};
use super::settings::Settings;
use super::sysstat::Figures;
use super::text::{char_width, wrap, wrap_words};

/// What a frame shows, read-only: the parts of the client's state drawing needs, and the
/// geometry worked out once.
pub struct View<'a> {
    pub session: &'a SessionView,
    pub attached: bool,
    pub screens: &'a HashMap<String, WindowScreen>,
    pub layout: &'a Layout,
    pub frames: &'a [WindowFrame],
    pub settings: &'a Settings,
    pub overlay: &'a Overlay,
    pub notices: &'a [Notice],
    /// Windows opening, with the box each is drawn in for now (`animate.rs`).
    pub opening: Vec<(String, Rect)>,
    /// The one-line hint in the dock, while it lasts.
    pub flash: Option<&'a str>,
    pub copy: Option<&'a CopyMode>,
    pub keycast: &'a VecDeque<String>,
    pub mode: InputMode,
    pub leader: KeyChord,
    /// The leader was pressed and waits for its key.
    pub leader_armed: bool,
    /// Attached read-only: the dock says so.
    pub read_only: bool,
    /// The which-key popup is up, in this corner.
    pub whichkey: Option<&'a str>,
    /// A move to another workspace waits for its number.
    pub move_pending: bool,
    /// The first focus-return chord, named in the dock's hint and the help.
    pub focus_return: Option<KeyChord>,
    /// CPU and memory figures for the dock.
    pub figures: Figures,
    pub area: Rect,
    pub below_dock: Rect,
    pub dock_row: Option<u16>,
    pub tray_rect: Option<Rect>,
    pub windows_area: Rect,
    pub bordered: bool,
    /// Tiles overlap on their shared borders; render mends the junctions.
    pub shared_borders: bool,
    /// The pointer, for the dock's workspace tooltip (None when that is off).
    pub hover: Option<(u16, u16)>,
    /// The session rail's columns, when shown, and the sessions it lists.
    pub rail_rect: Option<Rect>,
    pub sessions: &'a [super::model::RailSession],
    /// Where the pointer rests on the rail, and how far a hovered title has scrolled.
    pub rail_hover: Option<(u16, u16)>,
    pub marquee_step: usize,
}

impl View<'_> {
    pub fn window(&self, id: &str) -> Option<&WindowView> {
        self.session.windows.iter().find(|w| w.id == id)
    }
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
/// Columns of a notice's level label (drawn in front of its text).
pub const LABEL_W: u16 = 9;

const LINK_INTRO: &str = "A window offers this link (control, bidi and invisible characters shown escaped). Nothing has been opened.";
const PASTE_INTRO: &str = "This window has not turned on bracketed paste, and the text holds line breaks or control characters, so it could run commands. Nothing has been sent yet.";

/// One row of the tray.
#[derive(Debug, Clone, PartialEq)]
pub enum TrayRow {
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
pub struct TrayPlan {
    pub notices: Vec<TrayRow>,
    pub dialog: Vec<TrayRow>,
}

pub fn plan_tray(v: &View) -> TrayPlan {
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

fn plan_dialog(v: &View, text_w: usize, max: usize) -> Vec<TrayRow> {
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
        Overlay::Tape(d) => {
            let intro = wrap_words(
                &format!(
                    "{} wants to run in this session, typing into its windows. Read it: it runs only if you say so, and only as shown here.",
                    d.offer.path.display()
                ),
                text_w,
            );
            let body: Vec<String> = d
                .offer
                .content
                .lines()
                .flat_map(|l| wrap(&protocol::lumen::visible_controls(l), text_w))
                .collect();
            let fixed = intro.len() + 2;
            if fixed + 1 > max {
                return vec![TrayRow::Compact {
                    title: "project tape",
                    text: "r run once · t trust and run · n never · esc not now".into(),
                }];
            }
            let shown = body.len().min(PREVIEW_ROWS).min(max - fixed).max(1);
            let scroll = d.scroll.min(body.len().saturating_sub(shown));
            let mut rows = vec![TrayRow::Rule("project tape")];
            rows.extend(intro.into_iter().map(TrayRow::Text));
            rows.extend(
                body.iter()
                    .skip(scroll)
                    .take(shown)
                    .cloned()
                    .map(TrayRow::Preview),
            );
            let note = if body.len() > shown {
                format!(
                    "lines {}-{} of {} (up/down scroll)",
                    scroll + 1,
                    scroll + shown,
                    body.len()
                )
            } else {
                String::new()
            };
            rows.push(TrayRow::Choices {
                choices: vec![
                    ("[r] run once".to_string(), Target::TapeChoice("run")),
                    ("[t] trust and run".to_string(), Target::TapeChoice("trust")),
                    ("[n] never here".to_string(), Target::TapeChoice("never")),
                    ("[esc] not now".to_string(), Target::TapeChoice("")),
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
fn plan_notices(v: &View, w: usize, rows: usize) -> Vec<TrayRow> {
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
