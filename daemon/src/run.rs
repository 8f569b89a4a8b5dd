//! `tuios daemon`: start, serve until SIGTERM or SIGINT, shut down cleanly.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::UnixListener;
use tokio::signal::unix::{signal, Signal, SignalKind};

use crate::lock::StartLock;
use crate::paths;
use crate::probe::{probe, Probe};

/// How long the actor system gets to stop sessions and their children before the daemon removes
/// its files and exits anyway.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// How long leftover blocking tasks (PTY reads, child waits) may delay the exit.
const RUNTIME_DRAIN: Duration = Duration::from_secs(1);

/// Exit status when the configuration or the command line is invalid.
const EXIT_USAGE: i32 = 2;
/// Exit status when the daemon cannot start (already running, bad directory, bind failure).
const EXIT_FAILURE: i32 = 1;

/// Options of `tuios daemon`; each overrides the configuration file and the environment.
#[derive(Debug, Clone, Default)]
pub struct DaemonOptions {
    /// Socket path; `None` means [`paths::socket_path`].
    pub socket: Option<PathBuf>,
    /// Configuration file that must exist; `None` means the default file, if present.
    pub config: Option<PathBuf>,
    /// Log filter (`debug`, or a directive such as `tuios_actors=trace,info`).
    pub log_level: Option<String>,
    /// Print the handover format versions this binary reads and exit (asked by a running
    /// daemon before a live upgrade).
    pub handover_versions: bool,
}

/// Run the daemon in the foreground until SIGTERM or SIGINT. Returns the process exit code:
/// 0 after a clean shutdown, 1 when it cannot start, 2 for a bad configuration or option.
pub fn run(opts: DaemonOptions) -> i32 {
    if opts.handover_versions {
        return crate::upgrade::print_versions();
    }
    actors::memory::tune_allocator();
    // Each window and each client holds descriptors; the default soft limit (1024) is far too
    // small for the windows and clients the daemon is built for.
    let nofile = crate::fd_limit::raise_to_hard();
    // First, while the process has one thread: these edit the environment.
    let mut handed = match crate::upgrade::receive() {
        Ok(h) => h,
        Err(msg) => {
            // This process is already the new binary: there is no going back. Start cold; the
            // programs of the handed-over windows lose their terminals.
            eprintln!("tuios daemon: the state handed over by the previous daemon is unusable ({msg}); starting without it");
            None
        }
    };
    let handed_listener = handed.as_mut().and_then(take_handed_listener);
    let activated = match handed_listener {
        Some(a) => Some(a),
        None => match crate::activation::take_listener() {
            Ok(a) => a,
            Err(msg) => {
                eprintln!("tuios daemon: {msg}");
                return EXIT_FAILURE;
            }
        },
    };
    // Kept for a later live upgrade: sd_notify removes it from the environment.
    let notify_socket = match &handed {
        Some(h) => h.state.notify_socket.clone(),
        None => std::env::var("NOTIFY_SOCKET").ok(),
    };
    if let Some(path) = notify_socket.as_deref().filter(|_| handed.is_some()) {
        std::env::set_var("NOTIFY_SOCKET", path);
    }
    // How many descriptors systemd keeps for the service: FDSTORE from systemd 254, else what
    // the unit repeats in TUIOS_FDSTORE for older ones (see fdstore::store_enabled). Removed
    // like NOTIFY_SOCKET: they are not the panes' business.
    let fd_store = match &handed {
        Some(h) => h.state.fd_store,
        None => crate::fdstore::store_enabled(
            std::env::var("FDSTORE").ok().as_deref(),
            std::env::var(crate::fdstore::FALLBACK_VAR).ok().as_deref(),
        ),
    };
    std::env::remove_var("FDSTORE");
    std::env::remove_var(crate::fdstore::FALLBACK_VAR);
    // A socket handed over is systemd's only if it was systemd's before.
    let systemd_socket = match &handed {
        Some(h) => h.state.systemd_socket,
        None => activated.is_some(),
    };
    let cfg = match config::load_daemon_config(opts.config.as_deref()) {
        Ok(cfg) => cfg,
        Err(e) => {
            eprintln!("tuios daemon: configuration error: {e}");
            return EXIT_USAGE;
        }
    };
    if let Some(level) = &opts.log_level {
        if let Err(why) = config::validate_log_level(level) {
            eprintln!("tuios daemon: --log-level: {why}");
            return EXIT_USAGE;
        }
    }
    let log_filter = crate::init_logging(opts.log_level.as_deref().or(cfg.log_level.as_deref()));
    // Orphans of windows (a daemonised server whose parent exited) become the daemon's children
    // instead of init's, so close-window/kill-session `tree` can still find and end them.
    if let Err(e) = rustix::process::set_child_subreaper(Some(rustix::process::getpid())) {
        tracing::warn!(error = %e, "cannot become a child subreaper; tree closes miss daemonised processes");
    }
    // Under systemd with Delegate=yes, a cgroup per window catches even what the walk misses.
    let cgroups = match actors::cgroup::WindowCgroups::from_env() {
        Ok(Some(c)) => {
            tracing::info!(base = %c.dir_of("ID").parent().map(|p| p.display().to_string()).unwrap_or_default(), "windows get cgroups of their own");
            Some(c)
        }
        Ok(None) => None,
        Err(why) => {
            tracing::warn!(
                "{} is set, but windows get no cgroups: {why}",
                actors::cgroup::DELEGATED_ENV
            );
            None
        }
    };

    let socket = opts.socket.unwrap_or_else(paths::socket_path);
    // Panes receive this path in TUIOS_SOCKET and may run in any directory.
    let socket = std::path::absolute(&socket).unwrap_or(socket);
    // A passed socket is where clients connect, whatever the environment says.
    let socket = match &activated {
        Some(a) => {
            if a.path != socket {
                tracing::warn!(
                    configured = %socket.display(),
                    passed = %a.path.display(),
                    "systemd passed a socket at another path than the configured one; serving on the passed one"
                );
            }
            a.path.clone()
        }
        None => socket,
    };

    let _lock = match prepare(&socket, activated.is_some()) {
        Ok(lock) => lock,
        Err(msg) => {
            eprintln!("tuios daemon: {msg}");
            return EXIT_FAILURE;
        }
    };

    // Held while the daemon runs: one daemon saves and restores a sessions directory.
    let sessions = claim_sessions_dir();

    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => Arc::new(rt),
        Err(e) => {
            eprintln!("tuios daemon: cannot create the async runtime: {e}");
            return EXIT_FAILURE;
        }
    };
    // The runtime is shared with the System so it can be shut down with a deadline afterwards:
    // a plain drop would wait for every blocking task, however long it is stuck.
    let system = actix::System::with_tokio_rt({
        let runtime = runtime.clone();
        move || runtime
    });
    if let Some(h) = &handed {
        tracing::info!(
            from = %h.state.written_by,
            sessions = h.state.sessions.len(),
            "live upgrade: taking over from the previous daemon"
        );
    }
    let mut activated = activated;
    let kept = activated
        .as_mut()
        .map(|a| std::mem::take(&mut a.kept))
        .unwrap_or_default();
    if !kept.is_empty() {
        tracing::info!(
            ptys = kept.len(),
            "systemd kept window terminals through a restart; taking their programs over"
        );
    }
    let store = notify_socket
        .as_ref()
        .filter(|_| fd_store)
        .and_then(|path| match crate::fdstore::SystemdStore::new(&path.into()) {
            Ok(store) => Some(Arc::new(store)),
            Err(e) => {
                tracing::warn!("systemd's descriptor store is unusable ({e}); programs will not survive a crash");
                None
            }
        });
    let info = ServeInfo {
        socket,
        activated: activated.map(|a| a.listener),
        fd_store: store,
        systemd_socket,
        notify_socket,
        scrollback_lines: cfg.scrollback_lines,
        default_shell: cfg.shell,
        sessions_dir: sessions.as_ref().map(|s| s.dir.clone()),
        incoming: handed,
        kept,
        nofile,
        log_filter,
        cgroups,
    };
    let code = system.block_on(serve(info));
    drop(system);
    match Arc::try_unwrap(runtime) {
        Ok(runtime) => runtime.shutdown_timeout(RUNTIME_DRAIN),
        Err(_) => tracing::debug!("runtime still shared at exit; dropping it without a deadline"),
    }
    // `_lock` is released here, after the socket is gone.
    code
}

/// Directory, start lock and stale socket: everything before binding. Returns the held lock.
/// With a socket passed by systemd there is nothing to probe or clean up: systemd listens there.
pub(crate) fn prepare(socket: &Path, activated: bool) -> Result<StartLock, String> {
    paths::ensure_socket_dir(socket).map_err(|e| e.to_string())?;
    // Refused before anything is bound, so a planted link costs nothing but this message.
    crate::files::refuse_symlink(&paths::pid_path(socket)).map_err(|e| e.to_string())?;
    let lock = match StartLock::try_acquire(&paths::lock_path(socket)) {
        Ok(Some(lock)) => lock,
        Ok(None) => {
            return Err(format!(
                "another tuios daemon is already starting or running on {}",
                socket.display()
            ))
        }
        Err(e) => return Err(e.to_string()),
    };
    if activated {
        return Ok(lock);
    }
    match probe(socket) {
        Probe::Absent => {}
        Probe::Running => {
            let pid = fs::read_to_string(paths::pid_path(socket))
                .ok()
                .and_then(|s| s.trim().parse::<u32>().ok());
            return Err(match pid {
                Some(pid) => format!(
                    "a tuios daemon is already running on {} (pid {pid})",
                    socket.display()
                ),
                None => format!(
                    "a tuios daemon is already running on {} (something accepts connections there)",
                    socket.display()
                ),
            });
        }
        Probe::Stale => remove_stale_socket(socket)?,
    }
    Ok(lock)
}

/// Remove a socket file nobody listens on. Anything that is not a socket is left alone: the
/// path may have been mistyped into TUIOS_SOCKET and point at a file the user cares about.
fn remove_stale_socket(socket: &Path) -> Result<(), String> {
    let meta = match fs::symlink_metadata(socket) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("cannot inspect {}: {e}", socket.display())),
    };
    if !meta.file_type().is_socket() {
        return Err(format!(
            "{} exists and is not a socket; not removing it (choose another path with \
             TUIOS_SOCKET or --socket)",
            socket.display()
        ));
    }
    match fs::remove_file(socket) {
        Ok(()) => {
            tracing::info!(socket = %socket.display(), "removed stale socket");
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!(
            "cannot remove stale socket {}: {e}",
            socket.display()
        )),
    }
}

/// The sessions directory this daemon saves to, held (flock) while it runs.
pub(crate) struct SessionsDir {
    pub dir: PathBuf,
    _lock: StartLock,
}

/// Take the sessions directory (created 0700 if missing) for this daemon, which saves there
/// while the returned claim is held. Saving stays off (`None`), with a warning, when there is
/// no usable directory or another daemon (on another socket) already holds it: two daemons
/// writing the same files would restore each other's sessions.
pub(crate) fn claim_sessions_dir() -> Option<SessionsDir> {
    let Some(dir) = paths::sessions_dir() else {
        tracing::warn!(
            "neither XDG_STATE_HOME nor HOME is set: sessions are not saved and will not survive a restart"
        );
        return None;
    };
    let claimed = (|| -> io::Result<Option<StartLock>> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)?;
        check_sessions_dir(&dir)?;
        StartLock::try_acquire(&dir.join(".lock"))
    })();
    match claimed {
        Ok(Some(lock)) => {
            tracing::debug!(dir = %dir.display(), "sessions are saved here");
            Some(SessionsDir { dir, _lock: lock })
        }
        Ok(None) => {
            tracing::warn!(
                dir = %dir.display(),
                "another tuios daemon saves its sessions here; this one does not save or restore sessions"
            );
            None
        }
        Err(e) => {
            tracing::warn!(
                dir = %dir.display(),
                "sessions directory unusable ({e}); sessions are not saved and will not survive a restart"
            );
            None
        }
    }
}

/// The saved files hold working directories and commands: the directory must be ours and
/// closed to others.
fn check_sessions_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let meta = fs::symlink_metadata(dir)?;
    let me = rustix::process::geteuid().as_raw();
    if !meta.is_dir() || meta.uid() != me {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "it is not a directory of yours",
        ));
    }
    if meta.mode() & 0o077 != 0 {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// The listening socket a live upgrade handed over, as if systemd had passed it (it is bound
/// and listening already).
fn take_handed_listener(
    h: &mut actors::handover::IncomingHandover,
) -> Option<crate::activation::Activated> {
    let fd = h.fds.remove(&h.state.listener_fd)?;
    let listener = std::os::unix::net::UnixListener::from(fd);
    let path = listener
        .local_addr()
        .ok()
        .and_then(|a| a.as_pathname().map(PathBuf::from))?;
    listener.set_nonblocking(true).ok()?;
    Some(crate::activation::Activated {
        listener,
        path,
        kept: Vec::new(),
    })
}

struct ServeInfo {
    socket: PathBuf,
    /// The listening socket systemd passed or a live upgrade handed over; `None` means bind
    /// `socket` ourselves.
    activated: Option<std::os::unix::net::UnixListener>,
    /// The socket file is systemd's: never removed, its mode is the unit's.
    systemd_socket: bool,
    /// systemd's descriptor store, when the service has one.
    fd_store: Option<Arc<crate::fdstore::SystemdStore>>,
    notify_socket: Option<String>,
    scrollback_lines: usize,
    default_shell: Option<String>,
    /// Where sessions are saved; `None` when saving is off.
    sessions_dir: Option<PathBuf>,
    /// What a live upgrade handed over.
    incoming: Option<actors::handover::IncomingHandover>,
    /// Descriptors systemd passed back after a crash, by name (window PTYs).
    kept: Vec<(String, std::os::fd::OwnedFd)>,
    /// The soft descriptor limit in force, which sets the connection cap.
    nofile: u64,
    /// The daemon's log filter, for `daemon.log_level`.
    log_filter: Option<actors::LogFilter>,
    cgroups: Option<actors::cgroup::WindowCgroups>,
}

/// Inside the actix System: bind, start the actors, announce readiness, wait for a signal,
/// shut down, remove the pid file and then the socket (its disappearance tells `kill-server`
/// that the daemon is done).
async fn serve(info: ServeInfo) -> i32 {
    let socket = info.socket;
    // Handlers go in before the socket exists, so a signal sent as soon as the daemon is seen
    // running is handled here rather than killing the process with its files left behind.
    let signals = match Signals::install() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("tuios daemon: cannot install signal handlers: {e}");
            return EXIT_FAILURE;
        }
    };
    let activated = info.activated.is_some();
    let systemd_socket = info.systemd_socket;
    let listener = match info.activated {
        Some(std) => UnixListener::from_std(std),
        None => UnixListener::bind(&socket),
    };
    let listener = match listener {
        Ok(l) => l,
        Err(e) => {
            eprintln!("tuios daemon: cannot listen on {}: {e}", socket.display());
            return EXIT_FAILURE;
        }
    };
    // A passed socket has the mode its unit gave it (SocketMode=0600 in ours); a handed-over
    // one, the mode it was given at the first start.
    if systemd_socket {
        tracing::info!(socket = %socket.display(), "using the socket passed by systemd");
    } else if activated {
        tracing::debug!(socket = %socket.display(), "using the handed-over socket");
    } else if let Err(e) = fs::set_permissions(&socket, fs::Permissions::from_mode(0o600)) {
        eprintln!(
            "tuios daemon: cannot restrict permissions of {}: {e}",
            socket.display()
        );
        remove_quietly(&socket);
        return EXIT_FAILURE;
    }
    let pid = std::process::id();
    let pid_file = paths::pid_path(&socket);
    if let Err(e) = write_pid_file(&pid_file, pid) {
        eprintln!(
            "tuios daemon: cannot write pid file {}: {e}",
            pid_file.display()
        );
        if !systemd_socket {
            remove_quietly(&socket);
        }
        return EXIT_FAILURE;
    }

    // A socket we bound goes into systemd's store: after a crash the next start serves on it
    // (a passed one is systemd's already).
    if let Some(store) = info.fd_store.as_ref().filter(|_| !systemd_socket) {
        use std::os::fd::AsFd;
        if let Err(e) = store.store(crate::fdstore::LISTENER_NAME, listener.as_fd()) {
            tracing::warn!("cannot keep the listening socket in systemd's store: {e}");
        }
    }
    let upgrade = match rustix::io::fcntl_dupfd_cloexec(&listener, 3) {
        Ok(fd) => Some(crate::upgrade::Context {
            listener: fd,
            systemd_socket,
            notify_socket: info.notify_socket.clone(),
            fd_store: info.fd_store.is_some(),
        }),
        Err(e) => {
            tracing::warn!("live upgrade unavailable: cannot duplicate the listening socket: {e}");
            None
        }
    };
    let (upgrade_tx, mut upgrade_requests) = tokio::sync::mpsc::unbounded_channel();
    let fd_store = info
        .fd_store
        .map(|store| store as Arc<dyn actors::fd_store::FdStore>);
    let mut handle = actors::start(
        listener,
        actors::DaemonInfo {
            socket_path: socket.clone(),
            version: env!("CARGO_PKG_VERSION").into(),
            pid,
            scrollback_lines: info.scrollback_lines,
            default_shell: info.default_shell,
            sessions_dir: info.sessions_dir,
            agent: actors::agent::AgentSettings::from_env(),
            max_connections: protocol::limits::connection_cap(info.nofile),
        },
        actors::Startup {
            incoming: info.incoming,
            kept: info.kept,
            fd_store,
            upgrade: actors::handover::UpgradeTrigger::new(upgrade_tx),
            log_filter: info.log_filter,
            cgroups: info.cgroups,
        },
    );
    // Sent before the first await, so no shell has been spawned yet; unsetting NOTIFY_SOCKET
    // (the `true`) keeps it out of every pane's environment.
    let status = format!("serving on {}", socket.display());
    if let Err(e) = sd_notify::notify(
        true,
        &[
            sd_notify::NotifyState::Ready,
            sd_notify::NotifyState::Status(&status),
        ],
    ) {
        tracing::warn!("could not notify systemd of readiness: {e}");
    }
    tracing::info!(
        socket = %socket.display(),
        pid,
        version = env!("CARGO_PKG_VERSION"),
        "tuios daemon ready"
    );

    let mut signals = signals;
    let name = loop {
        tokio::select! {
            sig = signals.stop_or_upgrade() => match sig {
                Err(name) => break name,
                Ok(()) => {
                    tracing::info!("SIGUSR2 received: live upgrade");
                    upgrade_once(&mut handle, upgrade.as_ref(), false, None).await;
                }
            },
            Some(req) = upgrade_requests.recv() => {
                let req: actors::handover::UpgradeRequest = req;
                upgrade_once(&mut handle, upgrade.as_ref(), req.check, Some(req.reply)).await;
            }
        }
    };
    tracing::info!("{name} received, shutting down");
    tokio::select! {
        _ = handle.shutdown() => {}
        _ = tokio::time::sleep(SHUTDOWN_GRACE) => {
            tracing::warn!(
                "sessions did not stop within {}s; exiting anyway",
                SHUTDOWN_GRACE.as_secs()
            );
        }
        name = signals.wait_for_stop() => {
            tracing::warn!("{name} received again, exiting without waiting for sessions");
        }
    }

    remove_quietly(&pid_file);
    // A socket systemd owns stays: connections to it queue until the next start.
    if !systemd_socket {
        remove_quietly(&socket);
    }
    tracing::info!("tuios daemon stopped");
    0
}

/// One upgrade attempt; returns when it did not happen (it was a check, or it failed).
async fn upgrade_once(
    handle: &mut actors::DaemonHandle,
    ctx: Option<&crate::upgrade::Context>,
    check: bool,
    reply: Option<tokio::sync::oneshot::Sender<Result<actors::handover::UpgradeAnswer, String>>>,
) {
    let Some(ctx) = ctx else {
        let why = "the listening socket cannot be handed over".to_string();
        if let Some(reply) = reply {
            let _ = reply.send(Err(why.clone()));
        }
        tracing::error!("live upgrade did not happen: {why}");
        return;
    };
    if let Some(why) = crate::upgrade::perform(handle, ctx, check, reply).await {
        tracing::error!("live upgrade did not happen: {why}");
    }
}

struct Signals {
    term: Signal,
    int: Signal,
    hup: Signal,
    /// Live upgrade (systemd's `ExecReload=`).
    usr2: Signal,
}

impl Signals {
    fn install() -> io::Result<Self> {
        Ok(Signals {
            term: signal(SignalKind::terminate())?,
            int: signal(SignalKind::interrupt())?,
            hup: signal(SignalKind::hangup())?,
            usr2: signal(SignalKind::user_defined2())?,
        })
    }

    /// Wait for SIGUSR2 (`Ok`) or a stop signal (`Err` with its name).
    async fn stop_or_upgrade(&mut self) -> Result<(), &'static str> {
        loop {
            tokio::select! {
                _ = self.term.recv() => return Err("SIGTERM"),
                _ = self.int.recv() => return Err("SIGINT"),
                Some(()) = self.usr2.recv() => return Ok(()),
                Some(()) = self.hup.recv() => {
                    tracing::info!("SIGHUP received and ignored (configuration is read only at start)");
                }
            }
        }
    }

    /// Wait for SIGTERM or SIGINT and name it. SIGHUP is logged and otherwise ignored: the
    /// daemon outlives the terminal it was started from, and configuration is read at start.
    async fn wait_for_stop(&mut self) -> &'static str {
        loop {
            tokio::select! {
                _ = self.term.recv() => return "SIGTERM",
                _ = self.int.recv() => return "SIGINT",
                Some(()) = self.hup.recv() => {
                    tracing::info!("SIGHUP received and ignored (configuration is read only at start)");
                }
            }
        }
    }
}

/// Write the pid file with mode 0600, replacing whatever a crashed daemon left behind. Written
/// beside the final name and renamed, so a reader never sees a partial number. Neither name is
/// ever followed through a symlink: the temporary file is created with O_EXCL | O_NOFOLLOW, and
/// a symlink at the final name is refused rather than replaced.
pub(crate) fn write_pid_file(path: &Path, pid: u32) -> io::Result<()> {
    crate::files::refuse_symlink(path)?;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    // A leftover from a crash (or a planted link): unlink removes the entry itself, never what a
    // symlink points at.
    match fs::remove_file(&tmp) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let result = (|| {
        let mut f = crate::files::create_new_file(&tmp)?;
        writeln!(f, "{pid}")?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

pub(crate) fn remove_quietly(path: &Path) {
    match fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => tracing::warn!("cannot remove {}: {e}", path.display()),
    }
}
