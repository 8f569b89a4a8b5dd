//! `tuios move-window`: the `move-window` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("move-window");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::MoveWindowArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &super::legacy_request(protocol::verbs::move_window::SPEC.name, &params(&a)),
        a.target.json,
        output::window_moved,
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::move_window::Params {
    super::from_legacy(crate::params::move_window(a))
}
