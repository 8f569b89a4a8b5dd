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
        &params::focus_window(&a),
        a.target.json,
        output::focused,
    )
}
