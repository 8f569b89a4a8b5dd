//! Bound actions: what a key binding or a click asks for.

use super::*;

impl App {
    pub(super) fn action(&mut self, a: Action) {
        self.dirty = true;
        let ws = self.session.current_workspace;
        match a {
            Action::NewWindow => {
                let placement = self.preselect.take().and_then(|d| {
                    let (axis, new_first) = d.placement();
                    self.focused_id().map(|target| Placement {
                        target,
                        axis,
                        new_first,
                    })
                });
                self.new_window(placement, None, None, String::new());
            }
            Action::SplitVertical | Action::SplitHorizontal => {
                let axis = if a == Action::SplitVertical {
                    Axis::Vertical
                } else {
                    Axis::Horizontal
                };
                let placement = self.focused_id().map(|target| Placement {
                    target,
                    axis,
                    new_first: false,
                });
                self.new_window(placement, None, None, axis.as_str().to_string());
            }
            Action::CloseWindow => {
                // A window whose program already ended has nothing to lose: closed at once,
                // unless confirm_quit asks for the question every time.
                if let Some(w) = self
                    .focused()
                    .filter(|w| !w.alive && !self.settings.confirm_quit)
                {
                    let id = w.id.clone();
                    self.command("CloseWindow", &[&id]);
                } else if let Some(w) = self.focused() {
                    let text = format!("close window {}? its program ends (y/n)", title_of(w));
                    self.overlay = Overlay::Confirm {
                        text,
                        yes: Confirmed::Close(w.id.clone()),
                    };
                }
            }
            Action::NextWindow => self.command("NextWindow", &[]),
            Action::PrevWindow => self.command("PrevWindow", &[]),
            Action::Workspace(n) => {
                if i64::from(n) <= self.session.num_workspaces.max(1) {
                    self.command("SwitchWorkspace", &[&n.to_string()]);
                }
            }
            Action::MoveToWorkspace(n) => {
                if self.focused().is_some() && i64::from(n) <= self.session.num_workspaces.max(1) {
                    self.command("MoveToWorkspace", &[&n.to_string()]);
                }
            }
            Action::MoveToWorkspacePrompt => {}
            Action::Detach => self.out.push(ClientOp::Detach),
            Action::Rename => {
                if let Some(w) = self.focused() {
                    self.overlay = Overlay::Prompt(Prompt {
                        kind: PromptKind::Rename(w.id.clone()),
                        buffer: w.display_name.clone(),
                    });
                }
            }
            Action::ToggleZoom => {
                if let Some(id) = self.focused_id() {
                    let wl = self.layout.workspace_mut(ws);
                    wl.zoomed = if wl.zoomed.as_deref() == Some(id.as_str()) {
                        None
                    } else {
                        Some(id)
                    };
                    self.push_layout();
                    self.relayout();
                }
            }
            Action::CopyMode => {
                if let Some(id) = self.focused_id() {
                    self.enter_copy(&id, false);
                }
            }
            Action::ToggleTiling => self.set_tiling(ws, None),
            Action::CycleLayout => {
                let next = self.layout.mode(ws).next();
                self.layout.workspace_mut(ws).mode = next;
                // Cycling from floating shows the layout it lands on.
                self.layout.workspace_mut(ws).tiling = true;
                self.push_layout();
                self.relayout();
                self.flash(next.as_str());
            }
            Action::RotateSplit => {
                if let Some(id) = self.focused_id() {
                    if self.layout.rotate(ws, &id) {
                        self.push_layout();
                        self.relayout();
                    } else {
                        self.flash("nothing to rotate: this pane is not split");
                    }
                }
            }
            Action::Equalize => {
                self.layout.equalize(ws);
                self.push_layout();
                self.relayout();
            }
            Action::Focus(dir) => {
                if let Err(e) = self.focus_direction(dir) {
                    self.flash(e);
                }
            }
            Action::Minimize => {
                if let Some(id) = self.focused_id() {
                    self.command("MinimizeWindow", &[&id]);
                    // The daemon leaves focus on the minimized window; hand it to a visible one.
                    let next = self
                        .frames
                        .iter()
                        .rfind(|f| f.id != id)
                        .map(|f| f.id.clone());
                    if let Some(next) = next {
                        self.focus(&next);
                    }
                }
            }
            Action::RestoreMinimized => {
                let last = self
                    .session
                    .windows
                    .iter()
                    .rev()
                    .find(|w| w.workspace == ws && w.minimized)
                    .map(|w| w.id.clone());
                match last {
                    Some(id) => {
                        self.command("RestoreWindow", &[&id]);
                        self.command("FocusWindow", &[&id]);
                    }
                    None => self.flash("no minimized windows on this workspace"),
                }
            }
            Action::Help => self.overlay = Overlay::Help,
            Action::ReviewTape => self.review_tape(),
            Action::CommandPrompt => {
                self.overlay = Overlay::Prompt(Prompt {
                    kind: PromptKind::Command,
                    buffer: String::new(),
                })
            }
            Action::TerminalMode => {
                self.router.mode = InputMode::Terminal;
                if self.focused().is_none() {
                    self.flash("no window here yet; c opens one");
                }
            }
            Action::WindowManagementMode => self.router.mode = InputMode::WindowManagement,
            Action::SendLeader => {
                let ev = self.leader().event();
                self.key_to_window(None, &ev);
            }
        }
    }

    /// Asks the daemon for a window, to be placed per `placement` when it appears.
    pub(super) fn new_window(
        &mut self,
        placement: Option<Placement>,
        name: Option<String>,
        request: Option<u64>,
        direction: String,
    ) {
        if let Some(old) = self.pending.take() {
            if let Some(req) = old.request {
                self.reply(req, Ok(Some(json!({"direction": old.direction}))));
            }
        }
        self.pending = Some(PendingSplit {
            placement,
            known: self.session.windows.iter().map(|w| w.id.clone()).collect(),
            request,
            direction,
            name: name.clone(),
            deadline: Instant::now() + SPLIT_WAIT,
        });
        match &name {
            Some(n) => self.command("NewWindow", &[n]),
            None => self.command("NewWindow", &[]),
        }
    }

    pub(super) fn set_tiling(&mut self, ws: i64, on: Option<bool>) {
        let wl = self.layout.workspace_mut(ws);
        let on = on.unwrap_or(!wl.tiling);
        if wl.tiling != on {
            wl.tiling = on;
            self.push_layout();
            self.relayout();
        }
        self.flash(if on { "tiling" } else { "floating" });
    }

    pub(super) fn focus_direction(&mut self, dir: Direction) -> Result<String, String> {
        let from = self
            .focused_id()
            .ok_or_else(|| "no window is focused on this workspace".to_string())?;
        let ws = self.session.current_workspace;
        let zoomed = self
            .layout
            .workspace(ws)
            .is_some_and(|w| w.zoomed.is_some());
        // The strip's columns out of view have no frame, so they are found by order instead.
        let to = if self.layout.tiles_strip(ws) && !zoomed {
            self.layout.strip_neighbour(ws, &from, dir)
        } else {
            neighbour(&self.frames, &from, dir)
        }
        .ok_or_else(|| format!("no window to the {}", dir.as_str()))?;
        self.focus(&to);
        Ok(to)
    }

    pub(super) fn focus(&mut self, id: &str) {
        if self.session.focused.as_deref() != Some(id) {
            // Shown at once; the daemon's state confirms it.
            self.session.focused = Some(id.to_string());
            self.command("FocusWindow", &[id]);
            self.relayout();
        }
    }

    pub(super) fn enter_copy(&mut self, id: &str, via_wheel: bool) {
        let bordered = self.bordered();
        let Some(f) = self.frames.iter().find(|f| f.id == id) else {
            return;
        };
        let c = content_rect(f.rect, bordered);
        let screen = self.screens.get(id).cloned().unwrap_or_default();
        let cursor = (usize::from(screen.cursor.0), usize::from(screen.cursor.1));
        self.copy = Some(CopyMode::new(
            id,
            screen.lines,
            cursor,
            usize::from(c.w),
            usize::from(c.h),
            via_wheel,
        ));
        self.fetch_scrollback();
        self.dirty = true;
    }

    pub(super) fn fetch_scrollback(&mut self) {
        if let Some(op) = self.copy.as_mut().and_then(CopyMode::wanted) {
            self.out.push(op);
        }
    }

    pub(super) fn yank(&mut self, text: String) {
        if text.is_empty() {
            self.flash("nothing to copy");
            return;
        }
        let n = text.chars().count();
        self.clipboard.push(text);
        self.flash(format!("copied {n} characters to the clipboard"));
    }
}
