//! `tuios split-window`: the `split-window` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("split-window");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::SplitWindowArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &super::legacy_request(protocol::verbs::split_window::SPEC.name, &params(&a)),
        a.target.json,
        output::window_split,
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::split_window::Params {
    super::from_legacy(crate::params::split_window(a))
}
