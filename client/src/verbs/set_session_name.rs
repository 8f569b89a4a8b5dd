//! `tuios set-session-name`: the `set-session-name` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("set-session-name");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::SetSessionNameArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &params::set_session_name(&a),
        a.target.json,
        output::session_name_set,
    )
}
