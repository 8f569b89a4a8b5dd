//! `upgrade`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub check: Option<bool>,
}

reply_tag!(CheckTag = "upgrade_check");
reply_tag!(UpgradingTag = "upgrading");

/// With check: whether the binary on disk could take over.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Check {
    #[serde(rename = "type")]
    pub kind: CheckTag,
    pub binary: String,
    pub reads: Vec<u32>,
    pub writes: u32,
    pub would_upgrade: bool,
}

/// Without check: sent just before the daemon executes the new binary.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Upgrading {
    #[serde(rename = "type")]
    pub kind: UpgradingTag,
    pub binary: String,
    pub from_version: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Reply {
    Check(Check),
    Upgrading(Upgrading),
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "upgrade",
    description: "Extension (not in the control-protocol spec): replace the running daemon with the tuios binary now on disk, in the same process, keeping every session, window and running program (live upgrade; SIGUSR2 does the same). The binary on disk is asked first whether it can take over; if it cannot (it does not start, or reads no handover format this daemon writes) the answer is an error saying why and the daemon carries on unchanged. Otherwise the answer comes just before the switch, and then every connection closes: JSON requests in flight are answered first, attached clients reconnect by themselves, event streams end and can be subscribed again. Call hello on a new connection to see the new daemon_version; the pid stays the same. With check true nothing is replaced: the answer says whether an upgrade would work.",
    params: &[with_default(
        "check",
        Bool,
        "Only check whether the binary on disk could take over; replace nothing.",
        "false",
    )],
    returns: &[
        param("binary", Str, "Path of the tuios binary on disk that takes (or would take) over."),
        param("from_version", Str, "Upgrade: the release of the daemon being replaced."),
        param("reads", IntList, "Check: the handover format versions the binary on disk reads."),
        param("writes", Int, "Check: the handover format version this daemon writes."),
        param("would_upgrade", Bool, "Check: true (a binary that could not take over is an error instead)."),
    ],
    examples: &[r#"{"id":1,"verb":"upgrade","params":{"check":true}}"#],
};
