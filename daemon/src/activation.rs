//! systemd socket activation: the listening socket handed over in `LISTEN_FDS`.
//!
//! With `tuios.socket` enabled, systemd owns the socket file and queues connections while the
//! daemon starts or restarts, so no client ever finds nobody listening. The daemon takes the
//! descriptor instead of binding, checks that it really is a listening Unix stream socket, and
//! never removes the socket file (systemd would have to recreate it).

use std::net::TcpListener;
use std::os::fd::{BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixListener;
use std::path::PathBuf;

use rustix::net::{sockopt, AddressFamily, SocketType};

/// The name `tuios.socket` gives its descriptor (`FileDescriptorName=`); with several
/// descriptors passed, this one is used.
pub const FD_NAME: &str = "tuios";

/// The names of window PTYs in the descriptor store start with this.
pub const KEPT_PTY_PREFIX: &str = "pty-";

/// A listening socket received from the service manager.
#[derive(Debug)]
pub struct Activated {
    pub listener: UnixListener,
    /// The path the socket is bound to, as the kernel reports it.
    pub path: PathBuf,
    /// Window PTY masters systemd kept in its descriptor store through a crash
    /// (`pty-<window id>`), for the restored windows to take over.
    pub kept: Vec<(String, OwnedFd)>,
}

/// The socket systemd passed, if any. `Ok(None)` when the daemon was not socket-activated (no
/// `LISTEN_PID`, or one naming another process). The variables are removed from the
/// environment either way, so no window's program inherits them, and every passed descriptor
/// is made close-on-exec.
///
/// Must run before any other thread starts: it edits the environment.
pub fn take_listener() -> Result<Option<Activated>, String> {
    if !passed_to_us() {
        return Ok(None);
    }
    let fds: Vec<(RawFd, String)> = sd_notify::listen_fds_with_names(true)
        .map_err(|e| format!("cannot use the socket passed by systemd (LISTEN_FDS): {e}"))?
        .collect();
    if fds.is_empty() {
        return Ok(None);
    }
    let kept: Vec<(String, OwnedFd)> = fds
        .iter()
        .filter(|(_, name)| name.starts_with(KEPT_PTY_PREFIX))
        // SAFETY: passed to this process by the service manager (see below); each descriptor
        // is taken once, and the listener is never among them (its name is not `pty-`).
        .map(|(fd, name)| (name.clone(), unsafe { OwnedFd::from_raw_fd(*fd) }))
        .collect();
    let sockets: Vec<(RawFd, String)> = fds
        .iter()
        .filter(|(_, name)| !name.starts_with(KEPT_PTY_PREFIX))
        .cloned()
        .collect();
    let fd = pick(&sockets)?;
    // SAFETY: `fd` was passed to this process by the service manager (LISTEN_PID named us and
    // LISTEN_FDS counted it), nothing else in the process has taken ownership of it, and it is
    // taken only once: the variables are gone from the environment now.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    check_listening_unix_stream(owned_borrow(&owned), fd)?;
    let listener = UnixListener::from(owned);
    let path = listener
        .local_addr()
        .ok()
        .and_then(|a| a.as_pathname().map(PathBuf::from))
        .ok_or_else(|| {
            format!(
                "the socket passed by systemd (fd {fd}) is not bound to a file path; tuios \
                 needs a path (ListenStream=%t/tuios/tuios.sock)"
            )
        })?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("cannot make the socket passed by systemd non-blocking: {e}"))?;
    Ok(Some(Activated {
        listener,
        path,
        kept,
    }))
}

/// Whether LISTEN_PID names this process. Checked first: variables meant for another process
/// (leaked into a shell, say) are no error, just not ours, and are removed here (sd_notify
/// would refuse a LISTEN_FDNAMES whose descriptors it ignores).
fn passed_to_us() -> bool {
    let for_us = std::env::var("LISTEN_PID")
        .ok()
        .and_then(|p| p.trim().parse::<u32>().ok())
        == Some(std::process::id());
    if !for_us {
        for var in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] {
            std::env::remove_var(var);
        }
    }
    for_us
}

/// The one listening TCP socket systemd passed to a server (`tuios web`, `tuios ssh`), if any;
/// `unit` names its socket unit in errors. As [`take_listener`]: the variables are removed
/// either way, and it must run before any other thread starts.
pub fn take_tcp_listener(unit: &str) -> Result<Option<TcpListener>, String> {
    if !passed_to_us() {
        return Ok(None);
    }
    let fds: Vec<RawFd> = sd_notify::listen_fds_with_names(true)
        .map_err(|e| format!("cannot use the socket passed by systemd (LISTEN_FDS): {e}"))?
        .map(|(fd, _)| fd)
        .collect();
    let fd = match fds.as_slice() {
        [] => return Ok(None),
        [fd] => *fd,
        _ => {
            return Err(format!(
            "systemd passed {} sockets; this server listens on one (ListenStream= once in {unit})",
            fds.len()
        ))
        }
    };
    // SAFETY: passed to this process by the service manager (LISTEN_PID named us, LISTEN_FDS
    // counted it), owned by nothing else, and taken once: the variables are gone now.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    let tcp = matches!(
        sockopt::socket_domain(owned_borrow(&owned)),
        Ok(AddressFamily::INET) | Ok(AddressFamily::INET6)
    );
    let listening = sockopt::socket_type(owned_borrow(&owned)).ok() == Some(SocketType::STREAM)
        && sockopt::socket_acceptconn(owned_borrow(&owned)).unwrap_or(false);
    if !tcp || !listening {
        return Err(format!(
            "the socket systemd passed (fd {fd}) is not a listening TCP socket; use              ListenStream=PORT or ADDRESS:PORT in {unit}"
        ));
    }
    let listener = TcpListener::from(owned);
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("cannot make the socket passed by systemd non-blocking: {e}"))?;
    Ok(Some(listener))
}

fn owned_borrow(fd: &OwnedFd) -> BorrowedFd<'_> {
    use std::os::fd::AsFd;
    fd.as_fd()
}

/// One descriptor: that one. Several: the one named [`FD_NAME`].
fn pick(fds: &[(RawFd, String)]) -> Result<RawFd, String> {
    if let [(fd, _)] = fds {
        return Ok(*fd);
    }
    fds.iter()
        .find(|(_, name)| name == FD_NAME)
        .map(|(fd, _)| *fd)
        .ok_or_else(|| {
            let names: Vec<&str> = fds.iter().map(|(_, n)| n.as_str()).collect();
            format!(
                "systemd passed {} sockets ({}) and none is named {FD_NAME:?}; set \
                 FileDescriptorName={FD_NAME} in the socket unit",
                fds.len(),
                names.join(", ")
            )
        })
}

/// Refuse anything but a listening AF_UNIX stream socket: a datagram socket or a TCP port
/// passed by a misconfigured unit would otherwise fail later, in confusing ways.
fn check_listening_unix_stream(fd: BorrowedFd<'_>, raw: RawFd) -> Result<(), String> {
    let what = |e: rustix::io::Errno| {
        format!("the descriptor passed by systemd (fd {raw}) is not a usable socket: {e}")
    };
    let domain = sockopt::socket_domain(fd).map_err(what)?;
    if domain != AddressFamily::UNIX {
        return Err(format!(
            "the socket passed by systemd (fd {raw}) is not a Unix socket (family {}); use \
             ListenStream= with a file path",
            domain.as_raw()
        ));
    }
    let ty = sockopt::socket_type(fd).map_err(what)?;
    if ty != SocketType::STREAM {
        return Err(format!(
            "the socket passed by systemd (fd {raw}) is not a stream socket; use ListenStream=, \
             not ListenDatagram= or ListenSequentialPacket="
        ));
    }
    if !sockopt::socket_acceptconn(fd).map_err(what)? {
        return Err(format!(
            "the socket passed by systemd (fd {raw}) is not listening; the socket unit must not \
             set Accept=yes"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_fd_is_taken_whatever_its_name() {
        assert_eq!(pick(&[(3, "unknown".into())]), Ok(3));
    }

    #[test]
    fn several_fds_need_the_tuios_name() {
        assert_eq!(pick(&[(3, "other".into()), (4, "tuios".into())]), Ok(4));
        let err = pick(&[(3, "a".into()), (4, "b".into())]).unwrap_err();
        assert!(err.contains("FileDescriptorName=tuios"), "{err}");
    }

    #[test]
    fn sockets_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let listener = UnixListener::bind(dir.path().join("s")).unwrap();
        use std::os::fd::{AsFd, AsRawFd};
        check_listening_unix_stream(listener.as_fd(), listener.as_raw_fd()).unwrap();

        let dgram = std::os::unix::net::UnixDatagram::unbound().unwrap();
        let err = check_listening_unix_stream(dgram.as_fd(), dgram.as_raw_fd()).unwrap_err();
        assert!(err.contains("not a stream socket"), "{err}");

        let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
        let err = check_listening_unix_stream(a.as_fd(), a.as_raw_fd()).unwrap_err();
        assert!(err.contains("not listening"), "{err}");

        let file = std::fs::File::create(dir.path().join("f")).unwrap();
        let err = check_listening_unix_stream(file.as_fd(), file.as_raw_fd()).unwrap_err();
        assert!(err.contains("not a usable socket"), "{err}");
    }
}
