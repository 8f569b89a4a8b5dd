//! `tuios get-agent-state`: the `get-agent-state` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("get-agent-state");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::WindowOnlyArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &super::legacy_request(protocol::verbs::get_agent_state::SPEC.name, &params(&a)),
        a.target.json,
        output::agent_state,
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::get_agent_state::Params {
    super::from_legacy(crate::params::get_agent_state(&a.target))
}
