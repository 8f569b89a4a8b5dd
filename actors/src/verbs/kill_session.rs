//! `kill-session`: end a session and every program in it.
use protocol::verbs::kill_session::{Params, Reply};
use protocol::VerbError;

use super::{mailbox, ok, VerbEnv};
use crate::session_manager::KillSession;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    mailbox(env.manager.send(KillSession(p.session)).await)??;
    Ok(ok())
}
