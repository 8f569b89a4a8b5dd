//! `tuios set-agent-state`: the `set-agent-state` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("set-agent-state");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::SetAgentStateArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &params::set_agent_state(&a),
        a.target.json,
        output::agent_state_set,
    )
}
