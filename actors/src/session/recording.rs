//! Recording the session's new windows: after a session-wide `record-start` (until its
//! `record-stop`), or from the session option `recording.auto` (a directory), each window the
//! session opens is recorded from its first output. The file is made on the blocking pool
//! with the window's program; the window is told to record as soon as it is in the table.
use actix::prelude::*;
use std::path::PathBuf;

use super::Session;
use crate::recorder::{Recording, RecordingPlan, RecordingSetup, DEFAULT_MAX_BYTES};
use crate::window::StartRecording;

/// The session option naming a directory that records every new window.
pub const AUTO_OPTION: &str = "recording.auto";

/// Record the session's new windows this way from now on (None: stop).
#[derive(Message)]
#[rtype(result = "()")]
pub struct RecordNewWindows(pub Option<RecordingPlan>);

impl Handler<RecordNewWindows> for Session {
    type Result = ();
    fn handle(&mut self, msg: RecordNewWindows, _: &mut Self::Context) {
        self.record_new = msg.0;
    }
}

/// A recording file made for a new window, to hand it once the window exists.
pub struct NewWindowRecording {
    file: std::fs::File,
    path: String,
    setup: RecordingSetup,
}

impl NewWindowRecording {
    /// Makes the file (blocking: on the pool, beside the program's start). A failure is
    /// logged and the window simply goes unrecorded: a full disk must not stop a window.
    pub fn create(setup: RecordingSetup) -> Option<NewWindowRecording> {
        match Recording::create(&setup) {
            Ok((file, path)) => Some(NewWindowRecording { file, path, setup }),
            Err(e) => {
                tracing::warn!(
                    session = %setup.session,
                    window = %setup.window,
                    dir = %setup.dir.display(),
                    "cannot record the new window: {e}"
                );
                None
            }
        }
    }
}

impl Session {
    /// How a window about to open is recorded: the session-wide plan, else `recording.auto`.
    pub(super) fn new_window_recording(&self, window: &str) -> Option<RecordingSetup> {
        let plan = self.record_new.clone().or_else(|| {
            let dir = self.options.get(AUTO_OPTION)?.trim();
            // Relative directories are refused when set; an empty value is off.
            dir.starts_with('/').then(|| RecordingPlan {
                dir: PathBuf::from(dir),
                input: false,
                max_bytes: DEFAULT_MAX_BYTES,
            })
        })?;
        Some(RecordingSetup {
            dir: plan.dir,
            session: self.name.clone(),
            window: window.to_string(),
            input: plan.input,
            max_bytes: plan.max_bytes,
        })
    }

    /// Hands the window its recording (it begins with whatever the window shows by then).
    pub(super) fn begin_recording(&self, window: &str, rec: NewWindowRecording) {
        if let Some(i) = self.index_of(window) {
            self.windows[i].addr.do_send(StartRecording {
                file: rec.file,
                path: rec.path,
                setup: rec.setup,
            });
        }
    }
}
