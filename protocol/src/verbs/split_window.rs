//! `split-window`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    pub window: Option<String>,
    /// Required: "horizontal" or "vertical".
    #[serde(default)]
    pub direction: String,
    pub name: Option<String>,
}

reply_tag!(Tag = "window_split");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub direction: String,
    pub window_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "split-window",
    description: "Split a tiled pane in two, opening a new window in the new half. Needs an attached client with tiling on.",
    params: &[
        SESSION,
        param("window", Str, "Pane to split: its id, a unique id prefix, its index or its exact name. It is focused first. Leave it out for the focused window."),
        required("direction", Str, "The axis to cut along.").accepting(SPLIT_DIRECTIONS),
        param("name", Str, "Name for the new window.").limited(Limit::Name),
    ],
    returns: &[
        param("direction", Str, "The axis that was cut."),
        param("window_id", Str, "Id of the new window, or empty if it has not reached the daemon yet (see note)."),
        param("name", Str, "The new window's name, when one was given."),
        param("note", Str, "Present when window_id is empty: call list-windows to find the new window."),
    ],
    examples: &[
        r#"{"id":1,"verb":"split-window","params":{"session":"work","direction":"vertical"}}"#,
        r#"{"id":2,"verb":"split-window","params":{"window":"build","direction":"horizontal","name":"tests"}}"#,
    ],
};
