//! The listening port: bound here, or passed by systemd (`tuios-ssh.socket`), which then owns
//! the port and starts the server on the first connection.

use std::net::{TcpListener, ToSocketAddrs};

/// The TCP listening socket systemd passed, if any. The LISTEN_* variables are removed either
/// way, so nothing started later inherits them. Must run before any other thread starts.
pub fn take_passed() -> Result<Option<TcpListener>, String> {
    daemon::activation::take_tcp_listener("tuios-ssh.socket")
}

/// Binds `host:port` (the first address the name resolves to that can be bound).
pub fn bind(host: &str, port: u16) -> Result<TcpListener, String> {
    let addrs: Vec<_> = (host, port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve --host {host}: {e}"))?
        .collect();
    let mut last = None;
    for addr in &addrs {
        match TcpListener::bind(addr) {
            Ok(l) => {
                l.set_nonblocking(true)
                    .map_err(|e| format!("cannot set up {addr}: {e}"))?;
                return Ok(l);
            }
            Err(e) => last = Some((addr, e)),
        }
    }
    Err(match last {
        Some((addr, e)) if e.kind() == std::io::ErrorKind::AddrInUse => format!(
            "cannot listen on {addr}: the port is in use (another tuios ssh? choose one with --port)"
        ),
        Some((addr, e)) => format!("cannot listen on {addr}: {e}"),
        None => format!("--host {host} resolves to no address"),
    })
}
