//! `run`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    pub window: Option<String>,
    #[serde(default)]
    pub command: String,
    pub timeout: Option<i64>,
}

reply_tag!(Tag = "run_result");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub output: String,
    pub exit_code: i64,
    pub window_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell_exited: Option<bool>,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "run",
    description: "Type a command into a window's shell, wait for it to finish, and return its output (without the echoed command line or the prompt) and its exit status. The shell must be waiting at its prompt (sh, dash, bash, zsh, ksh or fish). An extension beyond the Go shapes.",
    params: &[
        SESSION,
        WINDOW,
        required("command", Str, "The command line, as you would type it at the prompt, e.g. \"make test\". It runs in the shell itself (eval), so cd and variables persist."),
        with_default("timeout", Int, "Milliseconds to wait for the command to finish before failing with the timeout code. The command keeps running then.", "30000"),
    ],
    returns: &[
        param("output", Str, "What the command printed, as the terminal shows it: rows joined with \\n (CRLF becomes \\n, trailing spaces dropped, a line longer than the window's width comes back split at the width)."),
        param("exit_code", Int, "The command's exit status."),
        param("window_id", Str, "Id of the window it ran in."),
        param("truncated", Bool, "True when the output began more rows ago than the scrollback keeps; output then starts at the oldest row kept."),
        param("shell_exited", Bool, "True when the command ended the shell itself (exit); exit_code is then the shell's exit status."),
    ],
    examples: &[
        r#"{"id":1,"verb":"run","params":{"session":"ci","window":"0","command":"echo ready; test -d /tmp","timeout":60000}}"#,
    ],
};
