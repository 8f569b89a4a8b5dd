//! Shapes several verbs share: the session and window parameters, the plain `ok` reply, and the
//! window and session rows that list-windows, list-sessions and the verbs answering with one row
//! carry.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::registry::{param, ParamSpec, ParamType};

/// The `session` parameter of most verbs.
pub const SESSION: ParamSpec = param(
    "session",
    ParamType::String,
    "Session name. Leave it out to use the session that was active most recently.",
);
/// The `window` parameter of the verbs that act on one window.
pub const WINDOW: ParamSpec = param(
    "window",
    ParamType::String,
    "Window to act on: its id, a unique id prefix, the index list-windows shows, or its exact name. Leave it out for the focused window.",
);

/// Sources `capture-pane` reads from.
pub const CAPTURE_SOURCES: &[&str] = &["visible", "recent"];
/// Steps `focus-window` takes through the current workspace.
pub const FOCUS_RELATIVE: &[&str] = &["next", "prev"];
/// Sides `focus-window` looks for a neighbouring pane on.
pub const FOCUS_DIRECTIONS: &[&str] = &["left", "right", "up", "down"];
/// Axes `split-window` cuts along.
pub const SPLIT_DIRECTIONS: &[&str] = &["horizontal", "vertical"];

/// Params of the verbs that take only a session (session-info, list-windows, list-workspaces,
/// resurrect).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionParams {
    pub session: Option<String>,
}

/// Params of the verbs that take a session and a window (close-window, get-agent-state,
/// explain-agent-detect).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WindowParams {
    pub session: Option<String>,
    pub window: Option<String>,
}

/// Params of the verbs that take none.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

reply_tag!(
    /// The tag of the plain acknowledgement.
    OkTag = "ok"
);

/// The reply of verbs that only acknowledge: `{"type":"ok"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OkReply {
    #[serde(rename = "type")]
    pub kind: OkTag,
}

/// How a window's program ended, when the exit code is unknown: list-windows sends
/// `"exit_code": null` next to `exit_reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ExitCode {
    Code(i32),
    /// Serialized as `null`.
    Unknown,
}

/// One window, as list-windows describes it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WindowRow {
    pub window_id: String,
    pub index: usize,
    pub title: String,
    /// Its own name if set, else its title.
    pub display_name: String,
    pub workspace: i64,
    pub minimized: bool,
    pub focused: bool,
    pub x: i64,
    pub y: i64,
    pub width: u16,
    pub height: u16,
    pub pty_id: String,
    pub agent_state: String,
    pub alive: bool,
    /// Lumen frames that failed to parse.
    pub failed_frames: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_state_at: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_harness: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foreground_cmd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<ExitCode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_reason: Option<String>,
}

/// The keys of a [`WindowRow`], for the `returns` of verbs that answer with one.
pub const WINDOW_ROW_KEYS: &[&str] = &[
    "window_id",
    "index",
    "title",
    "display_name",
    "workspace",
    "minimized",
    "focused",
    "x",
    "y",
    "width",
    "height",
    "pty_id",
    "agent_state",
    "alive",
    "failed_frames",
    "custom_name",
    "agent_message",
    "agent_state_at",
    "agent_harness",
    "foreground_cmd",
    "exit_code",
    "signal",
    "exit_reason",
];

/// One running session, as list-sessions describes it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionRow {
    pub name: String,
    pub id: String,
    /// Unix seconds.
    pub created: u64,
    /// Unix seconds.
    pub last_active: u64,
    pub window_count: usize,
    pub attached: bool,
    pub width: u16,
    pub height: u16,
    pub current_workspace: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accent: Option<String>,
    /// Present (true) when the session was brought back from the state directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored: Option<bool>,
    /// Each window: id, title, workspace and its agent keys where set. Absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub windows: Option<Vec<Map<String, Value>>>,
}
