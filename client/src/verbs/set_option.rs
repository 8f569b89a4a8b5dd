//! `tuios set-option`: the `set-option` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("set-option");
pub const ALIASES: &[&str] = &["set-config"];
pub use crate::cli::SetOptionArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &super::legacy_request(protocol::verbs::set_option::SPEC.name, &params(&a)),
        a.target.json,
        output::option_set,
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::set_option::Params {
    super::from_legacy(crate::params::set_option(a))
}
