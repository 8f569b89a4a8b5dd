//! `record-stop`: stop recording a window, or every recorded window of the session.
use super::{mailbox, session, window_or_all, VerbEnv};
use crate::errors;

use crate::window as win;
use protocol::verbs::record_stop::{Params, RecordedFile, Reply};
use protocol::VerbError;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let s = session(env, p.session).await?;
    if p.window.is_none() {
        mailbox(s.addr.send(crate::session::RecordNewWindows(None)).await)?;
    }
    let targets = window_or_all(&s, p.window).await?;
    let mut files = Vec::new();
    for w in targets {
        let writer = mailbox(w.addr.send(win::StopRecording).await)
            .map_err(|_| errors::window_gone(&w.id))?;
        let Some(writer) = writer else { continue };
        // The writer finishes what is queued and closes the file; waited on off the actors.
        let summary = tokio::task::spawn_blocking(move || writer.join())
            .await
            .map_err(|e| errors::internal(format!("stopping the recording failed: {e}")))?
            .map_err(|_| errors::internal("the recording's writer failed"))?;
        files.push(RecordedFile {
            path: summary.path,
            bytes: summary.bytes,
            duration_ms: summary.duration_ms,
            reason: summary.reason.to_string(),
        });
    }
    Ok(Reply {
        files,
        ..Default::default()
    })
}
