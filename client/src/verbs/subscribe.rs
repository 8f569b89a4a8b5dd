//! `tuios subscribe`: the `subscribe` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("subscribe");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::SubscribeArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    subscribe(
        socket,
        &super::legacy_request(protocol::verbs::subscribe::SPEC.name, &params(&a)),
        a.quiet,
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::subscribe::Params {
    super::from_legacy(crate::params::subscribe(a))
}
