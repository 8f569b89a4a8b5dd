//! Saving, inside the Session actor.
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix::prelude::*;

use super::files::{keep_aside, remove, write_atomic};
use super::format::{SavedSession, SavedWindow, FORMAT_VERSION};
use crate::session::Session;

/// How long after a change the session looks for it: the debounce bound (one write per second).
pub const SAVE_INTERVAL: Duration = Duration::from_secs(1);
/// Checks that found nothing before the session stops looking until the next change.
pub const LINGER_CHECKS: u32 = 3;
/// Working directories are looked up again this long after a window's output without a
/// structural change (a `cd` at a prompt prints the next prompt): an idle session costs no
/// /proc reads (or, with the programs kept across a crash, no screen copies) and no wake-ups.
pub const CWD_REFRESH: Duration = Duration::from_secs(10);

/// A session's saving state.
#[derive(Default)]
pub struct SaveState {
    /// The session was brought back from a file.
    pub restored: bool,
    /// A client attached since: `restored` is no longer reported (it still decides saving).
    pub attached_since: bool,
    /// Windows are still being restored: the file must not be replaced by a partial table.
    pub(super) restoring: bool,
    /// No more saving: the session is ending.
    stopped: bool,
    /// The structure last handed to the writer (working directories left out).
    last: Option<SavedSession>,
    /// The next check, when one is scheduled.
    check: Option<SpawnHandle>,
    /// When the scheduled check runs (`agent::now_ms`), to bring it forward.
    check_at_ms: u64,
    /// Checks in a row that found no change.
    quiet: u32,
    /// When working directories (and kept screens) were last read for a write (`agent::now_ms`).
    read_ms: u64,
    generation: u64,
    writer: Arc<Mutex<Writer>>,
}

/// What the blocking writes of one session share; the lock also keeps them one at a time.
#[derive(Default)]
struct Writer {
    /// The session was killed: its file is gone and must not come back.
    forgotten: bool,
    /// The newest generation written; an older job that lost the race is dropped.
    generation: u64,
    /// The content last written (without `saved_at`), to skip identical writes.
    last: Option<SavedSession>,
    /// The file is this session's: it was restored from it, or it was checked before the
    /// first write.
    claimed: bool,
}

impl SaveState {
    pub(in crate::session) fn stop(&mut self) {
        self.stopped = true;
    }

    fn active(&self) -> bool {
        !self.stopped && !self.restoring
    }

    /// This session was handed over by a live upgrade: it keeps the `restored` it had, and its
    /// file is already its own (nothing to keep aside before the first write).
    pub(in crate::session) fn handed_over(&mut self, restored: bool) {
        self.restored = restored;
        self.writer
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .claimed = true;
    }

    pub(in crate::session) fn was_restored(&self) -> bool {
        self.restored
    }
}

impl Session {
    /// The sessions directory, when the daemon saves sessions.
    fn sessions_dir(&self) -> Option<&Path> {
        self.services.info.sessions_dir.as_deref()
    }

    /// Whether this session saves now: the daemon saves, and the session is neither being
    /// restored nor ending.
    fn saving(&self) -> bool {
        self.saved.active() && self.sessions_dir().is_some()
    }

    /// Something may have changed the structure: look a second from now (and for
    /// [`LINGER_CHECKS`] seconds after that), unless a check is already due sooner.
    pub(in crate::session) fn save_soon(&mut self, ctx: &mut Context<Session>) {
        self.saved.quiet = 0;
        self.schedule_check(SAVE_INTERVAL, ctx);
    }

    /// A window printed something: its working directory may have changed. Look once
    /// [`CWD_REFRESH`] has passed since the directories were last read.
    pub(in crate::session) fn save_after_output(&mut self, ctx: &mut Context<Session>) {
        let since = crate::agent::now_ms().saturating_sub(self.saved.read_ms);
        let wait = CWD_REFRESH
            .saturating_sub(Duration::from_millis(since))
            .max(SAVE_INTERVAL);
        self.schedule_check(wait, ctx);
    }

    fn schedule_check(&mut self, wait: Duration, ctx: &mut Context<Session>) {
        if !self.saving() {
            return;
        }
        let at = crate::agent::now_ms() + wait.as_millis() as u64;
        if let Some(handle) = self.saved.check {
            if self.saved.check_at_ms <= at {
                return;
            }
            ctx.cancel_future(handle);
        }
        self.saved.check_at_ms = at;
        self.saved.check = Some(ctx.run_later(wait, |act, ctx| {
            act.saved.check = None;
            act.save_tick(ctx);
        }));
    }

    /// The structure to save; working directories are filled in later from the returned pids.
    pub(in crate::session) fn structure(&self) -> (SavedSession, Vec<i32>) {
        let windows = self
            .windows
            .iter()
            .map(|w| SavedWindow {
                id: w.id.clone(),
                name: w.custom_name.clone(),
                workspace: w.workspace,
                minimized: w.minimized,
                cwd: None,
                command: w.argv.clone(),
                remain: w.remain,
                screen: None,
            })
            .collect();
        let pids = self
            .windows
            .iter()
            .map(|w| {
                if w.exited.is_some() {
                    0
                } else {
                    w.agent.link.pid
                }
            })
            .collect();
        let doc = SavedSession {
            version: FORMAT_VERSION,
            saved_at: 0,
            name: self.name.clone(),
            id: self.id.clone(),
            created: self.created,
            display_name: self.display_name.clone(),
            accent: self.accent.clone(),
            width: self.width,
            height: self.height,
            current_workspace: self.current_workspace,
            workspace_names: self.workspace_names.clone(),
            workspace_order: self.workspace_order.clone(),
            workspace_focus: self
                .workspace_focus
                .iter()
                .map(|(k, v)| (*k, v.clone()))
                .collect(),
            focused: self.focused.clone(),
            options: self.options.clone(),
            layout: self.clients.layout.clone(),
            windows,
        };
        (doc, pids)
    }

    fn save_tick(&mut self, ctx: &mut Context<Session>) {
        if !self.saving() {
            return;
        }
        let now = crate::agent::now_ms();
        let read_ms = self.saved.read_ms;
        let output = self
            .windows
            .iter()
            .any(|w| w.agent.link.last_output_ms() >= read_ms);
        let refresh = output && now.saturating_sub(read_ms) >= CWD_REFRESH.as_millis() as u64;
        let (doc, pids) = self.structure();
        if !refresh && self.saved.last.as_ref() == Some(&doc) {
            self.saved.quiet += 1;
            if self.saved.quiet <= LINGER_CHECKS {
                self.schedule_check(SAVE_INTERVAL, ctx);
            } else if output {
                // Output came since the last read: its refresh is still due.
                self.save_after_output(ctx);
            }
            return;
        }
        self.saved.quiet = 0;
        self.schedule_check(SAVE_INTERVAL, ctx);
        self.saved.last = Some(doc.clone());
        self.saved.read_ms = crate::agent::now_ms();
        if !self.services.ptys.keeps_ptys() {
            self.enqueue_write(doc, pids);
            return;
        }
        // The programs outlive a crash (systemd keeps their terminals): their screens are saved
        // too, so the windows taken over show them until the programs draw again.
        let addrs: Vec<Addr<crate::window::Window>> =
            self.windows.iter().map(|w| w.addr.clone()).collect();
        ctx.spawn(
            async move {
                futures_util::future::join_all(
                    addrs.iter().map(|a| a.send(crate::window::ScreenReplay)),
                )
                .await
            }
            .into_actor(self)
            .map(move |screens, act, _| {
                let mut doc = doc;
                for (w, screen) in doc.windows.iter_mut().zip(screens) {
                    w.screen = screen.ok();
                }
                act.enqueue_write(doc, pids);
            }),
        );
    }

    /// Hand a write to the blocking pool; the handle resolves once it is on disk (or failed).
    fn enqueue_write(
        &mut self,
        doc: SavedSession,
        pids: Vec<i32>,
    ) -> Option<tokio::task::JoinHandle<()>> {
        let dir = self.sessions_dir()?.to_path_buf();
        self.saved.generation += 1;
        let generation = self.saved.generation;
        let writer = self.saved.writer.clone();
        let restored = self.saved.restored;
        Some(tokio::task::spawn_blocking(move || {
            let mut doc = doc;
            for (w, pid) in doc.windows.iter_mut().zip(pids) {
                w.cwd = crate::agent::proc::window_cwd(pid);
            }
            let mut state = writer.lock().unwrap_or_else(|p| p.into_inner());
            if state.forgotten || generation < state.generation {
                return;
            }
            if state.last.as_ref() == Some(&doc) {
                return;
            }
            if !state.claimed {
                if !restored {
                    keep_aside(&dir, &doc.name);
                }
                state.claimed = true;
            }
            let mut stamped = doc.clone();
            stamped.saved_at = crate::unix_now_secs();
            let bytes = match serde_json::to_vec_pretty(&stamped) {
                Ok(b) => b,
                Err(e) => {
                    tracing::warn!(session = %doc.name, "cannot encode the session to save it: {e}");
                    return;
                }
            };
            match write_atomic(&dir, &doc.name, &bytes) {
                Ok(()) => {
                    tracing::debug!(session = %doc.name, bytes = bytes.len(), "session saved");
                    state.generation = generation;
                    state.last = Some(doc);
                }
                Err(e) => tracing::warn!(
                    session = %doc.name,
                    dir = %dir.display(),
                    "cannot save the session: {e}"
                ),
            }
        }))
    }
}

/// Save now and stop saving: the daemon is shutting down. Resolves once the file is written.
#[derive(Message)]
#[rtype(result = "()")]
pub struct SaveNow;

impl Handler<SaveNow> for Session {
    type Result = ResponseFuture<()>;
    fn handle(&mut self, _: SaveNow, _: &mut Self::Context) -> Self::Result {
        let job = if self.saving() {
            let (doc, pids) = self.structure();
            self.enqueue_write(doc, pids)
        } else {
            None
        };
        self.saved.stop();
        Box::pin(async move {
            if let Some(job) = job {
                let _ = job.await;
            }
        })
    }
}

/// Stop saving and delete the file: the session was killed and must not come back.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Forget;

impl Handler<Forget> for Session {
    type Result = ResponseFuture<()>;
    fn handle(&mut self, _: Forget, _: &mut Self::Context) -> Self::Result {
        self.saved.stop();
        let Some(dir) = self.sessions_dir().map(Path::to_path_buf) else {
            return Box::pin(async {});
        };
        let writer = self.saved.writer.clone();
        let name = self.name.clone();
        Box::pin(async move {
            let _ = tokio::task::spawn_blocking(move || {
                let mut state = writer.lock().unwrap_or_else(|p| p.into_inner());
                state.forgotten = true;
                if let Err(e) = remove(&dir, &name) {
                    tracing::warn!(session = %name, "cannot delete the saved session: {e}");
                }
            })
            .await;
        })
    }
}
