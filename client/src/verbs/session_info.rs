//! `tuios session-info`: the `session-info` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("session-info");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::SessionOnlyArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &super::legacy_request(protocol::verbs::session_info::SPEC.name, &params(&a)),
        a.target.json,
        |r| output::verb_reply("session-info", r),
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::session_info::Params {
    super::from_legacy(crate::params::session_info(&a.target))
}
