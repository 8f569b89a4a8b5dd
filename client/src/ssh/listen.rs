//! The listening port: bound here, or passed by systemd (`tuios-ssh.socket`), which then owns
//! the port and starts the server on the first connection.

use std::net::{TcpListener, ToSocketAddrs};
use std::os::fd::{AsFd, FromRawFd, OwnedFd};

use rustix::net::{sockopt, AddressFamily, SocketType};

/// The first descriptor systemd passes (SD_LISTEN_FDS_START).
const LISTEN_FDS_START: i32 = 3;

/// The TCP listening socket systemd passed, if any. The LISTEN_* variables are removed either
/// way, so nothing started later inherits them. Must run before any other thread starts.
pub fn take_passed() -> Result<Option<TcpListener>, String> {
    let for_us = std::env::var("LISTEN_PID")
        .ok()
        .and_then(|p| p.trim().parse::<u32>().ok())
        == Some(std::process::id());
    let count = std::env::var("LISTEN_FDS")
        .ok()
        .and_then(|n| n.trim().parse::<i32>().ok())
        .unwrap_or(0);
    for var in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] {
        std::env::remove_var(var);
    }
    if !for_us || count < 1 {
        return Ok(None);
    }
    if count > 1 {
        return Err(format!(
            "systemd passed {count} sockets; tuios ssh listens on one (one ListenStream= in the socket unit)"
        ));
    }
    // SAFETY: LISTEN_PID names this process and LISTEN_FDS counts descriptor 3 as passed to
    // it; nothing else in the process owns it, and it is taken once (the variables are gone).
    let fd = unsafe { OwnedFd::from_raw_fd(LISTEN_FDS_START) };
    rustix::io::fcntl_setfd(&fd, rustix::io::FdFlags::CLOEXEC)
        .map_err(|e| format!("cannot use the socket passed by systemd: {e}"))?;
    let is_tcp_listener = sockopt::socket_type(fd.as_fd()).ok() == Some(SocketType::STREAM)
        && sockopt::socket_acceptconn(fd.as_fd()).unwrap_or(false)
        && matches!(
            rustix::net::getsockname(&fd).map(|a| a.address_family()),
            Ok(AddressFamily::INET) | Ok(AddressFamily::INET6)
        );
    if !is_tcp_listener {
        return Err(
            "the socket systemd passed is not a listening TCP socket (ListenStream=PORT or ADDRESS:PORT in tuios-ssh.socket)"
                .into(),
        );
    }
    let listener = TcpListener::from(fd);
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("cannot use the socket passed by systemd: {e}"))?;
    Ok(Some(listener))
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
