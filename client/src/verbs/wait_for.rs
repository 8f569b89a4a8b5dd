//! `tuios wait-for`: the `wait-for` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("wait-for");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::WaitForArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &super::legacy_request(protocol::verbs::wait_for::SPEC.name, &params(&a)),
        a.target.json,
        output::wait_result,
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::wait_for::Params {
    super::from_legacy(crate::params::wait_for(a))
}
