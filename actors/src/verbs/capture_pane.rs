//! `capture-pane`: return the text of a window's terminal: the visible screen, or scrollback
//! followed by the screen, plain or with ANSI styling, optionally narrowed to some lines.
use super::{mailbox, session, window, VerbEnv};
use crate::errors;
use crate::window as win;
use protocol::verbs::capture_pane::slice_capture;
use protocol::verbs::capture_pane::{Params, Reply};
use protocol::VerbError;

pub(super) async fn handle(env: &VerbEnv, params: Params) -> Result<Reply, VerbError> {
    // The source is checked before the session, as the protocol orders it.
    let mode = params.mode()?;
    let s = session(env, params.session).await?;
    let w = window(&s, params.window).await?;
    let (scrollback, styled) = (mode.scrollback, mode.styled);
    let (start, end) = (params.start.unwrap_or(0), params.end.unwrap_or(0));
    let content = if start > 0 || end > 0 {
        // A range reads only its lines, wherever they are kept (history on disk included).
        let lines = win::CaptureLines {
            scrollback,
            styled,
            start,
            end,
        };
        mailbox(w.addr.send(lines).await).map_err(|_| errors::window_gone(&w.id))?
    } else {
        let content = mailbox(w.addr.send(win::Capture { scrollback, styled }).await)
            .map_err(|_| errors::window_gone(&w.id))?;
        slice_capture(&content, params.lines.unwrap_or(0), 0, 0)
    };
    Ok(Reply {
        content,
        // The source actually read, whichever spelling asked for it.
        source: mode.source().to_owned(),
        styled,
        window_id: w.id,
        ..Default::default()
    })
}
