//! The pieces of the client's state that drawing reads: window screens as the daemon sent them,
//! notices, dialogs, and the click targets a frame leaves behind. [`super::app::App`] owns and
//! changes them; [`super::render`] only reads them (through [`super::view::View`]). Kept apart
//! from both so that neither has to reach into the other.

use std::collections::BTreeSet;
use std::time::Instant;

use protocol::attach::{NoticeLevel, Row, ScreenUpdate};

use super::layout::Rect;

/// The last screen the daemon sent for a window.
#[derive(Debug, Clone, Default)]
pub struct WindowScreen {
    pub cols: u16,
    pub rows: u16,
    pub cursor: (u16, u16),
    pub cursor_visible: bool,
    pub lines: Vec<Row>,
}

impl WindowScreen {
    pub fn apply(&mut self, u: ScreenUpdate) {
        self.cols = u.cols;
        self.rows = u.rows;
        self.cursor = (u.cursor_x, u.cursor_y);
        self.cursor_visible = u.cursor_visible;
        let rows = usize::from(u.rows);
        if u.full {
            self.lines.clear();
        }
        self.lines.resize_with(rows, Row::default);
        for (i, row) in u.lines {
            if let Some(slot) = self.lines.get_mut(usize::from(i)) {
                *slot = row;
            }
        }
    }
}

/// Rows of a window's content that changed since the last frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DamagedRows {
    All,
    Rows(BTreeSet<u16>),
}

#[derive(Debug, Clone)]
pub struct Notice {
    pub level: NoticeLevel,
    pub text: String,
    /// When it goes; `None` for a sticky error (`notifications.error_sticky`), which waits
    /// for Esc in window management.
    pub until: Option<Instant>,
}

/// The confirmation before a link is opened or copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkDialog {
    /// The URL exactly as the window gave it; what open and copy use.
    pub url: String,
    /// The URL with every control, bidi, zero-width and format character escaped: what is shown.
    pub shown: String,
    pub scroll: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptKind {
    Rename(String),
    Command,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub buffer: String,
}

impl Prompt {
    pub fn label(&self) -> &'static str {
        match self.kind {
            PromptKind::Rename(_) => "rename window",
            PromptKind::Command => "command",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasteDialog {
    pub window: String,
    pub preview: String,
    pub one_line: String,
    pub has_controls: bool,
    pub data: Vec<u8>,
    pub scroll: usize,
}

/// A chrome dialog; keys go to it, never to a window. Confirmations (paste, yes/no) are drawn
/// in the tray, outside the windows; help covers them; the prompt takes the dock's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    None,
    Help,
    Prompt(Prompt),
    Paste(PasteDialog),
    /// A link a click asked to open: open, copy or cancel.
    Link(LinkDialog),
    /// A project tape to review before it may run.
    Tape(TapeDialog),
    /// A yes/no question; `yes` runs on `y`.
    Confirm {
        text: String,
        yes: Confirmed,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirmed {
    Close(String),
}

/// Click targets in chrome, found by the last draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Workspace(i64),
    Window(String),
    PasteChoice(&'static str),
    /// An answer to the project tape review: "run", "trust", "never" or "" (not now).
    TapeChoice(&'static str),
    /// An answer to the link confirmation: "open", "copy" or "" (cancel).
    LinkChoice(&'static str),
    /// An answer to the yes/no question.
    Confirm(bool),
    /// A button on a window's title bar.
    Button(String, WinButton),
}

/// The title-bar buttons (`appearance.hide_window_buttons` off).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WinButton {
    Minimize,
    Zoom,
    Close,
}

#[derive(Debug, Clone, Default)]
pub struct Hits {
    /// Rectangles of clickable chrome, last drawn on top.
    pub targets: Vec<(Rect, Target)>,
}

/// A project tape found where the focused window's program works: exactly the bytes that
/// would run, and their hash (what trust is bound to).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TapeOffer {
    pub path: std::path::PathBuf,
    pub sha256: String,
    pub content: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TapeDialog {
    pub offer: TapeOffer,
    pub scroll: usize,
}

/// What the user decided about a project tape, for the run loop to carry out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TapeDecision {
    Run(TapeOffer),
    TrustAndRun(TapeOffer),
    Never(std::path::PathBuf),
}

/// A session as `list-sessions` reports it, with what the session rail shows of it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RailSession {
    pub name: String,
    pub windows: usize,
    pub attached: bool,
    pub accent: String,
}
