//! `tuios explain-agent-detect`: the `explain-agent-detect` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("explain-agent-detect");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::WindowOnlyArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &super::legacy_request(protocol::verbs::explain_agent_detect::SPEC.name, &params(&a)),
        a.target.json,
        output::agent_detect,
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::explain_agent_detect::Params {
    super::from_legacy(crate::params::explain_agent_detect(&a.target))
}
