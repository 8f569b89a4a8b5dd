//! `tuios close-window`: the `close-window` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("close-window");
pub const ALIASES: &[&str] = &["kill-window"];
pub use crate::cli::WindowOnlyArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    {
        let target = a.target.window.clone();
        verb_command(
            socket,
            &super::legacy_request(protocol::verbs::close_window::SPEC.name, &params(&a)),
            a.target.json,
            |_| output::window_closed(target.as_deref()),
        )
    }
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::close_window::Params {
    super::from_legacy(crate::params::close_window(&a.target))
}
