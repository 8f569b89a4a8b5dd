//! Is a daemon listening on a socket path?

use std::io;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// What [`probe`] found at a socket path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// Something accepted a connection (or is too busy to answer within the timeout).
    Running,
    /// The file exists but nothing accepts connections on it.
    Stale,
    /// There is no file at the path.
    Absent,
}

/// How long [`probe`] waits for a connection to be accepted.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(1);

/// Connect to `socket` with a timeout of [`PROBE_TIMEOUT`]: `Running` if a connection is
/// accepted, `Stale` if the file exists but nobody accepts, `Absent` if there is no file.
pub fn probe(socket: &Path) -> Probe {
    probe_with_timeout(socket, PROBE_TIMEOUT)
}

/// [`probe`] with a chosen timeout.
///
/// A connection that neither succeeds nor fails within the timeout counts as `Running`: a live
/// listener with a full backlog makes `connect` wait, and removing its socket would be wrong.
/// Errors other than "refused" and "not found" (for instance a path that is not a socket) count
/// as `Stale`; the caller decides whether the file may be removed.
pub fn probe_with_timeout(socket: &Path, timeout: Duration) -> Probe {
    match std::fs::symlink_metadata(socket) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Probe::Absent,
        _ => {}
    }
    // std has no connect timeout for Unix sockets; a helper thread bounds the wait instead. If
    // it is still blocked when we give up, it ends by itself once the connect resolves.
    let (tx, rx) = mpsc::channel();
    let path = socket.to_path_buf();
    let spawned = std::thread::Builder::new()
        .name("tuios-probe".into())
        .spawn(move || {
            let _ = tx.send(UnixStream::connect(&path));
        });
    let outcome = match spawned {
        Ok(_) => match rx.recv_timeout(timeout) {
            Ok(result) => result,
            Err(mpsc::RecvTimeoutError::Timeout) => return Probe::Running,
            Err(mpsc::RecvTimeoutError::Disconnected) => return Probe::Stale,
        },
        // No thread to spare: connect directly (a Unix connect normally resolves at once).
        Err(_) => UnixStream::connect(socket),
    };
    match outcome {
        Ok(_stream) => Probe::Running,
        Err(e) if e.kind() == io::ErrorKind::NotFound => Probe::Absent,
        Err(_) => Probe::Stale,
    }
}
