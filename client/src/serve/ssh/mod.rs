//! `tuios ssh`: an SSH server whose every terminal channel runs the attach client on a session,
//! so `ssh -p 2222 host` from anywhere is `tuios attach` on this machine. Public keys only,
//! against `~/.ssh/authorized_keys` (or `--authorized-keys`); the host key is made once and kept
//! 0600 in the state directory; the running daemon is used, or one runs inside this process.
//!
//! Files: `keys` (host key, authorized keys), `server` (the SSH handler), `term` (a channel as
//! the attach client's terminal), `status` (who is connected, for `--list`), `listen` (the
//! port, bound or passed by systemd), `limits` (how many connections, waiting and logged in).

mod keys;
mod limits;
mod listen;
mod server;
mod status;
mod term;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use russh::{MethodKind, MethodSet};

use crate::failure::Failure;

/// A peer that stops answering is dropped after this many unanswered keepalives...
const KEEPALIVE_MAX: usize = 3;
/// ...sent this often.
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(30);

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Connect:  ssh -p 2222 localhost            (the default session)
          ssh -t -p 2222 localhost work    (session \"work\", created if missing)
Only public keys listed in the authorized keys file get in; passwords are refused.
Keys listed in the read-only keys file attach read-only: they watch, and the daemon refuses
their keys, pastes, mouse and resizes."
)]
pub struct SshArgs {
    /// Address to listen on. Other machines can connect only if this is not a loopback
    /// address.
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDRESS")]
    pub host: String,
    /// Port to listen on (0: any free port, printed at start).
    #[arg(long, default_value_t = 2222)]
    pub port: u16,
    /// The server's host key (ed25519, OpenSSH format), generated with mode 0600 if missing
    /// [default: <state dir>/tuios/ssh_host_ed25519_key].
    #[arg(long, value_name = "FILE")]
    pub key_path: Option<PathBuf>,
    /// Public keys allowed in, one per line as in sshd's file [default:
    /// ~/.ssh/authorized_keys].
    #[arg(long, value_name = "FILE")]
    pub authorized_keys: Option<PathBuf>,
    /// Public keys that attach read-only (same format; a key listed here is read-only even if
    /// the authorized keys list it too) [default: ~/.config/tuios/ssh-read-only-keys].
    #[arg(long, value_name = "FILE")]
    pub read_only_keys: Option<PathBuf>,
    /// Session for connections that name none [default: the most recently active one, or a
    /// new one when there is none].
    #[arg(long, value_name = "NAME")]
    pub default_session: Option<String>,
    /// Show who is connected to the running `tuios ssh` servers, and exit.
    #[arg(long)]
    pub list: bool,
    /// With --list: print JSON.
    #[arg(long, requires = "list")]
    pub json: bool,
    /// Time a connection has to authenticate, in milliseconds (tests shorten it).
    #[arg(long, hide = true, value_name = "MS")]
    pub login_grace_ms: Option<u64>,
}

/// Runs `tuios ssh` until SIGINT or SIGTERM (or lists the connected clients).
pub fn run(socket: &Path, args: SshArgs) -> Result<i32, Failure> {
    if args.list {
        let text = status::list(args.json)?;
        let _ = std::io::stdout().write_all(text.as_bytes());
        return Ok(0);
    }
    // First, while this process has one thread: it edits the environment.
    let passed = listen::take_passed().map_err(Failure::msg)?;
    daemon::init_logging(None);

    if let Some(name) = &args.default_session {
        protocol::binary::validate_session_name(name)
            .map_err(|e| Failure::msg(format!("invalid --default-session {name:?}: {e}")))?;
    }
    let key_path = match args.key_path.clone().or_else(keys::default_host_key_path) {
        Some(p) => p,
        None => return Err(Failure::with_hints(
            "no place for the host key: neither XDG_STATE_HOME nor HOME is an absolute directory",
            vec!["name one: tuios ssh --key-path FILE".into()],
        )),
    };
    let host_key = keys::load_or_create_host_key(&key_path).map_err(Failure::msg)?;
    let authorized_keys = match args
        .authorized_keys
        .clone()
        .or_else(keys::default_authorized_keys_path)
    {
        Some(p) => p,
        None => {
            return Err(Failure::with_hints(
                "no authorized keys file: HOME is not set",
                vec!["name one: tuios ssh --authorized-keys FILE".into()],
            ))
        }
    };
    let read_only_keys = args
        .read_only_keys
        .clone()
        .or_else(keys::default_read_only_keys_path);
    // Checked now so a missing or unsafe file is a clear error at start, not a refusal per
    // connection. The read-only file is optional, but one that exists must be safe.
    let read_only_present = read_only_keys.as_deref().is_some_and(Path::exists);
    if let Some(ro) = read_only_keys.as_deref().filter(|_| read_only_present) {
        keys::check_authorized_keys(ro).map_err(Failure::msg)?;
    }
    if let Err(why) = keys::check_authorized_keys(&authorized_keys) {
        if read_only_present {
            tracing::warn!("{why}; only the read-only keys can log in");
        } else {
            return Err(Failure::with_hints(
                format!("{why}; nobody could log in"),
                vec![format!(
                    "add your public key: cat ~/.ssh/id_ed25519.pub >> {}",
                    crate::output::shell_quote(&authorized_keys.to_string_lossy())
                )],
            ));
        }
    }

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::msg(format!("cannot create the async runtime: {e}")))?;
    let listener = match passed {
        Some(l) => l,
        None => listen::bind(&args.host, args.port).map_err(Failure::msg)?,
    };
    let addr = listener
        .local_addr()
        .map_err(|e| Failure::msg(format!("cannot read the listening address: {e}")))?;
    let registry = status::ConnectionRegistry::new(
        status::status_dir().as_deref(),
        addr.to_string(),
        String::new(),
    )?;
    let shared = Arc::new(server::Shared {
        socket: socket.to_path_buf(),
        authorized_keys: authorized_keys.clone(),
        read_only_keys: read_only_keys.clone(),
        default_session: args.default_session.clone(),
        registry,
        rt: runtime.handle().clone(),
        in_process: Mutex::new(None),
        listen: addr.to_string(),
        next_conn: AtomicU64::new(1),
    });
    let limits = limits::Limits::new(
        args.login_grace_ms
            .map(Duration::from_millis)
            .unwrap_or(limits::LOGIN_GRACE),
    );
    shared.ensure_daemon().map_err(Failure::msg)?;
    let in_process = shared
        .in_process
        .lock()
        .map(|g| g.is_some())
        .unwrap_or(false);
    shared.registry.set_daemon(if in_process {
        daemon::in_process::VERSION.to_string()
    } else {
        "running".to_string()
    });

    // Before the banner: a SIGTERM sent as soon as the port is announced must stop the
    // server cleanly, not kill it.
    let signals = {
        use tokio::signal::unix::{signal, SignalKind};
        let _rt = runtime.enter();
        match (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            (Ok(t), Ok(i)) => (t, i),
            (Err(e), _) | (_, Err(e)) => {
                return Err(Failure::msg(format!("cannot install signal handlers: {e}")))
            }
        }
    };
    let fingerprint = keys::fingerprint(host_key.public_key());
    let config = Arc::new(russh::server::Config {
        server_id: russh::SshId::Standard(
            format!("SSH-2.0-tuios_{}", env!("CARGO_PKG_VERSION")).into(),
        ),
        methods: MethodSet::from(&[MethodKind::PublicKey][..]),
        keys: vec![host_key],
        // The "none" probe every client starts with is answered at once; real refusals wait.
        auth_rejection_time_initial: Some(Duration::ZERO),
        max_auth_attempts: 6,
        // An attached terminal may sit idle for hours; dead peers are found by keepalives.
        inactivity_timeout: None,
        keepalive_interval: Some(KEEPALIVE_INTERVAL),
        keepalive_max: KEEPALIVE_MAX,
        // Keystrokes and echoes are tiny: Nagle would hold them back.
        nodelay: true,
        ..Default::default()
    });

    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "tuios ssh: listening on {addr}");
    let _ = writeln!(out, "  host key {fingerprint} ({})", key_path.display());
    let _ = writeln!(out, "  authorized keys {}", authorized_keys.display());
    if let Some(ro) = read_only_keys.as_deref().filter(|_| read_only_present) {
        let _ = writeln!(out, "  read-only keys {}", ro.display());
    }
    if in_process {
        let _ = writeln!(
            out,
            "  daemon: in this process on {} (its sessions end when tuios ssh stops; run `tuios daemon` to keep them)",
            socket.display()
        );
    } else {
        let _ = writeln!(out, "  daemon: the one running on {}", socket.display());
    }
    let _ = out.flush();
    drop(out);
    if !addr.ip().is_loopback() {
        tracing::warn!(%addr, "listening beyond this machine: anyone holding an authorized key can attach from the network");
    }

    let code = runtime.block_on(serve(shared.clone(), limits, config, listener, signals));
    // Stop our daemon (it saves its sessions) before the status file goes.
    let daemon = shared
        .in_process
        .lock()
        .map(|mut g| g.take())
        .unwrap_or(None);
    if let Some(d) = daemon {
        d.stop();
    }
    // Attach threads still running end with the process.
    drop(runtime);
    Ok(code)
}

async fn serve(
    shared: Arc<server::Shared>,
    limits: Arc<limits::Limits>,
    config: Arc<russh::server::Config>,
    listener: std::net::TcpListener,
    (mut term, mut int): (tokio::signal::unix::Signal, tokio::signal::unix::Signal),
) -> i32 {
    let listener = match tokio::net::TcpListener::from_std(listener) {
        Ok(l) => l,
        Err(e) => {
            tracing::error!("cannot use the listening socket: {e}");
            return crate::failure::EXIT_FAILURE;
        }
    };
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = term.recv() => break,
            _ = int.recv() => break,
        };
        let (stream, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Out of descriptors and the like: pass, and let the next accept try again.
                tracing::warn!("accepting a connection failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        tracing::debug!(%peer, "ssh connection");
        // russh applies `config.nodelay` only to sockets it accepts itself.
        let _ = stream.set_nodelay(true);
        // Always let it in: the limits make room by closing older unauthenticated ones.
        let (place, stream) = limits.admit(peer.ip(), stream);
        let handler = server::SshConn::new(shared.clone(), peer.to_string(), place);
        let config = config.clone();
        tokio::spawn(async move {
            match russh::server::run_stream(config, stream, handler).await {
                Ok(session) => {
                    if let Err(e) = session.await {
                        tracing::debug!(%peer, "ssh connection ended: {e}");
                    }
                }
                Err(e) => tracing::debug!(%peer, "ssh handshake failed: {e}"),
            }
        });
    }
    tracing::info!("tuios ssh stopping");
    0
}
