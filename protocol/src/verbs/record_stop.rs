//! `record-stop`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    /// Left out: every recorded window of the session.
    pub window: Option<String>,
}

reply_tag!(Tag = "recording_stopped");

/// One closed recording.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecordedFile {
    pub path: String,
    pub bytes: u64,
    pub duration_ms: u64,
    /// Why it ended: stopped, max_bytes, disk_full, overflow or window_closed.
    pub reason: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub files: Vec<RecordedFile>,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "record-stop",
    description: "Extension (not in the control-protocol spec): stop recording a window, or every recorded window of the session, and close the files. A recording that already stopped by itself (max_bytes, a write error) is reported with its reason.",
    params: &[
        SESSION,
        param("window", Str, "Window to stop recording; left out, every window of the session."),
    ],
    returns: &[param(
        "files",
        ObjectList,
        "The closed files: path, bytes, duration_ms and reason (stopped, max_bytes, disk_full, overflow).",
    )],
    examples: &[r#"{"id":1,"verb":"record-stop","params":{"session":"work"}}"#],
};
