//! `hello`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;
use crate::closest::echo_name;
use crate::error::{ErrorCode, Hint, VerbError};
use crate::{MIN_PROTOCOL_VERSION, PROTOCOL_VERSION};

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

impl Params {
    /// The handshake check: a caller that omits `protocol` (or sends 0 or less) is accepted; one
    /// outside `MIN_PROTOCOL_VERSION..=PROTOCOL_VERSION` gets `protocol_mismatch` saying which side
    /// is newer and what to do about it.
    pub fn check_protocol(&self, daemon_version: &str) -> Result<(), VerbError> {
        let theirs = self.protocol.unwrap_or(0);
        let client_version = self
            .version
            .as_deref()
            .filter(|v| !v.is_empty())
            .unwrap_or("unknown");
        let client_version = echo_name(client_version);
        if theirs > PROTOCOL_VERSION {
            return Err(VerbError::new(
                ErrorCode::ProtocolMismatch,
                format!(
                    "the client speaks control protocol {theirs}, newer than this daemon, which speaks up to {PROTOCOL_VERSION}"
                ),
            )
            .with_hint(Hint::new().command("tuios kill-server").detail(format!(
                "The daemon (version {daemon_version}) is older than the client (version {client_version}); it was most likely left running across an upgrade. Stop it and the newer client can start a current one."
            ))));
        }
        if theirs > 0 && theirs < MIN_PROTOCOL_VERSION {
            return Err(VerbError::new(
                ErrorCode::ProtocolMismatch,
                format!(
                    "the client speaks control protocol {theirs}, older than this daemon still serves (oldest {MIN_PROTOCOL_VERSION})"
                ),
            )
            .with_hint(Hint::new().detail(format!(
                "The client (version {client_version}) is older than the daemon (version {daemon_version}). Upgrade the client."
            ))));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hello_protocol_check() {
        let hello = |protocol: Option<i64>| Params {
            protocol,
            version: Some("9.9".into()),
            client: None,
        };
        assert!(hello(None).check_protocol("1.0").is_ok());
        assert!(hello(Some(0)).check_protocol("1.0").is_ok());
        assert!(hello(Some(-4)).check_protocol("1.0").is_ok());
        assert!(hello(Some(PROTOCOL_VERSION)).check_protocol("1.0").is_ok());
        let err = hello(Some(9999)).check_protocol("1.0").unwrap_err();
        assert_eq!(err.code, ErrorCode::ProtocolMismatch);
        assert_eq!(err.hint.command.as_deref(), Some("tuios kill-server"));
        let detail = err.hint.detail.unwrap();
        assert!(detail.contains("1.0") && detail.contains("9.9"), "{detail}");
        assert!(err.message.contains("9999"));
    }
}
