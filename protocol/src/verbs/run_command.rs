//! `run-command`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    /// Required; a name from `crate::commands::command_names()`.
    #[serde(default)]
    pub command: String,
    pub args: Option<Vec<String>>,
}

reply_tag!(Tag = "command_result");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    /// Read-only commands (ListWindows, GetSessionInfo, GetWindow) and client-run ones add the
    /// keys of their own answer.
    #[serde(flatten)]
    pub data: Map<String, Value>,
    pub command: String,
    pub routed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "run-command",
    description: "Run one named tuios command with string arguments. Window, focus and workspace commands run in the daemon when no client is attached; the others (keys, layout, appearance) need an attached client. Unknown names, wrong argument counts and bad argument values (a direction, a count, a key combination, an option value) are refused with invalid_params before anything runs or is routed.",
    params: &[
        SESSION,
        required("command", Str, "Name of the command, matched exactly, capitals included.").accepting(crate::commands::COMMAND_NAMES),
        param("args", StringList, "The command's arguments, each a string, e.g. [\"2\"] for SwitchWorkspace."),
    ],
    returns: &[
        param("command", Str, "The command that ran."),
        param("routed", Bool, "True when the attached client ran it, false when the daemon did."),
        param("window_id", Str, "NewWindow run by the daemon: id of the new window. Read-only commands add the keys their verb returns."),
        param("name", Str, "NewWindow run by the daemon: the new window's name."),
    ],
    examples: &[
        r#"{"id":1,"verb":"run-command","params":{"session":"work","command":"SwitchWorkspace","args":["2"]}}"#,
        r#"{"id":2,"verb":"run-command","params":{"command":"NewWindow","args":["logs","tail","-f","app.log"]}}"#,
        r#"{"id":3,"verb":"run-command","params":{"session":"work","command":"ListWindows"}}"#,
    ],
};
