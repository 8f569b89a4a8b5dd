//! The handover document: what crosses the exec of a live upgrade (see the parent module), its
//! header and its encoding. Plain data, so the sessions that export and adopt windows depend on
//! this module and not on the upgrade machinery.
use std::collections::HashMap;
use std::os::fd::OwnedFd;

use protocol::attach::WindowModes;
use serde::{Deserialize, Serialize};

use crate::session::saved::SavedSession;

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
pub struct HandoverState {
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
    /// How it recorded its new windows (a session-wide record-start; absent from older
    /// daemons).
    #[serde(default)]
    pub record_new: Option<crate::recorder::RecordingPlan>,
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
    /// Its recording, carried on by the next daemon (absent from older daemons).
    #[serde(default)]
    pub recording: Option<crate::recorder::RecordingResume>,
}

/// The handover document as written to the memfd.
pub fn encode(state: &HandoverState) -> Result<Vec<u8>, String> {
    let mut out = format!("{MAGIC} {}\n", state.version).into_bytes();
    serde_json::to_writer(&mut out, state)
        .map_err(|e| format!("cannot encode the daemon's state: {e}"))?;
    Ok(out)
}

/// Read a handover document: the header's version must be one this daemon reads.
pub fn decode(bytes: &[u8]) -> Result<HandoverState, String> {
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
    let state: HandoverState = serde_json::from_slice(&bytes[nl + 1..])
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
pub struct IncomingHandover {
    pub state: HandoverState,
    pub fds: HashMap<i32, OwnedFd>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> HandoverState {
        HandoverState {
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
