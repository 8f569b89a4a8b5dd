//! `focus-window`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

/// Params of focus-window: exactly one of `window`, `relative`, `direction` must be non-empty.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    pub window: Option<String>,
    pub relative: Option<String>,
    pub direction: Option<String>,
}

reply_tag!(Tag = "focus");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub focused_window_id: String,
    pub current_workspace: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowRow>,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "focus-window",
    description: "Focus a window. Name it in exactly one way: by target (window), by stepping through the current workspace (relative), or by screen side (direction, which needs an attached client).",
    params: &[
        SESSION,
        param("window", Str, "Window to focus: its id, a unique id prefix, its index or its exact name. Focusing it also switches to its workspace."),
        param("relative", Str, "Step to the next or previous window of the current workspace, wrapping around. Minimized windows count.").accepting(FOCUS_RELATIVE),
        param("direction", Str, "Focus the pane on that side of the focused one. Needs an attached client, which knows the layout.").accepting(FOCUS_DIRECTIONS),
    ],
    returns: &[
        param("focused_window_id", Str, "Id of the window that has the focus now."),
        param("current_workspace", Int, "The workspace shown now."),
        param("window", Object, "The focused window, as list-windows describes it. Absent if the focus resolves to no window."),
    ],
    examples: &[
        r#"{"id":1,"verb":"focus-window","params":{"session":"work","window":"build"}}"#,
        r#"{"id":2,"verb":"focus-window","params":{"relative":"next"}}"#,
        r#"{"id":3,"verb":"focus-window","params":{"session":"work","direction":"left"}}"#,
    ],
};
