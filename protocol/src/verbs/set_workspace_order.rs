//! `set-workspace-order`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    /// Required and non-empty.
    #[serde(default)]
    pub order: Vec<i64>,
}

reply_tag!(Tag = "workspace_order_set");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub workspace_order: Option<Vec<i64>>,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "set-workspace-order",
    description: "Choose the order clients show a session's workspaces in. Numbers out of range and repeats are dropped; workspaces left out follow the named ones; an ascending list restores the natural order.",
    params: &[
        SESSION,
        required("order", IntList, "Workspace numbers in the order to show them, e.g. [3,1,2]."),
    ],
    returns: &[
        param("workspace_order", IntList, "The order now in effect, or null for the natural order."),
    ],
    examples: &[
        r#"{"id":1,"verb":"set-workspace-order","params":{"session":"work","order":[3,1,2]}}"#,
        r#"{"id":2,"verb":"set-workspace-order","params":{"order":[1,2,3]}}"#,
    ],
};
