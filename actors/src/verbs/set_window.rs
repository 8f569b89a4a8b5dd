//! `set-window`: rename a window, minimize or restore it, or both.
use super::{mailbox, rows, session, VerbEnv};
use crate::session::{self as sess};
use protocol::verbs::set_window::{Params, Reply};
use protocol::VerbError;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    if p.name.is_none() && p.minimized.is_none() {
        return Err(VerbError::invalid_params(
            "name",
            "nothing to set: pass name, minimized, or both",
        ));
    }
    let s = session(env, p.session).await?;
    let window = mailbox(
        s.addr
            .send(sess::SetWindow {
                target: p.window,
                name: p.name,
                minimized: p.minimized,
            })
            .await,
    )??;
    Ok(Reply {
        window: rows::window_row(window),
        ..Default::default()
    })
}
