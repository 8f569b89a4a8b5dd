//! `tuios list-options`: the `list-options` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("list-options");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::ListOptionsArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &super::legacy_request(protocol::verbs::list_options::SPEC.name, &params(&a)),
        a.target.json,
        output::options_table,
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::list_options::Params {
    super::from_legacy(crate::params::list_options(a))
}
