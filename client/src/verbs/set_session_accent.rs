//! `tuios set-session-accent`: the `set-session-accent` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("set-session-accent");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::SetSessionAccentArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &params::set_session_accent(&a),
        a.target.json,
        output::session_accent_set,
    )
}
