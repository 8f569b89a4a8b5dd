//! The Session actor: one per session. It owns the window table (order, workspaces, names, focus)
//! and resolves window targets; each window's screen and PTY live in its own Window actor.
use actix::prelude::*;
use futures_util::future::join_all;
use protocol::closest::echo_name;
use protocol::{ErrorCode, Hint, VerbError};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};

use crate::errors;
use crate::event_hub::Publish;
use crate::pty::{self, ExitInfo};
use crate::spawn::SpawnSpec;
use crate::window::{self, Window, WindowLinks, WindowNotice};
use crate::Services;
use protocol::events::Event;

mod agent;
mod clients;
pub mod handover;
mod labels;
mod recording;
pub mod saved;
mod transcript;
mod views;
mod workspaces;

pub use crate::recorder::RecordingPlan;
pub use agent::{AgentStates, AgentWindowInfo, GetAgentState, GetAgentWindowInfo, SetAgentState};
pub use clients::*;
pub use labels::*;
pub use recording::{RecordNewWindows, AUTO_OPTION as RECORDING_AUTO_OPTION};
pub use views::*;
pub use workspaces::*;

/// Workspaces per session.
pub const NUM_WORKSPACES: i64 = 9;

struct WindowEntry {
    id: String,
    pty_id: String,
    addr: Addr<Window>,
    custom_name: Option<String>,
    /// The title given at creation; the program's own (OSC) title takes precedence once set.
    stored_title: String,
    live_title: Option<String>,
    /// The program's working directory as the window last saw it (for clients).
    cwd: String,
    workspace: i64,
    minimized: bool,
    /// Made with an explicit argv: closes when the program exits, unless `remain`.
    command: bool,
    /// The argv the window was made with (empty for a shell), kept for saving.
    argv: Vec<String>,
    remain: bool,
    cols: u16,
    rows: u16,
    exited: Option<ExitInfo>,
    /// Input modes the program enabled, for attached clients' key encoding.
    modes: protocol::attach::WindowModes,
    /// Lumen frames from the program that failed and were dropped.
    failed_frames: u64,
    /// Failed frames not yet told to clients, the last reason, and when clients were last told.
    frames_unnoticed: u64,
    frame_notice: Option<&'static str>,
    frame_notice_at: Option<std::time::Instant>,
    frame_notice_scheduled: bool,
    agent: crate::agent::WindowAgent,
}

impl WindowEntry {
    fn title(&self) -> &str {
        self.live_title.as_deref().unwrap_or(&self.stored_title)
    }
    fn display_name(&self) -> &str {
        self.custom_name.as_deref().unwrap_or_else(|| self.title())
    }
}

/// The parts of a session's state that lifecycle events describe.
struct Snapshot {
    windows: Vec<WindowSnap>,
    focused: Option<String>,
    current_workspace: i64,
}

struct WindowSnap {
    id: String,
    pty_id: String,
    name: Option<String>,
    display: String,
    workspace: i64,
    minimized: bool,
}

pub struct Session {
    name: String,
    id: String,
    created: u64,
    width: u16,
    height: u16,
    windows: Vec<WindowEntry>,
    focused: Option<String>,
    current_workspace: i64,
    workspace_focus: HashMap<i64, String>,
    /// Display label; the identity stays `name`.
    display_name: Option<String>,
    accent: Option<String>,
    workspace_names: BTreeMap<i64, String>,
    /// Display order of workspaces; `None` is the natural order.
    workspace_order: Option<Vec<i64>>,
    /// Option values set for this session, by full path.
    options: BTreeMap<String, String>,
    clients: clients::Clients,
    agent: agent::SessionAgent,
    /// Saving to the state directory, and whether this session was restored from it.
    saved: saved::SaveState,
    /// How new windows are recorded after a session-wide record-start.
    record_new: Option<RecordingPlan>,
    services: Services,
}

impl Session {
    pub fn new(name: String, width: u16, height: u16, services: Services) -> Self {
        Session {
            name,
            id: uuid::Uuid::new_v4().to_string(),
            created: crate::unix_now_secs(),
            width,
            height,
            windows: Vec::new(),
            focused: None,
            current_workspace: 1,
            workspace_focus: HashMap::new(),
            display_name: None,
            accent: None,
            workspace_names: BTreeMap::new(),
            workspace_order: None,
            options: BTreeMap::new(),
            clients: Default::default(),
            agent: Default::default(),
            saved: Default::default(),
            record_new: None,
            services,
        }
    }

    fn index_of(&self, id: &str) -> Option<usize> {
        self.windows.iter().position(|w| w.id == id)
    }

    fn focused_index(&self) -> Option<usize> {
        self.focused.as_deref().and_then(|id| self.index_of(id))
    }

    fn window_info(&self, idx: usize) -> WindowInfo {
        let w = &self.windows[idx];
        // The outer box an attached client placed the window in, as Go reports it; until one
        // has, the size of its terminal, which `resize` may have changed from the session's.
        let (x, y, width, height) = match self.window_box(&w.id) {
            Some(b) => (i64::from(b.x), i64::from(b.y), b.width, b.height),
            None => (0, 0, w.cols, w.rows),
        };
        WindowInfo {
            id: w.id.clone(),
            index: idx,
            title: w.title().to_string(),
            custom_name: w.custom_name.clone(),
            display_name: w.display_name().to_string(),
            workspace: w.workspace,
            minimized: w.minimized,
            focused: self.focused.as_deref() == Some(w.id.as_str()),
            x,
            y,
            width,
            height,
            pty_id: w.pty_id.clone(),
            failed_frames: w.failed_frames,
            agent: w.agent.facts(),
            exited: w.exited,
        }
    }

    /// The window target rules of the protocol: empty = focused; exact id; index; unique id
    /// prefix; exact name or title.
    fn resolve(&self, target: Option<&str>) -> Result<usize, VerbError> {
        if self.windows.is_empty() {
            return Err(errors::no_windows(&self.name));
        }
        let target = target.unwrap_or("");
        if target.is_empty() {
            if let Some(i) = self.focused_index() {
                return Ok(i);
            }
            return Ok(self
                .windows
                .iter()
                .position(|w| w.workspace == self.current_workspace)
                .unwrap_or(0));
        }
        if let Some(i) = self.index_of(target) {
            return Ok(i);
        }
        if target.len() <= 4 && target.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(n) = target.parse::<usize>() {
                if n < self.windows.len() {
                    return Ok(n);
                }
            }
        }
        let by_prefix: Vec<usize> = (0..self.windows.len())
            .filter(|&i| self.windows[i].id.starts_with(target))
            .collect();
        match by_prefix.len() {
            1 => return Ok(by_prefix[0]),
            0 => {}
            n => {
                return Err(errors::window_not_found(
                    target,
                    &self.addressable(),
                    &format!("window id prefix {} matches {n} windows", echo_name(target)),
                ))
            }
        }
        let by_name: Vec<usize> = (0..self.windows.len())
            .filter(|&i| {
                let w = &self.windows[i];
                w.custom_name.as_deref() == Some(target) || w.title() == target
            })
            .collect();
        match by_name.len() {
            1 => Ok(by_name[0]),
            0 => Err(errors::window_not_found(
                target,
                &self.addressable(),
                &format!("no window matches {}", echo_name(target)),
            )),
            n => Err(errors::window_not_found(
                target,
                &self.addressable(),
                &format!("window name {} matches {n} windows", echo_name(target)),
            )),
        }
    }

    /// Every id and every display name that differs from it, sorted.
    fn addressable(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for w in &self.windows {
            out.push(w.id.clone());
            if w.display_name() != w.id {
                out.push(w.display_name().to_string());
            }
        }
        out.sort();
        out.dedup();
        out
    }

    fn remove_window(&mut self, idx: usize) -> WindowEntry {
        let entry = self.windows.remove(idx);
        if self.workspace_focus.get(&entry.workspace) == Some(&entry.id) {
            self.workspace_focus.remove(&entry.workspace);
        }
        if self.focused.as_deref() == Some(entry.id.as_str()) {
            // Focus moves to the first visible window left on the same workspace.
            self.focused = self
                .windows
                .iter()
                .find(|w| w.workspace == entry.workspace && !w.minimized)
                .map(|w| w.id.clone());
            if let Some(id) = &self.focused {
                self.workspace_focus.insert(entry.workspace, id.clone());
            }
        }
        entry
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            windows: self
                .windows
                .iter()
                .map(|w| WindowSnap {
                    id: w.id.clone(),
                    pty_id: w.pty_id.clone(),
                    name: w.custom_name.clone(),
                    display: w.display_name().to_string(),
                    workspace: w.workspace,
                    minimized: w.minimized,
                })
                .collect(),
            focused: self.focused.clone(),
            current_workspace: self.current_workspace,
        }
    }

    /// Publish the lifecycle events between `before` and now. Every change to the window table
    /// goes through here, so each event fires once, from the state change itself, whichever verb
    /// or notice caused it.
    fn publish_changes(&mut self, before: Snapshot) {
        // Attached clients redraw from the new state whatever changed.
        self.broadcast_state();
        let after = self.snapshot();
        let event = |kind: &'static str, w: &WindowSnap| {
            let mut e = Event::new(kind);
            e.session = self.name.clone();
            e.window = w.id.clone();
            e.pty_id = w.pty_id.clone();
            e
        };
        let mut events = Vec::new();
        // Looked up by id: a verb on a session of a thousand windows costs a thousand steps,
        // not a million.
        let old_by_id: HashMap<&str, &WindowSnap> =
            before.windows.iter().map(|w| (w.id.as_str(), w)).collect();
        let new_ids: HashSet<&str> = after.windows.iter().map(|w| w.id.as_str()).collect();
        for w in &before.windows {
            if !new_ids.contains(w.id.as_str()) {
                events.push(event("window-closed", w));
            }
        }
        for w in &after.windows {
            let Some(&old) = old_by_id.get(w.id.as_str()) else {
                let mut e = event("window-created", w);
                e.title = Some(w.display.clone());
                events.push(e);
                continue;
            };
            if old.name != w.name {
                let mut e = event("window-retitled", w);
                // A rename carries no pty_id, which tells it apart from a title the program set.
                e.pty_id.clear();
                e.title = w.name.clone();
                events.push(e);
            }
            if old.workspace != w.workspace {
                let mut e = event("window-moved", w);
                e.workspace = w.workspace;
                events.push(e);
            }
            if old.minimized != w.minimized {
                let kind = if w.minimized {
                    "window-minimized"
                } else {
                    "window-restored"
                };
                events.push(event(kind, w));
            }
        }
        if after.current_workspace != before.current_workspace {
            let mut e = Event::new("workspace-switched");
            e.session = self.name.clone();
            e.workspace = after.current_workspace;
            events.push(e);
        }
        if after.focused != before.focused {
            if let Some(w) = after
                .focused
                .as_ref()
                .and_then(|id| after.windows.iter().find(|w| &w.id == id))
            {
                events.push(event("window-focused", w));
            }
        }
        for e in events {
            self.services.hub.do_send(Publish(e));
        }
    }

    fn describe(&self) -> SessionDescription {
        // The layout is the attached clients' (opaque to the daemon apart from the current
        // workspace's tiling flag and layout name).
        let workspace = self
            .clients
            .layout
            .as_deref()
            .and_then(|l| serde_json::from_str::<Value>(l).ok())
            .and_then(|l| {
                l.get("workspaces")?
                    .get(self.current_workspace.to_string())
                    .cloned()
            });
        let tiling = workspace.as_ref().and_then(|w| w["tiling"].as_bool());
        // Clients from before layouts had names only tiled with split trees.
        let layout_mode = tiling.map(|_| {
            workspace
                .as_ref()
                .and_then(|w| w["mode"].as_str())
                .unwrap_or("bsp")
                .to_string()
        });
        SessionDescription {
            name: self.name.clone(),
            id: self.id.clone(),
            display_name: self.display_name.clone(),
            accent: self.accent.clone(),
            current_workspace: self.current_workspace,
            num_workspaces: NUM_WORKSPACES,
            workspace_names: self.workspace_names.clone(),
            workspace_order: self.workspace_order.clone(),
            tiling,
            layout_mode,
            window_count: self.windows.len(),
            width: self.width,
            height: self.height,
            clients: self.clients.list.len(),
            client_list: self
                .clients
                .list
                .iter()
                .map(|c| views::ClientFacts {
                    kind: c.how.kind.clone(),
                    read_only: c.how.read_only,
                    since: c.since,
                    peer: c.how.peer.clone(),
                })
                .collect(),
            created: self.created,
        }
    }
}

impl Actor for Session {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        self.agent_warm_manifests();
        self.agent_reconfigure(ctx);
        self.save_soon(ctx);
    }
}

/// Least time between two notices to clients about one window's failed frames.
const FRAME_NOTICE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);

impl Session {
    /// What a new window of this session talks to: the session, the hub, the supervisor, its
    /// agent link, the arbiter its PTY reader runs on, and where its PTY is registered.
    pub(super) fn window_links(
        &self,
        pty_id: &str,
        agent: &crate::agent::PaneLink,
        ctx: &mut Context<Self>,
    ) -> WindowLinks {
        WindowLinks {
            session: self.name.clone(),
            pty_id: pty_id.to_string(),
            notices: ctx.address().recipient(),
            hub: self.services.hub.clone(),
            events_heard: self.services.events_heard.clone(),
            supervisor: self.services.supervisor.clone(),
            agent: agent.clone(),
            readers: self.services.windows.readers(),
            inputs: self.services.inputs.clone(),
            ptys: self.services.ptys.clone(),
            cgroups: self.services.cgroups.clone(),
            history: self.window_history(),
        }
    }

    /// The history budgets for a window created now: the session's options, else the
    /// defaults. The disk budget is shared by every window, so the last value set applies.
    fn window_history(&self) -> crate::history::WindowHistory {
        let int = |path: &str| {
            self.options
                .get(path)
                .and_then(|v| config::options::as_int(v))
                .or_else(|| {
                    config::options::resolve(path).and_then(|s| config::options::as_int(s.default))
                })
                .unwrap_or(0)
                .max(0)
        };
        let files = self.services.history.clone();
        if self.options.contains_key("appearance.history_disk_bytes") {
            files
                .budget
                .set_limit(int("appearance.history_disk_bytes") as u64);
        }
        crate::history::WindowHistory {
            memory_bytes: int("appearance.history_bytes") as usize,
            files,
        }
    }

    /// Tell clients about a window's failed frames: at once, then at most once per interval
    /// with the count since the last notice.
    fn frame_notice(&mut self, window_id: String, ctx: &mut Context<Self>) {
        let Some(i) = self.index_of(&window_id) else {
            return;
        };
        let w = &mut self.windows[i];
        let Some(reason) = w.frame_notice else { return };
        let now = std::time::Instant::now();
        if let Some(at) = w.frame_notice_at {
            let since = now.duration_since(at);
            if since < FRAME_NOTICE_INTERVAL {
                if !w.frame_notice_scheduled {
                    w.frame_notice_scheduled = true;
                    ctx.run_later(FRAME_NOTICE_INTERVAL - since, move |act, ctx| {
                        if let Some(i) = act.index_of(&window_id) {
                            act.windows[i].frame_notice_scheduled = false;
                        }
                        act.frame_notice(window_id, ctx);
                    });
                }
                return;
            }
        }
        let count = std::mem::take(&mut w.frames_unnoticed);
        w.frame_notice = None;
        w.frame_notice_at = Some(now);
        let name = w.display_name().to_string();
        let text = if count > 1 {
            format!("dropped {count} Lumen frames from {name}; the last: {reason}")
        } else {
            format!("dropped a Lumen frame from {name}: {reason}")
        };
        self.notify_clients(protocol::attach::NoticeLevel::Warning, &text);
    }
}

impl Handler<WindowNotice> for Session {
    type Result = ();
    fn handle(&mut self, msg: WindowNotice, ctx: &mut Self::Context) {
        self.save_soon(ctx);
        match msg {
            WindowNotice::Title { window_id, title } => {
                if let Some(i) = self.index_of(&window_id) {
                    self.windows[i].live_title = title;
                    self.broadcast_state();
                }
            }
            WindowNotice::Cwd { window_id, cwd } => {
                if let Some(i) = self.index_of(&window_id) {
                    self.windows[i].cwd = cwd;
                    self.broadcast_state();
                }
            }
            WindowNotice::Modes { window_id, modes } => clients::set_modes(self, &window_id, modes),
            WindowNotice::FrameFailed {
                window_id,
                reason,
                total,
            } => {
                if let Some(i) = self.index_of(&window_id) {
                    let before = self.windows[i].failed_frames;
                    self.windows[i].failed_frames = total;
                    self.windows[i].frame_notice = Some(reason);
                    self.windows[i].frames_unnoticed += total.saturating_sub(before);
                    self.frame_notice(window_id, ctx);
                }
            }
            WindowNotice::Exited { window_id, exit } => {
                let Some(i) = self.index_of(&window_id) else {
                    return;
                };
                tracing::debug!(session = %self.name, window = %window_id, ?exit, "window program exited");
                self.windows[i].exited = Some(exit);
                // Published here, as the exit is recorded (the window's last output events are
                // already in the hub's queue, sent before this notice).
                let mut e = Event::new("window-exit");
                e.session = self.name.clone();
                e.window = window_id.clone();
                e.pty_id = self.windows[i].pty_id.clone();
                e.exit_code = exit.code;
                e.signal = exit.signal;
                e.exit_reason = exit.reason.map(str::to_string);
                self.services.hub.do_send(Publish(e));
                if self.windows[i].command && !self.windows[i].remain {
                    let before = self.snapshot();
                    let entry = self.remove_window(i);
                    entry.addr.do_send(window::HangUp);
                    self.publish_changes(before);
                } else {
                    self.broadcast_state();
                }
            }
        }
    }
}

/// What `new-window` asks for, validated except for what only the session knows.
#[derive(Debug, Clone, Default)]
pub struct NewWindowSpec {
    pub name: Option<String>,
    /// 0 means the current workspace.
    pub workspace: i64,
    pub cwd: Option<std::path::PathBuf>,
    pub focus: bool,
    pub command: Vec<String>,
    pub remain: bool,
    /// Extra environment (`new-window`/`new-session` env), set after the daemon's own variables.
    pub env: Vec<(String, String)>,
}

#[derive(Message)]
#[rtype(result = "Result<OpenedWindow, VerbError>")]
pub struct NewWindow(pub NewWindowSpec);

impl Handler<NewWindow> for Session {
    type Result = ResponseActFuture<Self, Result<OpenedWindow, VerbError>>;
    fn handle(&mut self, msg: NewWindow, _: &mut Self::Context) -> Self::Result {
        self.spawn_window(uuid::Uuid::new_v4().to_string(), msg.0, false)
    }
}

impl Session {
    /// Start a window's program on the blocking pool, then enter the window as `id`.
    /// `restored` windows (brought back after a restart) get `TUIOS_RESTORED=1`.
    fn spawn_window(
        &mut self,
        id: String,
        spec: NewWindowSpec,
        restored: bool,
    ) -> ResponseActFuture<Self, Result<OpenedWindow, VerbError>> {
        let requested_ws = spec.workspace;
        if requested_ws != 0 {
            if let Err(e) = workspaces::check_workspace(requested_ws) {
                return Box::pin(fut::ready(Err(e)));
            }
        }
        let (cols, rows) = (self.width, self.height);
        // Session options first, then the daemon's configuration, then the environment.
        let shell = self
            .options
            .get("appearance.preferred_shell")
            .filter(|s| !s.trim().is_empty())
            .map(|s| s.trim().to_string())
            .or_else(|| self.services.info.default_shell.clone())
            .or_else(|| std::env::var("SHELL").ok().filter(|s| !s.is_empty()))
            .unwrap_or_else(|| "/bin/sh".to_string());
        let socket = self
            .services
            .info
            .socket_path
            .to_string_lossy()
            .into_owned();
        let mut spawn_spec = SpawnSpec {
            command: spec.command.clone(),
            shell,
            cwd: spec.cwd.clone(),
            cols,
            rows,
            env: vec![
                ("TUIOS_SOCKET".into(), socket),
                ("TUIOS_SESSION".into(), self.name.clone()),
                ("TUIOS_WINDOW_ID".into(), id.clone()),
                ("TUIOS_PANE_ID".into(), id.clone()),
                ("TUIOS_ENV".into(), "1".into()),
                ("TERM".into(), "xterm-256color".into()),
                ("COLORTERM".into(), "truecolor".into()),
            ]
            .into_iter()
            .chain(spec.env.iter().cloned())
            .collect(),
        };
        if restored {
            spawn_spec.env.push(("TUIOS_RESTORED".into(), "1".into()));
        }
        // openpty, the PATH search and posix_spawn (which waits for the child's exec) block:
        // they run on the blocking pool, never on this thread.
        let recording = self.new_window_recording(&id);
        let spawning = tokio::task::spawn_blocking(move || {
            let res = pty::spawn(&spawn_spec);
            let recording = recording.and_then(recording::NewWindowRecording::create);
            (spawn_spec, res, recording)
        });
        Box::pin(spawning.into_actor(self).map(move |joined, act, ctx| {
            let (spawn_spec, spawned, recording) = joined.map_err(|e| {
                errors::internal(format!("starting the window's program failed: {e}"))
            })?;
            let spawned = spawned.map_err(|reason| spawn_error(&spawn_spec, reason))?;
            let opened = act.add_window(id, spec, spawned, (cols, rows), ctx)?;
            if let Some(rec) = recording {
                act.begin_recording(&opened.window_id, rec);
            }
            Ok(opened)
        }))
    }
}

/// Why a window's program could not start, as the client should hear it.
fn spawn_error(spec: &SpawnSpec, reason: String) -> VerbError {
    if spec.command.is_empty() {
        errors::internal(format!(
            "could not start the shell {}: {reason}",
            spec.shell
        ))
    } else {
        VerbError::new(
            ErrorCode::InvalidParams,
            format!("cannot run {}: {reason}", echo_name(&spec.command[0])),
        )
        .with_hint(Hint::new().param("command").detail(
            "command is an argv executed directly, without a shell; its first element must be an executable program.",
        ))
    }
}

impl Session {
    /// Enter a freshly spawned window in the table (its PTY has the session size it was
    /// spawned with) and start its actor on the window arbiters.
    fn add_window(
        &mut self,
        id: String,
        spec: NewWindowSpec,
        spawned: pty::SpawnedPty,
        (cols, rows): (u16, u16),
        ctx: &mut Context<Self>,
    ) -> Result<OpenedWindow, VerbError> {
        // Here, not in the verb's handler: the program starts on the blocking pool first, and a
        // failed start changes nothing.
        self.save_soon(ctx);
        let workspace = if spec.workspace == 0 {
            self.current_workspace
        } else {
            spec.workspace
        };
        let before = self.snapshot();
        let pty_id = uuid::Uuid::new_v4().to_string();
        let scrollback = self
            .options
            .get("appearance.scrollback_lines")
            .and_then(|v| config::options::as_int(v))
            .map(|n| n.max(0) as usize)
            .unwrap_or(self.services.info.scrollback_lines);
        let agent_link =
            crate::agent::PaneLink::new(ctx.address().recipient(), id.clone(), spawned.pid);
        let pid = spawned.pid;
        let addr = Window::start(
            id.clone(),
            spawned,
            cols,
            rows,
            scrollback,
            self.window_links(&pty_id, &agent_link, ctx),
            &self.services.windows.pick(),
        )
        .map_err(|e| {
            pty::signal_child(pid, rustix::process::Signal::KILL);
            errors::internal(format!("could not attach to the new PTY: {e}"))
        })?;
        let stored_title = spec
            .name
            .clone()
            .unwrap_or_else(|| format!("Terminal {}", &id[..8]));
        self.windows.push(WindowEntry {
            id: id.clone(),
            pty_id: pty_id.clone(),
            addr,
            custom_name: spec.name.clone(),
            stored_title: stored_title.clone(),
            live_title: None,
            cwd: String::new(),
            workspace,
            minimized: false,
            command: !spec.command.is_empty(),
            argv: spec.command.clone(),
            remain: spec.remain,
            cols,
            rows,
            exited: None,
            modes: Default::default(),
            failed_frames: 0,
            frames_unnoticed: 0,
            frame_notice: None,
            frame_notice_at: None,
            frame_notice_scheduled: false,
            agent: crate::agent::WindowAgent::new(agent_link),
        });
        self.workspace_focus.insert(workspace, id.clone());
        if spec.focus || self.focused.is_none() {
            self.focused = Some(id.clone());
            self.current_workspace = workspace;
        }
        tracing::info!(session = %self.name, window = %id, "window created");
        self.publish_changes(before);
        Ok(OpenedWindow {
            window_id: id,
            name: stored_title,
            workspace,
            pty_id,
            focused: spec.focus,
        })
    }
}

/// A resolved window target.
pub struct ResolvedWindow {
    pub id: String,
    pub addr: Addr<Window>,
    pub alive: bool,
    /// The window's program (the PTY's session leader), for reading its foreground process.
    pub pid: i32,
}

#[derive(Message)]
#[rtype(result = "Result<ResolvedWindow, VerbError>")]
pub struct ResolveWindow(pub Option<String>);

impl Handler<ResolveWindow> for Session {
    type Result = Result<ResolvedWindow, VerbError>;
    fn handle(&mut self, msg: ResolveWindow, _: &mut Self::Context) -> Self::Result {
        let i = self.resolve(msg.0.as_deref())?;
        let w = &self.windows[i];
        Ok(ResolvedWindow {
            id: w.id.clone(),
            addr: w.addr.clone(),
            alive: w.exited.is_none(),
            pid: w.agent.link.pid,
        })
    }
}

/// Record a new PTY size after a resize.
#[derive(Message)]
#[rtype(result = "()")]
pub struct WindowResized {
    pub window_id: String,
    pub cols: u16,
    pub rows: u16,
}

impl Handler<WindowResized> for Session {
    type Result = ();
    fn handle(&mut self, msg: WindowResized, ctx: &mut Self::Context) {
        self.save_soon(ctx);
        if let Some(i) = self.index_of(&msg.window_id) {
            self.windows[i].cols = msg.cols;
            self.windows[i].rows = msg.rows;
        }
    }
}

/// Close one of the session's windows (the focused one for `None`): it leaves the table and
/// is told to [`HangUp`](window::HangUp), or with `tree` to [`EndTree`](window::EndTree)
/// (resolving to how many processes ended).
#[derive(Message)]
#[rtype(result = "Result<Option<usize>, VerbError>")]
pub struct CloseWindow {
    pub window: Option<String>,
    pub tree: bool,
}

impl Handler<CloseWindow> for Session {
    type Result = ResponseFuture<Result<Option<usize>, VerbError>>;
    fn handle(&mut self, msg: CloseWindow, ctx: &mut Self::Context) -> Self::Result {
        self.save_soon(ctx);
        let i = match self.resolve(msg.window.as_deref()) {
            Ok(i) => i,
            Err(e) => return Box::pin(async move { Err(e) }),
        };
        let before = self.snapshot();
        let entry = self.remove_window(i);
        tracing::info!(session = %self.name, window = %entry.id, tree = msg.tree, "window closed");
        let ended = msg.tree.then(|| entry.addr.send(window::EndTree));
        if ended.is_none() {
            entry.addr.do_send(window::HangUp);
        }
        self.publish_changes(before);
        Box::pin(async move {
            match ended {
                Some(req) => Ok(Some(req.await.unwrap_or(0))),
                None => Ok(None),
            }
        })
    }
}

#[derive(Message)]
#[rtype(result = "WindowList")]
pub struct ListWindows;

impl Handler<ListWindows> for Session {
    type Result = MessageResult<ListWindows>;
    fn handle(&mut self, _: ListWindows, _: &mut Self::Context) -> Self::Result {
        let windows: Vec<WindowInfo> = (0..self.windows.len())
            .map(|i| self.window_info(i))
            .collect();
        let mut per_workspace = vec![0usize; NUM_WORKSPACES as usize];
        for w in &self.windows {
            if let Some(slot) = per_workspace.get_mut((w.workspace - 1) as usize) {
                *slot += 1;
            }
        }
        MessageResult(WindowList {
            windows,
            focused: self.focused_index(),
            current_workspace: self.current_workspace,
            per_workspace,
        })
    }
}

/// The session as session-info describes it.
#[derive(Message)]
#[rtype(result = "SessionDescription")]
pub struct DescribeSession;

impl Handler<DescribeSession> for Session {
    type Result = MessageResult<DescribeSession>;
    fn handle(&mut self, _: DescribeSession, _: &mut Self::Context) -> Self::Result {
        MessageResult(self.describe())
    }
}

/// The facts `list-sessions` and the binary session list show.
#[derive(Debug, Clone)]
pub struct SessionOverview {
    /// Attached clients.
    pub clients: usize,
    pub name: String,
    pub id: String,
    pub display_name: Option<String>,
    pub accent: Option<String>,
    pub created: u64,
    pub width: u16,
    pub height: u16,
    pub current_workspace: i64,
    /// (id, title, workspace) per window.
    pub windows: Vec<(String, String, i64)>,
    /// The agent keys of each window's list-sessions entry, in the same order.
    pub agents: Vec<serde_json::Map<String, Value>>,
    /// Brought back from the state directory rather than created in this daemon's life.
    pub restored: bool,
}

#[derive(Message)]
#[rtype(result = "SessionOverview")]
pub struct Summarize;

impl Handler<Summarize> for Session {
    type Result = MessageResult<Summarize>;
    fn handle(&mut self, _: Summarize, _: &mut Self::Context) -> Self::Result {
        MessageResult(SessionOverview {
            clients: self.clients.list.len(),
            name: self.name.clone(),
            id: self.id.clone(),
            display_name: self.display_name.clone(),
            accent: self.accent.clone(),
            created: self.created,
            width: self.width,
            height: self.height,
            current_workspace: self.current_workspace,
            windows: self
                .windows
                .iter()
                .map(|w| (w.id.clone(), w.display_name().to_string(), w.workspace))
                .collect(),
            agents: self
                .windows
                .iter()
                .map(|w| w.agent.session_keys(w.custom_name.is_some()))
                .collect(),
            restored: self.saved.restored && !self.saved.attached_since,
        })
    }
}

/// End every window's program, wait until they are reaped, then stop; resolves to how many
/// processes `tree` ended (0 without it).
#[derive(Message)]
#[rtype(result = "usize")]
pub struct TerminateSession {
    /// End every process the windows started (kill-session `tree`), not only their programs.
    pub tree: bool,
}

impl Handler<TerminateSession> for Session {
    type Result = ResponseActFuture<Self, usize>;
    fn handle(&mut self, msg: TerminateSession, _: &mut Self::Context) -> Self::Result {
        // Whatever was to be saved has been (shutdown) or deleted (kill): an emptied table must
        // never overwrite it.
        self.saved.stop();
        clients::end_clients(self, "the session was ended");
        let before = self.snapshot();
        let windows: Vec<Addr<Window>> = self.windows.drain(..).map(|w| w.addr).collect();
        self.focused = None;
        // Each window closes with its session: waits and subscribers see it happen.
        self.publish_changes(before);
        tracing::info!(session = %self.name, windows = windows.len(), "session ending");
        Box::pin(
            async move {
                let kill = window::KillAndReap { tree: msg.tree };
                let ended = join_all(windows.iter().map(|w| w.send(kill))).await;
                ended.into_iter().map(|n| n.unwrap_or(0)).sum()
            }
            .into_actor(self)
            .map(|ended, _, ctx| {
                ctx.stop();
                ended
            }),
        )
    }
}
