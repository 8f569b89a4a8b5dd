//! The client side of the run-command vocabulary.

use super::*;

impl App {
    /// Runs a client-side command of the run-command vocabulary. `Ok(None)`: the answer comes
    /// later (a split waiting for its window).
    pub(super) fn run_command(
        &mut self,
        name: &str,
        args: &[String],
        request: Option<u64>,
    ) -> Result<Option<Value>, String> {
        protocol::commands::check(name, args).map_err(|e| e.message)?;
        let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
        let ws = self.session.current_workspace;
        let count = || -> Result<usize, String> {
            match args.first() {
                None => Ok(1),
                Some(a) => a
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=1000).contains(n))
                    .ok_or_else(|| format!("{name}: {a:?} is not a count from 1 to 1000")),
            }
        };
        let needs_tiling = |app: &App| -> Result<(), String> {
            if app.layout.tiling(ws) {
                Ok(())
            } else {
                Err("tiling is not enabled; run EnableTiling before this command".into())
            }
        };
        let done = Ok(Some(json!({})));
        match name {
            // Daemon-side commands, passed through when routed here.
            "NewWindow"
            | "CloseWindow"
            | "NextWindow"
            | "PrevWindow"
            | "FocusWindow"
            | "RenameWindow"
            | "MinimizeWindow"
            | "RestoreWindow"
            | "SwitchWorkspace"
            | "MoveToWorkspace"
            | "MoveAndFollowWorkspace" => {
                let refs: Vec<&str> = args.iter().map(String::as_str).collect();
                self.command(name, &refs);
                done
            }
            "Split" => {
                needs_tiling(self)?;
                self.split(None, arg(0), None, request)?;
                Ok(if request.is_some() {
                    None
                } else {
                    Some(json!({}))
                })
            }
            "SmartSplit" => {
                needs_tiling(self)?;
                let id = self
                    .focused_id()
                    .ok_or_else(|| "no window is focused on this workspace".to_string())?;
                let rect = self
                    .frames
                    .iter()
                    .find(|f| f.id == id)
                    .map(|f| f.rect)
                    .unwrap_or_default();
                let axis = super::super::layout::long_axis(rect);
                self.split(None, axis.as_str(), None, request)?;
                Ok(if request.is_some() {
                    None
                } else {
                    Some(json!({}))
                })
            }
            "Preselect" => {
                let d = Direction::parse(arg(0)).ok_or_else(|| {
                    format!("Preselect: {:?} is not left, right, up or down", arg(0))
                })?;
                self.preselect = Some(d);
                done
            }
            "ToggleTiling" => {
                self.set_tiling(ws, None);
                Ok(Some(self.layout_info(ws)))
            }
            "EnableTiling" => {
                self.set_tiling(ws, Some(true));
                Ok(Some(self.layout_info(ws)))
            }
            "DisableTiling" => {
                self.set_tiling(ws, Some(false));
                Ok(Some(self.layout_info(ws)))
            }
            "ToggleZoom" => {
                if self.focused().is_none() {
                    return Err("no window is focused on this workspace".into());
                }
                self.action(Action::ToggleZoom);
                done
            }
            "EqualizeSplits" => {
                needs_tiling(self)?;
                self.action(Action::Equalize);
                done
            }
            "RotateSplit" => {
                needs_tiling(self)?;
                let id = self
                    .focused_id()
                    .ok_or_else(|| "no window is focused on this workspace".to_string())?;
                if !self.layout.rotate(ws, &id) {
                    return Err(
                        "the focused pane is not split, so there is nothing to rotate".into(),
                    );
                }
                self.push_layout();
                self.relayout();
                done
            }
            "FocusDirection" => {
                let d = Direction::parse(arg(0)).ok_or_else(|| {
                    format!(
                        "FocusDirection: {:?} is not left, right, up or down",
                        arg(0)
                    )
                })?;
                let id = self.focus_direction(d)?;
                Ok(Some(json!({"window_id": id})))
            }
            "SnapFullscreen" | "SnapLeft" | "SnapRight" => {
                let id = self
                    .focused_id()
                    .ok_or_else(|| "no window is focused on this workspace".to_string())?;
                if self.layout.tiling(ws) {
                    if name != "SnapFullscreen" {
                        return Err(format!(
                            "{name} moves floating windows; run DisableTiling first"
                        ));
                    }
                    let wl = self.layout.workspace_mut(ws);
                    wl.zoomed = Some(id);
                } else {
                    let a = self.below_dock();
                    let half = a.w / 2;
                    let r = match name {
                        "SnapLeft" => Rect::new(a.x, a.y, half, a.h),
                        "SnapRight" => Rect::new(a.x + half, a.y, a.w - half, a.h),
                        _ => a,
                    };
                    self.layout.workspace_mut(ws).floating.insert(id, r);
                }
                self.push_layout();
                self.relayout();
                done
            }
            "TerminalMode" => {
                self.router.mode = InputMode::Terminal;
                done
            }
            "WindowManagementMode" => {
                self.router.mode = InputMode::WindowManagement;
                done
            }
            "SetTheme" => {
                let id = match arg(0).trim() {
                    "none" | "default" => "",
                    t => t,
                };
                self.set_option("appearance.theme", id, true)
            }
            "SetDockbarPosition" => self.set_option("appearance.dockbar_position", arg(0), true),
            "SetBorderStyle" => self.set_option("appearance.border_style", arg(0), true),
            "SetConfig" => self.set_option(arg(0), arg(1), true),
            "ShowNotification" => {
                let level = match arg(1).to_ascii_lowercase().as_str() {
                    "warning" | "warn" => NoticeLevel::Warning,
                    "error" => NoticeLevel::Error,
                    _ => NoticeLevel::Info,
                };
                self.notice(level, arg(0));
                done
            }
            "Type" => {
                let id = self
                    .focused_id()
                    .ok_or_else(|| "no window is focused on this workspace".to_string())?;
                self.input(&id, arg(0).as_bytes());
                done
            }
            "Enter" | "Space" | "Backspace" | "Tab" | "Escape" | "Delete" | "Up" | "Down"
            | "Left" | "Right" | "Home" | "End" => {
                let n = count()?;
                let id = self
                    .focused_id()
                    .ok_or_else(|| "no window is focused on this workspace".to_string())?;
                let key = match name {
                    "Enter" => KeyCode::Enter,
                    "Space" => KeyCode::Char(' '),
                    "Backspace" => KeyCode::Backspace,
                    "Tab" => KeyCode::Tab,
                    "Escape" => KeyCode::Escape,
                    "Delete" => KeyCode::Delete,
                    "Up" => KeyCode::UpArrow,
                    "Down" => KeyCode::DownArrow,
                    "Left" => KeyCode::LeftArrow,
                    "Right" => KeyCode::RightArrow,
                    "Home" => KeyCode::Home,
                    _ => KeyCode::End,
                };
                let modes = self.window(&id).map(|w| w.modes).unwrap_or_default();
                let bytes = encode_key(key, Modifiers::NONE, &modes);
                self.input(&id, &bytes.repeat(n));
                done
            }
            "KeyCombo" => {
                let chord = KeyChord::parse(arg(0))
                    .ok_or_else(|| format!("KeyCombo: {:?} is not a key combination", arg(0)))?;
                if let KeyCode::Char(d @ '1'..='9') = chord.key {
                    if chord.mods == Modifiers::ALT {
                        self.action(Action::Workspace(d as u8 - b'0'));
                        return done;
                    }
                }
                let id = self
                    .focused_id()
                    .ok_or_else(|| "no window is focused on this workspace".to_string())?;
                let modes = self.window(&id).map(|w| w.modes).unwrap_or_default();
                let bytes = encode_key(chord.key, chord.mods, &modes);
                if bytes.is_empty() {
                    return Err(format!("KeyCombo: {:?} sends nothing", arg(0)));
                }
                self.input(&id, &bytes);
                done
            }
            "EnableAnimations" | "DisableAnimations" | "ToggleAnimations" => done,
            "SaveLayout" => self.save_layout(arg(0)).map(Some),
            "LoadLayout" => self.load_layout(arg(0), request),
            "CommandPalette" => {
                self.action(Action::CommandPrompt);
                done
            }
            "Detach" => {
                if let Some(req) = request {
                    self.reply(req, Ok(Some(json!({}))));
                }
                self.out.push(ClientOp::Detach);
                if request.is_some() {
                    Ok(None)
                } else {
                    done
                }
            }
            _ => Err(format!("{name} is not something this client runs")),
        }
    }
}
