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
        &super::legacy_request(protocol::verbs::set_session_accent::SPEC.name, &params(&a)),
        a.target.json,
        output::session_accent_set,
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::set_session_accent::Params {
    super::from_legacy(crate::params::set_session_accent(a))
}
