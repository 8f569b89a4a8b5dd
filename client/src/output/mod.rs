//! Human-readable rendering of verb results. Pure functions from JSON to text.
//!
//! Results carry strings a program or another client chose (titles, names, messages). Human
//! output passes them through [`escape_controls`] first (see [`escape_value`]), so none can
//! drive the terminal of whoever runs the command; `--json` output is printed as received.

mod format;
mod windows;

pub use format::{escape_controls, escape_value, format_local_time, shell_quote, short_id, table};
pub use windows::windows_table;
