//! The start lock: an exclusive `flock` on `<socket>.lock`, so two racing starts yield one daemon.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use rustix::fs::FlockOperation;

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
        // Never through a symlink: see `files`.
        let file = crate::files::open_own_file(path)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot open start lock: {e}")))?;
        loop {
            match rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => {
                    return Ok(Some(StartLock {
                        _file: file,
                        path: path.to_path_buf(),
                    }))
                }
                Err(rustix::io::Errno::INTR) => continue,
                Err(rustix::io::Errno::WOULDBLOCK) => return Ok(None),
                Err(e) => {
                    let err = io::Error::from(e);
                    return Err(io::Error::new(
                        err.kind(),
                        format!("cannot lock {}: {err}", path.display()),
                    ));
                }
            }
        }
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
