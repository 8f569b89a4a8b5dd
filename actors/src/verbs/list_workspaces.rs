//! `list-workspaces`: list every workspace of a session with its name, window count, whether it is
//! shown, and the window that has its focus.
use protocol::verbs::list_workspaces::Reply;
use protocol::params::*;
use protocol::VerbError;
use super::{mailbox, session, VerbEnv};
use crate::session::{self as sess};

pub(super) async fn handle(
    env: &VerbEnv,
    p: SessionParams,
) -> Result<Reply, VerbError> {
    let s = session(env, p.session).await?;
    mailbox(s.addr.send(sess::ListWorkspaces).await)
}
