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
