//! `tuios web`: the attach client in a browser. An HTTP + WebSocket server (actix-web,
//! actix-ws) serves one page running xterm.js; each WebSocket is one attach client, the very
//! same run loop and renderer as `tuios attach`, drawing to the socket instead of a tty.
//!
//! Safe by default: loopback only unless `--allow-remote` (and then always TLS); nothing but a
//! sign-in page without the token; the token becomes an HttpOnly, SameSite=Strict cookie;
//! WebSocket upgrades also need the page's own Origin.
//!
//! Files: `auth` (token, cookie, Host and Origin rules), `tls` (rustls, self-signed
//! certificate), `assets` (embedded page and xterm.js), `server` (routes), `bridge` (one
//! WebSocket to one attach), `listen` (binding, systemd socket activation, the URL file),
//! `shares` (links to one session, maybe read-only: `--share`, `--revoke`).

mod assets;
mod auth;
mod bridge;
mod listen;
mod server;
mod shares;
mod tls;

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};

use crate::failure::Failure;

/// The port `tuios web` listens on unless told otherwise.
pub const DEFAULT_PORT: u16 = 7373;

#[derive(Debug, clap::Args)]
#[command(after_help = "Open the URL it prints (it carries the access token). \
From another machine, prefer an SSH tunnel: ssh -L 7373:127.0.0.1:7373 HOST")]
pub struct WebArgs {
    /// Address to listen on. Anything but a loopback address needs --allow-remote, and is
    /// then served over TLS only.
    #[arg(long, value_name = "ADDR", default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub bind: IpAddr,
    /// Port to listen on (0: any free port; the URL printed names it).
    #[arg(long, short = 'p', value_name = "PORT", default_value_t = DEFAULT_PORT)]
    pub port: u16,
    /// Allow listening on a non-loopback address, reachable from other machines (TLS is then
    /// always on: --cert/--key, or a self-signed certificate made once and kept).
    #[arg(long)]
    pub allow_remote: bool,
    /// Serve over TLS (HTTPS) on loopback too; implied by --cert and by a remote --bind.
    #[arg(long)]
    pub tls: bool,
    /// TLS certificate chain (PEM). Without it TLS uses a self-signed certificate kept in the
    /// state directory (web-cert.pem).
    #[arg(long, value_name = "FILE", requires = "key")]
    pub cert: Option<PathBuf>,
    /// TLS private key (PEM) for --cert; must be yours and mode 0600.
    #[arg(long, value_name = "FILE", requires = "cert")]
    pub key: Option<PathBuf>,
    /// Print the sign-in URL of each running `tuios web` server and exit.
    #[arg(long)]
    pub url: bool,
    /// Replace the stored access token with a new one (browsers signed in with the old one
    /// must sign in again).
    #[arg(long)]
    pub new_token: bool,
    /// Print a link to the running server that opens SESSION only (with --read-only: to
    /// watch, never type), and exit. Needs `tuios web` running.
    #[arg(long, value_name = "SESSION", conflicts_with_all = ["url", "revoke"])]
    pub share: Option<String>,
    /// With --share: the link watches only; the daemon refuses its keys, pastes, mouse and
    /// resizes.
    #[arg(long, requires = "share")]
    pub read_only: bool,
    /// With --share: how long the link works (30m, 2h, 1d; at most 30d) [default: 1d].
    #[arg(long, value_name = "DURATION", requires = "share")]
    pub expires: Option<String>,
    /// Take back a shared link (its token, or the whole link), or every one with `all`;
    /// browsers using it are detached within a second.
    #[arg(long, value_name = "TOKEN|all", conflicts_with = "url")]
    pub revoke: Option<String>,
    /// How long a browser may stay silent (answering no ping) before it is detached, in
    /// seconds. For tests that hold a browser still on purpose.
    #[arg(long, value_name = "SECS", hide = true)]
    pub silence_limit_secs: Option<u64>,
}

/// Where `tuios web` keeps its token, certificate and URL files: the state directory
/// (`$XDG_STATE_HOME/tuios`, else `~/.local/state/tuios`).
fn state_dir() -> Result<PathBuf, Failure> {
    daemon::paths::sessions_dir()
        .and_then(|d| d.parent().map(Path::to_path_buf))
        .ok_or_else(|| {
            Failure::with_hints(
                "tuios web needs a state directory for its access token, and neither \
                 XDG_STATE_HOME nor HOME is an absolute directory",
                vec!["set HOME (or XDG_STATE_HOME) to your home directory".into()],
            )
        })
}

/// `tuios web`.
pub fn run(socket: &Path, args: &WebArgs) -> Result<i32, Failure> {
    let state = state_dir()?;
    if args.url {
        return print_urls(&state);
    }
    if let Some(session) = &args.share {
        return share(socket, &state, session, args);
    }
    if let Some(which) = &args.revoke {
        return revoke(&state, which);
    }
    // Our own messages at info, the HTTP stack's only when they matter; TUIOS_LOG overrides.
    let quiet = ["TUIOS_LOG", "RUST_LOG"]
        .iter()
        .all(|v| std::env::var(v).map_or(true, |s| s.trim().is_empty()));
    daemon::init_logging(quiet.then_some("warn,tuios=info"));
    let listener = listen::listener(args)?;
    let local = listener
        .local_addr()
        .map_err(|e| Failure::msg(format!("cannot read the listening address: {e}")))?;
    listen::check_remote(local.ip(), args)?;
    let tls_source = listen::tls_source(&state, local.ip(), args);
    let tls_config = match &tls_source {
        Some(source) => Some(tls::server_config(source, local.ip()).map_err(Failure::msg)?),
        None => None,
    };
    auth::private_dir(&state).map_err(Failure::msg)?;
    let token = auth::load_or_create_token(&state.join("web-token"), args.new_token)
        .map_err(Failure::msg)?;
    // A daemon to attach to, started in the background if none runs (as `tuios new` does).
    crate::autostart::ensure_daemon(socket)?;

    let url = listen::base_url(local, tls_config.is_some());
    let sign_in = format!("{url}?token={token}");
    let url_file = listen::UrlFile::write(&state, &sign_in).map_err(Failure::msg)?;
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "tuios web is serving on {url}");
        if let Some(source) = &tls_source {
            let _ = writeln!(out, "TLS certificate: {}", source.cert_path().display());
        }
        let _ = writeln!(
            out,
            "Open this URL to sign in (it holds the access token: keep it private):"
        );
        let _ = writeln!(out, "    {sign_in}");
        let _ = out.flush();
    }
    let result = server::serve(
        listener,
        tls_config,
        server::Config {
            token,
            socket: socket.to_path_buf(),
            port: local.port(),
            loopback_only: local.ip().is_loopback(),
            silence_limit: args
                .silence_limit_secs
                .map(std::time::Duration::from_secs)
                .unwrap_or(bridge::SILENCE_LIMIT),
            state: state.clone(),
        },
    );
    drop(url_file);
    result.map(|()| 0)
}

/// `tuios web --url`: the sign-in URL of every running server of this user.
fn print_urls(state: &Path) -> Result<i32, Failure> {
    let urls = listen::UrlFile::running(state);
    if urls.is_empty() {
        let mut hints = vec!["start one: tuios web".to_string()];
        let token = state.join("web-token");
        if token.exists() {
            // A socket-activated server has not started (or printed its URL) yet.
            hints.push(format!(
                "the access token for the sign-in page is in {}",
                token.display()
            ));
        }
        return Err(Failure::with_hints("no tuios web server is running", hints));
    }
    let mut out = std::io::stdout().lock();
    for url in urls {
        let _ = writeln!(out, "{url}");
    }
    Ok(0)
}

/// `tuios web --share SESSION`: a link for the running server(s) that opens SESSION only.
fn share(socket: &Path, state: &Path, session: &str, args: &WebArgs) -> Result<i32, Failure> {
    protocol::binary::validate_session_name(session)
        .map_err(|e| Failure::msg(format!("invalid session name {session:?}: {e}")))?;
    let urls = listen::UrlFile::running(state);
    if urls.is_empty() {
        return Err(Failure::with_hints(
            "no tuios web server is running to share through",
            vec![
                "start one (tuios web), then share again".into(),
                "or run it as a service: systemctl --user start tuios-web.socket".into(),
            ],
        ));
    }
    // A link to a session that does not exist would open nothing: say so now.
    let listed = crate::json_client::JsonClient::connect(socket)?.call("list-sessions", None)?;
    let exists = listed["sessions"]
        .as_array()
        .is_some_and(|a| a.iter().any(|s| s["name"] == session));
    if !exists {
        return Err(Failure::with_hints(
            format!("no session named {session:?}"),
            vec!["list the sessions: tuios ls".into()],
        ));
    }
    let expiry = match &args.expires {
        Some(text) => shares::parse_expiry(text).map_err(Failure::msg)?,
        None => shares::DEFAULT_EXPIRY,
    };
    let made = shares::add(state, session, args.read_only, expiry).map_err(Failure::msg)?;
    let mode = if made.read_only {
        "read-only"
    } else {
        "read-write"
    };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "A {mode} link to session {session:?}, for {}:",
        shares::describe(expiry)
    );
    for url in urls {
        let base = url.split_once('?').map_or(url.as_str(), |(b, _)| b);
        let _ = writeln!(out, "    {base}?token={}", made.token);
    }
    let _ = writeln!(out, "Take it back with: tuios web --revoke {}", made.token);
    Ok(0)
}

/// `tuios web --revoke TOKEN|all`.
fn revoke(state: &Path, which: &str) -> Result<i32, Failure> {
    let gone = shares::revoke(state, which).map_err(Failure::msg)?;
    if gone == 0 && which != "all" {
        return Err(Failure::with_hints(
            "no shared link has that token",
            vec!["it may have expired; revoke every link with: tuios web --revoke all".into()],
        ));
    }
    let _ = writeln!(
        std::io::stdout().lock(),
        "{gone} shared link{} revoked",
        if gone == 1 { "" } else { "s" }
    );
    Ok(0)
}
