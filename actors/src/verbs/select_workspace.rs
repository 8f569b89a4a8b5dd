//! `select-workspace`: show another workspace.
use protocol::verbs::select_workspace::{Params, Reply};
use protocol::VerbError;
use super::{mailbox, session, VerbEnv};
use crate::session::{self as sess};

pub(super) async fn handle(
    env: &VerbEnv,
    p: Params,
) -> Result<Reply, VerbError> {
    let n = p.workspace;
    let s = session(env, p.session).await?;
    mailbox(s.addr.send(sess::SelectWorkspace(n)).await)?
}
