//! The Supervisor actor: reaps the children the daemon started for windows, by pid, and tells
//! each window how its program ended. One SIGCHLD stream serves all windows: no thread or timer
//! per child, and an exit reaches its window as soon as the signal is delivered. It never calls
//! `waitpid(-1)`, so children started by anything else in the process keep their statuses.
use std::collections::HashMap;

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
}

/// Reap `pid` if it has ended, without waiting. `None` while it runs (or is not our child).
fn try_reap(pid: i32) -> Option<ExitInfo> {
    let mut status: libc::c_int = 0;
    // SAFETY: waitpid on one pid with WNOHANG and a valid status pointer.
    let got = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
    if got != pid {
        return None;
    }
    if libc::WIFEXITED(status) {
        Some(ExitInfo {
            code: Some(libc::WEXITSTATUS(status)),
            signal: None,
        })
    } else if libc::WIFSIGNALED(status) {
        Some(ExitInfo {
            code: None,
            signal: Some(libc::WTERMSIG(status)),
        })
    } else {
        None
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
    fn handle(&mut self, _: (), _: &mut Self::Context) {
        self.reap();
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
    fn handle(&mut self, msg: PauseReaping, _: &mut Self::Context) {
        self.paused = msg.0;
        self.reap();
    }
}
