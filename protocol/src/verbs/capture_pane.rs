//! `capture-pane`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    pub window: Option<String>,
    pub source: Option<String>,
    pub styled: Option<bool>,
    pub scrollback: Option<bool>,
    pub ansi: Option<bool>,
    pub lines: Option<i64>,
    pub start: Option<i64>,
    pub end: Option<i64>,
}

reply_tag!(Tag = "pane_content");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub content: String,
    pub source: String,
    pub styled: bool,
    pub window_id: String,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "capture-pane",
    description: "Return the text of a window's terminal: the visible screen, or scrollback followed by the screen, plain or with ANSI styling, optionally narrowed to some lines.",
    params: &[
        SESSION,
        WINDOW,
        with_default("source", Str, "What to read: \"visible\" is the screen as it stands, \"recent\" is the scrollback followed by the screen.", "visible").accepting(CAPTURE_SOURCES),
        with_default("styled", Bool, "Keep colours and text attributes as ANSI escape sequences.", "false"),
        with_default("scrollback", Bool, "Older spelling of source \"recent\".", "false"),
        with_default("ansi", Bool, "Older spelling of styled.", "false"),
        param(
            "lines",
            Int,
            "Return only the last N lines, not counting blank rows at the bottom. Ignored when start or end is given.",
        ),
        param("start", Int, "First line to return, counting from 1. The range includes it."),
        param("end", Int, "Last line to return, counting from 1. The range includes it."),
    ],
    returns: &[
        param("content", Str, "The captured text, rows separated by newlines."),
        param("source", Str, "The source that was actually read: \"visible\" or \"recent\"."),
        param("styled", Bool, "Whether the content carries ANSI styling."),
        param("window_id", Str, "Id of the window that was read."),
    ],
    examples: &[
        r#"{"id":1,"verb":"capture-pane","params":{"session":"work"}}"#,
        r#"{"id":2,"verb":"capture-pane","params":{"session":"work","source":"recent","lines":50}}"#,
        r#"{"id":3,"verb":"capture-pane","params":{"window":"build","styled":true,"start":1,"end":10}}"#,
    ],
};
