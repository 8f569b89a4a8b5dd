//! `hello`: compare protocol versions with the daemon.
use crate::session_manager::{self};
use protocol::verbs::hello::{Params, Reply};
use protocol::{VerbError, MIN_PROTOCOL_VERSION, PROTOCOL_VERSION};

use super::{mailbox, VerbEnv};

pub(super) async fn handle(env: &VerbEnv, params: Params) -> Result<Reply, VerbError> {
    params.check_protocol(&env.services.info.version)?;
    if let Some(client) = params.client {
        tracing::debug!(client = %client, version = ?params.version, "hello");
    }
    let sessions = mailbox(env.manager.send(session_manager::SessionCount).await)?;
    Ok(Reply {
        protocol: PROTOCOL_VERSION,
        min_protocol: MIN_PROTOCOL_VERSION,
        daemon_version: env.services.info.version.clone(),
        pid: env.services.info.pid,
        sessions,
        ..Default::default()
    })
}
