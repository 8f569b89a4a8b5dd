//! The daemon's actors: the acceptor and the two connection kinds, the session manager, one
//! actor per session and per window, and the PTY plumbing between windows and their programs.
use std::path::PathBuf;
use std::sync::Arc;

use actix::prelude::*;

pub mod acceptor;
pub mod agent;
pub mod binary_connection;
pub mod codec;
pub mod connection_slot;
pub mod errors;
pub mod event_hub;
pub mod fdio;
pub mod handover;
pub mod json_connection;
pub mod memory;
pub mod outbox;
pub mod paste;
pub mod pty;
pub mod pty_input;
pub mod pty_reader;
pub mod reader;
pub mod screen;
pub mod session;
pub mod session_manager;
pub mod spawn;
pub mod subscriber;
pub mod supervisor;
pub mod verbs;
pub mod waiter;
pub mod window;

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
    /// Where sessions are saved and restored from; `None`: saving is off (no usable directory,
    /// or another daemon holds it).
    pub sessions_dir: Option<PathBuf>,
    /// The agent detector's settings from the daemon's environment.
    pub agent: agent::Settings,
}

/// The daemon-wide actors every session and verb can reach.
#[derive(Clone)]
pub struct Services {
    pub info: Arc<DaemonInfo>,
    pub hub: Addr<event_hub::EventHub>,
    /// True while the hub has a subscription (see `EventHub::listening`).
    pub events_heard: Arc<std::sync::atomic::AtomicBool>,
    pub supervisor: Addr<supervisor::Supervisor>,
    /// Where windows run: one arbiter (thread) per core, so N flooding windows use N cores
    /// while the control actors on the main arbiter stay answerable.
    pub windows: ArbiterPool,
    /// Set once the daemon begins to shut down: pending waits answer at once.
    pub shutting_down: Arc<tokio::sync::watch::Sender<bool>>,
    /// Every open PTY input by window id, for writers that know only the id.
    pub inputs: pty_input::PtyInputs,
    /// The harness manifests as last read.
    pub manifests: agent::manifest_cache::Manifests,
}

/// A fixed set of arbiters handed out round-robin.
#[derive(Clone)]
pub struct ArbiterPool {
    arbiters: Arc<Vec<ArbiterHandle>>,
    next: Arc<std::sync::atomic::AtomicUsize>,
    /// Where every window's PtyReader runs: reads are cheap, and off the parsing threads they
    /// overlap with parsing.
    readers: ArbiterHandle,
}

impl ArbiterPool {
    /// One arbiter per available core (at least one). Must be called inside a running System.
    pub fn per_core() -> Self {
        let n = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1);
        Self::new(n)
    }

    pub fn new(n: usize) -> Self {
        let arbiters = (0..n.max(1)).map(|_| Arbiter::new().handle()).collect();
        ArbiterPool {
            arbiters: Arc::new(arbiters),
            next: Default::default(),
            readers: Arbiter::new().handle(),
        }
    }

    /// The arbiter for the next window.
    pub fn pick(&self) -> ArbiterHandle {
        let i = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.arbiters[i % self.arbiters.len()].clone()
    }

    /// The arbiter PTY readers run on.
    pub fn readers(&self) -> ArbiterHandle {
        self.readers.clone()
    }

    pub fn len(&self) -> usize {
        self.arbiters.len()
    }

    pub fn is_empty(&self) -> bool {
        self.arbiters.is_empty()
    }

    /// Stop every arbiter's thread (after the windows on them have stopped).
    pub fn stop(&self) {
        for a in self.arbiters.iter() {
            a.stop();
        }
        self.readers.stop();
    }
}

/// Handle to a running actor system.
pub struct DaemonHandle {
    hub: Addr<event_hub::EventHub>,
    acceptor: Addr<acceptor::Acceptor>,
    manager: Addr<session_manager::SessionManager>,
    windows: ArbiterPool,
    shutting_down: Arc<tokio::sync::watch::Sender<bool>>,
}

impl DaemonHandle {
    /// Stop accepting, then end every session's programs. Resolves when they are gone.
    pub async fn shutdown(self) {
        // Waits end first (their watches and event streams close), so their clients hear why.
        self.shutting_down.send_replace(true);
        let _ = self.hub.send(event_hub::CloseAll).await;
        let _ = self.acceptor.send(acceptor::StopAccepting).await;
        let _ = self.manager.send(session_manager::Shutdown).await;
        self.windows.stop();
    }
}

/// Start the acceptor and the session manager on `listener`. Must be called inside a running
/// actix `System`.
pub fn start(listener: tokio::net::UnixListener, info: DaemonInfo) -> DaemonHandle {
    let hub = event_hub::EventHub::default();
    let events_heard = hub.listening();
    let services = Services {
        info: Arc::new(info),
        hub: hub.start(),
        events_heard,
        supervisor: supervisor::Supervisor::default().start(),
        windows: ArbiterPool::per_core(),
        shutting_down: Arc::new(tokio::sync::watch::channel(false).0),
        inputs: Default::default(),
        manifests: Default::default(),
    };
    let windows = services.windows.clone();
    let shutting_down = services.shutting_down.clone();
    let manager = session_manager::SessionManager::new(services.clone()).start();
    let hub = services.hub.clone();
    let env = verbs::VerbEnv {
        manager: manager.clone(),
        services,
    };
    let acceptor = acceptor::Acceptor::start(listener, env);
    handover::register_acceptor(acceptor.clone());
    DaemonHandle {
        hub,
        acceptor,
        manager,
        windows,
        shutting_down,
    }
}

pub(crate) fn unix_now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
