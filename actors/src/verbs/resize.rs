//! `resize`: change the size of a window's terminal.
use super::{live_window, mailbox, session, VerbEnv};
use crate::errors;
use crate::window as win;
use protocol::verbs::resize::{Params, Reply};
use protocol::VerbError;

pub(super) async fn handle(env: &VerbEnv, params: Params) -> Result<Reply, VerbError> {
    let (width, height) = (params.width, params.height);
    if width <= 0 || height <= 0 {
        return Err(VerbError::invalid_params(
            "width",
            "width and height must both be positive",
        ));
    }
    if width > u16::MAX as i64 || height > u16::MAX as i64 {
        return Err(VerbError::invalid_params(
            "width",
            format!("width and height must be at most {}", u16::MAX),
        ));
    }
    let s = session(env, params.session).await?;
    let w = live_window(&s, params.window).await?;
    let (cols, rows) = (width as u16, height as u16);
    mailbox(
        w.addr
            .send(win::Resize {
                cols,
                rows,
                layout: false,
            })
            .await,
    )
    .map_err(|_| errors::window_gone(&w.id))??;
    s.addr.do_send(crate::session::WindowResized {
        window_id: w.id.clone(),
        cols,
        rows,
    });
    Ok(Reply {
        width,
        height,
        window_id: w.id,
        ..Default::default()
    })
}
