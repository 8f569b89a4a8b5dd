//! Human-readable rendering of verb results. Pure functions from JSON to text.
//!
//! Results carry strings a program or another client chose (titles, names, messages). Human
//! output passes them through [`escape_controls`] first (see [`escape_value`]), so none can
//! drive the terminal of whoever runs the command; `--json` output is printed as received.

mod agent;
mod commands;
mod daemon;
mod format;
mod options;
mod reply;
mod sessions;
mod waits;
mod windows;

pub use agent::{agent_detect, agent_screen, agent_state, agent_state_set};
pub use commands::{command_result, command_vocabulary, command_vocabulary_json};
pub use daemon::{hello, verb_list};
pub use format::{escape_controls, escape_value, format_local_time, shell_quote, short_id, table};
pub use options::{option_set, option_value, options_table, themes};
pub use reply::{key_values, verb_reply};
pub use sessions::{session_accent_set, session_created, sessions_table};
pub use waits::{subscribed, wait_result};
pub use windows::{capture, windows_table};

#[cfg(test)]
fn columns(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}
