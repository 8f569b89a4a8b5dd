//! Shapes several verbs share: the session and window parameters, the plain `ok` reply, and the
//! window and session rows that list-windows, list-sessions and the verbs answering with one row
//! carry.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::registry::spec::{param, ParamSpec, ParamType};

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

/// Params of the verbs that take a session and a window (get-agent-state,
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

/// A present `exit_code`, `null` included: plain `Option` would read `null` as absent.
fn present_exit_code<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<ExitCode>, D::Error> {
    ExitCode::deserialize(d).map(Some)
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
    /// list-windows only (extension): whether a recording of the window is being written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recording: Option<bool>,
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
    /// Absent while the program runs; `null` (Unknown) when it ended without a status.
    #[serde(
        default,
        deserialize_with = "present_exit_code",
        skip_serializing_if = "Option::is_none"
    )]
    pub exit_code: Option<ExitCode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_reason: Option<String>,
}

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

/// The part of a session row the binary protocol's session list carries.
impl From<&SessionRow> for crate::binary::SessionSummary {
    fn from(row: &SessionRow) -> Self {
        crate::binary::SessionSummary {
            name: row.name.clone(),
            id: row.id.clone(),
            created: row.created,
            last_active: row.last_active,
            window_count: row.window_count,
            attached: row.attached,
            width: row.width,
            height: row.height,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_exit_code_is_null_and_a_row_leaves_out_what_is_unset() {
        let row = WindowRow {
            exit_code: Some(ExitCode::Unknown),
            ..Default::default()
        };
        let v = serde_json::to_value(&row).unwrap();
        assert_eq!(v["exit_code"], Value::Null);
        assert!(v.as_object().unwrap().contains_key("exit_code"));
        assert!(v.get("signal").is_none() && v.get("custom_name").is_none());
        let back: WindowRow = serde_json::from_value(v).unwrap();
        assert_eq!(back.exit_code, Some(ExitCode::Unknown));
        let code = WindowRow {
            exit_code: Some(ExitCode::Code(3)),
            ..Default::default()
        };
        assert_eq!(serde_json::to_value(&code).unwrap()["exit_code"], 3);
    }

    #[test]
    fn a_session_row_gives_the_binary_summary() {
        let row = SessionRow {
            name: "work".into(),
            window_count: 2,
            attached: true,
            width: 80,
            ..Default::default()
        };
        let s = crate::binary::SessionSummary::from(&row);
        assert_eq!(
            (s.name.as_str(), s.window_count, s.attached, s.width),
            ("work", 2, true, 80)
        );
    }
}
