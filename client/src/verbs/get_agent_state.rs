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
        &params::get_agent_state(&a.target),
        a.target.json,
        output::agent_state,
    )
}
