//! `tuios list-verbs`: the `list-verbs` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("list-verbs");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::ListVerbsArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    {
        let result = call(
            socket,
            &super::legacy_request(protocol::verbs::list_verbs::SPEC.name, &params(&a)),
        )?;
        if a.json {
            print_json(&result)
        } else {
            emit(&output::verb_list(
                &output::escape_value(&result),
                a.verb.is_some(),
            ))
        }
    }
}

/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::list_verbs::Params {
    super::from_legacy(crate::params::list_verbs(a.verb.as_deref()))
}
