//! `kill-session`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::close_window::{ENDED_DOC, TREE_DOC};
use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    #[serde(default)]
    pub session: String,
    pub tree: Option<bool>,
}

/// The same shape as close-window's: `ended` sums the windows' counts.
pub type Reply = super::close_window::Reply;

pub const SPEC: VerbSpec = VerbSpec {
    name: "kill-session",
    description: "End a session: every window in it is closed and the programs running in them are ended. The name must be given; this verb never guesses.",
    params: &[
        required(
            "session",
            Str,
            "Name of the session to end. Required: this verb never picks a session by itself.",
        ),
        with_default("tree", Bool, TREE_DOC, "false"),
    ],
    returns: &[param("ended", Int, ENDED_DOC)],
    examples: &[
        r#"{"id":1,"verb":"kill-session","params":{"session":"work"}}"#,
        r#"{"id":2,"verb":"kill-session","params":{"session":"work","tree":true}}"#,
    ],
};
