//! The Supervisor actor: reaps every child the daemon started and tells its window how it ended.
//! One SIGCHLD stream serves all windows: no thread or timer per child, and an exit reaches its
//! window as soon as the signal is delivered.
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
    /// Children reaped before anyone asked to watch them (the exit raced the registration).
    early: HashMap<i32, ExitInfo>,
}

impl Supervisor {
    fn reap(&mut self) {
        loop {
            let mut status: libc::c_int = 0;
            // SAFETY: waitpid with WNOHANG and a valid status pointer.
            let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
            if pid <= 0 {
                return;
            }
            let info = if libc::WIFEXITED(status) {
                ExitInfo {
                    code: Some(libc::WEXITSTATUS(status)),
                    signal: None,
                }
            } else if libc::WIFSIGNALED(status) {
                ExitInfo {
                    code: None,
                    signal: Some(libc::WTERMSIG(status)),
                }
            } else {
                continue;
            };
            match self.watched.remove(&pid) {
                Some(window) => window.do_send(ChildExited(info)),
                None => {
                    self.early.insert(pid, info);
                }
            }
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
        // A SIGCHLD may be pending but not yet handled; reap first so the early table is current.
        self.reap();
        match self.early.remove(&msg.pid) {
            Some(info) => msg.window.do_send(ChildExited(info)),
            None => {
                self.watched.insert(msg.pid, msg.window);
            }
        }
    }
}
