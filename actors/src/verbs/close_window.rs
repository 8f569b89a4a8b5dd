//! `close-window`: end a window and its program; with `tree`, every process it started.
use protocol::verbs::close_window::{Params, Reply};
use protocol::VerbError;

use super::{mailbox, session, VerbEnv};
use crate::session as sess;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let s = session(env, p.session).await?;
    let close = sess::CloseWindow {
        window: p.window,
        tree: p.tree.unwrap_or(false),
    };
    let ended = mailbox(s.addr.send(close).await)??;
    Ok(Reply {
        ended: ended.map(|n| n as u64),
        ..Reply::default()
    })
}
