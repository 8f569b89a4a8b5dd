//! `set-window`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

/// Params of set-window. `None` (absent or JSON null) means "leave as is"; an empty `name` clears
/// the custom name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    pub window: Option<String>,
    pub name: Option<String>,
    pub minimized: Option<bool>,
}

reply_tag!(Tag = "window_set");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    #[serde(flatten)]
    pub window: WindowRow,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "set-window",
    description: "Rename a window, minimize or restore it, or both. At least one of name and minimized must be given.",
    params: &[
        SESSION,
        WINDOW,
        param("name", Str, "New name for the window. Surrounding spaces are dropped; an empty name clears it, so the program's title shows again.").limited(Limit::Name),
        param("minimized", Bool, "true to minimize the window, false to restore it."),
    ],
    returns: &[
        param("window_id", Str, "Id of the window. The other keys of its list-windows row follow, as it stands now."),
        param("index", Int, "Its position in list-windows, from 0."),
        param("title", Str, "The title its program set."),
        param("display_name", Str, "The name shown for the window: its own name if set, else its title."),
        param("workspace", Int, "Workspace it is on."),
        param("minimized", Bool, "Whether the window is minimized."),
        param("focused", Bool, "Whether it has the session's focus."),
        param("x", Int, "Column of its outer box's top-left corner where the attached client draws it; 0 until a client has placed it."),
        param("y", Int, "Row of that corner, as x."),
        param("width", Int, "Width in columns of its outer box (border included) where a client placed it, else of its terminal."),
        param("height", Int, "Height in rows, as width."),
        param("pty_id", Str, "Id of its terminal."),
        param("agent_state", Str, "Agent state: none unless something reported one."),
        param("alive", Bool, "Whether its program is still running."),
        param("failed_frames", Int, "Lumen frames from its program that could not be read."),
        param("recording", Bool, "Only in list-windows rows (extension): whether the window is being recorded; never sent here."),
        param("custom_name", Str, "The window's own name, absent when it has none."),
        param("agent_message", Str, "The message reported with the agent state, when there is one."),
        param("agent_state_at", Int, "When the agent state was set, in Unix nanoseconds, when it was."),
        param("agent_harness", Str, "The harness the window is attributed to, when one is."),
        param("foreground_cmd", Str, "The foreground program the agent detector last read, when it read one."),
        param("exit_code", Int, "Exit status once its program ended; null when the status is unknown (exit_reason says why)."),
        param("signal", Int, "The signal that ended its program, when one did."),
        param("exit_reason", Str, "Why its program ended without an exit status."),
    ],
    examples: &[
        r#"{"id":1,"verb":"set-window","params":{"session":"work","window":"1","name":"logs"}}"#,
        r#"{"id":2,"verb":"set-window","params":{"window":"logs","minimized":true}}"#,
    ],
};
