//! Session messages about workspaces, focus and per-window flags (select-workspace,
//! move-window, set-window, focus-window and their run-command twins). Each mutation goes
//! through `publish_changes`, so the matching events come from the state change itself.
use actix::prelude::*;
use protocol::{ErrorCode, Hint, VerbError};

use super::views::{
    FocusState, MovedWindow, SelectedWorkspace, WindowInfo, WorkspaceInfo, WorkspaceList,
};
use super::{Session, NUM_WORKSPACES};

/// The error for a workspace number outside the session's range.
pub fn workspace_out_of_range(n: i64) -> VerbError {
    VerbError::new(
        ErrorCode::InvalidParams,
        format!("workspace {n} is out of range (1-{NUM_WORKSPACES})"),
    )
    .with_hint(
        Hint::new()
            .param("workspace")
            .verb("list-workspaces")
            .detail(format!(
                "This session has workspaces 1 to {NUM_WORKSPACES}."
            )),
    )
}

pub(super) fn check_workspace(n: i64) -> Result<i64, VerbError> {
    if (1..=NUM_WORKSPACES).contains(&n) {
        Ok(n)
    } else {
        Err(workspace_out_of_range(n))
    }
}

impl Session {
    /// Make `n` the current workspace; focus follows that workspace's recorded focus, if any.
    pub(super) fn switch_workspace(&mut self, n: i64) {
        self.current_workspace = n;
        if let Some(id) = self.workspace_focus.get(&n).cloned() {
            if self.index_of(&id).is_some() {
                self.focused = Some(id);
            }
        }
    }

    /// Focus the window at `idx` and show its workspace.
    pub(super) fn focus_index(&mut self, idx: usize) {
        let (id, ws) = (self.windows[idx].id.clone(), self.windows[idx].workspace);
        self.focused = Some(id.clone());
        self.current_workspace = ws;
        self.workspace_focus.insert(ws, id);
    }

    fn focus_state(&self) -> FocusState {
        FocusState {
            focused_window_id: self.focused.clone(),
            current_workspace: self.current_workspace,
            window: self.focused_index().map(|i| self.window_info(i)),
        }
    }

    /// Move the window at `idx` to workspace `n`; a window that held its old workspace's
    /// focus no longer does.
    pub(super) fn move_index(&mut self, idx: usize, n: i64) -> i64 {
        let from = self.windows[idx].workspace;
        let id = self.windows[idx].id.clone();
        if self.workspace_focus.get(&from) == Some(&id) {
            self.workspace_focus.remove(&from);
        }
        self.windows[idx].workspace = n;
        if from != n {
            self.workspace_focus.entry(n).or_insert(id);
        }
        from
    }

    /// Cycle focus through the windows of the current workspace, in window order, wrapping.
    pub(super) fn focus_relative(&mut self, forward: bool) -> Result<(), VerbError> {
        let on_ws: Vec<usize> = (0..self.windows.len())
            .filter(|&i| self.windows[i].workspace == self.current_workspace)
            .collect();
        if on_ws.is_empty() {
            return Err(VerbError::new(
                ErrorCode::NoWindows,
                format!("no windows on workspace {}", self.current_workspace),
            )
            .with_hint(
                Hint::new()
                    .verb("new-window")
                    .detail("Create a window on this workspace, or select another workspace."),
            ));
        }
        let here = self
            .focused_index()
            .and_then(|f| on_ws.iter().position(|&i| i == f));
        let n = on_ws.len();
        let next = match (here, forward) {
            (Some(p), true) => (p + 1) % n,
            (Some(p), false) => (p + n - 1) % n,
            (None, true) => 0,
            (None, false) => n - 1,
        };
        self.focus_index(on_ws[next]);
        Ok(())
    }

    pub(super) fn set_minimized(&mut self, idx: usize, minimized: bool) {
        self.windows[idx].minimized = minimized;
    }

    pub(super) fn rename_index(&mut self, idx: usize, name: &str) {
        let name = name.trim();
        self.windows[idx].custom_name = (!name.is_empty()).then(|| name.to_string());
    }
}

#[derive(Message)]
#[rtype(result = "WorkspaceList")]
pub struct ListWorkspaces;

impl Handler<ListWorkspaces> for Session {
    type Result = MessageResult<ListWorkspaces>;
    fn handle(&mut self, _: ListWorkspaces, _: &mut Self::Context) -> Self::Result {
        let workspaces = (1..=NUM_WORKSPACES)
            .map(|n| WorkspaceInfo {
                number: n,
                name: self.workspace_names.get(&n).cloned(),
                window_count: self.windows.iter().filter(|w| w.workspace == n).count(),
                current: n == self.current_workspace,
                focused_window_id: self.workspace_focus.get(&n).cloned(),
            })
            .collect();
        MessageResult(WorkspaceList {
            workspaces,
            current_workspace: self.current_workspace,
            order: self.workspace_order.clone(),
        })
    }
}

#[derive(Message)]
#[rtype(result = "Result<SelectedWorkspace, VerbError>")]
pub struct SelectWorkspace(pub i64);

impl Handler<SelectWorkspace> for Session {
    type Result = Result<SelectedWorkspace, VerbError>;
    fn handle(&mut self, msg: SelectWorkspace, ctx: &mut Self::Context) -> Self::Result {
        self.save_soon(ctx);
        let n = check_workspace(msg.0)?;
        let before = self.snapshot();
        self.switch_workspace(n);
        self.publish_changes(before);
        Ok(SelectedWorkspace {
            current_workspace: self.current_workspace,
            focused_window_id: self.focused.clone(),
            window_count: self.windows.iter().filter(|w| w.workspace == n).count(),
        })
    }
}

#[derive(Message)]
#[rtype(result = "Result<MovedWindow, VerbError>")]
pub struct MoveWindow {
    pub target: Option<String>,
    pub workspace: i64,
    pub follow: bool,
}

impl Handler<MoveWindow> for Session {
    type Result = Result<MovedWindow, VerbError>;
    fn handle(&mut self, msg: MoveWindow, ctx: &mut Self::Context) -> Self::Result {
        self.save_soon(ctx);
        let idx = self.resolve(msg.target.as_deref())?;
        let n = check_workspace(msg.workspace)?;
        let before = self.snapshot();
        let from = self.move_index(idx, n);
        if msg.follow {
            self.switch_workspace(n);
        }
        self.publish_changes(before);
        Ok(MovedWindow {
            window_id: self.windows[idx].id.clone(),
            from_workspace: from,
            workspace: n,
            current_workspace: self.current_workspace,
        })
    }
}

/// Rename and/or minimize a window; answers the window as it now is.
#[derive(Message)]
#[rtype(result = "Result<WindowInfo, VerbError>")]
pub struct SetWindow {
    pub target: Option<String>,
    pub name: Option<String>,
    pub minimized: Option<bool>,
}

impl Handler<SetWindow> for Session {
    type Result = Result<WindowInfo, VerbError>;
    fn handle(&mut self, msg: SetWindow, ctx: &mut Self::Context) -> Self::Result {
        self.save_soon(ctx);
        if msg.name.is_none() && msg.minimized.is_none() {
            return Err(VerbError::invalid_params(
                "name",
                "nothing to set: pass name, minimized, or both",
            ));
        }
        let idx = self.resolve(msg.target.as_deref())?;
        let before = self.snapshot();
        if let Some(name) = &msg.name {
            self.rename_index(idx, name);
        }
        if let Some(m) = msg.minimized {
            self.set_minimized(idx, m);
        }
        self.publish_changes(before);
        Ok(self.window_info(idx))
    }
}

/// Focus a window by target, or cycle with `relative`.
#[derive(Message)]
#[rtype(result = "Result<FocusState, VerbError>")]
pub enum FocusWindow {
    Target(String),
    Relative { forward: bool },
}

impl Handler<FocusWindow> for Session {
    type Result = Result<FocusState, VerbError>;
    fn handle(&mut self, msg: FocusWindow, ctx: &mut Self::Context) -> Self::Result {
        self.save_soon(ctx);
        let before = self.snapshot();
        match msg {
            FocusWindow::Target(t) => {
                let idx = self.resolve(Some(&t))?;
                self.focus_index(idx);
            }
            FocusWindow::Relative { forward } => self.focus_relative(forward)?,
        }
        self.publish_changes(before);
        Ok(self.focus_state())
    }
}

/// One window, as list-windows describes it.
#[derive(Message)]
#[rtype(result = "Result<WindowInfo, VerbError>")]
pub struct GetWindow(pub Option<String>);

impl Handler<GetWindow> for Session {
    type Result = Result<WindowInfo, VerbError>;
    fn handle(&mut self, msg: GetWindow, _: &mut Self::Context) -> Self::Result {
        let idx = self.resolve(msg.0.as_deref())?;
        Ok(self.window_info(idx))
    }
}

/// A workspace-and-window command run by the daemon for `run-command`.
#[derive(Message)]
#[rtype(result = "Result<(), VerbError>")]
pub enum WindowCommand {
    Rename {
        target: Option<String>,
        name: String,
    },
    Minimize {
        target: Option<String>,
        minimized: bool,
    },
    SwitchWorkspace(i64),
    MoveFocused {
        workspace: i64,
        follow: bool,
    },
}

impl Handler<WindowCommand> for Session {
    type Result = Result<(), VerbError>;
    fn handle(&mut self, msg: WindowCommand, ctx: &mut Self::Context) -> Self::Result {
        self.save_soon(ctx);
        let before = self.snapshot();
        match msg {
            WindowCommand::Rename { target, name } => {
                let idx = self.resolve(target.as_deref())?;
                self.rename_index(idx, &name);
            }
            WindowCommand::Minimize { target, minimized } => {
                let idx = self.resolve(target.as_deref())?;
                self.set_minimized(idx, minimized);
            }
            WindowCommand::SwitchWorkspace(n) => {
                self.switch_workspace(check_workspace(n)?);
            }
            WindowCommand::MoveFocused { workspace, follow } => {
                let n = check_workspace(workspace)?;
                let idx = self.resolve(None)?;
                self.move_index(idx, n);
                if follow {
                    self.switch_workspace(n);
                }
            }
        }
        self.publish_changes(before);
        Ok(())
    }
}

/// The focus as it stands, as focus-window reports it (after a client moved it).
#[derive(Message)]
#[rtype(result = "FocusState")]
pub struct GetFocus;

impl Handler<GetFocus> for Session {
    type Result = MessageResult<GetFocus>;
    fn handle(&mut self, _: GetFocus, ctx: &mut Self::Context) -> Self::Result {
        self.save_soon(ctx);
        MessageResult(self.focus_state())
    }
}
