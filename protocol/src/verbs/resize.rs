//! `resize`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    pub window: Option<String>,
    #[serde(default)]
    pub width: i64,
    #[serde(default)]
    pub height: i64,
}

reply_tag!(Tag = "resized");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub width: i64,
    pub height: i64,
    pub window_id: String,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "resize",
    description: "Change the size of a window's terminal (the focused window's unless window is given). The program in it is notified of the new size; list-windows shows it until a client places the window.",
    params: &[
        SESSION,
        WINDOW,
        required("width", Int, "New width in columns. Must be positive.").limited(Limit::Cols),
        required("height", Int, "New height in rows. Must be positive.").limited(Limit::Rows),
    ],
    returns: &[
        param("width", Int, "Width in columns now in effect."),
        param("height", Int, "Height in rows now in effect."),
        param("window_id", Str, "Id of the window that was resized."),
    ],
    examples: &[r#"{"id":1,"verb":"resize","params":{"session":"work","window":"build","width":120,"height":40}}"#],
};
