//! The `tuios daemon` entry point as a library: socket path and permissions, the start lock, stale
//! socket handling, logging, signals, systemd notification, and building the actor system.

pub mod activation;
pub mod paths;

mod fd_limit;
pub mod fdstore;
mod files;
pub mod in_process;
mod lock;
mod logging;
mod probe;
mod run;
pub mod upgrade;

pub use lock::StartLock;
pub use logging::{default_log_path, init_logging, log_to_file, stderr_is_journal, LOG_FILE_CAP};
pub use probe::{probe, probe_with_timeout, Probe, PROBE_TIMEOUT};
pub use run::{run, DaemonOptions};
