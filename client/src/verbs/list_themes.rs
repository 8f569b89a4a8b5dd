//! `tuios list-themes`: the `list-themes` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("list-themes");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::ListThemesArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &params::list_themes(&a),
        a.target.json,
        output::themes,
    )
}
