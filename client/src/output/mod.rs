//! Human-readable rendering of verb results. Pure functions from JSON to text.
//!
//! Results carry strings a program or another client chose (titles, names, messages). Human
//! output passes them through [`escape_controls`] first (see [`escape_value`]), so none can
//! drive the terminal of whoever runs the command; `--json` output is printed as received.

mod agent;
mod commands;
mod format;
mod options;
mod reply;
mod windows;
mod workspaces;

pub use agent::{agent_detect, agent_screen, agent_state, agent_state_set};
pub use commands::{command_result, command_vocabulary, command_vocabulary_json};
pub use format::{escape_controls, escape_value, format_local_time, shell_quote, table};
pub use options::{option_set, option_value, options_table, themes};
pub use reply::key_values;
pub use windows::{
    capture, focused, layout_set, resized, window_closed, window_created, window_moved, window_set,
    window_split, windows_table,
};
pub use workspaces::{workspace_named, workspace_order_set, workspace_selected, workspaces_table};

#[cfg(test)]
fn columns(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}
