//! `list-workspaces`: list every workspace of a session with its name, window count, whether it is
//! shown, and the window that has its focus.
use super::{mailbox, session, VerbEnv};
use crate::session::{self as sess, WorkspaceList};
use protocol::verbs::list_workspaces::{Params, Reply};
use protocol::VerbError;
use serde_json::json;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let s = session(env, p.session).await?;
    Ok(reply(mailbox(s.addr.send(sess::ListWorkspaces).await)?))
}

fn reply(list: WorkspaceList) -> Reply {
    // Unset names and focus are empty strings on the wire.
    let workspaces = list
        .workspaces
        .into_iter()
        .map(|w| {
            json!({
                "workspace": w.number,
                "name": w.name.unwrap_or_default(),
                "window_count": w.window_count,
                "current": w.current,
                "focused_window_id": w.focused_window_id.unwrap_or_default(),
            })
        })
        .collect();
    Reply {
        workspaces,
        current_workspace: list.current_workspace,
        order: list.order,
        ..Default::default()
    }
}
