//! `new-window`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    pub name: Option<String>,
    pub workspace: Option<i64>,
    pub cwd: Option<String>,
    /// Default true.
    pub focus: Option<bool>,
    pub command: Option<Vec<String>>,
    /// Default false.
    pub remain: Option<bool>,
    pub env: Option<Vec<String>>,
}

reply_tag!(Tag = "window_created");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub window_id: String,
    pub name: String,
    pub workspace: i64,
    pub pty_id: String,
    pub focused: bool,
    pub unplaced: bool,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "new-window",
    description: "Open a window in a session. It runs the session's shell, or the program given in command (executed directly, without a shell). A command window closes when its program exits, unless remain is true.",
    params: &[
        SESSION,
        param("name", Str, "Name for the window. Leave it out to let the program running in it set the title.").limited(Limit::Name),
        param("workspace", Int, "Workspace to open the window on, counting from 1. Leave it out for the current workspace."),
        param("cwd", Str, "Directory to start in. It must exist. Leave it out to use the daemon's directory (the CLI sends its own, as tmux does)."),
        with_default(
            "focus",
            Bool,
            "Focus the new window and switch to its workspace. Pass false to open it in the background.",
            "true",
        ),
        param(
            "command",
            StringList,
            "Program and arguments to run instead of a shell, e.g. [\"make\",\"test\"]. They are passed as they are, with no shell parsing. The window closes when the program exits, unless remain is true.",
        ),
        with_default(
            "remain",
            Bool,
            "Keep a command window after its program exits, with its screen and scrollback, so capture-pane can still read it. Shell windows always stay.",
            "false",
        ),
        param("env", StringList, "Extra environment for the window, each \"NAME=value\", e.g. [\"RUST_LOG=debug\"]."),
    ],
    returns: &[
        param("window_id", Str, "Id of the new window."),
        param("name", Str, "The window's name: the one given, or the title it was given by default."),
        param("workspace", Int, "Workspace the window was opened on."),
        param("pty_id", Str, "Id of the window's terminal."),
        param("focused", Bool, "Whether the window was focused."),
        param("unplaced", Bool, "True until an attached client has placed the window; until then its geometry is a placeholder."),
    ],
    examples: &[
        r#"{"id":1,"verb":"new-window","params":{"session":"work","name":"build"}}"#,
        r#"{"id":2,"verb":"new-window","params":{"session":"work","command":["/bin/sh","-c","echo build finished"],"remain":true}}"#,
        r#"{"id":3,"verb":"new-window","params":{"workspace":2,"cwd":"/tmp","focus":false}}"#,
    ],
};
