//! `list-windows`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

pub type Params = SessionParams;

reply_tag!(Tag = "window_list");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub windows: Vec<WindowRow>,
    pub total: usize,
    pub focused_index: i64,
    pub focused_window_id: String,
    pub current_workspace: i64,
    pub workspace_windows: Vec<usize>,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "list-windows",
    description: "List the windows of a session with their index, id, name, workspace, size, focus and agent state.",
    params: &[SESSION],
    returns: &[
        param("windows", ObjectList, "One row per window: window_id, index, title, display_name, workspace, minimized, focused, x, y, width, height, pty_id, agent_state, alive, failed_frames, and custom_name, agent_message, agent_state_at, agent_harness, foreground_cmd, exit_code, signal, exit_reason where they apply, and recording (extension: whether record-start is writing it). x, y, width and height are the window's outer box (border included) where the attached client draws it; until a client has placed it, x and y are 0 and width and height the size of its terminal (the size its program sees, as resize sets it)."),
        param("total", Int, "How many windows the session has."),
        param("focused_index", Int, "Index of the focused window, -1 when none."),
        param("focused_window_id", Str, "Id of the focused window, empty when none."),
        param("current_workspace", Int, "The workspace shown now."),
        param("workspace_windows", IntList, "How many windows each workspace holds, workspace 1 first."),
    ],
    examples: &[
        r#"{"id":1,"verb":"list-windows","params":{"session":"work"}}"#,
        r#"{"id":2,"verb":"list-windows","params":{}}"#,
    ],
};
