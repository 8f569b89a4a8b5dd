//! `move-window`: move a window to another workspace, and optionally switch to that workspace with
//! it.
use super::{mailbox, session, VerbEnv};
use crate::session::{self as sess};
use protocol::verbs::move_window::{Params, Reply};
use protocol::VerbError;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let n = p.workspace;
    let s = session(env, p.session).await?;
    let moved = mailbox(
        s.addr
            .send(sess::MoveWindow {
                target: p.window,
                workspace: n,
                follow: p.follow.unwrap_or(false),
            })
            .await,
    )??;
    Ok(Reply {
        window_id: moved.window_id,
        from_workspace: moved.from_workspace,
        workspace: moved.workspace,
        current_workspace: moved.current_workspace,
        ..Default::default()
    })
}
