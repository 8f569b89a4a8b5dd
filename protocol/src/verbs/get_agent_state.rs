//! `get-agent-state`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

pub type Params = WindowParams;

reply_tag!(Tag = "agent_state");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub window_id: String,
    pub state: String,
    pub message: String,
    pub agent_state_at: i64,
    pub source: String,
    pub harness_id: String,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "get-agent-state",
    description: "Read the agent state the daemon holds for a window, with its message, when it was set, who set it and the harness it is attributed to.",
    params: &[SESSION, WINDOW],
    returns: &[
        param("window_id", Str, "Id of the window."),
        param("state", Str, "One of none, working, needs_input, idle, done, errored."),
        param("message", Str, "The message reported with the state, empty when none."),
        param("agent_state_at", Int, "When the state was set, in Unix nanoseconds; 0 when never."),
        param("source", Str, "Who set the state: report, transcript, osc, screen, detect or stall (report when nothing claims the window)."),
        param("harness_id", Str, "The harness the window is attributed to, empty when none."),
    ],
    examples: &[
        r#"{"id":1,"verb":"get-agent-state","params":{"session":"work","window":"agent"}}"#,
        r#"{"id":2,"verb":"get-agent-state","params":{}}"#,
    ],
};
