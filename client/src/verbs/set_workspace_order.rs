//! `tuios set-workspace-order`: the `set-workspace-order` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("set-workspace-order");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::SetWorkspaceOrderArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    verb_command(
        socket,
        &super::legacy_request(protocol::verbs::set_workspace_order::SPEC.name, &params(&a)),
        a.target.json,
        output::workspace_order_set,
    )
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::set_workspace_order::Params {
    super::from_legacy(crate::params::set_workspace_order(a))
}
