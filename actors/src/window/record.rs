//! Recording the window to an asciicast file (record-start, record-stop): the window hands its
//! output, resizes and (when asked) input to the recording's writer, which never makes it wait.
use actix::prelude::*;

use super::Window;
use crate::recorder::{
    Recording, RecordingResume, RecordingSetup, RecordingSummary, ScreenStart, HANDOVER,
};

/// Start recording into `file` (already created); answers the file's path, or why not.
#[derive(Message)]
#[rtype(result = "Result<String, String>")]
pub struct StartRecording {
    pub file: std::fs::File,
    pub path: String,
    pub setup: RecordingSetup,
}

impl Handler<StartRecording> for Window {
    type Result = Result<String, String>;
    fn handle(&mut self, msg: StartRecording, _: &mut Self::Context) -> Self::Result {
        if self.recording.as_ref().is_some_and(|r| r.is_live()) {
            return Err(format!("window {} is already being recorded", self.id));
        }
        let screen = ScreenStart {
            cols: self.emulator.cols(),
            rows: self.emulator.rows(),
            styled: self.emulator.capture(false, true),
            cursor: self.emulator.cursor(),
            cursor_visible: self.emulator.cursor_visible(),
            alt_screen: self.emulator.modes().alt_screen,
        };
        let on_end = self.on_recording_end(msg.path.clone());
        let recording = Recording::start(msg.file, msg.path, &msg.setup, &screen, on_end)
            .map_err(|e| format!("cannot start the recorder: {e}"))?;
        let path = recording.path.clone();
        self.route_keys_through(recording.input);
        let mut e = self.event("recording-started");
        e.path = path.clone();
        self.publish(e);
        // A stopped recording left here is finished by dropping it.
        self.recording = Some(recording);
        Ok(path)
    }
}

impl Window {
    /// What the writer calls when it ends: the window hears why.
    fn on_recording_end(&self, path: String) -> crate::recorder::OnEnd {
        let me = self.me.clone();
        Box::new(move |reason: &'static str| {
            if let Some(window) = me.upgrade() {
                window.do_send(RecordingEnded { path, reason });
            }
        })
    }

    /// Carry on a recording stopped for a live upgrade (in the next daemon, or here when the
    /// upgrade did not happen). A file that cannot be opened again ends it, with the event.
    pub(super) fn resume_recording(&mut self, from: RecordingResume) {
        let setup = RecordingSetup {
            dir: std::path::Path::new(&from.path)
                .parent()
                .map(|p| p.to_path_buf())
                .unwrap_or_default(),
            session: String::new(),
            window: self.id.clone(),
            input: from.input,
            max_bytes: from.max_bytes,
        };
        let resumed = from.reopen().and_then(|file| {
            Recording::resume(
                file,
                &setup,
                &from,
                self.on_recording_end(from.path.clone()),
            )
        });
        match resumed {
            Ok(recording) => {
                self.route_keys_through(recording.input);
                self.recording = Some(recording);
            }
            Err(e) => {
                tracing::warn!(window = %self.id, path = %from.path, "cannot carry on the recording: {e}");
                let mut ev = self.event("recording-stopped");
                ev.path = from.path;
                ev.reason = "disk_full".into();
                self.publish(ev);
            }
        }
    }

    /// While input is recorded, attached clients' keys come through the window (which records
    /// them) instead of straight to the PTY.
    fn route_keys_through(&self, recorded: bool) {
        if let Some(input) = &self.input {
            input.set_recorded(recorded);
        }
    }
}

/// Stop recording; answers the writer to wait on for the summary, if the window had one.
#[derive(Message)]
#[rtype(result = "Option<std::thread::JoinHandle<RecordingSummary>>")]
pub struct StopRecording;

impl Handler<StopRecording> for Window {
    type Result = Option<std::thread::JoinHandle<RecordingSummary>>;
    fn handle(&mut self, _: StopRecording, _: &mut Self::Context) -> Self::Result {
        self.route_keys_through(false);
        self.recording.take().map(Recording::finish)
    }
}

/// The writer ended (told from its thread): `recording-stopped` with the reason.
#[derive(Message)]
#[rtype(result = "()")]
pub struct RecordingEnded {
    pub path: String,
    pub reason: &'static str,
}

impl Handler<RecordingEnded> for Window {
    type Result = ();
    fn handle(&mut self, msg: RecordingEnded, _: &mut Self::Context) {
        if msg.reason == HANDOVER {
            // Stopped for a live upgrade: it carries on in the next daemon, no event.
            return;
        }
        if self.recording.as_ref().is_none_or(|r| !r.is_live()) {
            self.route_keys_through(false);
        }
        let mut e = self.event("recording-stopped");
        e.path = msg.path;
        e.reason = msg.reason.to_string();
        self.publish(e);
    }
}

/// Whether a recording of the window is being written (list-windows).
#[derive(Message)]
#[rtype(result = "bool")]
pub struct IsRecording;

impl Handler<IsRecording> for Window {
    type Result = bool;
    fn handle(&mut self, _: IsRecording, _: &mut Self::Context) -> bool {
        self.recording.as_ref().is_some_and(|r| r.is_live())
    }
}
