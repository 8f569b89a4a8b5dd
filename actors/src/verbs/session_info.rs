//! `session-info`: describe one session: its workspaces and their names, layout, size, window
//! count, and whether a client is attached.
use protocol::verbs::session_info::Reply;
use protocol::params::*;
use protocol::VerbError;
use crate::event_hub::{CountSubscriptions, SubscriptionKind};
use crate::session as sess;

use super::{mailbox, session, VerbEnv};

pub(super) async fn handle(
    env: &VerbEnv,
    p: SessionParams,
) -> Result<Reply, VerbError> {
    let s = session(env, p.session).await?;
    let mut info = mailbox(s.addr.send(sess::SessionInfo).await)?;
    // Live wait-for calls on this session: a harness can check that none leaked.
    info.waiters = mailbox(
        env.services
            .hub
            .send(CountSubscriptions {
                kind: SubscriptionKind::Waiter,
                session: Some(s.name.clone()),
            })
            .await,
    )?;
    Ok(info)
}
