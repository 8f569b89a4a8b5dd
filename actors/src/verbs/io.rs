//! Verbs that write to, read from or resize a window's terminal.
use protocol::params::*;
use protocol::verbs::{capture_pane, common::OkReply, resize};
use protocol::VerbError;

use super::{live_window, mailbox, ok, session, window, VerbEnv};
use crate::errors;

use crate::window as win;

pub(super) async fn send_keys(env: &VerbEnv, params: SendKeysParams) -> Result<OkReply, VerbError> {
    let keys = params.keys;
    let s = session(env, params.session).await?;
    let w = live_window(&s, params.window).await?;
    let bytes = protocol::keys::keys_to_bytes(
        &keys,
        params.literal.unwrap_or(false),
        params.raw.unwrap_or(false),
    )
    .map_err(|e| e.to_verb_error())?;
    refuse_frames("keys", &bytes)?;
    // Encoded again in the window, with the cursor-key mode in force when they are written.
    mailbox(
        w.addr
            .send(win::SendKeys {
                keys,
                literal: params.literal.unwrap_or(false),
                raw: params.raw.unwrap_or(false),
            })
            .await,
    )
    .map_err(|_| errors::window_gone(&w.id))??;
    Ok(ok())
}

pub(super) async fn send_text(env: &VerbEnv, params: SendTextParams) -> Result<OkReply, VerbError> {
    let text = params.text;
    refuse_frames("text", text.as_bytes())?;
    let s = session(env, params.session).await?;
    let w = live_window(&s, params.window).await?;
    mailbox(w.addr.send(win::WriteInput(text.into_bytes())).await)
        .map_err(|_| errors::window_gone(&w.id))??;
    Ok(ok())
}

pub(super) async fn capture_pane(
    env: &VerbEnv,
    params: CapturePaneParams,
) -> Result<capture_pane::Reply, VerbError> {
    // The source is checked before the session, as the protocol orders it.
    let mode = params.mode()?;
    let s = session(env, params.session).await?;
    let w = window(&s, params.window).await?;
    let (scrollback, styled) = (mode.scrollback, mode.styled);
    let content = mailbox(w.addr.send(win::Capture { scrollback, styled }).await)
        .map_err(|_| errors::window_gone(&w.id))?;
    let content = slice_capture(
        &content,
        params.lines.unwrap_or(0),
        params.start.unwrap_or(0),
        params.end.unwrap_or(0),
    );
    Ok(capture_pane::Reply {
        content,
        // The source actually read, whichever spelling asked for it.
        source: mode.source().to_owned(),
        styled,
        window_id: w.id,
        ..Default::default()
    })
}

pub(super) async fn resize(
    env: &VerbEnv,
    params: ResizeParams,
) -> Result<resize::Reply, VerbError> {
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
    mailbox(w.addr.send(win::Resize { cols, rows }).await)
        .map_err(|_| errors::window_gone(&w.id))??;
    s.addr.do_send(crate::session::WindowResized {
        window_id: w.id.clone(),
        cols,
        rows,
    });
    Ok(resize::Reply {
        width,
        height,
        window_id: w.id,
        ..Default::default()
    })
}

/// Lumen: the terminal never writes a frame to a program's input, so input that holds a frame
/// introducer (in any spelling, however it was assembled) is refused before anything is written.
fn refuse_frames(param: &str, bytes: &[u8]) -> Result<(), VerbError> {
    if protocol::lumen::contains_frame_introducer(bytes) {
        return Err(VerbError::invalid_params(
            param,
            format!("{param} contains a Lumen frame introducer (APC \"lumen;\"), which is never written to a program's input"),
        )
        .with_hint(protocol::Hint::new().param(param).detail(
            "Frames come only from programs' output; input that could be read as one is refused whole, so nothing was written.",
        )));
    }
    Ok(())
}
