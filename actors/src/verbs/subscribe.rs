//! `subscribe`: served by the JSON connection itself, which owns its event stream
//! (`json_connection.rs`); a request never reaches this dispatch.
use protocol::verbs::subscribe::{Params, Reply};
use protocol::VerbError;

use super::VerbEnv;
use crate::errors;

pub(super) async fn handle(_env: &VerbEnv, _p: Params) -> Result<Reply, VerbError> {
    Err(errors::internal(
        "subscribe is served by the connection itself",
    ))
}
