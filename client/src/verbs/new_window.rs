//! `tuios new-window`: the `new-window` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("new-window");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::NewWindowArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &with_client_cwd(super::legacy_request(protocol::verbs::new_window::SPEC.name, &params(&a))),
        a.target.json,
        output::window_created,
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::new_window::Params {
    super::from_legacy(crate::params::new_window(a))
}
