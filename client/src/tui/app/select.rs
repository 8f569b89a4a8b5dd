//! Mouse selection: a left drag over a window's content (shift+drag where the program reports
//! the mouse) selects with copy mode's selection, so it is drawn highlighted while it grows; a
//! double click selects a word (`appearance.word_characters`). On release the text goes to the
//! clipboard when `appearance.copy_on_select` is on; otherwise copy mode stays open holding it,
//! for `y`.

use super::*;

#[derive(Debug, Default)]
pub(super) struct MouseSelect {
    /// Where the left press that may start a selection landed: window, content column, row.
    press: Option<(String, u16, u16)>,
    /// A drag or a double click made a selection that the release finishes.
    active: bool,
    /// The last such press, for double clicks.
    last_click: Option<(String, (u16, u16), Instant)>,
}

impl App {
    /// A left press on content that may start a selection; `words`: a double click here may
    /// select a word.
    pub(super) fn select_press(&mut self, id: &str, col: u16, row: u16, words: bool) {
        let now = Instant::now();
        let double = words
            && self.select.last_click.as_ref().is_some_and(|(w, at, t)| {
                w == id && *at == (col, row) && now.duration_since(*t) <= DOUBLE_CLICK
            });
        self.select.last_click = (!double).then(|| (id.to_string(), (col, row), now));
        self.select.press = Some((id.to_string(), col, row));
        self.select.active = false;
        if !double {
            return;
        }
        let entered = self.copy.as_ref().is_none_or(|c| c.window != id);
        if entered {
            self.enter_copy(id, false);
        }
        let extra = self.settings.word_characters.clone();
        let found = self
            .copy
            .as_mut()
            .is_some_and(|c| c.select_word(usize::from(row), usize::from(col), &extra));
        if found {
            self.select.active = true;
        } else if entered {
            self.copy = None;
        }
        self.dirty = true;
    }

    /// A drag after such a press: true when it is a selection's (the program does not see it).
    pub(super) fn select_drag(&mut self, x: u16, y: u16) -> bool {
        let Some((id, col0, row0)) = self.select.press.clone() else {
            return false;
        };
        let Some(f) = self.frames.iter().find(|f| f.id == id) else {
            return false;
        };
        let c = content_rect(f.rect, self.bordered());
        if c.is_empty() {
            return false;
        }
        let col = x.clamp(c.x, c.right() - 1) - c.x;
        let row = y.clamp(c.y, c.bottom() - 1) - c.y;
        if !self.select.active {
            if (col, row) == (col0, row0) {
                return true;
            }
            if self.copy.as_ref().is_none_or(|c| c.window != id) {
                self.enter_copy(&id, false);
            }
            if let Some(c) = &mut self.copy {
                c.mouse_anchor(usize::from(row0), usize::from(col0));
            }
            self.select.active = true;
        }
        if let Some(c) = &mut self.copy {
            c.mouse_to(usize::from(row), usize::from(col));
        }
        self.dirty = true;
        true
    }

    /// The release: true when it finished a selection.
    pub(super) fn select_release(&mut self) -> bool {
        self.select.press = None;
        if !std::mem::take(&mut self.select.active) {
            return false;
        }
        if self.settings.copy_on_select {
            if let Some(c) = self.copy.take() {
                self.yank(c.selected_text());
            }
        }
        self.dirty = true;
        true
    }
}
