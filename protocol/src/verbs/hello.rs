//! `hello`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub client: Option<String>,
    pub version: Option<String>,
    pub protocol: Option<i64>,
}

reply_tag!(Tag = "hello");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub protocol: i64,
    pub min_protocol: i64,
    pub daemon_version: String,
    pub pid: u32,
    pub sessions: usize,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "hello",
    description: "Compare protocol versions with the daemon. Reports the version it speaks, the oldest it still serves, its build, pid and session count, and refuses a caller whose version is outside that range.",
    params: &[
        param("client", Str, "Name of the calling program, recorded in the daemon's log."),
        param("version", Str, "The caller's own release, quoted back if the versions do not match."),
        param("protocol", Int, "Control protocol version the caller speaks. Leave it out, or pass 0, to skip the check."),
    ],
    returns: &[
        param("protocol", Int, "Control protocol version the daemon speaks."),
        param("min_protocol", Int, "Oldest control protocol version the daemon still serves."),
        param("daemon_version", Str, "The daemon's release."),
        param("pid", Int, "The daemon's process id."),
        param("sessions", Int, "How many sessions the daemon holds."),
    ],
    examples: &[
        r#"{"id":1,"verb":"hello","params":{"client":"deploy-script","version":"1.0.0","protocol":1}}"#,
        r#"{"id":2,"verb":"hello","params":{}}"#,
    ],
};
