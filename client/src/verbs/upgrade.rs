//! `tuios upgrade`: the `upgrade` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("upgrade");
pub const ALIASES: &[&str] = &[];
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(socket: &Path, _a: Args) -> Result<i32, Failure> {
    emit(&upgrade::run(socket)?)
}

// Not yet sent by run(), which still builds its request by hand (being moved over).
#[allow(dead_code)]
/// The typed params this command sends.
pub fn params(_a: &Args) -> protocol::verbs::upgrade::Params {
    super::from_legacy(crate::params::Request::new("upgrade"))
}
