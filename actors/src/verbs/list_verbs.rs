//! `list-verbs`: the registry's own description of every verb, or of one.
use protocol::registry;
use protocol::verbs::list_verbs::{Params, Reply};
use protocol::VerbError;

use super::VerbEnv;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    registry::list_verbs(p.verb.as_deref(), &env.services.info.version)
}
