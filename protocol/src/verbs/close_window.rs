//! `close-window`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    pub window: Option<String>,
    pub tree: Option<bool>,
}

/// `{"type":"ok"}`, with `ended` when the whole process tree was asked for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: OkTag,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<u64>,
}

/// What `tree` means, shared with kill-session.
pub const TREE_DOC: &str = "End every process the window started, including those that called setsid (daemons) and left its terminal session. Without it, the window's terminal session is hung up (its program, background and nohup jobs) and setsid'd processes survive.";

/// What `ended` counts, shared with kill-session.
pub const ENDED_DOC: &str = "Present only with tree: how many processes were ended (the window's program included).";

pub const SPEC: VerbSpec = VerbSpec {
    name: "close-window",
    description: "Close a window and end the process running in it.",
    params: &[
        SESSION,
        WINDOW,
        with_default("tree", Bool, TREE_DOC, "false"),
    ],
    returns: &[param("ended", Int, ENDED_DOC)],
    examples: &[
        r#"{"id":1,"verb":"close-window","params":{"session":"work","window":"build"}}"#,
        r#"{"id":2,"verb":"close-window","params":{}}"#,
        r#"{"id":3,"verb":"close-window","params":{"window":"server","tree":true}}"#,
    ],
};
