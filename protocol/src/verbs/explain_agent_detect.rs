//! `explain-agent-detect`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

pub type Params = WindowParams;

reply_tag!(Tag = "agent_detect");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub window_id: String,
    pub state: String,
    pub source: String,
    pub harness_id: String,
    pub auto_detected: bool,
    pub running: bool,
    pub matched: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifests: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_list: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest_problems: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched_rule: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched_harness: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<Value>,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "explain-agent-detect",
    description: "Explain why a window was or was not recognised as running an agent: the foreground process read now (comm, argv, exe), and which harness manifest or built-in name matched it, or why each did not.",
    params: &[SESSION, WINDOW],
    returns: &[
        param("window_id", Str, "Id of the window."),
        param("state", Str, "The window's agent state."),
        param("source", Str, "Who set that state."),
        param("harness_id", Str, "The harness the window is attributed to, empty when none."),
        param("auto_detected", Bool, "True when the detector promoted the window and will clear it when the agent leaves."),
        param("running", Bool, "Whether a foreground process could be read."),
        param("matched", Bool, "Whether the foreground process is an agent."),
        param("reason", Str, "Why nothing could be read, when running is false."),
        param("process", Object, "The foreground process: pid, comm, argv, exe, argv0, run_token, interpreter."),
        param("manifests", ObjectList, "Every manifest in lookup order: id, matched, and the rule that matched or the reason it did not."),
        param("name_list", Str, "The built-in or configured agent name that matched, when no manifest did."),
        param("manifest_problems", StringList, "Manifest files that could not be read, one line each, when there are any."),
        param("matched_rule", Str, "The predicate that identified the agent."),
        param("matched_harness", Str, "The manifest that identified it; empty for a name-list match."),
        param("note", Str, "Present when a name-list match names no harness: no screen rules run then."),
        param("transcript", Object, "The transcript tier, for a window attributed to a harness with transcripts: joined true with the file's path and the offset read up to, or joined false with the reason the last search made no join."),
    ],
    examples: &[
        r#"{"id":1,"verb":"explain-agent-detect","params":{"session":"work","window":"agent"}}"#,
        r#"{"id":2,"verb":"explain-agent-detect","params":{}}"#,
    ],
};
