//! `tuios resurrect`: the `resurrect` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("resurrect");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::ResurrectArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    {
        let (text, code) = resurrect::run(socket, &a)?;
        emit(&text)?;
        Ok(code)
    }
}

// Not yet sent by run(), which still builds its request by hand (being moved over).
#[allow(dead_code)]
/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::resurrect::Params {
    super::from_legacy(crate::params::resurrect(a.session.as_deref()))
}
