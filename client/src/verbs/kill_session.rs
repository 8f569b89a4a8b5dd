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
        call(
            socket,
            &super::legacy_request(protocol::verbs::kill_session::SPEC.name, &params(&a)),
        )?;
        emit(&format!(
            "killed session {}\n",
            output::escape_controls(&a.session)
        ))
    }
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::kill_session::Params {
    super::from_legacy(crate::params::kill_session(&a.session))
}
