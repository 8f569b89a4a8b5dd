//! `tuios list-options`: the `list-options` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("list-options");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::ListOptionsArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &params::list_options(&a),
        a.target.json,
        output::options_table,
    )
}
