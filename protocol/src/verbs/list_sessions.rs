//! `list-sessions`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

pub type Params = NoParams;

reply_tag!(Tag = "session_list");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub sessions: Vec<SessionRow>,
    pub saved: Vec<Value>,
    pub unreadable: Vec<Value>,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "list-sessions",
    description: "List every session the daemon holds, oldest first, with its size, window count and whether a client is attached; a session brought back from the state directory has restored: true. Saved sessions that are not running are listed apart in saved, and saved files that cannot be read in unreadable (extension).",
    params: &[],
    returns: &[
        param("sessions", ObjectList, "Each running session, oldest first: name, id, created, last_active, window_count, attached, width, height, current_workspace, and display_name, accent, restored and windows where they apply."),
        param("saved", ObjectList, "Saved sessions that are not running: name, window_count, saved_at, created and file (extension)."),
        param("unreadable", ObjectList, "Saved files that cannot be read: file and reason (extension)."),
    ],
    examples: &[r#"{"id":1,"verb":"list-sessions","params":{}}"#],
};
