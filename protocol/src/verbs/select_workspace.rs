//! `select-workspace`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    /// Required; 1-based.
    #[serde(default)]
    pub workspace: i64,
}

reply_tag!(Tag = "workspace_selected");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub current_workspace: i64,
    pub focused_window_id: String,
    pub window_count: usize,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "select-workspace",
    description: "Show another workspace. The focus moves to the window that last had it there, if any.",
    params: &[SESSION, required("workspace", Int, "Workspace to show, counting from 1.")],
    returns: &[
        param("current_workspace", Int, "The workspace shown now."),
        param("focused_window_id", Str, "Id of the focused window after the switch."),
        param("window_count", Int, "How many windows that workspace holds."),
    ],
    examples: &[
        r#"{"id":1,"verb":"select-workspace","params":{"session":"work","workspace":2}}"#,
        r#"{"id":2,"verb":"select-workspace","params":{"workspace":1}}"#,
    ],
};
