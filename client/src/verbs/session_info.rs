//! `tuios session-info`: the `session-info` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("session-info");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::SessionOnlyArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &params::session_info(&a.target),
        a.target.json,
        |r| output::verb_reply("session-info", r),
    )
}
