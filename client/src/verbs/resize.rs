//! `tuios resize`: the `resize` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("resize");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::ResizeArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    {
        verb_command(socket, &super::legacy_request(protocol::verbs::resize::SPEC.name, &params(&a)), a.target.json, output::resized)
    }
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::resize::Params {
    super::from_legacy(crate::params::resize(a))
}
