//! `tuios get-option`: the `get-option` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("get-option");
pub const ALIASES: &[&str] = &["get-config"];
pub use crate::cli::GetOptionArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &super::legacy_request(protocol::verbs::get_option::SPEC.name, &params(&a)),
        a.target.json,
        output::option_value,
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::get_option::Params {
    super::from_legacy(crate::params::get_option(a))
}
