//! `upgrade`: ask the daemon's main loop, which alone may exec, to replace the daemon with the
//! binary on disk (or, with `check`, whether it could).
use protocol::verbs::upgrade::{Check, Params, Reply, Upgrading};
use protocol::{ErrorCode, Hint, VerbError};
use tokio::sync::oneshot;

use super::VerbEnv;
use crate::handover::format::VERSION;
use crate::handover::{UpgradeAnswer, UpgradeRequest};

/// The `upgrade` verb. A real upgrade is answered before the exec: every JSON connection gets
/// the answers in flight and is then closed, and the new daemon serves the next connection.
pub(super) async fn handle(env: &VerbEnv, params: Params) -> Result<Reply, VerbError> {
    let check = params.check.unwrap_or(false);
    let Some(tx) = env.services.upgrade.sender() else {
        return Err(VerbError::new(
            ErrorCode::CommandFailed,
            "this daemon cannot upgrade itself (it was not started as `tuios daemon`)",
        ));
    };
    let (reply, answer) = oneshot::channel();
    let closed = || {
        VerbError::new(
            ErrorCode::CommandFailed,
            "the daemon is shutting down; nothing to upgrade",
        )
    };
    tx.send(UpgradeRequest { check, reply })
        .map_err(|_| closed())?;
    match answer.await {
        Ok(Ok(answer)) => Ok(to_reply(answer)),
        Ok(Err(why)) => Err(VerbError::new(
            ErrorCode::CommandFailed,
            format!("the upgrade will not happen: {why}"),
        )
        .with_hint(Hint::new().detail(
            "The daemon carries on as it was, with every session and program. Install a tuios binary that supports live upgrade at the path the daemon was started from (upgrade with check true tells whether it would work), or restart the daemon: sessions are restored, programs are not.",
        ))),
        Err(_) => Err(closed()),
    }
}

fn to_reply(answer: UpgradeAnswer) -> Reply {
    match answer {
        UpgradeAnswer::WouldUpgrade { binary, reads } => Reply::Check(Check {
            binary,
            reads,
            writes: VERSION,
            would_upgrade: true,
            ..Default::default()
        }),
        UpgradeAnswer::Upgrading { binary } => Reply::Upgrading(Upgrading {
            binary,
            from_version: env!("CARGO_PKG_VERSION").to_string(),
            ..Default::default()
        }),
    }
}
