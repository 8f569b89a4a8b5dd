//! Requests the daemon routes to this client (splits, layouts, options, templates, keys).

use super::*;

impl App {
    pub(super) fn on_request(&mut self, request: u64, kind: RoutedRequest) {
        self.request(request, kind);
        self.sync_tray();
    }

    pub(super) fn request(&mut self, request: u64, kind: RoutedRequest) {
        self.dirty = true;
        let result = match kind {
            RoutedRequest::Split {
                window,
                direction,
                name,
            } => match self.split(window.as_deref(), &direction, name, Some(request)) {
                Ok(()) => return,
                Err(e) => Err(e),
            },
            RoutedRequest::Layout {
                tiling,
                equalize,
                rotate,
                layout,
            } => self.apply_layout(tiling, equalize, rotate, layout.as_deref()),
            RoutedRequest::FocusDirection { direction } => match Direction::parse(&direction) {
                Some(d) => self
                    .focus_direction(d)
                    .map(|id| Some(json!({"window_id": id, "direction": d.as_str()}))),
                None => Err(format!(
                    "{direction:?} is not a direction; use left, right, up or down"
                )),
            },
            RoutedRequest::Command { name, args } => {
                match self.run_command(&name, &args, Some(request)) {
                    Ok(Some(data)) => Ok(Some(data)),
                    Ok(None) => return,
                    Err(e) => Err(e),
                }
            }
            RoutedRequest::SendKeys {
                window,
                keys,
                literal,
                raw,
            } => self.send_keys(window.as_deref(), &keys, literal, raw),
            RoutedRequest::SetOption { path, value } => self.set_option(&path, &value, false),
        };
        self.reply(request, result);
    }

    /// A window by id, unique id prefix, index on its workspace (1-based), or exact name.
    pub(super) fn resolve_window(&self, target: &str) -> Option<String> {
        let t = target.trim();
        if t.is_empty() {
            return self.focused_id();
        }
        let ws = &self.session.windows;
        if let Some(w) = ws.iter().find(|w| w.id == t) {
            return Some(w.id.clone());
        }
        let prefixed: Vec<&WindowView> = ws.iter().filter(|w| w.id.starts_with(t)).collect();
        if prefixed.len() == 1 {
            return Some(prefixed[0].id.clone());
        }
        if let Ok(n) = t.parse::<usize>() {
            let on_ws: Vec<&WindowView> = ws
                .iter()
                .filter(|w| w.workspace == self.session.current_workspace)
                .collect();
            if n >= 1 && n <= on_ws.len() {
                return Some(on_ws[n - 1].id.clone());
            }
        }
        ws.iter()
            .find(|w| w.display_name == t)
            .or_else(|| ws.iter().find(|w| w.title == t))
            .map(|w| w.id.clone())
    }

    pub(super) fn split(
        &mut self,
        window: Option<&str>,
        direction: &str,
        name: Option<String>,
        request: Option<u64>,
    ) -> Result<(), String> {
        let axis = Axis::parse(direction).ok_or_else(|| {
            format!("{direction:?} is not a split direction; use horizontal or vertical")
        })?;
        let target = match window {
            Some(t) => self
                .resolve_window(t)
                .ok_or_else(|| format!("no window matches {t:?}"))?,
            None => self
                .focused_id()
                .ok_or_else(|| "no window is focused on this workspace".to_string())?,
        };
        let ws = self
            .window(&target)
            .map(|w| w.workspace)
            .unwrap_or(self.session.current_workspace);
        if !self.layout.tiling(ws) {
            return Err(
                "tiling is off on that workspace; turn it on first (set-layout tiling=true, or run-command EnableTiling)"
                    .into(),
            );
        }
        self.focus(&target);
        let placement = Placement {
            target,
            axis,
            new_first: false,
        };
        self.new_window(Some(placement), name, request, axis.as_str().to_string());
        Ok(())
    }

    pub(super) fn apply_layout(
        &mut self,
        tiling: Option<bool>,
        equalize: bool,
        rotate: bool,
        layout: Option<&str>,
    ) -> Result<Option<Value>, String> {
        let ws = self.session.current_workspace;
        let mode = layout
            .map(|l| {
                TileMode::parse(l).ok_or_else(|| {
                    format!("{l:?} is not a layout; use bsp, master-stack or scrolling")
                })
            })
            .transpose()?;
        if let Some(m) = mode {
            self.layout.workspace_mut(ws).mode = m;
        }
        // Picking a layout means wanting to see it: tiling comes on unless asked otherwise.
        if let Some(on) = tiling.or(mode.map(|_| true)) {
            self.set_tiling(ws, Some(on));
        }
        if rotate {
            if !self.layout.tiling(ws) {
                return Err("rotate needs tiling on this workspace".into());
            }
            let id = self
                .focused_id()
                .ok_or_else(|| "no window is focused on this workspace".to_string())?;
            if !self.layout.rotate(ws, &id) {
                return Err("the focused pane is not split, so there is nothing to rotate".into());
            }
        }
        if equalize {
            if !self.layout.tiling(ws) {
                return Err("equalize needs tiling on this workspace".into());
            }
            self.layout.equalize(ws);
        }
        self.push_layout();
        self.relayout();
        Ok(Some(self.layout_info(ws)))
    }

    pub(super) fn layout_info(&self, ws: i64) -> Value {
        let tiling = self.layout.tiling(ws);
        json!({
            "tiling_mode": if tiling { "tiling" } else { "floating" },
            "layout_mode": self.layout.mode(ws).as_str(),
            "master_ratio": MASTER_RATIO,
        })
    }

    pub(super) fn send_keys(
        &mut self,
        window: Option<&str>,
        keys: &str,
        literal: bool,
        raw: bool,
    ) -> Result<Option<Value>, String> {
        let target = match window {
            Some(t) if !t.is_empty() => Some(
                self.resolve_window(t)
                    .ok_or_else(|| format!("no window matches {t:?}"))?,
            ),
            _ => None,
        };
        if literal {
            let id = target
                .or_else(|| self.focused_id())
                .ok_or_else(|| "no window is focused on this workspace".to_string())?;
            self.input(&id, keys.as_bytes());
            return Ok(Some(json!({"window_id": id})));
        }
        let events = token_events(keys, raw, self.leader())?;
        // Keys are typed into the window as in terminal mode, whatever mode the user left the
        // client in; the leader still reaches the bindings.
        let saved = self.router.mode;
        self.router.mode = InputMode::Terminal;
        for ev in events {
            match self.router.route(&ev) {
                KeyRoute::Window(ev) => self.key_to_window(target.as_deref(), &ev),
                KeyRoute::Action(a) => {
                    self.action(a);
                    if matches!(a, Action::TerminalMode | Action::WindowManagementMode) {
                        continue;
                    }
                }
                _ => {}
            }
            self.router.mode = InputMode::Terminal;
        }
        self.router.mode = saved;
        // The daemon sends the next send-keys here too while the leader waits for its key.
        Ok(Some(json!({"leader_armed": self.router.leader_armed})))
    }

    /// Applies an option; `local` keeps it in this client only (SetConfig and friends).
    pub(super) fn set_option(
        &mut self,
        path: &str,
        value: &str,
        local: bool,
    ) -> Result<Option<Value>, String> {
        let spec =
            config::options::resolve(path).ok_or_else(|| {
                match config::options::did_you_mean(path) {
                    Some(d) => format!("no option called {path:?}; did you mean {d}?"),
                    None => format!("no option called {path:?}"),
                }
            })?;
        let registry = config::themes::ThemeRegistry::load(&config::themes::themes_dir());
        let v = config::options::validate_value(spec, value, &registry).map_err(|e| e.message)?;
        if local {
            self.overrides.insert(spec.path.to_string(), v.clone());
        } else {
            self.overrides.remove(spec.path);
            self.session
                .options
                .insert(spec.path.to_string(), v.clone());
        }
        if spec.path == "appearance.theme" {
            // Read the theme again: it may have been saved a moment ago.
            self.themes.exists(&v);
        }
        self.resolve_settings();
        self.relayout();
        self.dirty = true;
        Ok(Some(json!({"key": spec.path, "value": v})))
    }

    /// The shown windows of a workspace, in session order.
    pub(super) fn workspace_windows(&self, ws: i64) -> Vec<String> {
        self.session
            .windows
            .iter()
            .filter(|w| w.workspace == ws && !w.minimized)
            .map(|w| w.id.clone())
            .collect()
    }

    /// `SaveLayout <name>`: the current workspace as a template file.
    pub(super) fn save_layout(&mut self, name: &str) -> Result<Value, String> {
        let name = protocol::commands::layout_name(name).map_err(|e| e.message)?;
        let ws = self.session.current_workspace;
        let ids = self.workspace_windows(ws);
        if ids.is_empty() {
            return Err(format!(
                "workspace {ws} shows no windows, so there is no layout to save"
            ));
        }
        let wl = self.layout.workspace(ws).cloned().unwrap_or_default();
        let slots: Vec<(String, Option<String>)> = templates::slot_order(Some(&wl), &ids)
            .into_iter()
            .map(|id| {
                // Only a name someone gave the window is kept, never a program's title.
                let name = self
                    .window(&id)
                    .and_then(|w| w.custom_name.clone())
                    .filter(|n| !n.is_empty());
                (id, name)
            })
            .collect();
        let template = templates::capture(&wl, &slots);
        let dir = templates::layouts_dir()?;
        let path = templates::save(&dir, name, &template)?;
        Ok(json!({
            "layout": name,
            "path": path.display().to_string(),
            "windows": slots.len(),
            "tiling": wl.tiling,
        }))
    }

    /// `LoadLayout <name>`: the current workspace arranged as the template says. Windows it
    /// lacks are opened first (with the template's names) and the answer waits for them.
    pub(super) fn load_layout(
        &mut self,
        name: &str,
        request: Option<u64>,
    ) -> Result<Option<Value>, String> {
        let name = protocol::commands::layout_name(name).map_err(|e| e.message)?;
        let template = templates::load(&templates::layouts_dir()?, name)?;
        let ws = self.session.current_workspace;
        let existing =
            templates::slot_order(self.layout.workspace(ws), &self.workspace_windows(ws));
        let missing = template.windows.len().saturating_sub(existing.len());
        let p = PendingTemplate {
            name: name.to_string(),
            workspace: ws,
            known: self.session.windows.iter().map(|w| w.id.clone()).collect(),
            existing,
            opened: missing,
            template,
            request,
            deadline: Instant::now() + SPLIT_WAIT,
        };
        if missing == 0 {
            return Ok(Some(self.apply_template(&p)));
        }
        for slot in p.existing.len()..p.template.windows.len() {
            match p.template.windows[slot].name.clone() {
                Some(n) => self.command("NewWindow", &[&n]),
                None => self.command("NewWindow", &[]),
            }
        }
        if let Some(old) = self.pending_template.replace(p) {
            if let Some(req) = old.request {
                self.reply(
                    req,
                    Err(format!(
                        "LoadLayout {} was replaced by another LoadLayout",
                        old.name
                    )),
                );
            }
        }
        Ok(if request.is_some() {
            None
        } else {
            Some(json!({"layout": name}))
        })
    }

    /// The windows a pending template maps onto: the ones it started with that still exist,
    /// then the new ones in session order.
    pub(super) fn template_windows(&self, p: &PendingTemplate) -> Vec<String> {
        let now = self.workspace_windows(p.workspace);
        let mut ids: Vec<String> = p
            .existing
            .iter()
            .filter(|id| now.contains(id))
            .cloned()
            .collect();
        ids.extend(now.into_iter().filter(|id| !p.known.contains(id)));
        ids
    }

    pub(super) fn apply_template(&mut self, p: &PendingTemplate) -> Value {
        let ids = self.template_windows(p);
        *self.layout.workspace_mut(p.workspace) = templates::apply(&p.template, &ids);
        // Windows beyond the template's slots are placed by the reconcile, as new ones are.
        self.relayout();
        self.push_layout();
        json!({
            "layout": p.name,
            "windows": ids.len(),
            "slots": p.template.windows.len(),
            "opened": p.opened,
            "tiling": p.template.tiling,
        })
    }

    /// Applies a pending template once every window it opened is there.
    pub(super) fn settle_template(&mut self) {
        let Some(p) = &self.pending_template else {
            return;
        };
        if self.template_windows(p).len() < p.template.windows.len() {
            return;
        }
        let p = self.pending_template.take().expect("checked above");
        let data = self.apply_template(&p);
        if let Some(req) = p.request {
            self.reply(req, Ok(Some(data)));
        }
    }
}
