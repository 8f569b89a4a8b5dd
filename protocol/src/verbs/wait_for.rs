//! `wait-for`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    #[serde(default)]
    pub condition: String,
    pub session: Option<String>,
    pub window: Option<String>,
    pub pattern: Option<String>,
    pub source: Option<String>,
    pub fresh: Option<bool>,
    pub idle: Option<i64>,
    pub timeout: Option<i64>,
    /// agent-state: comma-separated states.
    pub until: Option<String>,
}

reply_tag!(Tag = "wait_result");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub condition: String,
    pub matched: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    #[serde(rename = "match")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#match: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_ms: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "wait-for",
    description: "Block this connection until a condition holds, and fail with the timeout code if it does not hold in time.",
    params: &[
        required("condition", Str, "What to wait for.").accepting(crate::events::WAIT_CONDITIONS),
        SESSION,
        WINDOW,
        param("pattern", Str, "Regular expression the window's text must match (window-output)."),
        with_default("source", Str, "Text window-output searches: the visible screen, or scrollback and screen.", "recent").accepting(CAPTURE_SOURCES),
        with_default("fresh", Bool, "Only output that arrives after the wait began can match (window-output).", "false"),
        param("idle", Int, "Milliseconds without output that count as idle (window-idle, default 500), or without a change to the visible screen's text and styles that count as settled (screen-settled, default 300). Both count from the wait's start at the earliest."),
        with_default("timeout", Int, "Milliseconds to wait before failing with the timeout code.", "30000"),
        param("until", Str, "agent-state: the states to wait for, comma-separated, e.g. \"idle,done\". Required by that condition.").accepting(crate::agent::AGENT_STATES),
    ],
    returns: &[
        param("condition", Str, "The condition that held."),
        param("matched", Bool, "Always true: a wait that does not match fails with the timeout code instead."),
        param("session", Str, "session-exists: the session that exists."),
        param("window", Str, "The window target as given, empty when none was."),
        param("window_id", Str, "Id of the window the condition held for."),
        param("pattern", Str, "window-output: the pattern that matched."),
        param("match", Str, "window-output: the text that matched."),
        param("idle_ms", Int, "window-idle and screen-settled: the quiet time waited for, in milliseconds."),
        param("state", Str, "agent-state: the state that was reached."),
        param("exit_code", Int, "window-exit: the program's exit status, when it exited normally."),
        param("signal", Int, "window-exit: the signal that ended the program, when one did."),
        param("hash", Str, "screen-settled: the settled screen's hash, as capture-pane returns it (usable as its since)."),
    ],
    examples: &[
        r#"{"id":1,"verb":"wait-for","params":{"condition":"window-output","session":"work","pattern":"done","timeout":10000}}"#,
        r#"{"id":2,"verb":"wait-for","params":{"condition":"window-exit","session":"work","window":"build"}}"#,
        r#"{"id":3,"verb":"wait-for","params":{"condition":"session-exists","session":"work","timeout":5000}}"#,
        r#"{"id":4,"verb":"wait-for","params":{"condition":"window-idle","session":"work","idle":1000}}"#,
        r#"{"id":5,"verb":"wait-for","params":{"condition":"agent-state","session":"work","window":"agent","until":"done","timeout":60000}}"#,
        r#"{"id":6,"verb":"wait-for","params":{"condition":"screen-settled","session":"work","idle":300,"timeout":10000}}"#,
    ],
};
