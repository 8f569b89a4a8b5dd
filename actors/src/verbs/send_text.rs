//! `send-text`: write text to a window's terminal exactly as given, as if it were typed or pasted.
use super::send_keys::{refuse_frames, refuse_frames_in};
use super::{live_window, mailbox, ok, session, VerbEnv};
use crate::errors;
use crate::pty_input::{self, Direct};
use crate::window as win;
use protocol::verbs::common::OkReply;
use protocol::verbs::send_text::Params;
use protocol::VerbError;

pub(super) async fn handle(env: &VerbEnv, params: Params) -> Result<OkReply, VerbError> {
    let text = params.text;
    refuse_frames("text", text.as_bytes())?;
    let s = session(env, params.session).await?;
    let w = live_window(&s, params.window).await?;
    refuse_frames_in(env, &w.id, "text", text.as_bytes())?;
    // Straight to the PTY when nothing is pending before it (no hop to the window's thread).
    let (bytes, ticket) = match pty_input::write(&env.services.inputs, &w.id, text.into_bytes()) {
        Direct::Written => return Ok(ok()),
        Direct::Queued(written) => {
            return match written.await {
                Ok(Ok(())) => Ok(ok()),
                _ => Err(errors::pty_not_found(&w.id)),
            }
        }
        Direct::Refused(bytes, ticket) => (bytes, ticket),
    };
    mailbox(w.addr.send(win::WriteInput(bytes, ticket)).await)
        .map_err(|_| errors::window_gone(&w.id))??;
    Ok(ok())
}
