//! `set-session-accent`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    /// Trimmed by the handler; empty (or absent) clears.
    pub accent: Option<String>,
}

reply_tag!(Tag = "session_accent_set");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub session: String,
    pub accent: String,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "set-session-accent",
    description: "Set the accent colour clients use for a session, an ANSI colour name such as \"cyan\" or \"bright blue\", or \"#rrggbb\" (any case; recorded as sent, without surrounding spaces); an empty accent clears it.",
    params: &[
        SESSION,
        param("accent", Str, "The colour: an ANSI colour name or #rrggbb. Surrounding spaces are dropped; empty or left out clears it."),
    ],
    returns: &[
        param("session", Str, "The session's name."),
        param("accent", Str, "The accent now in effect, as sent without surrounding spaces; empty when cleared."),
    ],
    examples: &[
        r#"{"id":1,"verb":"set-session-accent","params":{"session":"work","accent":"cyan"}}"#,
        r##"{"id":2,"verb":"set-session-accent","params":{"accent":"#ff8800"}}"##,
    ],
};
