//! What the agent verbs share: a window's agent facts, blocking reads off the actor thread,
//! and the error for a harness the registry does not know.

use protocol::closest::{closest_match, echo_name};
use protocol::{ErrorCode, Hint, VerbError};

use crate::agent::manifest::Registry;
use crate::errors;
use crate::session::{AgentWindowInfo, GetAgentWindowInfo};
use crate::session_manager::SessionRef;
use crate::verb_env::{mailbox, VerbEnv};

pub(super) async fn session(env: &VerbEnv, name: Option<String>) -> Result<SessionRef, VerbError> {
    env.session(name).await
}

pub(super) async fn window_info(
    env: &VerbEnv,
    session_name: Option<String>,
    window: Option<String>,
) -> Result<AgentWindowInfo, VerbError> {
    let s = session(env, session_name).await?;
    mailbox(s.addr.send(GetAgentWindowInfo(window)).await)?
}

/// File and /proc reads, off the actor thread.
pub(super) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, VerbError> {
    actix_rt::task::spawn_blocking(f)
        .await
        .map_err(|e| errors::internal(format!("could not read the process table: {e}")))
}

pub(super) fn unknown_harness(name: &str, registry: &Registry) -> VerbError {
    let ids = registry.ids();
    VerbError::new(
        ErrorCode::InvalidParams,
        format!("unknown harness {}", echo_name(name)),
    )
    .with_hint(
        Hint::new()
            .param("harness")
            .did_you_mean(closest_match(name, ids.iter().map(String::as_str)))
            .available(ids.iter().cloned())
            .detail("harness names a manifest in the registry; a TOML file in the user manifest directory adds one."),
    )
}
