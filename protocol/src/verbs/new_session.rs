//! `new-session`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub name: Option<String>,
    pub width: Option<i64>,
    pub height: Option<i64>,
    pub command: Option<Vec<String>>,
    pub cwd: Option<String>,
    pub env: Option<Vec<String>>,
}

reply_tag!(Tag = "session_created");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    #[serde(flatten)]
    pub session: SessionRow,
    pub window_id: String,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "new-session",
    description: "Create a session with its first window, running the shell or the given command, and answer with the session as list-sessions shows it.",
    params: &[
        param("name", Str, "Name of the session (up to 200 bytes; letters, digits and . _ - work everywhere). Leave it out to let the daemon pick session-0, session-1, ..."),
        with_default("width", Int, "Width in columns, 1 to 1000. Attached clients resize the session to their own size.", "80"),
        with_default("height", Int, "Height in rows, 1 to 1000.", "24"),
        param("command", StringList, "Program and arguments for the first window instead of a shell, e.g. [\"htop\"]; no shell parsing. The window stays when the program exits, so its output can still be captured."),
        param("cwd", Str, "Directory the first window starts in. It must exist. Leave it out for the daemon's directory (the CLI sends its own)."),
        param("env", StringList, "Extra environment for the first window, each \"NAME=value\", e.g. [\"RUST_LOG=debug\"]."),
    ],
    returns: &[
        param("name", Str, "The session's name."),
        param("id", Str, "The session's id."),
        param("created", Int, "When it was created, in Unix seconds."),
        param("last_active", Int, "When it was last used, in Unix seconds."),
        param("window_count", Int, "Windows in the session: 1."),
        param("attached", Bool, "Whether a client is attached."),
        param("width", Int, "Width in columns."),
        param("height", Int, "Height in rows."),
        param("current_workspace", Int, "The workspace shown now."),
        param("display_name", Str, "The display name, when one is set."),
        param("accent", Str, "The accent colour, when one is set."),
        param("restored", Bool, "True when the session was brought back from the state directory."),
        param("windows", ObjectList, "Each window: id, title, workspace, and agent_state, agent_state_at, agent_harness, agent_message, foreground_cmd where set. Absent when there are none."),
        param("window_id", Str, "Id of its first window."),
    ],
    examples: &[
        r#"{"id":1,"verb":"new-session","params":{"name":"scratch"}}"#,
        r#"{"id":2,"verb":"new-session","params":{"name":"tests","width":120,"height":40,"cwd":"/tmp","env":["CI=1"]}}"#,
        r#"{"id":3,"verb":"new-session","params":{"name":"job","command":["/bin/sh","-c","echo job finished"]}}"#,
    ],
};
