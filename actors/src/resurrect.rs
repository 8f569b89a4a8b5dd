//! Saved sessions in the session table: restored at a cold start and by the `resurrect` verb,
//! listed beside live ones, forgotten by kill-session. (A child module of the session manager;
//! the files themselves are handled in `session::saved`.)

use std::future::Future;
use std::os::fd::OwnedFd;
use std::path::PathBuf;

use actix::prelude::*;
use protocol::{Hint, VerbError};
use serde_json::{json, Value};

use super::{SessionManager, SessionRecord};
use crate::errors;
use crate::session::saved::{self, FinishRestore, RestoreWindow, SavedSession, ScanEntry};
use crate::session::Session;

/// What restoring one session came to.
#[derive(Debug, Clone)]
pub struct Restored {
    pub name: String,
    pub windows: usize,
    /// One line per window that came back differently (command not re-run, directory gone,
    /// program that would not start).
    pub notes: Vec<String>,
}

impl Restored {
    fn to_json(&self) -> Value {
        json!({"name": self.name, "windows": self.windows, "notes": self.notes})
    }
}

impl SessionManager {
    /// Enter a saved session in the table (announcing `session-created`) and return it, for its
    /// windows to follow. Fails when a session of that name is live.
    fn begin_restore(&mut self, saved: &SavedSession) -> Result<Addr<Session>, String> {
        if self.sessions.iter().any(|s| s.name == saved.name) {
            return Err(format!("a session named {} is already running", saved.name));
        }
        let addr = Session::from_saved(saved, self.services.clone()).start();
        self.sessions.push(SessionRecord {
            name: saved.name.clone(),
            addr: addr.clone(),
            activity: 0,
            last_active: crate::unix_now_secs(),
        });
        let idx = self.sessions.len() - 1;
        self.touch(idx);
        tracing::info!(session = %saved.name, windows = saved.windows.len(), "session restored");
        self.publish("session-created", &saved.name);
        for (_, tx) in super::extract(&mut self.watches, |(n, _)| *n == saved.name) {
            let _ = tx.send(());
        }
        Ok(addr)
    }

    /// Restore `saved`'s windows into the session at `addr` (see [`fill_windows`]); a window
    /// whose PTY survived a crash is given it, to take its program over.
    fn fill(
        &mut self,
        addr: Addr<Session>,
        mut saved: SavedSession,
    ) -> impl Future<Output = Restored> {
        let restores = std::mem::take(&mut saved.windows)
            .into_iter()
            .map(|w| {
                let kept = self.survivors.take(&w.id);
                (w, kept)
            })
            .collect();
        fill_windows(addr, saved, restores)
    }
}

/// Bring back a restored session's windows in their saved order, then its focus.
async fn fill_windows(
    addr: Addr<Session>,
    saved: SavedSession,
    restores: Vec<(saved::SavedWindow, Option<OwnedFd>)>,
) -> Restored {
    let mut notes = Vec::new();
    let mut windows = 0;
    for (w, kept) in restores {
        let label = w.name.clone().unwrap_or_else(|| w.id.clone());
        match addr.send(RestoreWindow(w, kept)).await {
            Ok(Ok(note)) => {
                windows += 1;
                notes.extend(note);
            }
            Ok(Err(e)) => notes.push(format!("window {label} could not start: {}", e.message)),
            Err(_) => break,
        }
    }
    let _ = addr
        .send(FinishRestore {
            current_workspace: saved.current_workspace,
            focused: saved.focused,
            workspace_focus: saved.workspace_focus,
        })
        .await;
    for note in &notes {
        tracing::info!(session = %saved.name, "{note}");
    }
    Restored {
        name: saved.name,
        windows,
        notes,
    }
}

async fn scan_store(dir: Option<PathBuf>) -> Vec<ScanEntry> {
    let Some(dir) = dir else {
        return Vec::new();
    };
    tokio::task::spawn_blocking(move || saved::scan(&dir))
        .await
        .unwrap_or_default()
}

/// At start: take over the sessions a live upgrade handed over, or else restore every saved
/// session that can be read. The manager takes no other message meanwhile, so the first client
/// already sees them.
pub(super) fn restore_at_start(mgr: &mut SessionManager, ctx: &mut Context<SessionManager>) {
    if let Some(incoming) = mgr.incoming.take() {
        adopt_handed_over(mgr, ctx, incoming);
        return;
    }
    let Some(dir) = mgr.services.info.sessions_dir.clone() else {
        // No saved window can claim a kept PTY.
        std::mem::take(&mut mgr.survivors).drop_unclaimed(&mgr.services.ptys);
        return;
    };
    let scan = async move {
        tokio::task::spawn_blocking(move || {
            saved::remove_leftovers(&dir);
            saved::scan(&dir)
        })
        .await
        .ok()
    };
    ctx.wait(scan.into_actor(mgr).then(|entries, act, _| {
        let entries = entries.unwrap_or_default();
        let mut jobs = Vec::new();
        for entry in entries {
            match entry.session {
                Ok(saved) => match act.begin_restore(&saved) {
                    Ok(addr) => jobs.push(act.fill(addr, saved)),
                    Err(why) => tracing::warn!(file = %entry.file.display(), "not restored: {why}"),
                },
                Err(why) => tracing::warn!(
                    file = %entry.file.display(),
                    "saved session cannot be restored: {why}"
                ),
            }
        }
        // Kept PTYs of windows no saved session holds any more are let go once the others are
        // taken over.
        let unclaimed = std::mem::take(&mut act.survivors);
        let ptys = act.services.ptys.clone();
        async move {
            for job in jobs {
                job.await;
            }
            unclaimed.drop_unclaimed(&ptys);
        }
        .into_actor(act)
    }));
}

/// What a resurrection did: the sessions restored (as list-sessions rows), those refused with
/// the reason, and the saved files that could not be read.
#[derive(Debug, Default)]
pub struct Resurrection {
    pub restored: Vec<Value>,
    pub failed: Vec<Value>,
    pub unreadable: Vec<Value>,
}

/// Restore saved sessions that are not running: the one named, or all of them.
#[derive(Message)]
#[rtype(result = "Result<Resurrection, VerbError>")]
pub struct Resurrect(pub Option<String>);

impl Handler<Resurrect> for SessionManager {
    type Result = ResponseActFuture<Self, Result<Resurrection, VerbError>>;
    fn handle(&mut self, msg: Resurrect, _: &mut Self::Context) -> Self::Result {
        let wanted = msg.0.filter(|n| !n.is_empty());
        let scan = scan_store(self.services.info.sessions_dir.clone());
        Box::pin(scan.into_actor(self).then(move |entries, act, _| {
            let picked = pick(act, entries, wanted.as_deref());
            let mut jobs = Vec::new();
            let mut failed = Vec::new();
            let mut unreadable = Vec::new();
            let chosen = match &picked {
                Ok((chosen, refused)) => {
                    failed.extend(refused.iter().cloned());
                    chosen.as_slice()
                }
                Err(_) => &[],
            };
            for entry in chosen {
                match &entry.session {
                    Ok(saved) => match act.begin_restore(saved) {
                        Ok(addr) => jobs.push(act.fill(addr, saved.clone())),
                        Err(why) => failed.push(json!({"name": saved.name, "reason": why})),
                    },
                    Err(reason) => unreadable.push(unreadable_row(&entry.file, reason)),
                }
            }
            async move {
                picked?;
                let mut restored = Vec::new();
                for job in jobs {
                    restored.push(job.await.to_json());
                }
                Ok(Resurrection {
                    restored,
                    failed,
                    unreadable,
                })
            }
            .into_actor(act)
        }))
    }
}

/// The saved entries `resurrect` should act on, and rows for sessions already refused. A named
/// session that is running, or whose file is unreadable, is reported in the result rather than
/// as an error: the request itself was fine.
fn pick(
    mgr: &SessionManager,
    entries: Vec<ScanEntry>,
    wanted: Option<&str>,
) -> Result<(Vec<ScanEntry>, Vec<Value>), VerbError> {
    let running = |n: &str| mgr.sessions.iter().any(|s| s.name == n);
    let Some(name) = wanted else {
        // All of them: those not running, and every unreadable file, to be reported.
        let entries = entries
            .into_iter()
            .filter(|e| e.session.as_ref().map_or(true, |s| !running(&s.name)))
            .collect();
        return Ok((entries, Vec::new()));
    };
    let stem_is = |e: &ScanEntry| e.file.file_stem().is_some_and(|s| s == name);
    if let Some(entry) = entries.into_iter().find(stem_is) {
        // A running one fails in begin_restore, with its reason.
        return Ok((vec![entry], Vec::new()));
    }
    if running(name) {
        let why = format!("session {name} is already running and has no saved file to restore");
        return Ok((Vec::new(), vec![json!({"name": name, "reason": why})]));
    }
    Err(not_saved(name))
}

fn not_saved(name: &str) -> VerbError {
    let mut err = errors::session_not_found(name, &[]);
    err.message = format!("no saved session named {name}");
    err.hint = Hint::new()
        .param("session")
        .command("tuios ls")
        .detail("tuios ls lists the saved sessions that are not running apart from the live ones; names are exact and case-sensitive.");
    err
}

fn unreadable_row(file: &std::path::Path, reason: &str) -> Value {
    json!({"file": file.display().to_string(), "reason": reason})
}

/// The saved sessions that are not running (name, window count, when saved) and the files
/// that cannot be read, for list-sessions. Empty when saving is off.
pub async fn saved_listing(
    env: &crate::verb_env::VerbEnv,
    running: &[String],
) -> (Vec<Value>, Vec<Value>) {
    let mut saved_rows = Vec::new();
    let mut unreadable = Vec::new();
    for entry in scan_store(env.services.info.sessions_dir.clone()).await {
        match entry.session {
            Ok(s) if running.contains(&s.name) => {}
            Ok(s) => saved_rows.push(json!({
                "name": s.name,
                "window_count": s.windows.len(),
                "saved_at": s.saved_at,
                "created": s.created,
                "file": entry.file.display().to_string(),
            })),
            Err(reason) => unreadable.push(unreadable_row(&entry.file, &reason)),
        }
    }
    (saved_rows, unreadable)
}

/// Delete the saved file of a session that is not running; whether there was one.
pub(super) async fn forget_saved(dir: Option<PathBuf>, name: String) -> bool {
    let Some(dir) = dir else {
        return false;
    };
    tokio::task::spawn_blocking(move || {
        let path = saved::file_path(&dir, &name);
        if std::fs::symlink_metadata(&path).is_err() {
            return false;
        }
        match saved::remove(&dir, &name) {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(file = %path.display(), "cannot delete the saved session: {e}");
                false
            }
        }
    })
    .await
    .unwrap_or(false)
}

/// Enter every session handed over by a live upgrade, with its windows' programs still running.
fn adopt_handed_over(
    mgr: &mut SessionManager,
    ctx: &mut Context<SessionManager>,
    incoming: crate::handover::format::IncomingHandover,
) {
    use crate::session::handover::{AdoptWindow, HandedOver};
    let crate::handover::format::IncomingHandover { state, mut fds } = incoming;
    let mut jobs = Vec::new();
    for handed in state.sessions {
        let addr = match mgr.begin_restore(&handed.saved) {
            Ok(addr) => addr,
            Err(why) => {
                tracing::error!(session = %handed.saved.name, "handed-over session not taken over: {why}");
                continue;
            }
        };
        let mut adopt = Vec::new();
        for (window, saved) in handed
            .windows
            .into_iter()
            .zip(handed.saved.windows.iter().cloned())
        {
            match fds.remove(&window.fd) {
                Some(master) => adopt.push(AdoptWindow {
                    window,
                    master,
                    saved,
                    foreign: false,
                }),
                None => tracing::error!(
                    session = %handed.saved.name,
                    window = %window.id,
                    fd = window.fd,
                    "the handed-over window's PTY is missing; its program is left without a window"
                ),
            }
        }
        let name = handed.saved.name.clone();
        let finish = FinishRestore {
            current_workspace: handed.saved.current_workspace,
            focused: handed.saved.focused.clone(),
            workspace_focus: handed.saved.workspace_focus.clone(),
        };
        let restored = handed.restored;
        let record_new = handed.record_new;
        jobs.push(async move {
            let mut windows = 0;
            for msg in adopt {
                let id = msg.window.id.clone();
                match addr.send(msg).await {
                    Ok(Ok(())) => windows += 1,
                    Ok(Err(why)) => tracing::error!(session = %name, window = %id, "window not taken over: {why}"),
                    Err(_) => break,
                }
            }
            let _ = addr
                .send(HandedOver {
                    restored,
                    record_new,
                })
                .await;
            let _ = addr.send(finish).await;
            tracing::info!(session = %name, windows, "session taken over from the previous daemon");
        });
    }
    // Descriptors nobody claimed (the listener is the daemon's, taken before) are closed here.
    drop(fds);
    ctx.wait(
        async move {
            for job in jobs {
                job.await;
            }
        }
        .into_actor(mgr),
    );
}
