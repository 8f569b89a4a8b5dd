//! `list-workspaces`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

pub type Params = SessionParams;

reply_tag!(Tag = "workspace_list");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub workspaces: Vec<Value>,
    pub current_workspace: i64,
    pub order: Option<Vec<i64>>,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "list-workspaces",
    description: "List every workspace of a session with its name, window count, whether it is shown, and the window that has its focus.",
    params: &[SESSION],
    returns: &[
        param("workspaces", ObjectList, "One row per workspace, from 1: workspace, name (empty when unnamed), window_count, current, focused_window_id."),
        param("current_workspace", Int, "The workspace shown now."),
        param("order", IntList, "The order workspaces are shown in, or null for 1, 2, 3 ..."),
    ],
    examples: &[
        r#"{"id":1,"verb":"list-workspaces","params":{"session":"work"}}"#,
        r#"{"id":2,"verb":"list-workspaces","params":{}}"#,
    ],
};
