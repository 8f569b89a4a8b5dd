//! `kill-session`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    #[serde(default)]
    pub session: String,
}

pub type Reply = OkReply;

pub const SPEC: VerbSpec = VerbSpec {
    name: "kill-session",
    description: "End a session: every window in it is closed and the programs running in them are ended. The name must be given; this verb never guesses.",
    params: &[required(
        "session",
        Str,
        "Name of the session to end. Required: this verb never picks a session by itself.",
    )],
    returns: &[],
    examples: &[r#"{"id":1,"verb":"kill-session","params":{"session":"work"}}"#],
};
