//! `unsubscribe`: only meaningful inside a `subscribe` stream, on the connection that holds the
//! subscription; the command line offers no command for it (`tuios subscribe` ends its own
//! subscription when interrupted).
use std::path::Path;

use crate::failure::Failure;

/// No command: outside a `subscribe` stream there is no subscription to end.
pub const NAME: Option<&str> = None;
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_socket: &Path, _a: Args) -> Result<i32, Failure> {
    Err(Failure::msg(
        "unsubscribe ends a subscription on the connection that made it; `tuios subscribe` ends its own when interrupted",
    ))
}

/// The typed params (none: the verb takes no params). Read only by the tests' table of what
/// each command sends, since no command line builds this one.
#[cfg_attr(not(test), allow(dead_code))]
pub fn params(_a: &Args) -> protocol::verbs::unsubscribe::Params {
    Default::default()
}
