//! The daemon inside another process (`tuios ssh` when no daemon runs, as the Go TUIOS does):
//! the same actors on their own thread, reporting the version `in-process`, stopped by its
//! owner instead of by a signal. Signals, logging, live upgrade and systemd are the host
//! process's business, so none of that is set up here.

use std::fs;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::paths;
use crate::run::{claim_sessions_dir, prepare, remove_quietly, write_pid_file};

/// The version an in-process daemon reports in `hello`, as in Go.
pub const VERSION: &str = "in-process";

/// How long the sessions get to stop (and save) when the owner stops the daemon.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// A daemon serving on a thread of this process until [`InProcessDaemon::stop`] (or drop).
pub struct InProcessDaemon {
    socket: PathBuf,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl InProcessDaemon {
    /// Binds `socket` and starts serving; returns once connections are accepted. Fails when a
    /// daemon already runs there, or the directory, lock, bind or pid file cannot be had.
    pub fn start(socket: &Path) -> Result<InProcessDaemon, String> {
        let socket = std::path::absolute(socket).unwrap_or_else(|_| socket.to_path_buf());
        let lock = prepare(&socket, false)?;
        let cfg = config::load_daemon_config(None)
            .map_err(|e| format!("daemon configuration error: {e}"))?;
        let (ready_tx, ready_rx) = mpsc::channel::<Result<(), String>>();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread_socket = socket.clone();
        let thread = std::thread::Builder::new()
            .name("tuios-daemon".into())
            .spawn(move || {
                // Held for the daemon's whole life, released after the socket is gone.
                let _lock = lock;
                let sessions = claim_sessions_dir();
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = ready_tx.send(Err(format!("cannot create the async runtime: {e}")));
                        return;
                    }
                };
                let system = actix::System::with_tokio_rt(move || runtime);
                let info = actors::DaemonInfo {
                    socket_path: thread_socket,
                    version: VERSION.into(),
                    pid: std::process::id(),
                    scrollback_lines: cfg.scrollback_lines,
                    default_shell: cfg.shell,
                    sessions_dir: sessions.as_ref().map(|s| s.dir.clone()),
                    agent: actors::agent::AgentSettings::from_env(),
                    // The host process's limit: it is not ours to raise.
                    max_connections: protocol::limits::connection_cap(crate::fd_limit::current()),
                };
                system.block_on(serve(info, ready_tx, stop_rx));
            })
            .map_err(|e| format!("cannot start the daemon thread: {e}"))?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(InProcessDaemon {
                socket,
                stop: Some(stop_tx),
                thread: Some(thread),
            }),
            Ok(Err(why)) => {
                let _ = thread.join();
                Err(why)
            }
            Err(_) => {
                let _ = thread.join();
                Err("the daemon thread ended before serving".into())
            }
        }
    }

    /// The socket it serves on.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// Stops every session (each saves its state first), removes the pid file and the socket,
    /// and waits for the thread.
    pub fn stop(mut self) {
        self.stop_now();
    }

    fn stop_now(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            if thread.join().is_err() {
                tracing::error!("the in-process daemon's thread panicked");
            }
        }
    }
}

impl Drop for InProcessDaemon {
    fn drop(&mut self) {
        self.stop_now();
    }
}

async fn serve(
    info: actors::DaemonInfo,
    ready: mpsc::Sender<Result<(), String>>,
    stop: tokio::sync::oneshot::Receiver<()>,
) {
    let socket = info.socket_path.clone();
    let listener = match tokio::net::UnixListener::bind(&socket) {
        Ok(l) => l,
        Err(e) => {
            let _ = ready.send(Err(format!("cannot listen on {}: {e}", socket.display())));
            return;
        }
    };
    if let Err(e) = fs::set_permissions(&socket, fs::Permissions::from_mode(0o600)) {
        remove_quietly(&socket);
        let _ = ready.send(Err(format!(
            "cannot restrict permissions of {}: {e}",
            socket.display()
        )));
        return;
    }
    let pid_file = paths::pid_path(&socket);
    if let Err(e) = write_pid_file(&pid_file, info.pid) {
        remove_quietly(&socket);
        let _ = ready.send(Err(format!(
            "cannot write pid file {}: {e}",
            pid_file.display()
        )));
        return;
    }
    // Nothing handed over, no systemd store, no upgrades: those belong to the host process.
    let handle = actors::start(listener, info, actors::Startup::default());
    tracing::info!(socket = %socket.display(), "in-process tuios daemon ready");
    let _ = ready.send(Ok(()));
    // A dropped sender (the owner is gone) stops the daemon as well.
    let _ = stop.await;
    tracing::info!("in-process daemon stopping");
    tokio::select! {
        _ = handle.shutdown() => {}
        _ = tokio::time::sleep(SHUTDOWN_GRACE) => {
            tracing::warn!(
                "sessions did not stop within {}s; stopping anyway",
                SHUTDOWN_GRACE.as_secs()
            );
        }
    }
    remove_quietly(&pid_file);
    remove_quietly(&socket);
    tracing::info!("in-process daemon stopped");
}
