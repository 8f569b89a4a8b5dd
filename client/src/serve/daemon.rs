//! `tuios daemon`: the daemon in the foreground, in this process (the `daemon` crate does the
//! work; this is its command line).
use std::path::PathBuf;

use clap::Args;

use crate::failure;

#[derive(Debug, Args)]
pub struct DaemonArgs {
    /// Log level (off, error, warn, info, debug, trace).
    #[arg(long, value_name = "LEVEL")]
    pub log_level: Option<String>,
    /// Write the log (and anything else on stderr) to FILE instead of stderr: created 0600,
    /// never through a symbolic link, at most 1 MiB before it moves to FILE.1. `tuios new`
    /// starts a background daemon with $XDG_STATE_HOME/tuios/daemon.log.
    #[arg(long, value_name = "FILE")]
    pub log_file: Option<PathBuf>,
    /// Configuration file to read instead of the default one.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print the handover versions this binary reads and exit (a running daemon asks this of
    /// the binary on disk before a live upgrade).
    #[arg(long, hide = true)]
    pub handover_versions: bool,
}

/// Run the daemon until it is told to stop; the process's exit status.
pub fn run(socket: Option<PathBuf>, args: DaemonArgs) -> i32 {
    if let Some(file) = &args.log_file {
        // Before anything else runs, so even a configuration error lands in the file.
        if let Err(e) = daemon::log_to_file(file) {
            eprintln!("tuios daemon: {e}");
            return failure::EXIT_FAILURE;
        }
    }
    daemon::run(daemon::DaemonOptions {
        socket,
        config: args.config,
        log_level: args.log_level,
        handover_versions: args.handover_versions,
    })
}
