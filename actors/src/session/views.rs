//! What a Session answers its messages with: the daemon's own account of its windows, workspaces
//! and labels. Only the verb modules (`crate::verbs`) turn these into wire replies, so the window
//! table knows nothing of the protocol's reply shapes (or of the defaults the reference
//! implementation reports).
use std::collections::BTreeMap;

use protocol::agent::AgentState;

use crate::agent::state::AgentFacts;
use crate::pty::ExitInfo;

/// One window: what list-windows, get-window, set-window and focus-window describe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowInfo {
    pub id: String,
    /// Its place in the session's window order.
    pub index: usize,
    /// The program's own title once it set one, else the title given at creation.
    pub title: String,
    /// The name the user gave it, if any.
    pub custom_name: Option<String>,
    /// The custom name if set, else the title.
    pub display_name: String,
    pub workspace: i64,
    pub minimized: bool,
    pub focused: bool,
    /// Its outer box where an attached client placed it, else 0, 0 and its terminal's size.
    pub x: i64,
    pub y: i64,
    pub width: u16,
    pub height: u16,
    pub pty_id: String,
    /// Lumen frames from the program that failed and were dropped.
    pub failed_frames: u64,
    pub agent: AgentFacts,
    /// How its program ended; `None` while it runs.
    pub exited: Option<ExitInfo>,
}

/// Every window of a session, in order, with the focus and the workspace counts.
#[derive(Debug, Clone)]
pub struct WindowList {
    pub windows: Vec<WindowInfo>,
    /// The focused window's place in `windows`.
    pub focused: Option<usize>,
    pub current_workspace: i64,
    /// Windows per workspace, workspace 1 first.
    pub per_workspace: Vec<usize>,
}

/// A session as session-info describes it.
#[derive(Debug, Clone)]
pub struct SessionDescription {
    pub name: String,
    pub id: String,
    pub display_name: Option<String>,
    pub accent: Option<String>,
    pub current_workspace: i64,
    pub num_workspaces: i64,
    pub workspace_names: BTreeMap<i64, String>,
    /// The display order of workspaces; `None` is the natural order.
    pub workspace_order: Option<Vec<i64>>,
    /// From the attached clients' layout of the current workspace: whether it tiles. `None`
    /// when no client has sent a layout that says.
    pub tiling: Option<bool>,
    /// The name of that layout (`bsp`, `master-stack`, `scrolling`), as the client wrote it;
    /// `None` under the same condition as `tiling`.
    pub layout_mode: Option<String>,
    pub window_count: usize,
    pub width: u16,
    pub height: u16,
    /// Attached clients.
    pub clients: usize,
    pub client_list: Vec<ClientFacts>,
    /// Unix seconds.
    pub created: u64,
}

/// One attached client as session-info describes it.
#[derive(Debug, Clone)]
pub struct ClientFacts {
    /// `terminal`, `web` or `ssh`.
    pub kind: String,
    pub read_only: bool,
    /// Unix seconds.
    pub since: u64,
    pub peer: String,
}

/// A window just opened by new-window.
#[derive(Debug, Clone)]
pub struct OpenedWindow {
    pub window_id: String,
    /// Its name if given, else the title it was given at creation.
    pub name: String,
    pub workspace: i64,
    pub pty_id: String,
    /// Whether the caller asked for it to take the focus.
    pub focused: bool,
}

/// Where the focus stands after focus-window.
#[derive(Debug, Clone)]
pub struct FocusState {
    pub focused_window_id: Option<String>,
    pub current_workspace: i64,
    /// The focused window, when it is in the table.
    pub window: Option<WindowInfo>,
}

/// One workspace, as list-workspaces shows it.
#[derive(Debug, Clone)]
pub struct WorkspaceInfo {
    pub number: i64,
    pub name: Option<String>,
    pub window_count: usize,
    /// Shown now.
    pub current: bool,
    /// The window that holds this workspace's focus.
    pub focused_window_id: Option<String>,
}

/// Every workspace of a session.
#[derive(Debug, Clone)]
pub struct WorkspaceList {
    pub workspaces: Vec<WorkspaceInfo>,
    pub current_workspace: i64,
    /// The display order; `None` is the natural order.
    pub order: Option<Vec<i64>>,
}

/// The workspace select-workspace switched to.
#[derive(Debug, Clone)]
pub struct SelectedWorkspace {
    pub current_workspace: i64,
    pub focused_window_id: Option<String>,
    /// Windows on that workspace.
    pub window_count: usize,
}

/// A window move-window moved.
#[derive(Debug, Clone)]
pub struct MovedWindow {
    pub window_id: String,
    pub from_workspace: i64,
    pub workspace: i64,
    pub current_workspace: i64,
}

/// A session's labels after one of them changed.
#[derive(Debug, Clone)]
pub struct SessionLabels {
    pub session: String,
    pub display_name: Option<String>,
    pub accent: Option<String>,
}

/// A workspace's name after set-workspace-name.
#[derive(Debug, Clone)]
pub struct WorkspaceLabel {
    pub workspace: i64,
    /// `None` once cleared.
    pub name: Option<String>,
}

/// A window's agent state as get-agent-state reads it.
#[derive(Debug, Clone)]
pub struct AgentStatus {
    pub window_id: String,
    pub state: AgentState,
    /// Empty when the last report said nothing.
    pub message: String,
    /// When the state was last set (Unix nanoseconds); 0 if it never was.
    pub since_ns: u64,
    /// Who set it: the claimant's source, or `report` for an unclaimed window.
    pub source: &'static str,
    pub harness: Option<String>,
}

/// What became of a set-agent-state report.
#[derive(Debug, Clone)]
pub struct AgentReportOutcome {
    pub window_id: String,
    /// The window's state afterwards (unchanged when the report was refused).
    pub state: AgentState,
    /// Whether the report was taken (a lower-ranked source cannot overwrite a claim).
    pub applied: bool,
}
