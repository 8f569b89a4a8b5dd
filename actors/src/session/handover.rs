//! A session's side of a live upgrade (see `crate::handover`): exporting its windows to the
//! next daemon, and taking windows over from the previous one.

use std::os::fd::{AsRawFd, OwnedFd};

use actix::prelude::*;
use futures_util::future::join_all;

use super::{Session, WindowEntry};
use crate::handover::format::{HandedSession, HandedWindow};
use crate::pty::ExitInfo;
use crate::window::{self, Window};

impl Session {
    /// Scrollback lines each window of this session keeps.
    pub(super) fn scrollback_lines(&self) -> usize {
        self.options
            .get("appearance.scrollback_lines")
            .and_then(|v| config::options::as_int(v))
            .map(|n| n.max(0) as usize)
            .unwrap_or(self.services.info.scrollback_lines)
    }
}

/// Freeze every window and export the session for the next daemon. The descriptors returned
/// are the PTY masters whose numbers the windows carry.
#[derive(Message)]
#[rtype(result = "Result<(HandedSession, Vec<OwnedFd>), String>")]
pub struct Export;

impl Handler<Export> for Session {
    type Result = ResponseActFuture<Self, Result<(HandedSession, Vec<OwnedFd>), String>>;
    fn handle(&mut self, _: Export, _: &mut Self::Context) -> Self::Result {
        let (saved, _) = self.structure();
        let restored = self.saved.was_restored();
        let record_new = self.record_new.clone();
        let scrollback = self.scrollback_lines();
        let metas: Vec<HandedWindow> = self
            .windows
            .iter()
            .map(|w| HandedWindow {
                id: w.id.clone(),
                pty_id: w.pty_id.clone(),
                stored_title: w.stored_title.clone(),
                live_title: w.live_title.clone(),
                fd: -1,
                pid: 0,
                cols: w.cols,
                rows: w.rows,
                scrollback,
                replay: String::new(),
                reaped: false,
                exited: w.exited.is_some(),
                exit_code: w.exited.and_then(|e| e.code),
                exit_signal: w.exited.and_then(|e| e.signal),
                failed_frames: w.failed_frames,
                modes: w.modes,
                command: w.command,
                recording: None,
            })
            .collect();
        let addrs: Vec<Addr<Window>> = self.windows.iter().map(|w| w.addr.clone()).collect();
        let name = self.name.clone();
        Box::pin(
            async move { join_all(addrs.iter().map(|a| a.send(window::Freeze))).await }
                .into_actor(self)
                .map(move |exports, _, _| {
                    let mut windows = Vec::with_capacity(metas.len());
                    let mut fds = Vec::with_capacity(metas.len());
                    for (mut meta, export) in metas.into_iter().zip(exports) {
                        let export = export.map_err(|e| {
                            format!("session {name}: window {} did not answer: {e}", meta.id)
                        })??;
                        meta.fd = export.master.as_raw_fd();
                        meta.pid = export.pid;
                        meta.cols = export.cols;
                        meta.rows = export.rows;
                        meta.replay = export.replay;
                        meta.failed_frames = export.failed_frames;
                        meta.recording = export.recording;
                        // The window may know of an exit the session has not recorded yet.
                        meta.reaped = export.exit.is_some();
                        if let Some(exit) = export.exit {
                            meta.exit_code = exit.code;
                            meta.exit_signal = exit.signal;
                        }
                        fds.push(export.master);
                        windows.push(meta);
                    }
                    Ok((
                        HandedSession {
                            saved,
                            restored,
                            windows,
                            record_new,
                        },
                        fds,
                    ))
                }),
        )
    }
}

/// The upgrade did not happen: every window reads its PTY again.
#[derive(Message)]
#[rtype(result = "()")]
pub struct ThawAll;

impl Handler<ThawAll> for Session {
    type Result = ();
    fn handle(&mut self, _: ThawAll, ctx: &mut Self::Context) {
        self.save_soon(ctx);
        for w in &self.windows {
            w.addr.do_send(window::Thaw);
        }
    }
}

/// Take over one window from the previous daemon, appended to the window table.
#[derive(Message)]
#[rtype(result = "Result<(), String>")]
pub struct AdoptWindow {
    pub window: HandedWindow,
    pub master: OwnedFd,
    /// From the saved structure: the window's name, workspace, minimized, argv and remain.
    pub saved: super::saved::SavedWindow,
    /// Taken over after a crash rather than a live upgrade (see `window::Adopted::foreign`).
    pub foreign: bool,
}

impl Handler<AdoptWindow> for Session {
    type Result = Result<(), String>;
    fn handle(&mut self, msg: AdoptWindow, ctx: &mut Self::Context) -> Self::Result {
        self.save_soon(ctx);
        self.adopt_window(msg, ctx)
    }
}

impl Session {
    pub(super) fn adopt_window(
        &mut self,
        msg: AdoptWindow,
        ctx: &mut Context<Session>,
    ) -> Result<(), String> {
        let AdoptWindow {
            window: h,
            master,
            saved,
            foreign,
        } = msg;
        let exit = h.reaped.then_some(ExitInfo {
            code: h.exit_code,
            signal: h.exit_signal,
            reason: None,
        });
        let agent_link =
            crate::agent::PaneLink::new(ctx.address().recipient(), h.id.clone(), h.pid);
        let addr = Window::adopt(
            window::Adopted {
                id: h.id.clone(),
                master,
                pid: h.pid,
                cols: h.cols,
                rows: h.rows,
                scrollback: h.scrollback,
                replay: h.replay,
                exit,
                exit_recorded: h.exited,
                failed_frames: h.failed_frames,
                recording: h.recording.clone(),
                foreign,
            },
            self.window_links(&h.pty_id, &agent_link, ctx),
            &self.services.windows.pick(),
        )
        .map_err(|e| format!("window {}: {e}", h.id))?;
        let workspace = if super::workspaces::check_workspace(saved.workspace).is_ok() {
            saved.workspace
        } else {
            self.current_workspace
        };
        self.windows.push(WindowEntry {
            id: h.id,
            pty_id: h.pty_id,
            addr,
            custom_name: saved.name,
            stored_title: h.stored_title,
            live_title: h.live_title,
            cwd: String::new(),
            workspace,
            minimized: saved.minimized,
            command: h.command,
            argv: saved.command,
            remain: saved.remain,
            cols: h.cols,
            rows: h.rows,
            exited: exit.filter(|_| h.exited),
            modes: h.modes,
            failed_frames: h.failed_frames,
            frames_unnoticed: 0,
            frame_notice: None,
            frame_notice_at: None,
            frame_notice_scheduled: false,
            agent: crate::agent::WindowAgent::new(agent_link),
        });
        Ok(())
    }
}

/// The windows are all adopted: keep the session's `restored` and own its saved file.
#[derive(Message)]
#[rtype(result = "()")]
pub struct HandedOver {
    pub restored: bool,
    /// The previous daemon's session-wide recording of new windows, carried on.
    pub record_new: Option<crate::recorder::RecordingPlan>,
}

impl Handler<HandedOver> for Session {
    type Result = ();
    fn handle(&mut self, msg: HandedOver, ctx: &mut Self::Context) {
        self.save_soon(ctx);
        self.saved.handed_over(msg.restored);
        if msg.record_new.is_some() {
            self.record_new = msg.record_new;
        }
    }
}
