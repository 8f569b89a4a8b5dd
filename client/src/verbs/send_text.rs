//! `tuios send-text`: the `send-text` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("send-text");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::SendTextArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    {
        verb_command(socket, &super::legacy_request(protocol::verbs::send_text::SPEC.name, &params(&a)), a.target.json, |_| {
            String::new()
        })
    }
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::send_text::Params {
    super::from_legacy(crate::params::send_text(a))
}
