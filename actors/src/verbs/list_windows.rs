//! `list-windows`: the session's windows, in order.
use protocol::verbs::list_windows::{Params, Reply};
use protocol::VerbError;

use super::{mailbox, rows, session, window, VerbEnv};
use crate::session::{self as sess, WindowList};
use crate::session_manager::SessionRef;
use crate::window as win;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let s = session(env, p.session).await?;
    let reply = reply(mailbox(s.addr.send(sess::ListWindows).await)?);
    Ok(with_recording(&s, reply).await)
}

/// An extension of list-windows' rows (and run-command ListWindows, its same form): each
/// window says whether it is being recorded.
pub(super) async fn with_recording(s: &SessionRef, mut reply: Reply) -> Reply {
    for row in &mut reply.windows {
        let recording = match window(s, Some(row.window_id.clone())).await {
            Ok(w) => w.addr.send(win::IsRecording).await.unwrap_or(false),
            Err(_) => false,
        };
        row.recording = Some(recording);
    }
    reply
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
