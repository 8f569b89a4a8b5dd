//! `session-info`: describe one session: its workspaces and their names, layout, size, window
//! count, and whether a client is attached.
use crate::event_hub::{CountSubscriptions, SubscriptionKind};
use crate::session::{self as sess, SessionDescription};
use protocol::verbs::session_info::{Params, Reply};
use protocol::VerbError;
use serde_json::Value;

use super::{mailbox, session, VerbEnv};

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let s = session(env, p.session).await?;
    let mut info = reply(mailbox(s.addr.send(sess::DescribeSession).await)?);
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

/// The wire form of a session's description, without the waiters (run-command's
/// GetSessionInfo sends it too). `mode` and `master_ratio` are fixed values the reference
/// implementation reports (the client's master pane takes half the width).
pub(super) fn reply(d: SessionDescription) -> Reply {
    Reply {
        session_name: d.name,
        session_id: d.id,
        display_name: d.display_name.unwrap_or_default(),
        accent: d.accent.unwrap_or_default(),
        mode: "unknown".into(),
        current_workspace: d.current_workspace,
        num_workspaces: d.num_workspaces,
        workspace_names: d
            .workspace_names
            .into_iter()
            .map(|(k, v)| (k.to_string(), Value::from(v)))
            .collect(),
        workspace_order: d.workspace_order,
        layout_mode: d.layout_mode.unwrap_or_else(|| "unknown".into()),
        window_count: d.window_count,
        tiling_mode: if d.tiling == Some(true) {
            "tiling"
        } else {
            "floating"
        }
        .into(),
        master_ratio: 0.5,
        width: d.width,
        height: d.height,
        tui_attached: d.clients > 0,
        clients: d.clients,
        created: d.created,
        client_list: d
            .client_list
            .into_iter()
            .map(|c| protocol::verbs::session_info::ClientInfo {
                kind: c.kind,
                read_only: c.read_only,
                since: c.since,
                peer: c.peer,
            })
            .collect(),
        ..Default::default()
    }
}
