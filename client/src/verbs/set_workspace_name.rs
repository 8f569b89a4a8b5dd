//! `tuios set-workspace-name`: the `set-workspace-name` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("set-workspace-name");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::SetWorkspaceNameArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &super::legacy_request(protocol::verbs::set_workspace_name::SPEC.name, &params(&a)),
        a.target.json,
        output::workspace_named,
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::set_workspace_name::Params {
    super::from_legacy(crate::params::set_workspace_name(a))
}
