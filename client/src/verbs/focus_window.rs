//! `tuios focus-window`: the `focus-window` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("focus-window");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::FocusWindowArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &super::legacy_request(protocol::verbs::focus_window::SPEC.name, &params(&a)),
        a.target.json,
        output::focused,
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::focus_window::Params {
    super::from_legacy(crate::params::focus_window(a))
}
