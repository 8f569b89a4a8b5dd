//! `list-sessions`: list every session the daemon holds, oldest first, with its size, window count
//! and whether a client is attached; a session brought back from the state directory has restored:
//! true.
use crate::session as sess;
use crate::session_manager::{self, SessionManager};
use actix::prelude::*;
use futures_util::future::join_all;
use protocol::verbs::common::SessionRow;
use protocol::verbs::list_sessions::{Params, Reply};
use protocol::VerbError;
use serde_json::{json, Map, Value};

use super::{mailbox, VerbEnv};

pub(super) async fn handle(env: &VerbEnv, _p: Params) -> Result<Reply, VerbError> {
    let sessions = session_list(&env.manager).await?;
    let running: Vec<String> = sessions.iter().map(|r| r.name.clone()).collect();
    // Saved sessions that are not running, and saved files that cannot be used.
    let (saved, unreadable) = session_manager::resurrect::saved_listing(env, &running).await;
    Ok(Reply {
        sessions,
        saved,
        unreadable,
        ..Default::default()
    })
}

/// The session rows of `list-sessions`, oldest first.
pub async fn session_list(manager: &Addr<SessionManager>) -> Result<Vec<SessionRow>, VerbError> {
    let list = mailbox(manager.send(session_manager::ListSessions).await)?;
    let summaries = join_all(list.iter().map(|(addr, _)| addr.send(sess::Summarize))).await;
    let mut rows = Vec::new();
    for (summary, (_, last_active)) in summaries.into_iter().zip(list) {
        // A session that ended while we asked is simply not listed.
        let Ok(s) = summary else { continue };
        let windows: Vec<Map<String, Value>> = s
            .windows
            .iter()
            .zip(s.agents.iter().map(Some).chain(std::iter::repeat(None)))
            .map(|((id, title, ws), agent)| {
                let mut w = Map::new();
                w.insert("id".into(), json!(id));
                w.insert("title".into(), json!(title));
                w.insert("workspace".into(), json!(ws));
                for (k, v) in agent.into_iter().flatten() {
                    w.insert(k.clone(), v.clone());
                }
                w
            })
            .collect();
        rows.push(SessionRow {
            name: s.name,
            id: s.id,
            created: s.created,
            last_active,
            window_count: s.windows.len(),
            attached: s.clients > 0,
            width: s.width,
            height: s.height,
            current_workspace: s.current_workspace,
            display_name: s.display_name,
            accent: s.accent,
            restored: s.restored.then_some(true),
            windows: (!windows.is_empty()).then_some(windows),
        });
    }
    Ok(rows)
}
