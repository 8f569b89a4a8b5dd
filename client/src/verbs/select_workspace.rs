//! `tuios select-workspace`: the `select-workspace` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("select-workspace");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::SelectWorkspaceArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &super::legacy_request(protocol::verbs::select_workspace::SPEC.name, &params(&a)),
        a.target.json,
        output::workspace_selected,
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::select_workspace::Params {
    super::from_legacy(crate::params::select_workspace(a))
}
