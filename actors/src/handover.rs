//! Live upgrade: the running daemon hands its state to the `tuios` binary now on disk, which
//! it executes in the same process (same pid), so every window's program stays its child and
//! never notices.
//!
//! What crosses the exec: the listening socket, every window's PTY master (descriptors with
//! close-on-exec cleared on exactly these), and this document, in a memfd whose number is in
//! [`ENV_FD`]: a header line `tuios-handover <version>` and then JSON: each session's structure
//! (the issue-17 saved format) and per window its id, program pid, size and terminal as replay
//! bytes ([`emulator::Emulator::replay`]).
//!
//! Order, so that nothing is torn down before the point of no return: the binary on disk is
//! asked which handover versions it reads (a refusal ends the upgrade there, untouched); then
//! the supervisor stops reaping (exits wait for the next daemon) and every window stops reading
//! its PTY and exports itself; then the exec. If the exec fails, windows read again, the
//! supervisor reaps again, and the request is answered with the reason.

use protocol::params::UpgradeParams;
use protocol::verbs::upgrade;
use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::sync::Mutex;

use actix::prelude::*;
use protocol::attach::WindowModes;
use protocol::{ErrorCode, Hint, VerbError};
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot};

use crate::session::saved::SavedSession;
use crate::session::Session;
use crate::session_manager::{ListSessions, SessionManager};
use crate::supervisor::PauseReaping;
use crate::Services;

/// A verb result (re-exported for the daemon, which has no JSON dependency of its own).
pub type VerbValue = upgrade::Reply;

/// The handover format this daemon writes and reads.
pub const VERSION: u32 = 1;
/// Every version this daemon can read (what `tuios daemon --handover-versions` prints).
pub const READS: &[u32] = &[VERSION];
/// The environment variable holding the memfd's descriptor number; removed at once.
pub const ENV_FD: &str = "TUIOS_HANDOVER_FD";
/// The first word of the header line.
pub const MAGIC: &str = "tuios-handover";

/// Everything handed over.
#[derive(Debug, Serialize, Deserialize)]
pub struct State {
    pub version: u32,
    /// The version of tuios that wrote it, for the log.
    pub written_by: String,
    pub listener_fd: i32,
    /// The socket came from systemd: its file is systemd's and is never removed.
    pub systemd_socket: bool,
    /// `NOTIFY_SOCKET` as the service manager gave it (removed from the environment at start).
    #[serde(default)]
    pub notify_socket: Option<String>,
    /// systemd keeps the window PTYs in its descriptor store.
    #[serde(default)]
    pub fd_store: bool,
    pub sessions: Vec<HandedSession>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct HandedSession {
    /// The structure, windows in order (working directories are left out).
    pub saved: SavedSession,
    /// Whether the session had itself been restored from its file.
    pub restored: bool,
    /// Same order as `saved.windows`.
    pub windows: Vec<HandedWindow>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct HandedWindow {
    pub id: String,
    pub pty_id: String,
    pub stored_title: String,
    pub live_title: Option<String>,
    /// The PTY master's descriptor number across the exec.
    pub fd: i32,
    pub pid: i32,
    pub cols: u16,
    pub rows: u16,
    pub scrollback: usize,
    /// The terminal's state as bytes for a fresh emulator ([`emulator::Emulator::replay`]).
    pub replay: String,
    /// The program has ended and was reaped (`exit_code`/`exit_signal` say how).
    pub reaped: bool,
    /// ... and the session had recorded it.
    pub exited: bool,
    pub exit_code: Option<i32>,
    pub exit_signal: Option<i32>,
    pub failed_frames: u64,
    pub modes: WindowModes,
    /// Made with an explicit argv: closes when its program exits (unless `remain`).
    pub command: bool,
}

/// The handover document as written to the memfd.
pub fn encode(state: &State) -> Result<Vec<u8>, String> {
    let mut out = format!("{MAGIC} {}\n", state.version).into_bytes();
    serde_json::to_writer(&mut out, state)
        .map_err(|e| format!("cannot encode the daemon's state: {e}"))?;
    Ok(out)
}

/// Read a handover document: the header's version must be one this daemon reads.
pub fn decode(bytes: &[u8]) -> Result<State, String> {
    let nl = bytes
        .iter()
        .position(|&b| b == b'\n')
        .ok_or("no header line: not a tuios handover")?;
    let header = std::str::from_utf8(&bytes[..nl]).map_err(|_| "the header is not text")?;
    let version = header
        .strip_prefix(MAGIC)
        .and_then(|v| v.strip_prefix(' '))
        .and_then(|v| v.trim().parse::<u32>().ok())
        .ok_or_else(|| format!("header {header:?} is not a tuios handover header"))?;
    if !READS.contains(&version) {
        return Err(format!(
            "handover format version {version} is not one this tuios reads ({READS:?})"
        ));
    }
    let state: State = serde_json::from_slice(&bytes[nl + 1..])
        .map_err(|e| format!("the handed-over state is damaged: {e}"))?;
    if state.version != version {
        return Err(format!(
            "the header says version {version} but the state says {}",
            state.version
        ));
    }
    Ok(state)
}

/// What a new daemon received: the document and its descriptors, each owned (and made
/// close-on-exec again) by the receiver.
pub struct Incoming {
    pub state: State,
    pub fds: HashMap<i32, OwnedFd>,
}

// ---------------------------------------------------------------------------------------------
// Crash survival: PTY masters kept in the service manager's descriptor store.

/// Where the daemon keeps descriptors that must outlive a crash (systemd's store).
pub trait FdStore: Send + Sync {
    fn store(&self, name: &str, fd: std::os::fd::BorrowedFd<'_>);
    fn remove(&self, name: &str);
}

static FD_STORE: Mutex<Option<std::sync::Arc<dyn FdStore>>> = Mutex::new(None);

/// Keep every window's PTY master in `store` from now on (the daemon runs under systemd).
pub fn set_fd_store(store: std::sync::Arc<dyn FdStore>) {
    *lock(&FD_STORE) = Some(store);
}

/// Whether window PTYs are kept for a crash (the daemon runs under systemd with a store).
pub fn keeps_ptys() -> bool {
    lock(&FD_STORE).is_some()
}

/// The store's name for a window's PTY master.
pub fn pty_fd_name(window_id: &str) -> String {
    format!("pty-{window_id}")
}

/// Keep a new window's PTY master in the store (when there is one).
pub fn store_pty(window_id: &str, fd: std::os::fd::BorrowedFd<'_>) {
    let store = lock(&FD_STORE).clone();
    if let Some(store) = store {
        store.store(&pty_fd_name(window_id), fd);
    }
}

/// A window closed: its PTY must not outlive it in the store.
pub fn unstore_pty(window_id: &str) {
    let store = lock(&FD_STORE).clone();
    if let Some(store) = store {
        store.remove(&pty_fd_name(window_id));
    }
}

/// PTY masters the service manager handed back after a crash, by window id.
static SURVIVORS: Mutex<Option<HashMap<String, OwnedFd>>> = Mutex::new(None);

/// Keep the PTY masters passed back at start (names `pty-<window id>`), for the windows of the
/// saved sessions to take over.
pub fn stash_survivors(fds: Vec<(String, OwnedFd)>) {
    let map = fds
        .into_iter()
        .filter_map(|(name, fd)| Some((name.strip_prefix("pty-")?.to_string(), fd)))
        .collect();
    *lock(&SURVIVORS) = Some(map);
}

/// The PTY master kept for window `id`, once.
pub fn take_survivor(id: &str) -> Option<OwnedFd> {
    lock(&SURVIVORS).as_mut()?.remove(id)
}

/// PTY masters no saved window claimed: removed from the store and closed, so their programs
/// get the hangup they would have had when the window went.
pub fn drop_unclaimed_survivors() {
    let left = lock(&SURVIVORS).take().unwrap_or_default();
    for (id, fd) in left {
        tracing::warn!(window = %id, "a kept PTY matches no saved window; closing it");
        unstore_pty(&id);
        drop(fd);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

static INCOMING: Mutex<Option<Incoming>> = Mutex::new(None);

/// Keep what was handed over for the session manager, which takes it when it starts.
pub fn stash_incoming(incoming: Incoming) {
    *lock(&INCOMING) = Some(incoming);
}

/// What was handed over, once.
pub fn take_incoming() -> Option<Incoming> {
    lock(&INCOMING).take()
}

// ---------------------------------------------------------------------------------------------
// Asking for an upgrade (the `upgrade` verb) and carrying it out (the daemon's main loop).

/// A request to upgrade, or with `check` only to ask whether the binary on disk could take
/// over. The daemon answers once the binary on disk has been checked: `Ok` with the result
/// (for a real upgrade, just before it freezes the windows and executes), `Err` with the reason
/// it will not happen.
pub struct UpgradeRequest {
    pub check: bool,
    pub reply: oneshot::Sender<Result<VerbValue, String>>,
}

static TRIGGER: Mutex<Option<mpsc::UnboundedSender<UpgradeRequest>>> = Mutex::new(None);

/// Where upgrade requests go: the daemon's main loop, which alone may exec.
pub fn set_trigger(tx: mpsc::UnboundedSender<UpgradeRequest>) {
    *lock(&TRIGGER) = Some(tx);
}

/// The `upgrade` verb. A real upgrade is answered before the exec: every JSON connection gets
/// the answers in flight and is then closed, and the new daemon serves the next connection.
pub async fn request(params: UpgradeParams) -> Result<upgrade::Reply, VerbError> {
    let check = params.check.unwrap_or(false);
    let tx = lock(&TRIGGER).clone();
    let Some(tx) = tx else {
        return Err(VerbError::new(
            ErrorCode::CommandFailed,
            "this daemon cannot upgrade itself (it was not started as `tuios daemon`)",
        ));
    };
    let (reply, answer) = oneshot::channel();
    let closed = || {
        VerbError::new(
            ErrorCode::CommandFailed,
            "the daemon is shutting down; nothing to upgrade",
        )
    };
    tx.send(UpgradeRequest { check, reply })
        .map_err(|_| closed())?;
    match answer.await {
        Ok(Ok(result)) => Ok(result),
        Ok(Err(why)) => Err(VerbError::new(
            ErrorCode::CommandFailed,
            format!("the upgrade will not happen: {why}"),
        )
        .with_hint(Hint::new().detail(
            "The daemon carries on as it was, with every session and program. Install a tuios binary that supports live upgrade at the path the daemon was started from (upgrade with check true tells whether it would work), or restart the daemon: sessions are restored, programs are not.",
        ))),
        Err(_) => Err(closed()),
    }
}

/// The `upgrade` verb's result when only checking.
pub fn check_result(binary: &str, reads: &[u32]) -> upgrade::Reply {
    upgrade::Reply::Check(upgrade::Check {
        binary: binary.to_string(),
        reads: reads.to_vec(),
        writes: VERSION,
        would_upgrade: true,
        ..Default::default()
    })
}

/// The `upgrade` verb's result, sent just before the daemon executes the new binary.
pub fn upgrading_result(binary: &str) -> upgrade::Reply {
    upgrade::Reply::Upgrading(upgrade::Upgrading {
        binary: binary.to_string(),
        from_version: env!("CARGO_PKG_VERSION").to_string(),
        ..Default::default()
    })
}

static ACCEPTOR: Mutex<Option<Addr<crate::acceptor::Acceptor>>> = Mutex::new(None);

pub fn register_acceptor(acceptor: Addr<crate::acceptor::Acceptor>) {
    *lock(&ACCEPTOR) = Some(acceptor);
}

/// Stop accepting for the switch: JSON requests in flight are answered and their connections
/// closed, and new connections wait in the listening socket's queue for the next daemon (the
/// socket itself stays open: the daemon keeps a dup of it to hand over).
pub async fn stop_accepting() {
    let acceptor = lock(&ACCEPTOR).clone();
    if let Some(a) = acceptor {
        let _ = a.send(crate::acceptor::StopAccepting).await;
    }
}

/// The switch did not happen: accept again, on `listener` (a dup of the listening socket).
pub fn accept_again(listener: std::os::unix::net::UnixListener) -> Result<(), String> {
    let control = lock(&CONTROL)
        .clone()
        .ok_or("the daemon's actors are not running")?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("cannot use the listening socket again: {e}"))?;
    let listener = tokio::net::UnixListener::from_std(listener)
        .map_err(|e| format!("cannot use the listening socket again: {e}"))?;
    let env = crate::verb_env::VerbEnv {
        manager: control.manager,
        services: control.services,
    };
    register_acceptor(crate::acceptor::Acceptor::start(listener, env));
    Ok(())
}

/// The actors an upgrade works with, registered when the session manager starts.
#[derive(Clone)]
pub struct Control {
    pub manager: Addr<SessionManager>,
    pub services: Services,
}

static CONTROL: Mutex<Option<Control>> = Mutex::new(None);

pub fn register(control: Control) {
    *lock(&CONTROL) = Some(control);
}

/// The exported state, ready to cross the exec, and how to undo the export.
pub struct Outgoing {
    pub sessions: Vec<HandedSession>,
    /// The PTY masters, close-on-exec dups; their numbers are in `sessions`.
    pub fds: Vec<OwnedFd>,
    frozen: Vec<Addr<Session>>,
    control: Control,
}

impl Outgoing {
    /// The upgrade did not happen: windows read their PTYs again and exits are reaped again.
    /// The exported descriptors are closed (they were dups).
    pub async fn thaw(self) {
        for s in &self.frozen {
            let _ = s.send(crate::session::handover::ThawAll).await;
        }
        let _ = self
            .control
            .services
            .supervisor
            .send(PauseReaping(false))
            .await;
    }
}

/// Stop reaping and freeze every window, collecting the state to hand over.
pub async fn freeze() -> Result<Outgoing, String> {
    let control = lock(&CONTROL)
        .clone()
        .ok_or("the daemon's actors are not running")?;
    control
        .services
        .supervisor
        .send(PauseReaping(true))
        .await
        .map_err(|e| format!("the supervisor did not answer: {e}"))?;
    let mut out = Outgoing {
        sessions: Vec::new(),
        fds: Vec::new(),
        frozen: Vec::new(),
        control: control.clone(),
    };
    let sessions = match control.manager.send(ListSessions).await {
        Ok(s) => s,
        Err(e) => {
            out.thaw().await;
            return Err(format!("the session manager did not answer: {e}"));
        }
    };
    for (addr, _) in sessions {
        out.frozen.push(addr.clone());
        match addr.send(crate::session::handover::Export).await {
            Ok(Ok((session, fds))) => {
                out.sessions.push(session);
                out.fds.extend(fds);
            }
            // A session that ended meanwhile has nothing to hand over.
            Err(_) => {}
            Ok(Err(why)) => {
                out.thaw().await;
                return Err(why);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> State {
        State {
            version: VERSION,
            written_by: "0.1.0".into(),
            listener_fd: 3,
            systemd_socket: false,
            notify_socket: None,
            fd_store: false,
            sessions: Vec::new(),
        }
    }

    #[test]
    fn round_trips_with_its_header() {
        let bytes = encode(&sample()).unwrap();
        assert!(bytes.starts_with(b"tuios-handover 1\n"));
        let back = decode(&bytes).unwrap();
        assert_eq!(back.listener_fd, 3);
    }

    #[test]
    fn other_versions_and_damage_are_refused() {
        let mut bytes = encode(&sample()).unwrap();
        bytes[15] = b'9';
        let err = decode(&bytes).unwrap_err();
        assert!(err.contains("version 9"), "{err}");
        assert!(decode(b"something else\n{}").is_err());
        assert!(decode(b"no newline").is_err());
        let bytes = encode(&sample()).unwrap();
        let err = decode(&bytes[..bytes.len() - 5]).unwrap_err();
        assert!(err.contains("damaged"), "{err}");
    }
}
