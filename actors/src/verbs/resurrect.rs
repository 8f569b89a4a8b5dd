//! `resurrect`: bring saved sessions back (the session manager restores them).
use protocol::verbs::resurrect::{Params, Reply};
use protocol::VerbError;

use super::{mailbox, VerbEnv};
use crate::session_manager::resurrect::Resurrect;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let done = mailbox(env.manager.send(Resurrect(p.session)).await)??;
    Ok(Reply {
        sessions: done.restored,
        failed: done.failed,
        unreadable: done.unreadable,
        ..Default::default()
    })
}
