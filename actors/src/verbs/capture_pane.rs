//! `capture-pane`: return the text of a window's terminal: the visible screen, or scrollback
//! followed by the screen, plain or with ANSI styling, optionally narrowed to some lines; with
//! the visible screen's hash, and with `since` only the rows changed from a remembered screen.
use super::{mailbox, session, window, VerbEnv};
use crate::errors;
use crate::window as win;
use protocol::verbs::capture_pane::slice_capture;
use protocol::verbs::capture_pane::{ChangedRow, Params, Reply};
use protocol::VerbError;

pub(super) async fn handle(env: &VerbEnv, params: Params) -> Result<Reply, VerbError> {
    // The source is checked before the session, as the protocol orders it.
    let mode = params.mode()?;
    let s = session(env, params.session).await?;
    let w = window(&s, params.window).await?;
    let (scrollback, styled) = (mode.scrollback, mode.styled);
    let (start, end) = (params.start.unwrap_or(0), params.end.unwrap_or(0));
    // A range reads only its lines, wherever they are kept (history on disk included).
    let range = (start > 0 || end > 0).then_some((start, end));
    let captured = mailbox(
        w.addr
            .send(win::CaptureScreen {
                scrollback,
                styled,
                since: params.since,
                range,
            })
            .await,
    )
    .map_err(|_| errors::window_gone(&w.id))?;
    let content = captured.content.map(|content| match range {
        Some(_) => content,
        None => slice_capture(&content, params.lines.unwrap_or(0), 0, 0),
    });
    let rows = captured.rows.map(|rows| {
        rows.into_iter()
            .map(|(row, text)| ChangedRow { row, text })
            .collect()
    });
    Ok(Reply {
        content,
        // The source actually read, whichever spelling asked for it.
        source: mode.source().to_owned(),
        styled,
        window_id: w.id,
        hash: captured.hash,
        rows,
        since_known: captured.since_known,
        ..Default::default()
    })
}
