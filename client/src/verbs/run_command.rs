//! `tuios run-command`: the `run-command` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("run-command");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::RunCommandArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    run_command(socket, &a)
}

// Not yet sent by run(), which still builds its request by hand (being moved over).
#[allow(dead_code)]
/// The typed params this command sends (with `--list` it sends nothing: these are empty).
pub fn params(a: &Args) -> protocol::verbs::run_command::Params {
    crate::params::run_command(a)
        .map(super::from_legacy)
        .unwrap_or_default()
}
