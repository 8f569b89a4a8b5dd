//! `explain-agent-screen`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    pub window: Option<String>,
    pub harness: Option<String>,
    pub lines: Option<i64>,
}

reply_tag!(Tag = "agent_screen");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub window_id: String,
    pub harness_id: String,
    pub state: String,
    pub source: String,
    pub lines: i64,
    pub tail: Vec<String>,
    pub rules: Vec<Value>,
    pub matched: bool,
    pub rule: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_state: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "explain-agent-screen",
    description: "Show what the screen rules of a harness make of a window: its last non-blank rows and, for each rule, whether it matched and what was missing or in the way.",
    params: &[
        SESSION,
        WINDOW,
        param("harness", Str, "Evaluate this harness manifest's rules instead of those of the harness the window is attributed to."),
        param("lines", Int, "How many of the last non-blank rows to read. Leave it out for the manifest's own count (6 when it sets none)."),
    ],
    returns: &[
        param("window_id", Str, "Id of the window."),
        param("harness_id", Str, "The manifest whose rules were evaluated, empty when none."),
        param("state", Str, "The window's agent state."),
        param("source", Str, "Who set that state."),
        param("lines", Int, "How many rows were read."),
        param("tail", StringList, "The rows the rules were matched against, oldest first."),
        param("rules", ObjectList, "One entry per rule: index, state, priority, matched, and missing, missing_regex, none_of, blocked, blocked_regex or empty saying why it did not match."),
        param("matched", Bool, "Whether some rule matched."),
        param("rule", Int, "Index of the winning rule, -1 when none matched."),
        param("enabled", Bool, "Whether the manifest's screen rules are switched on."),
        param("rule_state", Str, "The state the winning rule reports, empty when none matched."),
        param("note", Str, "Why no rules were evaluated: the window has no harness, or its manifest has no screen rules."),
    ],
    examples: &[
        r#"{"id":1,"verb":"explain-agent-screen","params":{"session":"work","window":"agent"}}"#,
        r#"{"id":2,"verb":"explain-agent-screen","params":{"harness":"claude-code","lines":10}}"#,
    ],
};
