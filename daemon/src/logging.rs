//! Logging through tracing-subscriber: to stderr (a terminal, or the journal when systemd runs
//! the daemon), or, for a daemon started in the background, to a size-capped file.
//!
//! The file takes over fd 2 itself, so whatever else goes to stderr (a configuration error
//! before logging starts, a panic) lands in it too. It holds at most [`LOG_FILE_CAP`] bytes:
//! when a line would take it past that (or it is already past it when the daemon starts), it
//! moves to `FILE.1`, replacing the previous one, and a new file starts. So at most two files,
//! about 2 MiB, are ever kept.

use std::fs::DirBuilder;
use std::io::{self, IsTerminal, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use rustix::fs::{FileType, Mode, OFlags};
use tracing_subscriber::EnvFilter;

/// Most bytes a log file holds before it is moved aside to `FILE.1`.
pub const LOG_FILE_CAP: u64 = 1024 * 1024;

/// The log file stderr points to, once [`log_to_file`] has run. The mutex serialises rotation.
static LOG_FILE: OnceLock<Mutex<PathBuf>> = OnceLock::new();

/// Where a daemon started in the background logs: `$XDG_STATE_HOME/tuios/daemon.log`, else
/// `~/.local/state/tuios/daemon.log` (beside the saved sessions); `None` without either.
pub fn default_log_path() -> Option<PathBuf> {
    let sessions = crate::paths::sessions_dir()?;
    Some(sessions.parent()?.join("daemon.log"))
}

/// Whether stderr is the systemd journal: `JOURNAL_STREAM` (`DEV:INODE`, set by systemd for a
/// service whose output goes to the journal) names the very file that fd 2 is. A bare
/// `INVOCATION_ID` is not enough: stderr may then be a pipe a caller reads until it closes.
pub fn stderr_is_journal() -> bool {
    let Some(value) = std::env::var_os("JOURNAL_STREAM") else {
        return false;
    };
    let Some((dev, ino)) = value.to_str().and_then(|v| v.split_once(':')) else {
        return false;
    };
    let (Ok(dev), Ok(ino)) = (dev.parse::<u64>(), ino.parse::<u64>()) else {
        return false;
    };
    match rustix::fs::fstat(io::stderr().as_fd()) {
        Ok(st) => st.st_dev == dev && st.st_ino == ino,
        Err(_) => false,
    }
}

/// Send stderr, and so the log, to `path` from now on: its directory is created 0700 if
/// missing, a file over the cap is first moved to `path.1`, and the file is opened for
/// appending, created 0600, never through a symbolic link, and only if it is a regular file of
/// ours. Call before [`init_logging`]; a second call does nothing.
pub fn log_to_file(path: &Path) -> io::Result<()> {
    if LOG_FILE.get().is_some() {
        return Ok(());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.exists() {
            DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|e| {
                    io::Error::new(
                        e.kind(),
                        format!("cannot create the log directory {}: {e}", dir.display()),
                    )
                })?;
        }
    }
    if size_of(path).is_some_and(|s| s > LOG_FILE_CAP) {
        rotate(path)?;
    }
    open_onto_stderr(path)?;
    let _ = LOG_FILE.set(Mutex::new(path.to_path_buf()));
    Ok(())
}

/// Size of the regular file at `path`, without following a symlink; `None` for anything else.
fn size_of(path: &Path) -> Option<u64> {
    let st = rustix::fs::lstat(path).ok()?;
    (FileType::from_raw_mode(st.st_mode) == FileType::RegularFile).then_some(st.st_size as u64)
}

/// `path` becomes `path.1`. rename() replaces a link found at `path.1` itself, never its target.
fn rotate(path: &Path) -> io::Result<()> {
    let mut old = path.as_os_str().to_owned();
    old.push(".1");
    std::fs::rename(path, &old).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot move the log {} aside: {e}", path.display()),
        )
    })
}

fn open_onto_stderr(path: &Path) -> io::Result<()> {
    let fd = rustix::fs::open(
        path,
        OFlags::WRONLY
            | OFlags::CREATE
            | OFlags::APPEND
            | OFlags::NOFOLLOW
            | OFlags::CLOEXEC
            | OFlags::NOCTTY,
        Mode::from_raw_mode(0o600),
    )
    .map_err(|e| {
        let why = if e == rustix::io::Errno::LOOP {
            "it is a symbolic link, which tuios never follows; remove it".to_string()
        } else {
            e.to_string()
        };
        io::Error::new(
            io::Error::from(e).kind(),
            format!("cannot open the log file {}: {why}", path.display()),
        )
    })?;
    let st = rustix::fs::fstat(&fd)?;
    let me = rustix::process::geteuid().as_raw();
    if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile || st.st_uid != me {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "refusing to log to {}: it is not a regular file of yours (uid {me})",
                path.display()
            ),
        ));
    }
    // fd 2 now is the file; `fd` itself closes when dropped.
    rustix::stdio::dup2_stderr(&fd)?;
    Ok(())
}

/// The log's writer when it goes to a file: stderr, moved to a new file first when this line
/// would take the current one past the cap. The size is the file's own (fstat), so lines other
/// daemons append to the same file count too.
struct CappedStderr;

impl Write for CappedStderr {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(lock) = LOG_FILE.get() {
            let path = lock.lock().unwrap_or_else(|p| p.into_inner());
            let size = rustix::fs::fstat(io::stderr().as_fd())
                .map(|st| st.st_size as u64)
                .unwrap_or(0);
            if size > 0 && size + buf.len() as u64 > LOG_FILE_CAP {
                // If the move fails the line still goes to the current file: a log that keeps
                // going past its cap beats one that stops.
                if rotate(&path).is_ok() {
                    let _ = open_onto_stderr(&path);
                }
            }
        }
        io::stderr().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stderr().flush()
    }
}

/// Install a tracing subscriber that writes to stderr (or to the file [`log_to_file`] set up).
/// The filter comes from `level` if given, else `TUIOS_LOG`, else `RUST_LOG`, else `info`;
/// empty values count as unset. A filter that does not parse falls back to `info` with a
/// warning. Calling this again does nothing.
pub fn init_logging(level: Option<&str>) -> Option<actors::LogFilter> {
    let from_env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let wanted = level
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .or_else(|| from_env("TUIOS_LOG"))
        .or_else(|| from_env("RUST_LOG"))
        .unwrap_or_else(|| "info".to_owned());
    let (filter, rejected) = match EnvFilter::try_new(&wanted) {
        Ok(filter) => (filter, None),
        Err(e) => (EnvFilter::new("info"), Some(e)),
    };
    // The writer is part of the reload handle's type: each branch makes its own.
    let (installed, set) = if LOG_FILE.get().is_some() {
        let builder = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(|| CappedStderr)
            .with_ansi(false)
            .with_filter_reloading();
        let handle = builder.reload_handle();
        (builder.try_init().is_ok(), setter(handle))
    } else {
        let builder = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            // Colour codes only help a person at a terminal; the journal would store them raw.
            .with_ansi(std::io::stderr().is_terminal())
            .with_filter_reloading();
        let handle = builder.reload_handle();
        (builder.try_init().is_ok(), setter(handle))
    };
    if let (true, Some(e)) = (installed, rejected) {
        tracing::warn!("log filter `{wanted}` is not valid ({e}); using `info`");
    }
    // Only the subscriber installed here can be reloaded: one set up earlier by the host
    // process is not ours.
    installed.then_some(set)
}

/// The daemon's filter, replaceable while it runs.
fn setter<S: 'static>(handle: tracing_subscriber::reload::Handle<EnvFilter, S>) -> actors::LogFilter
where
    tracing_subscriber::reload::Handle<EnvFilter, S>: Send + Sync,
{
    std::sync::Arc::new(move |directive: &str| {
        let filter = EnvFilter::try_new(directive).map_err(|e| e.to_string())?;
        handle.reload(filter).map_err(|e| e.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_moves_the_file_aside_and_replaces_the_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("daemon.log");
        std::fs::write(&log, b"current").unwrap();
        std::fs::write(dir.path().join("daemon.log.1"), b"older").unwrap();
        rotate(&log).unwrap();
        assert!(!log.exists());
        assert_eq!(
            std::fs::read(dir.path().join("daemon.log.1")).unwrap(),
            b"current"
        );
    }

    #[test]
    fn size_of_does_not_follow_links() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("big");
        std::fs::write(&target, vec![0u8; 10]).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(size_of(&target), Some(10));
        assert_eq!(size_of(&link), None);
        assert_eq!(size_of(&dir.path().join("missing")), None);
    }
}
