//! `resurrect`: bring a saved session back (the session manager restores it).
use protocol::verbs::resurrect::{Params, Reply};
use protocol::VerbError;

use super::{mailbox, VerbEnv};
use crate::session_manager::resurrect::Resurrect;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    mailbox(env.manager.send(Resurrect(p.session)).await)?
}
