//! `select-workspace`: show another workspace.
use super::{mailbox, session, VerbEnv};
use crate::session::{self as sess};
use protocol::verbs::select_workspace::{Params, Reply};
use protocol::VerbError;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let n = p.workspace;
    let s = session(env, p.session).await?;
    let selected = mailbox(s.addr.send(sess::SelectWorkspace(n)).await)??;
    Ok(Reply {
        current_workspace: selected.current_workspace,
        focused_window_id: selected.focused_window_id.unwrap_or_default(),
        window_count: selected.window_count,
        ..Default::default()
    })
}
