//! `tuios run`: the `run` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("run");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::RunArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    run_and_wait(socket, &a)
}

// Not yet sent by run(), which still builds its request by hand (being moved over).
#[allow(dead_code)]
/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::run::Params {
    super::from_legacy(crate::params::run(a))
}
