//! `set-session-name`: set the name clients display for a session.
use super::{mailbox, session, VerbEnv};
use crate::session as sess;
use protocol::verbs::set_session_name::{Params, Reply};
use protocol::VerbError;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let s = session(env, p.session).await?;
    let labels = mailbox(
        s.addr
            .send(sess::SetSessionName(p.name.unwrap_or_default()))
            .await,
    )?;
    Ok(Reply {
        session: labels.session,
        display_name: labels.display_name.unwrap_or_default(),
        ..Default::default()
    })
}
