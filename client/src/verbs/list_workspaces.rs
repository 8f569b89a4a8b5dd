//! `tuios list-workspaces`: the `list-workspaces` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("list-workspaces");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::SessionOnlyArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &super::legacy_request(protocol::verbs::list_workspaces::SPEC.name, &params(&a)),
        a.target.json,
        output::workspaces_table,
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::list_workspaces::Params {
    super::from_legacy(crate::params::list_workspaces(&a.target))
}
