//! `resurrect`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

pub type Params = SessionParams;

reply_tag!(Tag = "resurrected");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub sessions: Vec<Value>,
    pub failed: Vec<Value>,
    pub unreadable: Vec<Value>,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "resurrect",
    description: "Extension (not in the control-protocol spec): restore saved sessions that are not running, from the daemon's state directory; the daemon also does this by itself when it starts. Each comes back with its workspaces, window names, options and layout; windows start in their saved directories, and a window's command runs again only if it is a shell or listed in the session's daemon.resurrect_commands option (otherwise the window gets a shell and a one-line note).",
    params: &[param(
        "session",
        Str,
        "Name of the saved session to restore. Leave it out to restore every saved session that is not running.",
    )],
    returns: &[
        param("sessions", ObjectList, "One row per restored session: name, windows (how many came back) and notes (one line per window that came back differently)."),
        param("failed", ObjectList, "Saved sessions that could not be restored: name and reason."),
        param("unreadable", ObjectList, "Saved files that cannot be read: file and reason. They are left as they are."),
    ],
    examples: &[
        r#"{"id":1,"verb":"resurrect","params":{"session":"work"}}"#,
        r#"{"id":2,"verb":"resurrect","params":{}}"#,
    ],
};
