//! `set-agent-state`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;
use crate::limits::MAX_MESSAGE_BYTES;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    pub window: Option<String>,
    /// Required.
    #[serde(default)]
    pub state: String,
    pub message: Option<String>,
    /// Default `report`.
    pub source: Option<String>,
    pub harness: Option<String>,
}

reply_tag!(Tag = "agent_state_set");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub window_id: String,
    pub state: String,
    pub message: String,
    pub source: String,
    pub applied: bool,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "set-agent-state",
    description: "Report the state of the agent running in a window. Reports compete by source: one from a source ranked below the window's current claimant (report > transcript > osc > screen > detect > stall) is refused with applied false and changes nothing.",
    params: &[
        SESSION,
        WINDOW,
        required("state", Str, "The agent's state; none clears it.").accepting(crate::agent::AGENT_STATES),
        param("message", Str, "A short note shown with the state, e.g. what the agent waits for.")
            .limited(Limit::Bytes(MAX_MESSAGE_BYTES, "MAX_MESSAGE_BYTES")),
        with_default("source", Str, "Who observed the state. Leave it out when the agent reports for itself.", "report").accepting(crate::agent::SETTABLE_SOURCES),
        param("harness", Str, "Id of the agent's harness manifest, e.g. \"claude-code\"; its screen rules then apply to the window."),
    ],
    returns: &[
        param("window_id", Str, "Id of the window."),
        param("state", Str, "The window's state after the call: the new one, or the standing one when refused."),
        param("message", Str, "The message as sent."),
        param("source", Str, "The source the report was made with."),
        param("applied", Bool, "False when a higher-ranked source holds the window; nothing changed then."),
    ],
    examples: &[
        r#"{"id":1,"verb":"set-agent-state","params":{"session":"work","window":"agent","state":"needs_input","message":"approve the edit"}}"#,
        r#"{"id":2,"verb":"set-agent-state","params":{"state":"done","harness":"claude-code"}}"#,
        r#"{"id":3,"verb":"set-agent-state","params":{"state":"idle","source":"stall"}}"#,
    ],
};
