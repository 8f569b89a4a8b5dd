//! `set-session-name`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    /// Trimmed by the handler; empty (or absent) clears.
    pub name: Option<String>,
}

reply_tag!(Tag = "session_name_set");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub session: String,
    pub display_name: String,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "set-session-name",
    description: "Set the name clients display for a session. The session keeps the name it is addressed by; an empty name clears the display name.",
    params: &[
        SESSION,
        param("name", Str, "Name to display. Surrounding spaces are dropped; empty or left out clears it.").limited(Limit::Name),
    ],
    returns: &[
        param("session", Str, "The session's name, by which it is addressed."),
        param("display_name", Str, "The display name now in effect, trimmed; empty when cleared."),
    ],
    examples: &[
        r#"{"id":1,"verb":"set-session-name","params":{"session":"work","name":"Deploy 42"}}"#,
        r#"{"id":2,"verb":"set-session-name","params":{"session":"work","name":""}}"#,
    ],
};
