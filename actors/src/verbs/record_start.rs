//! `record-start`: record a window, or every window of the session, to asciicast v2 files.
use std::path::PathBuf;

use super::{mailbox, session, window_or_all, VerbEnv};
use crate::errors;
use crate::recorder::{self, Recording, RecordingSetup};

use crate::window as win;
use protocol::verbs::record_start::{Params, Reply, DEFAULT_MAX_BYTES};
use protocol::VerbError;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let dir = match p.path.filter(|d| !d.is_empty()) {
        Some(d) if !d.starts_with('/') => {
            return Err(VerbError::invalid_params(
                "path",
                format!("the recordings directory must be an absolute path, not {d:?}"),
            ))
        }
        Some(d) => PathBuf::from(d),
        None => recorder::default_dir(),
    };
    let max_bytes = match p.max_bytes {
        Some(n) if n <= 0 => {
            return Err(VerbError::invalid_params(
                "max_bytes",
                "max_bytes must be positive",
            ))
        }
        Some(n) => n as u64,
        None => DEFAULT_MAX_BYTES,
    };
    let s = session(env, p.session).await?;
    let whole_session = p.window.is_none();
    let targets = window_or_all(&s, p.window).await?;
    if targets.is_empty() {
        return Err(errors::no_windows(&s.name));
    }
    let mut files = Vec::new();
    for w in targets {
        let setup = RecordingSetup {
            dir: dir.clone(),
            session: s.name.clone(),
            window: w.id.clone(),
            input: p.input.unwrap_or(false),
            max_bytes,
        };
        let (setup, created) = tokio::task::spawn_blocking(move || {
            let created = Recording::create(&setup);
            (setup, created)
        })
        .await
        .map_err(|e| errors::internal(format!("creating the recording failed: {e}")))?;
        let (file, path) = created.map_err(|e| {
            errors::internal(format!(
                "cannot create a recording in {}: {e}",
                dir.display()
            ))
        })?;
        let start = win::StartRecording { file, path, setup };
        let path = mailbox(w.addr.send(start).await)
            .map_err(|_| errors::window_gone(&w.id))?
            .map_err(errors::internal)?;
        files.push(path);
    }
    if whole_session {
        // The session's windows to come are recorded too, until record-stop.
        let plan = crate::session::RecordingPlan {
            dir,
            input: p.input.unwrap_or(false),
            max_bytes,
        };
        mailbox(
            s.addr
                .send(crate::session::RecordNewWindows(Some(plan)))
                .await,
        )?;
    }
    Ok(Reply {
        files,
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_recorder_default_limit_is_the_protocol_one() {
        assert_eq!(
            crate::recorder::DEFAULT_MAX_BYTES,
            protocol::verbs::record_start::DEFAULT_MAX_BYTES
        );
    }
}
