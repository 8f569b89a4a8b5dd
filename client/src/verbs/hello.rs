//! `tuios hello`: the `hello` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("hello");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::HelloArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &super::legacy_request(protocol::verbs::hello::SPEC.name, &params(&a)),
        a.json,
        output::hello,
    )
}

/// The typed params this command sends.
pub fn params(_a: &Args) -> protocol::verbs::hello::Params {
    super::from_legacy(crate::params::hello())
}
