//! `kill-session`: end a session and every program in it; with `tree`, every process its
//! windows started.
use protocol::verbs::kill_session::{Params, Reply};
use protocol::VerbError;

use super::{mailbox, VerbEnv};
use crate::session_manager::KillSession;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let kill = KillSession {
        name: p.session,
        tree: p.tree.unwrap_or(false),
    };
    let ended = mailbox(env.manager.send(kill).await)??;
    Ok(Reply {
        ended: ended.map(|n| n as u64),
        ..Reply::default()
    })
}
