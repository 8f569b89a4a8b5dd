//! Crash survival: window PTY masters kept in the service manager's descriptor store, and the
//! ones it hands back to the next start.
//!
//! The daemon decides at start whether there is a store (systemd with `FDSTORE`); the
//! [`PtyStore`] it makes is held in [`Services`](crate::Services), so windows store and remove
//! their masters, and sessions ask whether screens must be saved for a crash, through the
//! services they already have. The masters handed back ([`Survivors`]) belong to the session
//! manager, which gives each to the saved window it belongs to.
use std::collections::HashMap;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::Arc;

/// Where the daemon keeps descriptors that must outlive a crash (systemd's store).
pub trait FdStore: Send + Sync {
    fn store(&self, name: &str, fd: BorrowedFd<'_>);
    fn remove(&self, name: &str);
}

/// The store's name for a window's PTY master.
pub fn pty_fd_name(window_id: &str) -> String {
    format!("pty-{window_id}")
}

/// Window PTY masters in the store, when the daemon has one; without one every call is a no-op.
#[derive(Clone, Default)]
pub struct PtyStore {
    store: Option<Arc<dyn FdStore>>,
}

impl PtyStore {
    pub fn new(store: Option<Arc<dyn FdStore>>) -> PtyStore {
        PtyStore { store }
    }

    /// Whether window PTYs are kept for a crash (the daemon runs under systemd with a store).
    pub fn keeps_ptys(&self) -> bool {
        self.store.is_some()
    }

    /// Keep a new window's PTY master in the store.
    pub fn store_pty(&self, window_id: &str, fd: BorrowedFd<'_>) {
        if let Some(store) = &self.store {
            store.store(&pty_fd_name(window_id), fd);
        }
    }

    /// A window closed: its PTY must not outlive it in the store.
    pub fn unstore_pty(&self, window_id: &str) {
        if let Some(store) = &self.store {
            store.remove(&pty_fd_name(window_id));
        }
    }
}

/// PTY masters the service manager handed back after a crash, by window id.
#[derive(Default)]
pub struct Survivors(HashMap<String, OwnedFd>);

impl Survivors {
    /// The descriptors passed back at start; only those named `pty-<window id>` are PTYs.
    pub fn from_store(fds: Vec<(String, OwnedFd)>) -> Survivors {
        Survivors(
            fds.into_iter()
                .filter_map(|(name, fd)| Some((name.strip_prefix("pty-")?.to_string(), fd)))
                .collect(),
        )
    }

    /// The PTY master kept for window `id`, once.
    pub fn take(&mut self, id: &str) -> Option<OwnedFd> {
        self.0.remove(id)
    }

    /// PTY masters no saved window claimed: removed from the store and closed, so their
    /// programs get the hangup they would have had when the window went.
    pub fn drop_unclaimed(self, store: &PtyStore) {
        for (id, fd) in self.0 {
            tracing::warn!(window = %id, "a kept PTY matches no saved window; closing it");
            store.unstore_pty(&id);
            drop(fd);
        }
    }
}
