//! `tuios new`: the `new-session` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("new");
pub const ALIASES: &[&str] = &["n", "new-session"];
pub use crate::cli::NewArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    new_session(socket, &a)
}

// Not yet sent by run(), which still builds its request by hand (being moved over).
#[allow(dead_code)]
/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::new_session::Params {
    super::from_legacy(crate::params::new_session(a))
}
