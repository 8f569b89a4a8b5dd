//! The mouse: focus, resize and move by drag, the wheel, clicks on the dock and dialogs, and reports to windows that asked for them.

use super::*;

impl App {
    pub(super) fn on_mouse(&mut self, m: MouseEvent) {
        // Reports are 1-based.
        let (x, y) = (m.x.saturating_sub(1), m.y.saturating_sub(1));
        let b = m.mouse_buttons.bits();
        if b & MouseButtons::VERT_WHEEL.bits() != 0 {
            let up = b & MouseButtons::WHEEL_POSITIVE.bits() != 0;
            self.on_wheel(x, y, up, m.modifiers);
            return;
        }
        let held = b & BUTTON_BITS;
        if held == 0 && self.buttons == 0 {
            self.hover_rail(x, y, std::time::Instant::now());
        }
        let prev = std::mem::replace(&mut self.buttons, held);
        let buttons = [
            (MouseButtons::LEFT.bits(), 0u8),
            (MouseButtons::MIDDLE.bits(), 1),
            (MouseButtons::RIGHT.bits(), 2),
        ];
        let find =
            |test: &dyn Fn(u8) -> bool| buttons.iter().find(|(bit, _)| test(*bit)).map(|p| p.1);
        if let Some(n) = find(&|bit| held & bit != 0 && prev & bit == 0) {
            self.on_press(x, y, n, m.modifiers);
        } else if let Some(n) = find(&|bit| held & bit == 0 && prev & bit != 0) {
            self.on_release(x, y, n, m.modifiers);
        } else if let Some(n) = find(&|bit| held & bit != 0) {
            self.on_drag(x, y, n, m.modifiers);
        } else if held == 0 && prev == 0 {
            self.on_hover(x, y);
        }
    }

    /// Motion with no button held: the dock's workspace tooltip, and focus following the
    /// mouse when that is on.
    fn on_hover(&mut self, x: u16, y: u16) {
        self.hover_tooltip(x, y);
        self.hover_focus(x, y);
    }

    /// Motion with no button: only the dock's workspace tooltip cares, so a frame is drawn
    /// only when the pointer enters or leaves a workspace tab.
    fn hover_tooltip(&mut self, x: u16, y: u16) {
        let tab = |at: Option<(u16, u16)>, hits: &Hits| {
            let (x, y) = at?;
            hits.targets
                .iter()
                .rev()
                .find(|(r, _)| r.contains(x, y))
                .and_then(|(_, t)| match t {
                    Target::Workspace(n) => Some(*n),
                    _ => None,
                })
        };
        let before = tab(self.hover, &self.hits);
        self.hover = Some((x, y));
        if self.settings.ws_tooltip && tab(self.hover, &self.hits) != before {
            self.dirty = true;
        }
    }

    /// Motion with no button held (the outer terminal reports all motion: termwiz turns on
    /// DECSET 1003 with raw mode). `appearance.focus_follows_mouse` focuses the window under
    /// the pointer; not while a dialog or copy mode holds the screen.
    fn hover_focus(&mut self, x: u16, y: u16) {
        if !self.settings.focus_follows_mouse
            || self.overlay != Overlay::None
            || self.copy.is_some()
            || self.drag.is_some()
        {
            return;
        }
        let title_top = self.settings.title != Edge::Bottom;
        let Some((i, _)) = hit(&self.frames, x, y, self.bordered(), title_top) else {
            return;
        };
        let id = self.frames[i].id.clone();
        if self.session.focused.as_deref() != Some(id.as_str()) {
            self.focus(&id);
            self.dirty = true;
        }
    }

    pub(super) fn on_wheel(&mut self, x: u16, y: u16, up: bool, mods: Modifiers) {
        let bordered = self.bordered();
        let at = hit(
            &self.frames,
            x,
            y,
            bordered,
            self.settings.title != Edge::Bottom,
        );
        // Over a scrolling strip the wheel walks the columns when it is on a frame's edge or
        // held with shift; inside a window it stays the window's.
        let ws = self.session.current_workspace;
        let on_edge = matches!(at, Some((_, Part::Title | Part::Border)));
        if self.overlay == Overlay::None
            && (on_edge || (at.is_some() && mods.contains(Modifiers::SHIFT)))
            && self.layout.tiles_strip(ws)
        {
            let dir = wheel_direction(up, self.settings.niri_reverse_scroll);
            // At either end of the strip there is no column further, and a notch does nothing.
            let _ = self.focus_direction(dir);
            return;
        }
        let Some((i, Part::Content { col, row })) = at else {
            return;
        };
        let id = self.frames[i].id.clone();
        if self.copy.as_ref().is_some_and(|c| c.window == id) {
            self.scroll_copy(up);
            return;
        }
        if self.overlay != Overlay::None {
            return;
        }
        let modes = self.window(&id).map(|w| w.modes).unwrap_or_default();
        if modes.mouse {
            let action = if up {
                MouseAction::WheelUp
            } else {
                MouseAction::WheelDown
            };
            let bytes = encode_mouse(action, col, row, mods, modes.sgr_mouse);
            self.input(&id, &bytes);
        } else if modes.alt_screen {
            // Full-screen programs without mouse reporting get arrow keys, as terminals do.
            let key = if up {
                KeyCode::UpArrow
            } else {
                KeyCode::DownArrow
            };
            for _ in 0..self.settings.scroll_lines {
                let bytes = encode_key(key, Modifiers::NONE, &modes);
                self.input(&id, &bytes);
            }
        } else if up {
            self.focus(&id);
            self.enter_copy(&id, true);
            self.scroll_copy(true);
        }
    }

    pub(super) fn scroll_copy(&mut self, up: bool) {
        let n = isize::from(self.settings.scroll_lines as i16);
        if let Some(c) = &mut self.copy {
            if c.scroll(if up { -n } else { n }) == CopyOutcome::Exit {
                self.copy = None;
            }
        }
        self.fetch_scrollback();
        self.dirty = true;
    }

    pub(super) fn on_press(&mut self, x: u16, y: u16, button: u8, mods: Modifiers) {
        self.dirty = true;
        if let Some(t) = self
            .hits
            .targets
            .iter()
            .rev()
            .find(|(r, _)| r.contains(x, y))
            .map(|(_, t)| t.clone())
        {
            if button == 0 {
                self.click_target(t);
            }
            return;
        }
        if self.overlay != Overlay::None {
            // Clicks outside a dialog do nothing; it wants an answer.
            return;
        }
        let ws = self.session.current_workspace;
        let bordered = self.bordered();
        let title_top = self.settings.title != Edge::Bottom;
        if button == 0 && self.layout.tiles_bsp(ws) && bordered {
            if let Some(tree) = self.layout.workspace(ws).and_then(|w| w.tree.clone()) {
                let zoomed = self.layout.workspace(ws).and_then(|w| w.zoomed.clone());
                let content_hit = matches!(
                    hit(&self.frames, x, y, bordered, title_top),
                    Some((_, Part::Content { .. }))
                );
                if zoomed.is_none() && !content_hit {
                    if let Some(handle) = split_handle_at(&tree, self.windows_area(), x, y) {
                        self.drag = Some(Drag::Split { ws, handle });
                        return;
                    }
                }
            }
        }
        let Some((i, part)) = hit(&self.frames, x, y, bordered, title_top) else {
            return;
        };
        let id = self.frames[i].id.clone();
        match part {
            // appearance.alt_drag: alt plus a left drag anywhere on a floating window moves it,
            // as a drag on its title does; the program does not see that click.
            Part::Content { .. }
                if button == 0
                    && self.settings.alt_drag
                    && normalize_mods(mods).contains(Modifiers::ALT)
                    && !self.layout.tiling(ws) =>
            {
                self.focus(&id);
                let start = self.frames[i].rect;
                self.drag = Some(Drag::Move {
                    ws,
                    id,
                    grab: (x, y),
                    start,
                });
            }
            Part::Content { col, row } => {
                let was_focused = self.session.focused.as_deref() == Some(id.as_str());
                if self.copy.as_ref().is_some_and(|c| c.window != id) {
                    self.copy = None;
                }
                let wm = self.router.mode == InputMode::WindowManagement;
                self.focus(&id);
                let modes = self.window(&id).map(|w| w.modes).unwrap_or_default();
                // Shift takes the mouse back from a program that reports it, as terminals do.
                let shift = normalize_mods(mods).contains(Modifiers::SHIFT);
                if self.copy.is_some() {
                    if button == 0 {
                        self.select_press(&id, col, row, true);
                    }
                    return;
                }
                // Ctrl+click, or any left click in window management mode, on a linked cell
                // asks to open the link; the program does not see that click.
                if button == 0 && (wm || normalize_mods(mods).contains(Modifiers::CTRL)) {
                    let url = self
                        .screens
                        .get(&id)
                        .and_then(|s| s.lines.get(usize::from(row)))
                        .and_then(|r| link_at(r, col))
                        .map(str::to_owned);
                    if let Some(url) = url {
                        self.activate_link(url);
                        return;
                    }
                }
                if button == 0 && (!modes.mouse || shift) {
                    self.select_press(&id, col, row, !wm);
                    if self.copy.is_some() {
                        // A double click selected a word.
                        return;
                    }
                }
                if was_focused && modes.mouse && !shift && self.router.mode == InputMode::Terminal {
                    let bytes =
                        encode_mouse(MouseAction::Press(button), col, row, mods, modes.sgr_mouse);
                    self.input(&id, &bytes);
                    self.mouse_capture = Some(id.clone());
                }
                // appearance.click_to_type: what a click on content does in window management.
                let enter = match self.settings.click_to_type.as_str() {
                    "off" => false,
                    "double" => {
                        let now = Instant::now();
                        let again = self.last_content_click.as_ref().is_some_and(|(w, at)| {
                            *w == id && now.duration_since(*at) <= DOUBLE_CLICK
                        });
                        self.last_content_click = (!again).then(|| (id.clone(), now));
                        again
                    }
                    _ => true,
                };
                if !wm || enter {
                    self.router.mode = InputMode::Terminal;
                }
            }
            Part::Title | Part::Border => {
                self.focus(&id);
                if button == 0 && part == Part::Title && !self.layout.tiling(ws) {
                    let start = self.frames[i].rect;
                    self.drag = Some(Drag::Move {
                        ws,
                        id,
                        grab: (x, y),
                        start,
                    });
                }
            }
        }
    }

    pub(super) fn on_drag(&mut self, x: u16, y: u16, button: u8, mods: Modifiers) {
        match self.drag.clone() {
            Some(Drag::Split { ws, handle }) => {
                if self
                    .layout
                    .set_ratio(ws, &handle.path, handle.ratio_at(x, y))
                {
                    self.relayout();
                    self.dirty = true;
                }
            }
            Some(Drag::Move {
                ws,
                id,
                grab,
                start,
            }) => {
                let area = self.windows_area();
                let nx = i32::from(start.x) + i32::from(x) - i32::from(grab.0);
                let ny = i32::from(start.y) + i32::from(y) - i32::from(grab.1);
                let moved = Rect::new(
                    nx.clamp(0, i32::from(u16::MAX)) as u16,
                    ny.clamp(0, i32::from(u16::MAX)) as u16,
                    start.w,
                    start.h,
                )
                .clamped_to(area);
                let wl = self.layout.workspace_mut(ws);
                if wl.floating.get(&id) != Some(&moved) {
                    wl.floating.insert(id, moved);
                    self.relayout();
                    self.dirty = true;
                }
            }
            None => {
                if !self.select_drag(x, y) {
                    self.mouse_to_capture(x, y, MouseAction::Drag(button), mods)
                }
            }
        }
    }

    pub(super) fn on_release(&mut self, x: u16, y: u16, button: u8, mods: Modifiers) {
        if self.drag.take().is_some() {
            self.push_layout();
            return;
        }
        if self.select_release() {
            self.mouse_capture = None;
            return;
        }
        self.mouse_to_capture(x, y, MouseAction::Release(button), mods);
        self.mouse_capture = None;
    }

    /// Drag and release go to the window the press went to, clamped to its content.
    pub(super) fn mouse_to_capture(
        &mut self,
        x: u16,
        y: u16,
        action: MouseAction,
        mods: Modifiers,
    ) {
        let Some(id) = self.mouse_capture.clone() else {
            return;
        };
        let bordered = self.bordered();
        let Some(f) = self.frames.iter().find(|f| f.id == id) else {
            return;
        };
        let c = content_rect(f.rect, bordered);
        if c.is_empty() {
            return;
        }
        let col = x.clamp(c.x, c.right() - 1) - c.x;
        let row = y.clamp(c.y, c.bottom() - 1) - c.y;
        let modes = self.window(&id).map(|w| w.modes).unwrap_or_default();
        if modes.mouse {
            let bytes = encode_mouse(action, col, row, mods, modes.sgr_mouse);
            self.input(&id, &bytes);
        }
    }

    pub(super) fn click_target(&mut self, t: Target) {
        match t {
            Target::Workspace(n) => {
                if n != self.session.current_workspace {
                    self.command("SwitchWorkspace", &[&n.to_string()]);
                }
            }
            Target::Window(id) => {
                if self.window(&id).is_some_and(|w| w.minimized) {
                    self.command("RestoreWindow", &[&id]);
                    self.command("FocusWindow", &[&id]);
                } else {
                    self.focus(&id);
                }
            }
            Target::PasteChoice(c) => self.paste_choice(c),
            Target::TapeChoice(c) => self.tape_choice(c),
            Target::LinkChoice(c) => self.link_choice(c),
            Target::Confirm(yes) => self.confirm(yes),
            // A button acts on its own window, as the key would on the focused one; close
            // asks first, as the key does.
            Target::Button(id, k) => {
                if self.overlay != Overlay::None {
                    return;
                }
                self.focus(&id);
                self.action(match k {
                    WinButton::Minimize => Action::Minimize,
                    WinButton::Zoom => Action::ToggleZoom,
                    WinButton::Close => Action::CloseWindow,
                });
            }
        }
    }
}
