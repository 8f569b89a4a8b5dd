//! The program's end: its exit settled once its output is read, and the window closed or its
//! program killed.
use std::time::Duration;

use actix::prelude::*;
use tokio::sync::oneshot;

use super::waits::ExitRecorded;
use super::{Window, WindowNotice, HANGUP_GRACE};
use crate::pty;
use crate::supervisor::ChildExited;

impl Window {
    /// Finish the exit once both the child is reaped and its output is read: to the end, or as
    /// far as was buffered when it was reaped (a background process may hold the PTY open).
    pub(super) fn settle_exit(&mut self) {
        if self.exited.is_some() {
            return;
        }
        let Some(exit) = self.reaped else { return };
        if !self.stream_done && !self.drained {
            return;
        }
        self.exited = Some(exit);
        if let Some(input) = self.input.take() {
            input.close();
        }
        // The last output's events come before the exit.
        self.send_events();
        // The session publishes window-exit as it records the exit, so whoever hears of it
        // finds the window listed as exited. Waits on the exit are answered once the session has recorded it, so a client that
        // lists windows right after its wait sees the window as exited.
        let recorded = self.links.notices.send(WindowNotice::Exited {
            window_id: self.id.clone(),
            exit,
        });
        let me = self.me.clone();
        let watches = std::mem::take(&mut self.exit_watches);
        actix::spawn(async move {
            let _ = recorded.await;
            // Answered here: the session may close the window (a command window) meanwhile.
            for w in watches {
                let _ = w.send(Some(exit));
            }
            if let Some(me) = me.upgrade() {
                me.do_send(ExitRecorded);
            }
        });
    }
}

impl Handler<ChildExited> for Window {
    type Result = ();
    fn handle(&mut self, msg: ChildExited, ctx: &mut Self::Context) {
        self.reaped = Some(msg.0);
        if let Some(input) = &self.input {
            // Attached clients' keys now go through the window, which refuses them.
            input.close();
        }
        self.leftovers = Some(pty::find_leftovers(self.pid));
        for w in self.reap_waiters.drain(..) {
            let _ = w.send(());
        }
        if self.stream_done || self.reader.is_none() {
            self.settle_exit();
        } else {
            // Output read before the exit is still on its way: the reader delivers what is
            // buffered now, then `Drained` settles the exit.
            self.drain.notify_one();
        }
        self.schedule_flush(ctx);
    }
}

/// Close the window: hang up its program and stop.
#[derive(Message)]
#[rtype(result = "()")]
pub struct HangUp;

impl Handler<HangUp> for Window {
    type Result = ();
    fn handle(&mut self, _: HangUp, ctx: &mut Self::Context) {
        ctx.stop();
    }
}

/// Close the window and end every process it started (`tree`), setsid'd ones included;
/// resolves to how many ended.
#[derive(Message)]
#[rtype(result = "usize")]
pub struct EndTree;

impl Handler<EndTree> for Window {
    type Result = ResponseActFuture<Self, usize>;
    fn handle(&mut self, _: EndTree, _: &mut Self::Context) -> Self::Result {
        // A reaped program's pid may be another process's now: only its orphans are looked for.
        let program = self.reaped.is_none().then_some(self.pid);
        let id = self.id.clone();
        let cgroups = self.links.cgroups.clone();
        Box::pin(
            async move {
                let found = tokio::task::spawn_blocking(move || {
                    let ended =
                        crate::tree::end_all(crate::tree::window_tree(program, &id), HANGUP_GRACE);
                    // What the walk cannot see (left its session with a cleared environment)
                    // is still in the window's cgroup.
                    ended + cgroups.map_or(0, |c| c.kill(&id))
                });
                found.await.unwrap_or(0)
            }
            .into_actor(self)
            .map(|ended, _, ctx| {
                // The terminal session's own close still runs (`stopping`): it finds nothing left.
                ctx.stop();
                ended
            }),
        )
    }
}

/// Kill the program at once (daemon shutdown, kill-session) and resolve when it has been
/// reaped; with `tree`, then end every process the window started, and resolve to how many
/// ended (the program included).
#[derive(Message, Clone, Copy)]
#[rtype(result = "usize")]
pub struct KillAndReap {
    pub tree: bool,
}

impl Handler<KillAndReap> for Window {
    type Result = ResponseActFuture<Self, usize>;
    fn handle(&mut self, msg: KillAndReap, _: &mut Self::Context) -> Self::Result {
        let pid = self.pid;
        let id = self.id.clone();
        let cgroups = self.links.cgroups.clone();
        let running = usize::from(self.reaped.is_none());
        let reaped = if self.reaped.is_some() {
            None
        } else {
            let (tx, rx) = oneshot::channel();
            self.reap_waiters.push(tx);
            pty::signal_child(pid, rustix::process::Signal::HUP);
            Some(rx)
        };
        Box::pin(
            async move {
                if let Some(mut rx) = reaped {
                    // A program that ignores the hangup is killed after a short grace.
                    if tokio::time::timeout(Duration::from_millis(500), &mut rx)
                        .await
                        .is_err()
                    {
                        pty::signal_child(pid, rustix::process::Signal::KILL);
                        let _ = tokio::time::timeout(Duration::from_secs(2), rx).await;
                    }
                }
                if !msg.tree {
                    return 0;
                }
                // The program is gone: what it started is below the daemon now (subreaper), and
                // in the window's cgroup when it has one.
                let rest = tokio::task::spawn_blocking(move || {
                    let ended =
                        crate::tree::end_all(crate::tree::window_tree(None, &id), HANGUP_GRACE);
                    ended + cgroups.map_or(0, |c| c.kill(&id))
                });
                running + rest.await.unwrap_or(0)
            }
            .into_actor(self)
            .map(|ended, _, ctx| {
                ctx.stop();
                ended
            }),
        )
    }
}
