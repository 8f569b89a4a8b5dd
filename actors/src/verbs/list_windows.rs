//! `list-windows`: the session's windows, in order.
use protocol::verbs::list_windows::{Params, Reply};
use protocol::VerbError;

use super::{mailbox, rows, session, VerbEnv};
use crate::session::{self as sess, WindowList};

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let s = session(env, p.session).await?;
    Ok(reply(mailbox(s.addr.send(sess::ListWindows).await)?))
}

/// The wire form of the window list (run-command's ListWindows sends it too).
pub(super) fn reply(list: WindowList) -> Reply {
    // -1 and "" when nothing has the focus, as the reference implementation reports it.
    let focused_window_id = list
        .focused
        .map(|i| list.windows[i].id.clone())
        .unwrap_or_default();
    Reply {
        total: list.windows.len(),
        windows: list.windows.into_iter().map(rows::window_row).collect(),
        focused_index: list.focused.map(|i| i as i64).unwrap_or(-1),
        focused_window_id,
        current_workspace: list.current_workspace,
        workspace_windows: list.per_workspace,
        ..Default::default()
    }
}
