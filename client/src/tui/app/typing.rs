//! Terminal input: keys by mode, overlays (prompts, dialogs, confirmations), pastes.

use super::*;

impl App {
    pub fn on_resize(&mut self, cols: u16, rows: u16) {
        self.term = (cols, rows);
        self.out.push(ClientOp::Resize {
            width: cols,
            height: rows,
        });
        self.relayout();
        self.dirty = true;
    }

    pub fn on_input(&mut self, ev: InputEvent) {
        match ev {
            InputEvent::Key(k) => self.on_key(k),
            InputEvent::Mouse(m) => self.on_mouse(m),
            InputEvent::Paste(text) => self.on_paste(text),
            InputEvent::Resized { cols, rows } => self.on_resize(
                cols.min(u16::MAX as usize) as u16,
                rows.min(u16::MAX as usize) as u16,
            ),
            InputEvent::PixelMouse(_) | InputEvent::Wake => {}
        }
        self.sync_tray();
    }

    pub(super) fn is_focus_return(&self, ev: &KeyEvent) -> bool {
        self.router.focus_return.iter().any(|c| c.matches(ev))
    }

    pub(super) fn on_key(&mut self, ev: KeyEvent) {
        if self.settings.show_key_events {
            let label =
                super::super::keys::KeyChord::new(ev.key, normalize_mods(ev.modifiers)).label();
            self.keycast.push_back(label);
            while self.keycast.len() > KEYCAST_KEYS {
                self.keycast.pop_front();
            }
        }
        self.key(ev);
        self.note_leader(Instant::now());
        self.sync_tray();
    }

    /// Starts (or ends) the wait the which-key popup comes after: it shows only if the leader
    /// waits a moment for its key, so typing leader and key together never flashes it.
    pub(super) fn note_leader(&mut self, now: Instant) {
        if self.router.leader_armed {
            self.leader_at.get_or_insert(now);
        } else {
            self.leader_at = None;
            if self.whichkey_shown {
                self.whichkey_shown = false;
                self.dirty = true;
            }
        }
    }

    pub(super) fn key(&mut self, ev: KeyEvent) {
        let was_dirty = self.dirty;
        self.dirty = true;
        // The focus-return chord comes before any dialog, binding or window.
        if self.is_focus_return(&ev) {
            self.router.route(&ev);
            if matches!(self.overlay, Overlay::Prompt(_) | Overlay::Help) {
                self.overlay = Overlay::None;
            }
            self.flash("window management mode");
            return;
        }
        if self.overlay != Overlay::None {
            self.overlay_key(&ev);
            return;
        }
        if let Some(copy) = &mut self.copy {
            match copy.key(&ev) {
                CopyOutcome::Stay => self.fetch_scrollback(),
                CopyOutcome::Exit => self.copy = None,
                CopyOutcome::Search(ask) => self.search_ask = Some(ask),
                CopyOutcome::Yank(text) => {
                    self.copy = None;
                    self.yank(text);
                }
            }
            return;
        }
        match self.router.route(&ev) {
            KeyRoute::FocusReturn => {}
            KeyRoute::Action(a) => self.action(a),
            KeyRoute::Window(ev) => {
                // A key typed into a window changes nothing on screen until the window echoes
                // it, and that screen update redraws: no frame spent (and no delay) before it.
                self.dirty = was_dirty;
                self.key_to_window(None, &ev);
            }
            KeyRoute::LeaderArmed | KeyRoute::MovePending => {}
            // Escape dismisses sticky errors; with nothing to cancel it is not worth a complaint.
            KeyRoute::Unbound(KeyEvent {
                key: KeyCode::Escape,
                ..
            }) => {
                self.dismiss_sticky();
            }
            KeyRoute::Unbound(ev) => {
                let chord = KeyChord::new(ev.key, normalize_mods(ev.modifiers)).label();
                let leader = self.leader().label();
                self.flash(format!("{chord} is not bound; {leader} ? lists the keys"));
            }
        }
    }

    pub(super) fn key_to_window(&mut self, target: Option<&str>, ev: &KeyEvent) {
        let id = match target {
            Some(t) => Some(t.to_string()),
            None => self.focused_id(),
        };
        let Some(id) = id else {
            self.flash("no window to type into; c opens one");
            return;
        };
        let modes = self.window(&id).map(|w| w.modes).unwrap_or_default();
        let bytes = encode_key(ev.key, ev.modifiers, &modes);
        self.input(&id, &bytes);
    }

    pub(super) fn overlay_key(&mut self, ev: &KeyEvent) {
        let mods = normalize_mods(ev.modifiers);
        match &mut self.overlay {
            Overlay::None => {}
            Overlay::Help => self.overlay = Overlay::None,
            Overlay::Confirm { .. } => {
                self.confirm(matches!(ev.key, KeyCode::Char('y') | KeyCode::Char('Y')))
            }
            Overlay::Prompt(p) => match ev.key {
                KeyCode::Escape => self.overlay = Overlay::None,
                KeyCode::Char('c') | KeyCode::Char('g') if mods == Modifiers::CTRL => {
                    self.overlay = Overlay::None
                }
                KeyCode::Char('u') if mods == Modifiers::CTRL => p.buffer.clear(),
                KeyCode::Backspace => {
                    p.buffer.pop();
                }
                KeyCode::Enter => {
                    let p = p.clone();
                    self.overlay = Overlay::None;
                    self.submit_prompt(p);
                }
                KeyCode::Char(c) if !c.is_control() && (mods - Modifiers::SHIFT).is_empty() => {
                    p.buffer.push(c)
                }
                _ => {}
            },
            Overlay::Link(d) => {
                let choice = match ev.key {
                    KeyCode::Char('o') | KeyCode::Char('O') => Some("open"),
                    KeyCode::Char('c') | KeyCode::Char('C') => Some("copy"),
                    KeyCode::Escape | KeyCode::Char('n') | KeyCode::Char('q') => Some(""),
                    key => {
                        scroll_by_key(key, &mut d.scroll);
                        None
                    }
                };
                if let Some(choice) = choice {
                    self.link_choice(choice);
                }
            }
            Overlay::Tape(d) => {
                let choice = match ev.key {
                    KeyCode::Char('r') | KeyCode::Char('R') => Some("run"),
                    KeyCode::Char('t') => Some("trust"),
                    KeyCode::Char('n') | KeyCode::Char('N') => Some("never"),
                    KeyCode::Escape | KeyCode::Char('q') => Some(""),
                    key => {
                        scroll_by_key(key, &mut d.scroll);
                        None
                    }
                };
                if let Some(choice) = choice {
                    self.tape_choice(choice);
                }
            }
            Overlay::Paste(d) => {
                let choice = match ev.key {
                    KeyCode::Char('p') | KeyCode::Char('P') => Some("send"),
                    KeyCode::Char('o') | KeyCode::Char('O') => Some("one-line"),
                    KeyCode::Char('k') | KeyCode::Char('K') if d.has_controls => {
                        Some("keep-controls")
                    }
                    KeyCode::Escape | KeyCode::Char('c') | KeyCode::Char('n') => Some(""),
                    key => {
                        scroll_by_key(key, &mut d.scroll);
                        None
                    }
                };
                if let Some(choice) = choice {
                    self.paste_choice(choice);
                }
            }
        }
    }

    /// Closes the yes/no question; runs its action on yes.
    pub(super) fn confirm(&mut self, yes: bool) {
        let Overlay::Confirm { yes: action, .. } =
            std::mem::replace(&mut self.overlay, Overlay::None)
        else {
            return;
        };
        if yes {
            match action {
                Confirmed::Close(id) => self.command("CloseWindow", &[&id]),
            }
        }
    }

    /// A click on a linked cell: refused with a notice unless the policy allows its scheme,
    /// else the confirmation opens. Nothing is opened or copied without the user's answer.
    pub(super) fn activate_link(&mut self, url: String) {
        if let Err(why) = protocol::lumen::link_allowed(&url, &self.links.schemes) {
            let path = config::options::policy_file_path();
            self.notice(
                NoticeLevel::Warning,
                format!(
                    "{why}; allowed: {} (set [links] schemes in {})",
                    self.links.schemes.join(", "),
                    path.display()
                ),
            );
            return;
        }
        let shown = protocol::lumen::escape_url_for_display(&url);
        self.overlay = Overlay::Link(LinkDialog {
            url,
            shown,
            scroll: 0,
        });
    }

    pub(super) fn link_choice(&mut self, choice: &str) {
        let Overlay::Link(d) = std::mem::replace(&mut self.overlay, Overlay::None) else {
            return;
        };
        match choice {
            "open" => {
                self.flash("opening the link");
                self.open_links.push(d.url);
            }
            "copy" => self.yank(d.url),
            _ => {}
        }
    }

    pub(super) fn paste_choice(&mut self, choice: &str) {
        let Overlay::Paste(d) = std::mem::replace(&mut self.overlay, Overlay::None) else {
            return;
        };
        if !choice.is_empty() {
            self.out.push(ClientOp::Paste {
                window: d.window,
                data: d.data,
                choice: choice.to_string(),
            });
        }
        self.last_paste = None;
    }

    pub(super) fn submit_prompt(&mut self, p: Prompt) {
        match p.kind {
            PromptKind::Rename(id) => {
                let name = p.buffer.trim();
                if !name.is_empty() {
                    self.command("RenameWindow", &[&id, name]);
                }
            }
            PromptKind::Command => {
                let words = split_words(&p.buffer);
                let Some((name, args)) = words.split_first() else {
                    return;
                };
                match self.run_command(name, args, None) {
                    Ok(_) => {}
                    Err(e) => self.notice(NoticeLevel::Error, e),
                }
            }
        }
    }

    pub(super) fn on_paste(&mut self, text: String) {
        self.dirty = true;
        match &mut self.overlay {
            Overlay::Prompt(p) => {
                // Prompts are one line: controls become spaces.
                p.buffer
                    .extend(text.chars().map(|c| if c.is_control() { ' ' } else { c }));
                return;
            }
            Overlay::None => {}
            _ => return,
        }
        if self.copy.is_some() {
            return;
        }
        let Some(id) = self.focused_id() else {
            self.flash("no window to paste into");
            return;
        };
        let data = text.into_bytes();
        self.last_paste = Some((id.clone(), data.clone()));
        self.out.push(ClientOp::Paste {
            window: id,
            data,
            choice: String::new(),
        });
    }
}

/// The keys that scroll a dialog's text: arrows by a line, page keys by ten.
fn scroll_by_key(key: KeyCode, scroll: &mut usize) {
    match key {
        KeyCode::UpArrow => *scroll = scroll.saturating_sub(1),
        KeyCode::DownArrow => *scroll += 1,
        KeyCode::PageUp => *scroll = scroll.saturating_sub(10),
        KeyCode::PageDown => *scroll += 10,
        _ => {}
    }
}
