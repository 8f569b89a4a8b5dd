//! `set-workspace-name`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    /// Required; 1-based.
    #[serde(default)]
    pub workspace: i64,
    /// Trimmed by the handler; empty (or absent) clears.
    pub name: Option<String>,
}

reply_tag!(Tag = "workspace_name_set");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub workspace: i64,
    pub name: String,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "set-workspace-name",
    description: "Name a workspace of a session, or clear its name.",
    params: &[
        SESSION,
        required("workspace", Int, "The workspace, counting from 1."),
        param("name", Str, "Name for it. Surrounding spaces are dropped; empty or left out clears it.").limited(Limit::Name),
    ],
    returns: &[
        param("workspace", Int, "The workspace that was named."),
        param("name", Str, "Its name now, trimmed; empty when cleared."),
    ],
    examples: &[
        r#"{"id":1,"verb":"set-workspace-name","params":{"session":"work","workspace":2,"name":"logs"}}"#,
        r#"{"id":2,"verb":"set-workspace-name","params":{"workspace":2,"name":""}}"#,
    ],
};
