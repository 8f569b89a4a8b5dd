//! `list-windows`: the session's windows, in order.
use protocol::verbs::list_windows::{Params, Reply};
use protocol::VerbError;

use super::{mailbox, session, VerbEnv};
use crate::session as sess;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let s = session(env, p.session).await?;
    mailbox(s.addr.send(sess::ListWindows).await)
}
