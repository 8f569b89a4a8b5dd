//! The start lock: an exclusive `flock` on `<socket>.lock`, so two racing starts yield one daemon.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

/// A held start lock. The lock is released when this value is dropped (or the process ends);
/// the file itself is never deleted, so every starter always locks the same inode.
#[derive(Debug)]
pub struct StartLock {
    // std opens files with O_CLOEXEC, so shells spawned by the daemon never inherit the lock.
    _file: File,
    path: PathBuf,
}

impl StartLock {
    /// Try to take the lock without waiting. `Ok(None)` means someone else holds it (another
    /// process, or another open of the same file in this one: `flock` locks belong to the open
    /// file description).
    pub fn try_acquire(path: &Path) -> io::Result<Option<StartLock>> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(path)
            .map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot open start lock {}: {e}", path.display()),
                )
            })?;
        loop {
            // SAFETY: the descriptor is valid for as long as `file` lives, and flock only
            // reads its arguments.
            let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if rc == 0 {
                return Ok(Some(StartLock {
                    _file: file,
                    path: path.to_path_buf(),
                }));
            }
            let err = io::Error::last_os_error();
            match err.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EWOULDBLOCK) => return Ok(None),
                _ => {
                    return Err(io::Error::new(
                        err.kind(),
                        format!("cannot lock {}: {err}", path.display()),
                    ))
                }
            }
        }
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
