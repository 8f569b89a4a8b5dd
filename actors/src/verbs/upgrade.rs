//! `upgrade`: ask the daemon's main loop to replace the daemon with the binary on disk.
use protocol::verbs::upgrade::{Params, Reply};
use protocol::VerbError;

use super::VerbEnv;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    crate::handover::request(env, p).await
}
