//! Where `tuios web` listens: a socket systemd passed (socket activation) or one bound here;
//! the remote-access rule; the URL file `tuios web --url` reads.

use std::net::{IpAddr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};

use super::{auth, tls, WebArgs};
use crate::failure::Failure;

/// The listening socket: the one systemd passed in LISTEN_FDS (tuios-web.socket), else a new
/// one on `--bind`:`--port`.
pub fn listener(args: &WebArgs) -> Result<TcpListener, Failure> {
    if let Some(l) = activated()? {
        tracing::info!(addr = ?l.local_addr().ok(), "using the socket systemd passed");
        return Ok(l);
    }
    // Checked before binding, so a refused remote address is never even opened.
    check_remote(args.bind, args)?;
    let addr = SocketAddr::new(args.bind, args.port);
    TcpListener::bind(addr).map_err(|e| {
        let hint = if e.kind() == std::io::ErrorKind::AddrInUse {
            vec![format!(
                "another program (perhaps another tuios web) uses port {}; choose another: \
                 tuios web --port PORT (0 picks a free one)",
                args.port
            )]
        } else {
            Vec::new()
        };
        Failure::with_hints(format!("cannot listen on {addr}: {e}"), hint)
    })
}

/// A TCP listening socket passed by systemd, if LISTEN_PID names us. The variables are removed
/// so nothing started from here (the daemon) inherits them.
fn activated() -> Result<Option<TcpListener>, Failure> {
    daemon::activation::take_tcp_listener("tuios-web.socket").map_err(Failure::msg)
}

/// Anything but loopback must be asked for with --allow-remote; it is then served over TLS.
pub fn check_remote(ip: IpAddr, args: &WebArgs) -> Result<(), Failure> {
    if ip.is_loopback() || args.allow_remote {
        return Ok(());
    }
    Err(Failure::with_hints(
        format!(
            "refusing to listen on {ip}: other machines could reach it; tuios web listens on \
             a loopback address unless --allow-remote is given"
        ),
        vec![
            "from another machine, tunnel instead: ssh -L 7373:127.0.0.1:7373 THIS-HOST, then \
             open the URL there"
                .into(),
            format!(
                "or serve it remotely, over TLS (a self-signed certificate unless --cert/--key \
                 are given): tuios web --bind {ip} --allow-remote"
            ),
        ],
    ))
}

/// Where the certificate comes from, when TLS is on: asked for (--tls, --cert) or required
/// (any non-loopback address).
pub fn tls_source(state: &Path, ip: IpAddr, args: &WebArgs) -> Option<tls::CertSource> {
    match (&args.cert, &args.key) {
        (Some(cert), Some(key)) => Some(tls::CertSource::Given {
            cert: cert.clone(),
            key: key.clone(),
        }),
        _ if args.tls || !ip.is_loopback() => Some(tls::CertSource::SelfSigned {
            cert: state.join("web-cert.pem"),
            key: state.join("web-key.pem"),
        }),
        _ => None,
    }
}

/// `http(s)://HOST:PORT/` as a browser on this machine (loopback) or another (the host name,
/// for a wildcard address) would open it.
pub fn base_url(local: SocketAddr, tls: bool) -> String {
    let scheme = if tls { "https" } else { "http" };
    let host = match local.ip() {
        ip if ip.is_unspecified() => std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "localhost".into()),
        IpAddr::V6(v6) => format!("[{v6}]"),
        IpAddr::V4(v4) => v4.to_string(),
    };
    format!("{scheme}://{host}:{}/", local.port())
}

/// `web-<pid>.url` in the state directory, 0600, holding the sign-in URL while the server
/// runs; removed when it stops.
pub struct UrlFile {
    path: PathBuf,
}

impl UrlFile {
    pub fn write(state: &Path, url: &str) -> Result<UrlFile, String> {
        let path = state.join(format!("web-{}.url", std::process::id()));
        auth::write_private(&path, format!("{url}\n").as_bytes())?;
        Ok(UrlFile { path })
    }

    /// The URLs of the servers still running (files of dead ones are removed).
    pub fn running(state: &Path) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(state) else {
            return Vec::new();
        };
        let mut found: Vec<(u32, String)> = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) = name
                .to_str()
                .and_then(|n| n.strip_prefix("web-"))
                .and_then(|n| n.strip_suffix(".url"))
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            if !alive(pid) {
                let _ = std::fs::remove_file(entry.path());
                continue;
            }
            if let Ok(Some(url)) = auth::read_private(&entry.path()) {
                found.push((pid, url.trim().to_string()));
            }
        }
        found.sort();
        found.into_iter().map(|(_, u)| u).collect()
    }
}

impl Drop for UrlFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Whether process `pid` exists (signal 0 reaches it or it is someone else's).
fn alive(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    matches!(
        rustix::process::test_kill_process(pid),
        Ok(()) | Err(rustix::io::Errno::PERM)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(bind: &str) -> WebArgs {
        WebArgs {
            bind: bind.parse().unwrap(),
            port: 0,
            allow_remote: false,
            tls: false,
            cert: None,
            key: None,
            url: false,
            new_token: false,
            share: None,
            read_only: false,
            expires: None,
            revoke: None,
            silence_limit_secs: None,
        }
    }

    #[test]
    fn remote_needs_the_flag_and_gets_tls() {
        let a = args("0.0.0.0");
        let err = check_remote(a.bind, &a).unwrap_err();
        assert!(
            err.lines()[0].contains("--allow-remote"),
            "{:?}",
            err.lines()
        );
        let mut a = args("0.0.0.0");
        a.allow_remote = true;
        check_remote(a.bind, &a).unwrap();
        assert!(matches!(
            tls_source(Path::new("/s"), a.bind, &a),
            Some(tls::CertSource::SelfSigned { .. })
        ));
        let local = args("127.0.0.1");
        check_remote(local.bind, &local).unwrap();
        assert!(tls_source(Path::new("/s"), local.bind, &local).is_none());
        check_remote("::1".parse().unwrap(), &local).unwrap();
    }

    #[test]
    fn urls() {
        assert_eq!(
            base_url("127.0.0.1:8000".parse().unwrap(), false),
            "http://127.0.0.1:8000/"
        );
        assert_eq!(
            base_url("[::1]:8000".parse().unwrap(), true),
            "https://[::1]:8000/"
        );
    }

    #[test]
    fn url_files_of_live_servers_only() {
        let dir = tempfile::tempdir().unwrap();
        let f = UrlFile::write(dir.path(), "http://x/?token=1").unwrap();
        // A file left by a process that is gone (pid 0 is never a server).
        std::fs::write(dir.path().join("web-0.url"), "http://old/").unwrap();
        assert_eq!(UrlFile::running(dir.path()), vec!["http://x/?token=1"]);
        assert!(!dir.path().join("web-0.url").exists());
        drop(f);
        assert!(UrlFile::running(dir.path()).is_empty());
    }
}
