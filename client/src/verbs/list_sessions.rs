//! `tuios ls`: the `list-sessions` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("ls");
pub const ALIASES: &[&str] = &["list-sessions"];
pub use crate::cli::LsArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    {
        let result = match call(
            socket,
            &super::legacy_request(protocol::verbs::list_sessions::SPEC.name, &params(&a)),
        ) {
            // Nothing is running, but sessions saved by a daemon that stopped are worth
            // knowing about: they come back when one starts.
            Err(failure @ Failure::NoDaemon(_)) if !a.json => {
                let saved = resurrect::offline_section();
                if saved.is_empty() {
                    return Err(failure);
                }
                emit(&saved)?;
                return Err(failure);
            }
            other => other?,
        };
        let sessions = result
            .get("sessions")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if a.json {
            print_json(&Value::Array(sessions))
        } else {
            let sessions: Vec<Value> = sessions.iter().map(output::escape_value).collect();
            let saved = resurrect::saved_section(&output::escape_value(&result));
            emit(&format!("{}{saved}", output::sessions_table(&sessions)))
        }
    }
}

/// The typed params this command sends.
pub fn params(_a: &Args) -> protocol::verbs::list_sessions::Params {
    super::from_legacy(crate::params::list_sessions())
}
