//! Who is connected: each running `tuios ssh` keeps a status file (0600, in a 0700 directory
//! of the state directory) that `tuios ssh --list` reads. Written whole and renamed into place
//! at every change, so a reader never sees half of one; removed when the server stops. A file
//! whose server is gone (killed) is ignored by `--list`.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::failure::Failure;

/// One connection that got in.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Client {
    pub user: String,
    /// `SHA256:...` of the key it authenticated with.
    pub key: String,
    pub peer: String,
    /// The session its terminal is attached to; empty until it attaches.
    pub session: String,
    /// Unix seconds.
    pub since: u64,
}

/// A server's whole status file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ServerStatus {
    pub pid: u32,
    pub listen: String,
    pub daemon: String,
    pub clients: Vec<Client>,
}

/// The running server's record, kept in memory and mirrored to its file.
pub struct ConnectionRegistry {
    path: Option<PathBuf>,
    inner: Mutex<Inner>,
}

struct Inner {
    listen: String,
    daemon: String,
    /// By connection number, then channel number: one row per attached terminal (a
    /// connection that has not attached yet has one row with no session).
    clients: BTreeMap<(u64, u32), Client>,
}

/// The directory of status files: `<state>/tuios/ssh`.
pub fn status_dir() -> Option<PathBuf> {
    daemon::paths::sessions_dir().and_then(|d| d.parent().map(|p| p.join("ssh")))
}

impl ConnectionRegistry {
    /// A registry written to `<dir>/<pid>.json`; `None` for `dir` keeps it in memory only.
    pub fn new(
        dir: Option<&Path>,
        listen: String,
        daemon: String,
    ) -> Result<ConnectionRegistry, Failure> {
        let path = match dir {
            Some(dir) => {
                fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(dir)
                    .map_err(|e| Failure::msg(format!("cannot create {}: {e}", dir.display())))?;
                daemon::paths::check_private_dir(dir).map_err(|e| Failure::msg(e.to_string()))?;
                Some(dir.join(format!("{}.json", std::process::id())))
            }
            None => None,
        };
        let reg = ConnectionRegistry {
            path,
            inner: Mutex::new(Inner {
                listen,
                daemon,
                clients: BTreeMap::new(),
            }),
        };
        reg.write();
        Ok(reg)
    }

    /// Which daemon the server uses (`in-process`, or `running`).
    pub fn set_daemon(&self, daemon: String) {
        self.lock().daemon = daemon;
        self.write();
    }

    /// Records (or replaces) a row.
    pub fn set(&self, conn: u64, channel: u32, client: Client) {
        self.lock().clients.insert((conn, channel), client);
        self.write();
    }

    /// Removes one row.
    pub fn remove(&self, conn: u64, channel: u32) {
        let removed = self.lock().clients.remove(&(conn, channel)).is_some();
        if removed {
            self.write();
        }
    }

    /// Removes every row of a connection.
    pub fn remove_conn(&self, conn: u64) {
        let before = {
            let mut inner = self.lock();
            let n = inner.clients.len();
            inner.clients.retain(|(c, _), _| *c != conn);
            n != inner.clients.len()
        };
        if before {
            self.write();
        }
    }

    /// The current status, as the file holds it.
    pub fn snapshot(&self) -> ServerStatus {
        let inner = self.lock();
        ServerStatus {
            pid: std::process::id(),
            listen: inner.listen.clone(),
            daemon: inner.daemon.clone(),
            clients: inner.clients.values().cloned().collect(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding it cannot leave the map half-edited: every edit is one call.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) {
        let Some(path) = &self.path else { return };
        let status = self.snapshot();
        if let Err(e) = write_atomic(path, &status) {
            tracing::warn!(file = %path.display(), "cannot write the ssh status file: {e}");
        }
    }
}

impl Drop for ConnectionRegistry {
    fn drop(&mut self) {
        if let Some(path) = &self.path {
            let _ = fs::remove_file(path);
        }
    }
}

fn write_atomic(path: &Path, status: &ServerStatus) -> io::Result<()> {
    let tmp = path.with_extension("json.tmp");
    match fs::remove_file(&tmp) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&tmp)?;
    let text = serde_json::to_string_pretty(status).map_err(io::Error::other)?;
    f.write_all(text.as_bytes())?;
    drop(f);
    fs::rename(&tmp, path)
}

pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Every running server's status, read from `dir`. Files of servers that are gone, and files
/// that are not ours, are skipped.
pub fn read_all(dir: &Path) -> Vec<ServerStatus> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let me = rustix::process::geteuid().as_raw();
    let mut out: Vec<ServerStatus> = entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter(|e| fs::symlink_metadata(e.path()).is_ok_and(|m| m.is_file() && m.uid() == me))
        .filter_map(|e| fs::read_to_string(e.path()).ok())
        .filter_map(|t| serde_json::from_str::<ServerStatus>(&t).ok())
        .filter(|s| server_alive(s.pid))
        .collect();
    out.sort_by_key(|s| s.pid);
    out
}

/// Whether `pid` is a running tuios process (not a pid reused by something else).
fn server_alive(pid: u32) -> bool {
    let Ok(exe) = fs::read_link(format!("/proc/{pid}/exe")) else {
        return false;
    };
    let name = exe.file_name().map(|n| n.to_string_lossy().into_owned());
    name.is_some_and(|n| n.starts_with("tuios"))
}

/// `tuios ssh --list`: a table, or JSON.
pub fn list(json: bool) -> Result<String, Failure> {
    let dir = status_dir().ok_or_else(|| {
        Failure::msg("no state directory: neither XDG_STATE_HOME nor HOME is an absolute directory")
    })?;
    let servers = read_all(&dir);
    if json {
        let text = serde_json::to_string_pretty(&servers)
            .map_err(|e| Failure::msg(format!("cannot encode the list: {e}")))?;
        return Ok(format!("{text}\n"));
    }
    if servers.is_empty() {
        return Ok("no tuios ssh server is running\n".to_string());
    }
    let mut out = String::new();
    for s in &servers {
        out.push_str(&format!(
            "tuios ssh on {} (pid {}, daemon {}): {} connected\n",
            s.listen,
            s.pid,
            s.daemon,
            s.clients.len()
        ));
        if s.clients.is_empty() {
            continue;
        }
        let rows: Vec<Vec<String>> = s
            .clients
            .iter()
            .map(|c| {
                vec![
                    crate::output::escape_controls(&c.user).into_owned(),
                    c.key.clone(),
                    c.peer.clone(),
                    if c.session.is_empty() {
                        "-".to_string()
                    } else {
                        crate::output::escape_controls(&c.session).into_owned()
                    },
                    utc(c.since),
                ]
            })
            .collect();
        out.push_str(&crate::output::table(
            &["USER", "KEY", "FROM", "SESSION", "SINCE"],
            &rows,
        ));
    }
    Ok(out)
}

/// `YYYY-MM-DD HH:MM:SS UTC` from Unix seconds (civil-from-days, proleptic Gregorian).
pub fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc(1_796_310_000), "2026-12-03 15:00:00 UTC");
    }

    #[test]
    fn the_file_follows_the_registry_and_goes_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("ssh");
        let reg = ConnectionRegistry::new(Some(&sub), "127.0.0.1:2222".into(), "1".into()).unwrap();
        let client = Client {
            user: "me".into(),
            key: "SHA256:x".into(),
            peer: "127.0.0.1:5".into(),
            session: "main".into(),
            since: 5,
        };
        reg.set(1, 0, client.clone());
        let file = sub.join(format!("{}.json", std::process::id()));
        assert_eq!(fs::metadata(&file).unwrap().mode() & 0o777, 0o600);
        let read = read_all(&sub);
        assert_eq!(read.len(), 1, "the test binary is a tuios-* process");
        assert_eq!(read[0].clients, vec![client]);
        reg.remove_conn(1);
        assert!(read_all(&sub)[0].clients.is_empty());
        drop(reg);
        assert!(!file.exists());
    }
}
