//! `subscribe`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    pub window: Option<String>,
    pub types: Option<Vec<String>>,
    pub queue: Option<i64>,
}

reply_tag!(Tag = "subscribed");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub seq: u64,
    pub queue: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub types: Option<Vec<String>>,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "subscribe",
    description: "Turn this connection into an event stream as well: events matching the filters follow as lines of their own, from now on (no backfill), interleaved with the responses to later requests.",
    params: &[
        param("session", Str, "Only events of this session (exact name). Leave it out for every session."),
        param("window", Str, "Only events of this window: its id, or any window target when session is given."),
        param("types", StringList, "Only these event types. Leave it out for all of them.").accepting(crate::events::EVENT_TYPES),
        with_default("queue", Int, "Events buffered for this stream before a reader that falls behind gets a gap event instead.", "256"),
    ],
    returns: &[
        param("seq", Int, "The last sequence number assigned before the stream started; events that follow have higher numbers."),
        param("queue", Int, "The queue length in force: the one asked for, clamped to the daemon's maximum."),
        param("session", Str, "The session filter, when one was given."),
        param("window", Str, "The window filter (an id), when one was given."),
        param("types", StringList, "The event type filter, when one was given."),
    ],
    examples: &[
        r#"{"id":1,"verb":"subscribe","params":{"session":"work","types":["window-created","window-closed"]}}"#,
        r#"{"id":2,"verb":"subscribe","params":{}}"#,
    ],
};
