//! Live upgrade: a window handed to the next daemon, and one taken over from the previous one.
use std::sync::Arc;

use actix::prelude::*;
use emulator::Emulator;
use portable_pty::MasterPty;
use tokio::sync::Notify;

use super::{Window, WindowLinks};
use crate::pty::{self, ExitInfo};
use crate::pty_input::PtyInput;
use crate::pty_reader::{PtyReader, StopReading};
use crate::recorder::RecordingResume;
use crate::supervisor::{ChildExited, Watch, WatchForeign};

/// What the next daemon needs to carry on a window: its PTY master (a close-on-exec dup, for
/// the caller to pass on), its program, its size and its terminal as replay bytes.
pub struct WindowExport {
    pub master: std::os::fd::OwnedFd,
    pub pid: i32,
    pub cols: u16,
    pub rows: u16,
    pub replay: String,
    pub exit: Option<ExitInfo>,
    pub failed_frames: u64,
    /// Its recording, stopped to be carried on.
    pub recording: Option<RecordingResume>,
}

/// Stop reading the program's output and export the window. Output the program writes from
/// now on waits in the PTY for the next daemon; nothing read is lost between the two. If the
/// upgrade does not happen, [`Thaw`] starts reading again.
#[derive(Message)]
#[rtype(result = "Result<WindowExport, String>")]
pub struct Freeze;

impl Handler<Freeze> for Window {
    type Result = ResponseActFuture<Self, Result<WindowExport, String>>;
    fn handle(&mut self, _: Freeze, _: &mut Self::Context) -> Self::Result {
        let reader = self.reader.take();
        // The recording stops here, in step with the output: the next daemon appends to it.
        let recording = self.recording.take().map(|r| r.hand_over());
        Box::pin(
            async move {
                if let Some(reader) = reader {
                    // Answered once the reader has stopped: every burst it read is already in
                    // this window's mailbox, ahead of the export below.
                    let _ = reader.send(StopReading).await;
                }
                match recording {
                    // The writer finishes what is queued (blocking on the disk): off the actors.
                    Some(finish) => tokio::task::spawn_blocking(finish).await.ok().flatten(),
                    None => None,
                }
            }
            .into_actor(self)
            .map(|recording, act, _| {
                act.paused_recording = recording.clone();
                let master = pty::reader_fd(act.master.as_ref())
                    .map_err(|e| format!("window {}: cannot duplicate its PTY: {e}", act.id))?;
                Ok(WindowExport {
                    master,
                    pid: act.pid,
                    cols: act.emulator.cols(),
                    rows: act.emulator.rows(),
                    replay: act.emulator.replay(),
                    exit: act.exited.or(act.reaped),
                    failed_frames: act.failed_frames,
                    recording,
                })
            }),
        )
    }
}

/// The upgrade did not happen: read the program's output again.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Thaw;

impl Handler<Thaw> for Window {
    type Result = ();
    fn handle(&mut self, _: Thaw, ctx: &mut Self::Context) {
        if let Some(recording) = self.paused_recording.take() {
            self.resume_recording(recording);
        }
        if self.reader.is_some() || self.stream_done {
            return;
        }
        match pty::reader_fd(self.master.as_ref()) {
            Ok(fd) => {
                self.reader = Some(PtyReader::start(
                    fd,
                    ctx.address(),
                    self.drain.clone(),
                    &self.links.readers,
                ));
            }
            Err(e) => {
                tracing::error!(window = %self.id, error = %e, "cannot read the PTY again after a failed upgrade");
            }
        }
    }
}

/// A window taken over from the daemon that ran before a live upgrade.
pub struct Adopted {
    pub id: String,
    pub master: std::os::fd::OwnedFd,
    pub pid: i32,
    pub cols: u16,
    pub rows: u16,
    pub scrollback: usize,
    pub replay: String,
    pub exit: Option<ExitInfo>,
    /// The session had recorded the exit (else it is told again here).
    pub exit_recorded: bool,
    pub failed_frames: u64,
    /// A recording to carry on.
    pub recording: Option<RecordingResume>,
    /// Taken over after a crash: the program is not this process's child (its end is watched
    /// through a pidfd), and its screen may be stale (a resize nudge makes it redraw).
    pub foreign: bool,
}

impl Window {
    /// Start the actor for a PTY whose program is already running (or has ended), with its
    /// terminal rebuilt from the replay. The program is still this process's child, so the
    /// supervisor reaps it as before.
    pub fn adopt(
        w: Adopted,
        links: WindowLinks,
        arbiter: &ArbiterHandle,
    ) -> std::io::Result<Addr<Window>> {
        let master: Box<dyn MasterPty + Send> = Box::new(pty::AdoptedMaster::new(w.master));
        let live = w.exit.is_none();
        let fds = if live {
            Some((
                pty::reader_fd(master.as_ref())?,
                pty::writer_fd(master.as_ref())?,
            ))
        } else {
            None
        };
        let mut emulator = Emulator::from_replay(w.cols, w.rows, w.scrollback, &w.replay);
        let (memory, file) = links.history.plan(&links.pty_id);
        emulator.set_history_limits(memory, file);
        Ok(Window::start_in_arbiter(arbiter, move |ctx| {
            let drain = Arc::new(Notify::new());
            let (input, reader) = match fds {
                Some((reader_fd, writer_fd)) => {
                    let input = PtyInput::start(writer_fd, &w.id, &links.inputs)
                        .map_err(|e| {
                            tracing::error!(window = %w.id, error = %e, "cannot write to the handed-over PTY")
                        })
                        .ok();
                    let reader =
                        PtyReader::start(reader_fd, ctx.address(), drain.clone(), &links.readers);
                    if w.foreign {
                        links.supervisor.do_send(WatchForeign {
                            pid: w.pid,
                            window: ctx.address().recipient(),
                        });
                        // SIGWINCH twice: a full-screen program draws its screen again.
                        let (cols, rows) = (w.cols, w.rows);
                        let _ = master.resize(pty::pty_size(cols, rows.saturating_sub(1).max(1)));
                        let _ = master.resize(pty::pty_size(cols, rows));
                    } else {
                        links.supervisor.do_send(Watch {
                            pid: w.pid,
                            window: ctx.address().recipient(),
                        });
                    }
                    (input, Some(reader))
                }
                None => (None, None),
            };
            let mut window = Window::assemble(
                w.id, links, emulator, master, input, reader, drain, w.pid, ctx,
            );
            window.failed_frames = w.failed_frames;
            if let Some(recording) = w.recording {
                window.resume_recording(recording);
            }
            match w.exit {
                Some(exit) if w.exit_recorded => {
                    window.exited = Some(exit);
                    window.reaped = Some(exit);
                    window.stream_done = true;
                    window.drained = true;
                    window.exit_recorded = true;
                }
                Some(exit) => {
                    // Reaped just before the handover, not yet recorded: settled as usual.
                    window.stream_done = true;
                    ctx.address().do_send(ChildExited(exit));
                }
                None => {}
            }
            window
        }))
    }
}

/// The visible screen as replay bytes, without scrollback (saved for a crash).
#[derive(Message)]
#[rtype(result = "String")]
pub struct ScreenReplay;

impl Handler<ScreenReplay> for Window {
    type Result = String;
    fn handle(&mut self, _: ScreenReplay, _: &mut Self::Context) -> String {
        self.emulator.replay_screen()
    }
}
