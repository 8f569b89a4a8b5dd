//! systemd's file-descriptor store: the daemon keeps its listening socket and every window's
//! PTY master there (`FDSTORE=1` with `FDNAME=`), so that after a crash (SIGKILL, panic, OOM)
//! the restarted service gets them back in `LISTEN_FDS` and its windows talk to the same
//! running programs. A closed window's PTY is removed (`FDSTOREREMOVE=1`), or systemd would
//! keep it, and the program it belongs to, alive forever.

use std::ffi::OsString;
use std::io::{self, IoSlice};
use std::mem::MaybeUninit;
use std::os::fd::BorrowedFd;
use std::os::unix::ffi::OsStrExt;

use rustix::net::{
    sendmsg_addr, AddressFamily, SendAncillaryBuffer, SendAncillaryMessage, SendFlags,
    SocketAddrUnix, SocketFlags, SocketType,
};

/// The name the listening socket is stored under: the one `tuios.socket` gives it, so a
/// restart finds it the same way either way.
pub const LISTENER_NAME: &str = crate::activation::FD_NAME;

/// The store size the unit sets for systemd older than 254, which keeps descriptors when the
/// unit has `FileDescriptorStoreMax=` but does not say so in `FDSTORE`.
pub const FALLBACK_VAR: &str = "TUIOS_FDSTORE";

/// Whether systemd keeps descriptors for the service, from `FDSTORE` (systemd 254 and later)
/// and [`FALLBACK_VAR`]. `FDSTORE` wins when present, even at 0: that systemd knows the store
/// is off. Only when it is absent does the unit's own figure count.
pub fn store_enabled(fdstore: Option<&str>, fallback: Option<&str>) -> bool {
    let size = |v: &str| v.trim().parse::<u64>().ok();
    match fdstore {
        Some(v) => size(v).is_some_and(|n| n > 0),
        None => fallback.and_then(size).is_some_and(|n| n > 0),
    }
}

/// The store of the service manager at `NOTIFY_SOCKET`.
pub struct SystemdStore {
    addr: SocketAddrUnix,
}

impl SystemdStore {
    /// The store behind `notify_socket` (a path, or `@name` for an abstract socket).
    pub fn new(notify_socket: &OsString) -> io::Result<SystemdStore> {
        let bytes = notify_socket.as_bytes();
        let addr = match bytes.strip_prefix(b"@") {
            Some(name) => SocketAddrUnix::new_abstract_name(name)?,
            None => SocketAddrUnix::new(bytes)?,
        };
        Ok(SystemdStore { addr })
    }

    fn send(&self, message: &str, fd: Option<BorrowedFd<'_>>) -> io::Result<()> {
        let socket = rustix::net::socket_with(
            AddressFamily::UNIX,
            SocketType::DGRAM,
            SocketFlags::CLOEXEC,
            None,
        )?;
        let fds;
        let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(1))];
        let mut control = SendAncillaryBuffer::new(&mut space);
        if let Some(fd) = fd {
            fds = [fd];
            control.push(SendAncillaryMessage::ScmRights(&fds));
        }
        sendmsg_addr(
            &socket,
            &self.addr,
            &[IoSlice::new(message.as_bytes())],
            &mut control,
            SendFlags::empty(),
        )?;
        Ok(())
    }

    /// Keep `fd` in the store under `name`.
    pub fn store(&self, name: &str, fd: BorrowedFd<'_>) -> io::Result<()> {
        self.send(&format!("FDSTORE=1\nFDNAME={name}\n"), Some(fd))
    }

    /// Drop whatever the store keeps under `name`.
    pub fn remove(&self, name: &str) -> io::Result<()> {
        self.send(&format!("FDSTOREREMOVE=1\nFDNAME={name}\n"), None)
    }
}

impl actors::fd_store::FdStore for SystemdStore {
    fn store(&self, name: &str, fd: BorrowedFd<'_>) {
        if let Err(e) = SystemdStore::store(self, name, fd) {
            tracing::warn!(name, "cannot keep a descriptor in systemd's store: {e}");
        }
    }

    fn remove(&self, name: &str) {
        if let Err(e) = SystemdStore::remove(self, name) {
            tracing::warn!(name, "cannot remove a descriptor from systemd's store: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::store_enabled;

    #[test]
    fn systemd_254_says_it_in_fdstore() {
        assert!(store_enabled(Some("1024"), None));
        assert!(store_enabled(Some(" 64\n"), Some("0")));
        // FDSTORE=0 is systemd saying the store is off: the unit's figure does not override it.
        assert!(!store_enabled(Some("0"), Some("1024")));
        assert!(!store_enabled(Some("many"), Some("1024")));
    }

    #[test]
    fn older_systemd_is_told_by_the_unit() {
        assert!(store_enabled(None, Some("1024")));
        assert!(!store_enabled(None, Some("0")));
        assert!(!store_enabled(None, Some("")));
        assert!(!store_enabled(None, None));
    }
}
