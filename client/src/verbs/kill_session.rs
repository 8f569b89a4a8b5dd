//! `tuios kill-session`: the `kill-session` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("kill-session");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::KillSessionArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    {
        call(socket, &params::kill_session(&a.session))?;
        emit(&format!(
            "killed session {}\n",
            output::escape_controls(&a.session)
        ))
    }
}
