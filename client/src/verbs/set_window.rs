//! `tuios set-window`: the `set-window` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("set-window");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::SetWindowArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &super::legacy_request(protocol::verbs::set_window::SPEC.name, &params(&a)),
        a.target.json,
        output::window_set,
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::set_window::Params {
    super::from_legacy(crate::params::set_window(a))
}
