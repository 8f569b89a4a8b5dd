//! Human-readable rendering of verb results. Pure functions from JSON to text.
//!
//! Results carry strings a program or another client chose (titles, names, messages). Human
//! output passes them through [`escape_controls`] first (see [`escape_value`]), so none can
//! drive the terminal of whoever runs the command; `--json` output is printed as received.

mod daemon;
mod format;
mod reply;
mod sessions;
mod waits;
mod windows;
mod workspaces;

pub use daemon::{hello, verb_list};
pub use format::{escape_controls, escape_value, format_local_time, shell_quote, table};
pub use reply::verb_reply;
pub use sessions::{session_accent_set, session_created, sessions_table};
pub use waits::{subscribed, wait_result};
pub use windows::{
    focused, layout_set, resized, window_closed, window_created, window_moved, window_set,
    window_split, windows_table,
};
pub use workspaces::{workspace_named, workspace_order_set, workspace_selected, workspaces_table};

#[cfg(test)]
fn columns(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}
