//! `tuios capture-pane`: the `capture-pane` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("capture-pane");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::CapturePaneArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    {
        // The pane's content is what was asked for, styling included: printed as captured,
        // never through the escaping of the other human output.
        let tty = io::stdout().is_terminal();
        let result = call(socket, &super::legacy_request(protocol::verbs::capture_pane::SPEC.name, &params(&a)))?;
        if a.target.json {
            print_json(&result)
        } else {
            let content = result.get("content").and_then(Value::as_str).unwrap_or("");
            emit(&output::capture(content, tty))
        }
    }
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::capture_pane::Params {
    super::from_legacy(crate::params::capture_pane(a))
}
