//! `move-window`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    pub window: Option<String>,
    /// Required; 1-based.
    #[serde(default)]
    pub workspace: i64,
    /// Default false.
    pub follow: Option<bool>,
}

reply_tag!(Tag = "window_moved");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub window_id: String,
    pub from_workspace: i64,
    pub workspace: i64,
    pub current_workspace: i64,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "move-window",
    description: "Move a window to another workspace, and optionally switch to that workspace with it.",
    params: &[
        SESSION,
        WINDOW,
        required("workspace", Int, "Workspace to move the window to, counting from 1."),
        with_default("follow", Bool, "Switch to that workspace after the move.", "false"),
    ],
    returns: &[
        param("window_id", Str, "Id of the window that moved."),
        param("from_workspace", Int, "Workspace the window was on."),
        param("workspace", Int, "Workspace the window is on now."),
        param("current_workspace", Int, "The workspace shown after the move."),
    ],
    examples: &[
        r#"{"id":1,"verb":"move-window","params":{"session":"work","window":"build","workspace":2}}"#,
        r#"{"id":2,"verb":"move-window","params":{"workspace":3,"follow":true}}"#,
    ],
};
