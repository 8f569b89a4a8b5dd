//! `set-workspace-order`: choose the order clients show a session's workspaces in.
use super::{mailbox, session, VerbEnv};
use crate::session as sess;
use protocol::verbs::set_workspace_order::{Params, Reply};
use protocol::VerbError;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let order = p.order;
    let s = session(env, p.session).await?;
    let workspace_order = mailbox(s.addr.send(sess::SetWorkspaceOrder(order)).await)??;
    Ok(Reply {
        workspace_order,
        ..Default::default()
    })
}
