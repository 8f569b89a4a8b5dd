//! Side effects of fed output (replies, title, bell, mode switches) and the modes a client
//! needs: alacritty's events are collected while feeding and turned into `Effects` after.

use std::sync::{Arc, Mutex, MutexGuard};

use alacritty_terminal::event::{Event, EventListener};
use alacritty_terminal::term::TermMode;
use alacritty_terminal::vte::ansi::Rgb;

/// Side effects of the output fed since the last `take_effects`.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Effects {
    /// Answers to DA / DSR / DECRQM / colour queries, to be written back to the PTY.
    pub pty_replies: Vec<u8>,
    pub title_changed: bool,
    pub bells: u32,
    /// Mode switches in the order they happened.
    pub mode_changes: Vec<(Mode, bool)>,
    /// History lines dropped for a byte budget (memory without a history file, or disk).
    pub history_dropped: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    AltScreen,
    BracketedPaste,
    AppCursor,
    MouseReporting,
    FocusReporting,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::AltScreen => "alt-screen",
            Mode::BracketedPaste => "bracketed-paste",
            Mode::AppCursor => "app-cursor",
            Mode::MouseReporting => "mouse",
            Mode::FocusReporting => "focus",
        }
    }
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Modes {
    pub alt_screen: bool,
    pub bracketed_paste: bool,
    pub app_cursor: bool,
    pub mouse: bool,
    /// Always false: focus reporting (1004) is refused by policy (DESIGN, Lumen input rules).
    pub focus: bool,
}

impl Modes {
    pub(crate) fn of(mode: TermMode) -> Modes {
        Modes {
            alt_screen: mode.contains(TermMode::ALT_SCREEN),
            bracketed_paste: mode.contains(TermMode::BRACKETED_PASTE),
            app_cursor: mode.contains(TermMode::APP_CURSOR),
            mouse: mode.intersects(TermMode::MOUSE_MODE),
            focus: mode.contains(TermMode::FOCUS_IN_OUT),
        }
    }

    pub(crate) fn push_changes(before: Modes, after: Modes, out: &mut Vec<(Mode, bool)>) {
        for (mode, a, b) in [
            (Mode::AltScreen, before.alt_screen, after.alt_screen),
            (
                Mode::BracketedPaste,
                before.bracketed_paste,
                after.bracketed_paste,
            ),
            (Mode::AppCursor, before.app_cursor, after.app_cursor),
            (Mode::MouseReporting, before.mouse, after.mouse),
            (Mode::FocusReporting, before.focus, after.focus),
        ] {
            if a != b {
                out.push((mode, b));
            }
        }
    }
}

/// Collects alacritty's events; the emulator turns them into effects after each feed.
#[derive(Clone, Default)]
pub(crate) struct Listener(Arc<Mutex<Vec<Event>>>);

impl Listener {
    pub(crate) fn queue(&self) -> MutexGuard<'_, Vec<Event>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl EventListener for Listener {
    fn send_event(&self, event: Event) {
        if matches!(
            event,
            Event::PtyWrite(_)
                | Event::Title(_)
                | Event::ResetTitle
                | Event::Bell
                | Event::ColorRequest(..)
        ) {
            self.queue().push(event);
        }
    }
}

/// Colours reported to programs that query them (OSC 4/10/11/12) and never set them:
/// the xterm palette on a dark background.
pub(crate) fn default_color(index: usize) -> Rgb {
    const BASE: [(u8, u8, u8); 16] = [
        (0, 0, 0),
        (205, 0, 0),
        (0, 205, 0),
        (205, 205, 0),
        (0, 0, 238),
        (205, 0, 205),
        (0, 205, 205),
        (229, 229, 229),
        (127, 127, 127),
        (255, 0, 0),
        (0, 255, 0),
        (255, 255, 0),
        (92, 92, 255),
        (255, 0, 255),
        (0, 255, 255),
        (255, 255, 255),
    ];
    let level = |v: usize| if v == 0 { 0 } else { (55 + 40 * v) as u8 };
    let (r, g, b) = match index {
        0..=15 => BASE[index],
        16..=231 => {
            let n = index - 16;
            (level(n / 36), level(n / 6 % 6), level(n % 6))
        }
        232..=255 => {
            let v = (8 + 10 * (index - 232)) as u8;
            (v, v, v)
        }
        257 => (0, 0, 0),
        _ => (229, 229, 229),
    };
    Rgb { r, g, b }
}
