//! `set-workspace-name`: name a workspace of a session, or clear its name.
use super::{mailbox, session, VerbEnv};
use crate::session as sess;
use protocol::verbs::set_workspace_name::{Params, Reply};
use protocol::VerbError;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let n = p.workspace;
    let s = session(env, p.session).await?;
    let label = mailbox(
        s.addr
            .send(sess::SetWorkspaceName {
                workspace: n,
                name: p.name.unwrap_or_default(),
            })
            .await,
    )??;
    Ok(Reply {
        workspace: label.workspace,
        // Cleared is the empty name.
        name: label.name.unwrap_or_default(),
        ..Default::default()
    })
}
