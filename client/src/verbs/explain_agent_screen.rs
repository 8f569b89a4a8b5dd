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
        &params::explain_agent_screen(&a),
        a.target.json,
        output::agent_screen,
    )
}
