//! `record-start`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

/// A recording stops by itself when its file reaches this many bytes, unless told otherwise.
pub const DEFAULT_MAX_BYTES: u64 = 256 * 1024 * 1024;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    /// Left out: every window of the session, one file each.
    pub window: Option<String>,
    /// The directory the files go to.
    pub path: Option<String>,
    pub input: Option<bool>,
    pub max_bytes: Option<i64>,
}

reply_tag!(Tag = "recording_started");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub files: Vec<String>,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "record-start",
    description: "Extension (not in the control-protocol spec): record a window, or every window of the session (one file each), to asciicast v2 files: the screen as it stands, then the output with its timing and the resizes. A recording stops by itself at max_bytes or when its file cannot be written, never slowing the window.",
    params: &[
        SESSION,
        param("window", Str, "Window to record; left out, every window of the session."),
        param("path", Str, "Directory for the .cast files (created 0700); left out, $XDG_STATE_HOME/tuios/recordings."),
        with_default("input", Bool, "Also record what is typed into the window (\"i\" events).", "false"),
        with_default("max_bytes", Int, "Stop a recording by itself when its file reaches this size.", "268435456"),
    ],
    returns: &[param("files", StringList, "The .cast files now being written, one per window.")],
    examples: &[
        r#"{"id":1,"verb":"record-start","params":{"session":"work","window":"1"}}"#,
        r#"{"id":2,"verb":"record-start","params":{"session":"work","path":"/tmp/casts","input":true}}"#,
    ],
};
