//! `tuios set-layout`: the `set-layout` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("set-layout");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::SetLayoutArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &super::legacy_request(protocol::verbs::set_layout::SPEC.name, &params(&a)),
        a.target.json,
        output::layout_set,
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::set_layout::Params {
    super::from_legacy(crate::params::set_layout(a))
}
