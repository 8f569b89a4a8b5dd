//! The daemon's actors: the acceptor and the two connection kinds, the session manager, one
//! actor per session and per window, and the PTY plumbing between windows and their programs.
use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::sync::Arc;

use actix::prelude::*;

pub mod acceptor;
pub mod agent;
pub mod binary_connection;
pub mod cgroup;
pub mod codec;
pub mod connection_slot;
pub mod errors;
pub mod event_hub;
pub mod fd_store;
pub mod fdio;
pub mod handover;
pub mod history;
pub mod json_connection;
pub mod memory;
pub mod outbox;
pub mod paste;
pub mod pty;
pub mod pty_input;
pub mod pty_reader;
pub mod reader;
pub mod recorder;
pub mod screen;
pub mod session;
pub mod session_manager;
pub mod spawn;
pub mod subscriber;
pub mod supervisor;
pub mod tree;
pub mod verb_env;
pub mod verbs;
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
    pub agent: agent::AgentSettings,
    /// Client connections served at once (`protocol::limits::connection_cap` of the
    /// descriptor limit); the acceptor refuses more.
    pub max_connections: usize,
}

/// Replaces the daemon's log filter (a tracing filter directive), for `daemon.log_level`.
pub type LogFilter = Arc<dyn Fn(&str) -> Result<(), String> + Send + Sync>;

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
    /// Window PTYs kept in the service manager's store for a crash (when it has one).
    pub ptys: fd_store::PtyStore,
    /// Every open PTY input by window id, for writers that know only the id.
    pub inputs: pty_input::PtyInputs,
    /// The harness manifests as last read.
    pub manifests: agent::manifest_cache::Manifests,
    /// Where the `upgrade` verb asks the daemon's main loop for a live upgrade.
    pub upgrade: handover::UpgradeTrigger,
    /// The daemon's own log filter, when it owns its logging (not a daemon hosted inside
    /// `tuios ssh` or `tuios web`).
    pub log_filter: Option<LogFilter>,
    /// A cgroup per window, where the service manager delegated one (see `cgroup`).
    pub cgroups: Option<cgroup::WindowCgroups>,
    /// Where windows keep history past their memory budget, and the shared disk budget.
    pub history: history::HistoryFiles,
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

/// What a daemon hands its actors at start besides the listener and [`DaemonInfo`]: what the
/// previous daemon left behind and how the service manager and the main loop are reached. The
/// default (nothing) suits a daemon inside another process.
#[derive(Default)]
pub struct Startup {
    /// The sessions a live upgrade handed over: taken over instead of restored from disk.
    pub incoming: Option<handover::IncomingHandover>,
    /// Descriptors the service manager passed back after a crash, by store name (the window
    /// PTYs among them are taken over by their saved windows).
    pub kept: Vec<(String, OwnedFd)>,
    /// systemd's descriptor store, when the service has one.
    pub fd_store: Option<Arc<dyn fd_store::FdStore>>,
    /// Where upgrade requests go, when this daemon can upgrade itself.
    pub upgrade: handover::UpgradeTrigger,
    /// The daemon's log filter, when it owns its logging.
    pub log_filter: Option<LogFilter>,
    /// Per-window cgroups, when the daemon's cgroup is delegated to it.
    pub cgroups: Option<cgroup::WindowCgroups>,
}

/// Handle to a running actor system, held by the daemon's main loop.
pub struct DaemonHandle {
    env: verbs::VerbEnv,
    acceptor: Addr<acceptor::Acceptor>,
}

impl DaemonHandle {
    /// Stop accepting for a live upgrade: JSON requests in flight are answered and their
    /// connections closed, and new connections wait in the listening socket's queue for the
    /// next daemon (the socket itself stays open: the daemon keeps a dup of it to hand over).
    pub async fn stop_accepting(&self) {
        let _ = self.acceptor.send(acceptor::StopAccepting).await;
    }

    /// The upgrade did not happen: accept again, on `listener` (a dup of the listening socket).
    pub fn accept_again(
        &mut self,
        listener: std::os::unix::net::UnixListener,
    ) -> Result<(), String> {
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("cannot use the listening socket again: {e}"))?;
        let listener = tokio::net::UnixListener::from_std(listener)
            .map_err(|e| format!("cannot use the listening socket again: {e}"))?;
        self.acceptor = acceptor::Acceptor::start(listener, self.env.clone());
        Ok(())
    }

    /// Stop reaping and freeze every window, collecting the state to hand over.
    pub async fn freeze(&self) -> Result<handover::OutgoingHandover, String> {
        handover::freeze(&self.env).await
    }

    /// Stop accepting, then end every session's programs. Resolves when they are gone.
    pub async fn shutdown(self) {
        let services = &self.env.services;
        // Waits end first (their watches and event streams close), so their clients hear why.
        services.shutting_down.send_replace(true);
        let _ = services.hub.send(event_hub::CloseAll).await;
        let _ = self.acceptor.send(acceptor::StopAccepting).await;
        let _ = self.env.manager.send(session_manager::Shutdown).await;
        services.windows.stop();
    }
}

/// Start the acceptor and the session manager on `listener`. Must be called inside a running
/// actix `System`.
pub fn start(
    listener: tokio::net::UnixListener,
    info: DaemonInfo,
    startup: Startup,
) -> DaemonHandle {
    let hub = event_hub::EventHub::default();
    let events_heard = hub.listening();
    let history = history::HistoryFiles::new(
        history::default_dir(),
        info.pid,
        config::options::as_int(
            config::options::resolve("appearance.history_disk_bytes").map_or("0", |s| s.default),
        )
        .unwrap_or(0)
        .max(0) as u64,
    );
    let services = Services {
        history,
        info: Arc::new(info),
        hub: hub.start(),
        events_heard,
        supervisor: supervisor::Supervisor::default().start(),
        windows: ArbiterPool::per_core(),
        shutting_down: Arc::new(tokio::sync::watch::channel(false).0),
        ptys: fd_store::PtyStore::new(startup.fd_store),
        inputs: Default::default(),
        manifests: Default::default(),
        upgrade: startup.upgrade,
        log_filter: startup.log_filter,
        cgroups: startup.cgroups,
    };
    let survivors = fd_store::Survivors::from_store(startup.kept);
    let manager =
        session_manager::SessionManager::new(services.clone(), startup.incoming, survivors).start();
    let env = verb_env::VerbEnv { manager, services };
    let acceptor = acceptor::Acceptor::start(listener, env.clone());
    DaemonHandle { env, acceptor }
}

pub(crate) fn unix_now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
