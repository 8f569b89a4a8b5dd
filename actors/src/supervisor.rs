//! The Supervisor actor: reaps the children the daemon started for windows, by pid, and tells
//! each window how its program ended. One SIGCHLD stream serves all windows: no thread or timer
//! per child, and an exit reaches its window as soon as the signal is delivered. It never calls
//! `waitpid(-1)`, so children started by anything else in the process keep their statuses.
//! The daemon is a child subreaper, so windows' orphans (setsid'd or nohup'd jobs whose parent
//! exited) become its children: those that end are reaped by pid too (`tree::zombie_orphans`).
use std::collections::HashMap;
use std::time::{Duration, Instant};

use actix::prelude::*;
use tokio::signal::unix::{signal, SignalKind};

use crate::pty::ExitInfo;

/// Sent to a window when its child has been reaped.
#[derive(Message, Debug, Clone, Copy)]
#[rtype(result = "()")]
pub struct ChildExited(pub ExitInfo);

#[derive(Default)]
pub struct Supervisor {
    watched: HashMap<i32, Recipient<ChildExited>>,
    /// A live upgrade is handing the children over: none is reaped, so every exit stays for
    /// the next daemon (same process) to collect with its own `waitpid`.
    paused: bool,
    /// Ended orphans seen, with when first seen: reaped once they are `ORPHAN_AGE` old.
    orphans: HashMap<i32, Instant>,
    /// A /proc scan for ended orphans is running or scheduled.
    scanning: bool,
    /// A SIGCHLD came while a scan ran: the orphan it announces may have ended after that scan
    /// read /proc, so one more scan follows.
    rescan: bool,
}

/// How long an ended child nobody watches waits before it is reaped as an orphan. A window's
/// program can end before its `Watch` arrives (milliseconds after the spawn), and its status
/// must stay for that `Watch`; an orphan's status is of no use to anyone.
const ORPHAN_AGE: Duration = Duration::from_secs(2);

/// Reap `pid` if it has ended, without waiting. `None` while it runs (or is not our child).
fn try_reap(pid: i32) -> Option<ExitInfo> {
    use rustix::process::{waitpid, Pid, WaitOptions};
    // A non-positive pid would name a process group (or any child): never ours to reap here.
    let pid = Pid::from_raw(pid)?;
    let (got, status) = waitpid(Some(pid), WaitOptions::NOHANG).ok()??;
    if got != pid {
        return None;
    }
    if let Some(code) = status.exit_status() {
        Some(ExitInfo {
            code: Some(code),
            signal: None,
            reason: None,
        })
    } else {
        status.terminating_signal().map(|sig| ExitInfo {
            code: None,
            signal: Some(sig),
            reason: None,
        })
    }
}

impl Supervisor {
    /// Reap every watched child that has ended. A child that exits before it is watched stays a
    /// zombie until `Watch` reaps it, so no exit can be missed.
    fn reap(&mut self) {
        if self.paused {
            return;
        }
        self.watched.retain(|&pid, window| match try_reap(pid) {
            Some(info) => {
                window.do_send(ChildExited(info));
                false
            }
            None => true,
        });
    }

    /// Look for ended orphans off the actor's thread, then reap the old enough ones.
    fn scan_orphans(&mut self, ctx: &mut Context<Self>) {
        if self.paused {
            return;
        }
        if self.scanning {
            self.rescan = true;
            return;
        }
        self.scanning = true;
        let scan = tokio::task::spawn_blocking(crate::tree::zombie_orphans);
        ctx.spawn(
            async move { scan.await.unwrap_or_default() }
                .into_actor(self)
                .map(|found, act, ctx| {
                    act.scanning = false;
                    act.reap_orphans(found, ctx);
                    if std::mem::take(&mut act.rescan) {
                        act.scan_orphans(ctx);
                    }
                }),
        );
    }

    fn reap_orphans(&mut self, found: Vec<i32>, ctx: &mut Context<Self>) {
        if self.paused {
            return;
        }
        let now = Instant::now();
        let mut pending = HashMap::new();
        for pid in found {
            if self.watched.contains_key(&pid) {
                continue;
            }
            let first = self.orphans.get(&pid).copied().unwrap_or(now);
            if now.duration_since(first) >= ORPHAN_AGE {
                // Its status means nothing to anyone: reaping is all that is wanted.
                let _ = try_reap(pid);
            } else {
                pending.insert(pid, first);
            }
        }
        self.orphans = pending;
        if !self.orphans.is_empty() {
            // Scheduled once: `scanning` stays set until the scan runs.
            self.scanning = true;
            ctx.run_later(ORPHAN_AGE, |act, ctx| {
                act.scanning = false;
                act.scan_orphans(ctx);
            });
        }
    }
}

impl Actor for Supervisor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        match signal(SignalKind::child()) {
            Ok(sigchld) => {
                ctx.add_stream(futures_util::stream::unfold(sigchld, |mut s| async move {
                    s.recv().await.map(|()| ((), s))
                }));
            }
            Err(e) => tracing::error!(error = %e, "cannot watch SIGCHLD; exits will not be seen"),
        }
    }
}

impl StreamHandler<()> for Supervisor {
    fn handle(&mut self, _: (), ctx: &mut Self::Context) {
        self.reap();
        self.scan_orphans(ctx);
    }
}

/// Report this child's exit to `window`.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Watch {
    pub pid: i32,
    pub window: Recipient<ChildExited>,
}

impl Handler<Watch> for Supervisor {
    type Result = ();
    fn handle(&mut self, msg: Watch, _: &mut Self::Context) {
        // It may have ended already (its SIGCHLD came before the watch).
        match (!self.paused).then(|| try_reap(msg.pid)).flatten() {
            Some(info) => msg.window.do_send(ChildExited(info)),
            None => {
                self.watched.insert(msg.pid, msg.window);
            }
        }
    }
}

/// Stop reaping (`true`) while a live upgrade hands the children over, or start again
/// (`false`) when it did not happen; resuming reaps whatever ended meanwhile.
#[derive(Message)]
#[rtype(result = "()")]
pub struct PauseReaping(pub bool);

impl Handler<PauseReaping> for Supervisor {
    type Result = ();
    fn handle(&mut self, msg: PauseReaping, ctx: &mut Self::Context) {
        self.paused = msg.0;
        self.reap();
        self.scan_orphans(ctx);
    }
}

/// Report the exit of `pid`, a program this process did not start (its window was taken over
/// after a crash of the daemon that did): it is not a child, so its exit status cannot be
/// read. Its end is seen through a pidfd (or, where the kernel has none, by polling), and
/// reported with no code or signal and a reason.
#[derive(Message)]
#[rtype(result = "()")]
pub struct WatchForeign {
    pub pid: i32,
    pub window: Recipient<ChildExited>,
}

/// Why an exit carries no status.
pub const NOT_A_CHILD: &str =
    "the program was started by a daemon that crashed; its exit status is not known";

/// How often a program without a pidfd is looked for.
const FOREIGN_POLL: std::time::Duration = std::time::Duration::from_secs(1);

impl Handler<WatchForeign> for Supervisor {
    type Result = ();
    fn handle(&mut self, msg: WatchForeign, ctx: &mut Self::Context) {
        let unknown = ExitInfo {
            code: None,
            signal: None,
            reason: Some(NOT_A_CHILD),
        };
        let pid = msg.pid;
        let window = msg.window;
        let Some(rpid) = rustix::process::Pid::from_raw(pid) else {
            // Not a process id at all: nothing to wait for.
            window.do_send(ChildExited(unknown));
            return;
        };
        let opened = rustix::process::pidfd_open(rpid, rustix::process::PidfdFlags::empty());
        if let Ok(fd) = opened {
            // SAFETY: an OwnedFd always returns the same open descriptor, closed only when the
            // AsyncFd (which owns it) is dropped.
            let registered = unsafe {
                tokio::io::unix::AsyncFd::register_with_interest(fd, tokio::io::Interest::READABLE)
            };
            match registered {
                Ok(afd) => {
                    ctx.spawn(
                        async move {
                            // A pidfd becomes readable when its process ends.
                            let _ = afd.readable().await;
                            window.do_send(ChildExited(unknown));
                        }
                        .into_actor(self),
                    );
                    return;
                }
                Err(e) => tracing::debug!(pid, "cannot watch a pidfd: {}; polling instead", e),
            }
        } else if opened.err() == Some(rustix::io::Errno::SRCH) {
            window.do_send(ChildExited(unknown));
            return;
        }
        ctx.run_interval(FOREIGN_POLL, move |_, ctx| {
            // kill(pid, 0): only checks that the process exists.
            if rustix::process::test_kill_process(rpid).is_err() {
                window.do_send(ChildExited(unknown));
                ctx.cancel_future(ctx.handle());
            }
        });
    }
}
