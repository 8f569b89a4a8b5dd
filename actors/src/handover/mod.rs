//! Live upgrade: the running daemon hands its state to the `tuios` binary now on disk, which
//! it executes in the same process (same pid), so every window's program stays its child and
//! never notices.
//!
//! What crosses the exec: the listening socket, every window's PTY master (descriptors with
//! close-on-exec cleared on exactly these), and this document, in a memfd whose number is in
//! [`ENV_FD`]: a header line `tuios-handover <version>` and then JSON: each session's structure
//! (the issue-17 saved format) and per window its id, program pid, size and terminal as replay
//! bytes ([`emulator::Emulator::replay`]).
//!
//! Order, so that nothing is torn down before the point of no return: the binary on disk is
//! asked which handover versions it reads (a refusal ends the upgrade there, untouched); then
//! the supervisor stops reaping (exits wait for the next daemon) and every window stops reading
//! its PTY and exports itself; then the exec. If the exec fails, windows read again, the
//! supervisor reaps again, and the request is answered with the reason.
//!
//! The document is in [`format`]. Upgrade requests reach the daemon's main loop through the
//! [`UpgradeTrigger`] it gave the actors at start; the main loop then works the actors through
//! its [`DaemonHandle`](crate::DaemonHandle) (stop accepting, [`freeze`], accept again).

pub mod format;

pub use format::{
    decode, encode, HandedSession, HandedWindow, HandoverState, IncomingHandover, ENV_FD, MAGIC,
    READS, VERSION,
};

use std::os::fd::OwnedFd;

use actix::prelude::*;

use tokio::sync::{mpsc, oneshot};

use crate::session::Session;
use crate::session_manager::ListSessions;
use crate::supervisor::{PauseReaping, Supervisor};
use crate::verb_env::VerbEnv;

/// What the daemon's main loop answers an upgrade request with (the `upgrade` verb's module
/// turns it into its reply).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpgradeAnswer {
    /// Only checking: the binary on disk could take over, reading these handover versions.
    WouldUpgrade { binary: String, reads: Vec<u32> },
    /// The switch is about to happen, to this binary.
    Upgrading { binary: String },
}

/// A request to upgrade, or with `check` only to ask whether the binary on disk could take
/// over. The daemon answers once the binary on disk has been checked: `Ok` with the result
/// (for a real upgrade, just before it freezes the windows and executes), `Err` with the reason
/// it will not happen.
pub struct UpgradeRequest {
    pub check: bool,
    pub reply: oneshot::Sender<Result<UpgradeAnswer, String>>,
}

/// Where upgrade requests go: the daemon's main loop, which alone may exec. Empty in a daemon
/// that cannot upgrade itself (one running inside another process).
#[derive(Clone, Default)]
pub struct UpgradeTrigger(Option<mpsc::UnboundedSender<UpgradeRequest>>);

impl UpgradeTrigger {
    pub fn new(tx: mpsc::UnboundedSender<UpgradeRequest>) -> UpgradeTrigger {
        UpgradeTrigger(Some(tx))
    }

    /// Where requests go; `None` when this daemon cannot upgrade itself.
    pub fn sender(&self) -> Option<&mpsc::UnboundedSender<UpgradeRequest>> {
        self.0.as_ref()
    }
}

/// The exported state, ready to cross the exec, and how to undo the export.
pub struct OutgoingHandover {
    pub sessions: Vec<HandedSession>,
    /// The PTY masters, close-on-exec dups; their numbers are in `sessions`.
    pub fds: Vec<OwnedFd>,
    frozen: Vec<Addr<Session>>,
    supervisor: Addr<Supervisor>,
}

impl OutgoingHandover {
    /// The upgrade did not happen: windows read their PTYs again and exits are reaped again.
    /// The exported descriptors are closed (they were dups).
    pub async fn thaw(self) {
        for s in &self.frozen {
            let _ = s.send(crate::session::handover::ThawAll).await;
        }
        let _ = self.supervisor.send(PauseReaping(false)).await;
    }
}

/// Stop reaping and freeze every window, collecting the state to hand over.
pub async fn freeze(env: &VerbEnv) -> Result<OutgoingHandover, String> {
    let supervisor = env.services.supervisor.clone();
    supervisor
        .send(PauseReaping(true))
        .await
        .map_err(|e| format!("the supervisor did not answer: {e}"))?;
    let mut out = OutgoingHandover {
        sessions: Vec::new(),
        fds: Vec::new(),
        frozen: Vec::new(),
        supervisor,
    };
    let sessions = match env.manager.send(ListSessions).await {
        Ok(s) => s,
        Err(e) => {
            out.thaw().await;
            return Err(format!("the session manager did not answer: {e}"));
        }
    };
    for (addr, _) in sessions {
        out.frozen.push(addr.clone());
        match addr.send(crate::session::handover::Export).await {
            Ok(Ok((session, fds))) => {
                out.sessions.push(session);
                out.fds.extend(fds);
            }
            // A session that ended meanwhile has nothing to hand over.
            Err(_) => {}
            Ok(Err(why)) => {
                out.thaw().await;
                return Err(why);
            }
        }
    }
    Ok(out)
}
