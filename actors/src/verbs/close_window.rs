//! `close-window`: end a window and its program.
use protocol::verbs::close_window::{Params, Reply};
use protocol::VerbError;

use super::{mailbox, ok, session, VerbEnv};
use crate::session as sess;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let s = session(env, p.session).await?;
    mailbox(s.addr.send(sess::CloseWindow(p.window)).await)??;
    Ok(ok())
}
