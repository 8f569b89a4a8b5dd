//! Harness for the end-to-end tests: runs the real `tuios` binary on a private socket in a
//! temporary directory and talks to it over the wire, exactly as a script would.
//!
//! Every test starts its own daemon, so tests are independent and can run in parallel
//! (nextest or `cargo test`). Nothing here sleeps to wait for something: waits poll a
//! condition with a deadline.

use std::time::Duration;

mod binary;
mod daemon;
mod json;
mod tmux;
mod util;
mod verbs;
pub mod web;

pub use binary::{frame, read_frame};
pub use daemon::{tuios_bin, DaemonProcess, TestDaemon, TestEnv};
pub use json::{is_event, params, JsonConn};
pub use tmux::{dock, sh_quote, TmuxClient};
pub use util::{describe, paste_check, poll, run_with_deadline, strings, unescape, wait_until};
pub use verbs::{without_extensions, CORE_VERBS, ERROR_CODES, EXTENSION_VERBS, SPEC_VERBS};

/// Default deadline for anything the daemon should do "soon". Generous, because the tests
/// run on a loaded 2-core machine; a correct daemon finishes far sooner.
pub const DEADLINE: Duration = Duration::from_secs(20);
/// How long one response line may take before the test fails.
pub const READ_TIMEOUT: Duration = Duration::from_secs(20);
/// Pause between two probes of a polled condition.
pub const POLL_INTERVAL: Duration = Duration::from_millis(20);
