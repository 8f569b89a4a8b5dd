//! What the daemon says: attach state, screens, layouts, notices and replies; timers.

use super::*;

impl App {
    pub fn on_daemon(&mut self, msg: DaemonMessage) {
        match msg {
            DaemonMessage::Op(op) => self.on_op(op),
            DaemonMessage::Error { message, .. } => self.notice(NoticeLevel::Error, message),
            // Nothing else is sent to an attached client; ignore what a newer daemon may add.
            _ => {}
        }
    }

    pub fn on_op(&mut self, op: DaemonOp) {
        self.op(op);
        self.sync_tray();
    }

    pub(super) fn op(&mut self, op: DaemonOp) {
        match op {
            DaemonOp::Attached { state } => {
                let first = !self.attached;
                self.attached = true;
                let fresh = state.layout.is_none();
                self.on_state(state);
                if first {
                    self.apply_startup_options(fresh);
                }
            }
            DaemonOp::State { state } => self.on_state(state),
            DaemonOp::Screen(u) => {
                if self.frames.iter().any(|f| f.id == u.window) {
                    let screen = self.screens.entry(u.window.clone()).or_default();
                    let rows = if u.full || (screen.cols, screen.rows) != (u.cols, u.rows) {
                        DamagedRows::All
                    } else {
                        DamagedRows::Rows(u.lines.iter().map(|(i, _)| *i).collect())
                    };
                    let window = u.window.clone();
                    screen.apply(u);
                    // Only these rows (and the cursor) need drawing again.
                    match (self.damage.get_mut(&window), rows) {
                        (Some(DamagedRows::All), _) => {}
                        (Some(DamagedRows::Rows(had)), DamagedRows::Rows(more)) => had.extend(more),
                        (_, rows) => {
                            self.damage.insert(window, rows);
                        }
                    }
                }
            }
            DaemonOp::Scrollback {
                window,
                first,
                rows,
                more,
                oldest,
            } => {
                if let Some(c) = self.copy.as_mut().filter(|c| c.window == window) {
                    c.add_history(first, rows, more, oldest);
                    self.fetch_scrollback();
                    self.dirty = true;
                }
            }
            DaemonOp::Request { request, kind } => self.on_request(request, kind),
            DaemonOp::Notice { level, text } => self.notice(level, text),
            DaemonOp::PasteHeld {
                window,
                preview,
                one_line,
                has_controls,
            } => {
                let data = match &self.last_paste {
                    Some((w, d)) if *w == window => d.clone(),
                    _ => {
                        self.notice(
                            NoticeLevel::Warning,
                            "a paste was held, but this client did not send it; paste again",
                        );
                        return;
                    }
                };
                self.overlay = Overlay::Paste(PasteDialog {
                    window,
                    preview,
                    one_line,
                    has_controls,
                    data,
                    scroll: 0,
                });
                self.dirty = true;
            }
            DaemonOp::SessionEnded { session, reason } => {
                self.exit = Some(Exit::Ended { session, reason })
            }
            DaemonOp::Detached => self.exit = Some(Exit::Detached),
        }
    }

    pub(super) fn on_state(&mut self, state: SessionView) {
        if self.session.version != 0 && state.version != 0 && state.version < self.session.version {
            return;
        }
        if let Some(json) = &state.layout {
            if self.layout_seen.as_ref() != Some(json) {
                if let Some(l) = Layout::from_json(json) {
                    self.layout = l;
                }
                self.layout_seen = Some(json.clone());
            }
        }
        let old_options = std::mem::take(&mut self.session.options);
        self.overrides
            .retain(|path, _| old_options.get(path) == state.options.get(path));
        let options_changed = old_options != state.options;
        self.session = state;
        if options_changed {
            self.resolve_settings();
        }
        self.relayout();
        self.settle_pending();
        self.settle_template();
        self.dirty = true;
    }

    pub(super) fn resolve_settings(&mut self) {
        self.settings = Settings::resolve(&self.session.options, &self.overrides, &mut self.themes);
    }

    /// Answers a pending split once its window exists, or when waiting took too long.
    pub(super) fn settle_pending(&mut self) {
        let Some(p) = &self.pending else {
            return;
        };
        let new = self
            .session
            .windows
            .iter()
            .find(|w| !p.known.contains(&w.id))
            .map(|w| w.id.clone());
        if let Some(id) = new {
            let p = self.pending.take().expect("checked above");
            if let Some(req) = p.request {
                let mut data = json!({"window_id": id, "direction": p.direction});
                if let Some(n) = p.name {
                    data["name"] = json!(n);
                }
                self.reply(req, Ok(Some(data)));
            }
        }
    }

    /// Timers: notices that expire, a split that waited too long. Returns when to look again.
    pub fn tick(&mut self, now: Instant) -> Option<Instant> {
        let before = self.notices.len();
        self.notices.retain(|n| n.until.is_none_or(|t| t > now));
        if self.notices.len() != before {
            self.dirty = true;
        }
        if self.flash.as_ref().is_some_and(|(_, until)| *until <= now) {
            self.flash = None;
            self.dirty = true;
        }
        if self.pending.as_ref().is_some_and(|p| p.deadline <= now) {
            let p = self.pending.take().expect("checked above");
            if let Some(req) = p.request {
                self.reply(req, Ok(Some(json!({"direction": p.direction}))));
            }
        }
        let mut next: Option<Instant> = None;
        let mut consider = |t: Instant| next = Some(next.map_or(t, |n: Instant| n.min(t)));
        self.notices
            .iter()
            .filter_map(|n| n.until)
            .for_each(&mut consider);
        if let Some((_, t)) = &self.flash {
            consider(*t);
        }
        if let Some(p) = &self.pending {
            consider(p.deadline);
        }
        if self
            .pending_template
            .as_ref()
            .is_some_and(|p| p.deadline <= now)
        {
            let p = self.pending_template.take().expect("checked above");
            let arrived = self.template_windows(&p).len();
            let message = format!(
                "LoadLayout {}: only {arrived} of the {} windows it needs exist after {} s",
                p.name,
                p.template.windows.len(),
                SPLIT_WAIT.as_secs()
            );
            match p.request {
                Some(req) => self.reply(req, Err(message)),
                None => self.notice(NoticeLevel::Error, message),
            }
        }
        if let Some(p) = &self.pending_template {
            consider(p.deadline);
        }
        if let (Some(at), Some(_)) = (self.leader_at, &self.settings.whichkey) {
            let due = at + WHICHKEY_DELAY;
            if due <= now {
                if !self.whichkey_shown {
                    self.whichkey_shown = true;
                    self.dirty = true;
                }
            } else {
                next = Some(next.map_or(due, |n: Instant| n.min(due)));
            }
        }
        if let Some(t) = self.tick_rail(now) {
            next = Some(next.map_or(t, |n: Instant| n.min(t)));
        }
        if let Some(due) = self.tick_openings(now) {
            next = Some(next.map_or(due, |n: Instant| n.min(due)));
        }
        self.sync_tray();
        next
    }

    pub fn notice(&mut self, level: NoticeLevel, text: impl Into<String>) {
        let sticky = level == NoticeLevel::Error && self.settings.error_sticky;
        let until = (!sticky)
            .then(|| Instant::now() + Duration::from_secs(self.settings.notice_secs_for(level)));
        self.notices.push(Notice {
            level,
            text: text.into(),
            until,
        });
        // A burst of notices keeps only the latest few on screen.
        if self.notices.len() > 5 {
            self.notices.remove(0);
        }
        self.dirty = true;
        self.sync_tray();
    }

    /// Esc in window management: the sticky errors go. Whether any did.
    pub(super) fn dismiss_sticky(&mut self) -> bool {
        let before = self.notices.len();
        self.notices.retain(|n| n.until.is_some());
        let gone = self.notices.len() != before;
        if gone {
            self.dirty = true;
            self.sync_tray();
        }
        gone
    }

    pub(super) fn flash(&mut self, text: impl Into<String>) {
        self.flash_for(text, FLASH);
    }

    pub(super) fn flash_for(&mut self, text: impl Into<String>, shown: Duration) {
        self.flash = Some((text.into(), Instant::now() + shown));
        self.dirty = true;
    }

    /// The line a first attach shows: keys go to the program, and which key reaches tuios.
    pub fn first_run_hint(&mut self) {
        let leader = self.leader().label();
        self.flash_for(
            format!("keys go to the program · {leader} ? help · {leader} Esc: windows"),
            FIRST_RUN_HINT,
        );
    }

    pub(super) fn reply(&mut self, request: u64, result: Result<Option<Value>, String>) {
        let op = match result {
            Ok(data) => ClientOp::Reply {
                request,
                ok: true,
                message: String::new(),
                data: data.map(|d| d.to_string()),
            },
            Err(message) => ClientOp::Reply {
                request,
                ok: false,
                message,
                data: None,
            },
        };
        self.out.push(op);
    }

    pub(super) fn command(&mut self, name: &str, args: &[&str]) {
        self.out.push(ClientOp::Command {
            name: name.to_string(),
            args: args.iter().map(|a| a.to_string()).collect(),
        });
    }

    /// Bytes for a window, merged with the previous operation when that was input for the same
    /// window, so a burst of keys is one write.
    pub(super) fn input(&mut self, window: &str, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        self.typed = Some(window.to_string());
        if let Some(ClientOp::Input { window: w, data }) = self.out.last_mut() {
            if w == window {
                data.extend_from_slice(bytes);
                return;
            }
        }
        self.out.push(ClientOp::Input {
            window: window.to_string(),
            data: bytes.to_vec(),
        });
    }
}

impl App {
    /// The `startup.*` options, as the session set them, at this client's first attach (a
    /// reconnect after an upgrade is no start). Left unset, tuios keeps its own behaviour:
    /// typing goes to the program at once (as tmux), and workspaces tile.
    fn apply_startup_options(&mut self, fresh_layout: bool) {
        let set = |path: &str| {
            self.session
                .options
                .get(path)
                .and_then(|v| config::options::as_bool(v))
        };
        let open_default = set("startup.open_default_window") == Some(true);
        if set("startup.start_in_terminal_mode") == Some(false) {
            self.router.mode = InputMode::WindowManagement;
        }
        if fresh_layout && set("startup.tiled") == Some(false) {
            // No client has arranged this session yet: it starts floating.
            let workspaces: Vec<i64> = self.session.windows.iter().map(|w| w.workspace).collect();
            for ws in workspaces {
                self.layout.workspace_mut(ws).tiling = false;
            }
            self.relayout();
        }
        // A session can be left with no window (its last one closed); attaching to it then
        // opens one when the option is on.
        if open_default && self.session.windows.is_empty() {
            self.command("NewWindow", &[]);
        }
    }
}
