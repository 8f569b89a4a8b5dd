//! `tuios explain-agent-screen`: the `explain-agent-screen` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("explain-agent-screen");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::ExplainAgentScreenArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &super::legacy_request(protocol::verbs::explain_agent_screen::SPEC.name, &params(&a)),
        a.target.json,
        output::agent_screen,
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::explain_agent_screen::Params {
    super::from_legacy(crate::params::explain_agent_screen(a))
}
