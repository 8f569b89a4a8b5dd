//! The daemon's actors. Placeholder API; the real implementation follows.
use std::path::PathBuf;

/// What the actor system needs to know about the daemon that hosts it.
#[derive(Debug, Clone)]
pub struct DaemonInfo {
    pub socket_path: PathBuf,
    pub version: String,
    pub pid: u32,
    /// Scrollback lines kept per window.
    pub scrollback_lines: usize,
    /// Shell for new windows; `None` means `$SHELL`, else `/bin/sh`.
    pub default_shell: Option<String>,
}

/// Handle to a running actor system.
pub struct DaemonHandle {}

impl DaemonHandle {
    /// Stop accepting, close connections, end every child process. Resolves when done.
    pub async fn shutdown(self) {}
}

/// Start the acceptor and the session manager on `listener`. Must be called inside a running
/// actix `System`.
pub fn start(listener: tokio::net::UnixListener, info: DaemonInfo) -> DaemonHandle {
    let _ = (listener, info);
    DaemonHandle {}
}
