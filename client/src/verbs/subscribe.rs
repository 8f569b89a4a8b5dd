//! `tuios subscribe`: the `subscribe` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("subscribe");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::SubscribeArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    subscribe(socket, &params::subscribe(&a), a.quiet)
}
