//! Where the daemon's socket and the files beside it live, and the checks on their directory.

use std::ffi::{OsStr, OsString};
use std::fs::{self, DirBuilder};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The socket path from the environment: `$TUIOS_SOCKET` if set and non-empty (made absolute
/// against the current directory, since panes and clients may run elsewhere); else
/// `$XDG_RUNTIME_DIR/tuios/tuios.sock`; else `/tmp/tuios-$UID/tuios.sock`.
pub fn socket_path() -> PathBuf {
    let path = socket_path_from(
        std::env::var_os("TUIOS_SOCKET").as_deref(),
        std::env::var_os("XDG_RUNTIME_DIR").as_deref(),
        rustix::process::getuid().as_raw(),
    );
    std::path::absolute(&path).unwrap_or(path)
}

/// [`socket_path`] with its inputs passed in. Empty values count as unset, and a relative
/// `XDG_RUNTIME_DIR` is ignored, as the XDG base-directory spec asks.
pub fn socket_path_from(
    tuios_socket: Option<&OsStr>,
    xdg_runtime_dir: Option<&OsStr>,
    uid: u32,
) -> PathBuf {
    if let Some(explicit) = tuios_socket.filter(|s| !s.is_empty()) {
        return PathBuf::from(explicit);
    }
    if let Some(runtime) = xdg_runtime_dir
        .map(Path::new)
        .filter(|p| !p.as_os_str().is_empty() && p.is_absolute())
    {
        return runtime.join("tuios").join("tuios.sock");
    }
    PathBuf::from(format!("/tmp/tuios-{uid}")).join("tuios.sock")
}

/// Where sessions are saved: `$XDG_STATE_HOME/tuios/sessions`, else
/// `$HOME/.local/state/tuios/sessions`; `None` (nothing is saved) when neither is usable.
pub fn sessions_dir() -> Option<PathBuf> {
    sessions_dir_from(
        std::env::var_os("XDG_STATE_HOME").as_deref(),
        std::env::var_os("HOME").as_deref(),
    )
}

/// [`sessions_dir`] with its inputs passed in. Empty or relative values count as unset, as the
/// XDG base-directory spec asks.
pub fn sessions_dir_from(xdg_state_home: Option<&OsStr>, home: Option<&OsStr>) -> Option<PathBuf> {
    let usable = |v: Option<&OsStr>| {
        v.map(Path::new)
            .filter(|p| !p.as_os_str().is_empty() && p.is_absolute())
            .map(Path::to_path_buf)
    };
    let state = usable(xdg_state_home).or_else(|| usable(home).map(|h| h.join(".local/state")))?;
    Some(state.join("tuios").join("sessions"))
}

/// The daemon's pid file: `<socket>.pid`.
pub fn pid_path(socket: &Path) -> PathBuf {
    with_suffix(socket, ".pid")
}

/// The start lock: `<socket>.lock`. Never deleted, so that every starter locks the same inode.
pub fn lock_path(socket: &Path) -> PathBuf {
    with_suffix(socket, ".lock")
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = OsString::from(path.as_os_str());
    s.push(suffix);
    PathBuf::from(s)
}

/// The directory that holds `socket` (`.` for a bare file name).
pub fn socket_dir(socket: &Path) -> &Path {
    match socket.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Make sure the socket's directory exists and is private.
///
/// A missing directory is created with mode 0700 (missing parents too). An existing one is
/// refused when it is owned by another user or writable by group or others: whoever can write
/// there can replace the socket with their own and receive everything a client sends.
pub fn ensure_socket_dir(socket: &Path) -> io::Result<()> {
    let dir = socket_dir(socket);
    match fs::metadata(dir) {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
            // The umask may have taken bits away (0700 & ~umask); the owner needs all three.
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
        }
        Err(e) => {
            return Err(io::Error::new(
                e.kind(),
                format!("cannot inspect socket directory {}: {e}", dir.display()),
            ))
        }
    }
    check_private_dir(dir)
}

/// What to do when the socket's directory cannot be used: put the socket somewhere private.
const MOVE_ADVICE: &str = "set XDG_RUNTIME_DIR (a login session sets it to /run/user/UID) or \
                           point TUIOS_SOCKET at a socket in a directory only you can enter";

/// Refuse `dir` unless it is a directory owned by the effective user and not writable by group
/// or others.
pub fn check_private_dir(dir: &Path) -> io::Result<()> {
    let me = rustix::process::geteuid().as_raw();
    // A symlink as the directory is fine only if we (or root) made it: whoever owns the link
    // can point it elsewhere between this check and the bind.
    let link = fs::symlink_metadata(dir)?;
    if link.file_type().is_symlink() && link.uid() != me && link.uid() != 0 {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "socket directory {} is a symbolic link owned by uid {}, not by you (uid {me}); \
                 its owner could redirect it, so it is not used (remove the link, or choose \
                 another path with TUIOS_SOCKET)",
                dir.display(),
                link.uid()
            ),
        ));
    }
    // Then the directory actually used: what matters is who controls it.
    let meta = fs::metadata(dir)?;
    if !meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("socket directory {} is not a directory", dir.display()),
        ));
    }
    if meta.uid() != me {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "socket directory {} belongs to uid {}, not to you (uid {me}); its owner could \
                 replace the socket, so it is not used ({MOVE_ADVICE})",
                dir.display(),
                meta.uid()
            ),
        ));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        // chmod is the fix only for a directory made for tuios; a shared one (sticky, like
        // /tmp, or named otherwise, like a home directory) must keep its mode.
        let dedicated = mode & 0o1000 == 0
            && dir
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("tuios"));
        let advice = if dedicated {
            format!("run `chmod 700 {}`, or {MOVE_ADVICE}", dir.display())
        } else {
            MOVE_ADVICE.to_string()
        };
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "socket directory {} has mode {mode:04o}: group or others can write to it and \
                 could replace the socket; {advice}",
                dir.display(),
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(s: &str) -> Option<&OsStr> {
        Some(OsStr::new(s))
    }

    #[test]
    fn explicit_socket_wins() {
        assert_eq!(
            socket_path_from(os("/x/y.sock"), os("/run/user/5"), 5),
            PathBuf::from("/x/y.sock")
        );
    }

    #[test]
    fn empty_explicit_socket_is_unset() {
        assert_eq!(
            socket_path_from(os(""), os("/run/user/5"), 5),
            PathBuf::from("/run/user/5/tuios/tuios.sock")
        );
    }

    #[test]
    fn runtime_dir_then_tmp() {
        assert_eq!(
            socket_path_from(None, os("/run/user/1000"), 1000),
            PathBuf::from("/run/user/1000/tuios/tuios.sock")
        );
        assert_eq!(
            socket_path_from(None, None, 1000),
            PathBuf::from("/tmp/tuios-1000/tuios.sock")
        );
        assert_eq!(
            socket_path_from(None, os(""), 42),
            PathBuf::from("/tmp/tuios-42/tuios.sock")
        );
        assert_eq!(
            socket_path_from(None, os("relative/dir"), 42),
            PathBuf::from("/tmp/tuios-42/tuios.sock")
        );
    }

    #[test]
    fn sessions_dir_follows_xdg_state_home() {
        assert_eq!(
            sessions_dir_from(os("/s"), os("/h")),
            Some(PathBuf::from("/s/tuios/sessions"))
        );
        assert_eq!(
            sessions_dir_from(None, os("/h")),
            Some(PathBuf::from("/h/.local/state/tuios/sessions"))
        );
        assert_eq!(
            sessions_dir_from(os("rel"), os("/h")),
            Some(PathBuf::from("/h/.local/state/tuios/sessions"))
        );
        assert_eq!(sessions_dir_from(os(""), None), None);
    }

    #[test]
    fn files_beside_the_socket() {
        let s = Path::new("/run/user/1/tuios/tuios.sock");
        assert_eq!(
            pid_path(s),
            PathBuf::from("/run/user/1/tuios/tuios.sock.pid")
        );
        assert_eq!(
            lock_path(s),
            PathBuf::from("/run/user/1/tuios/tuios.sock.lock")
        );
    }

    #[test]
    fn chmod_is_advised_only_for_a_directory_made_for_tuios() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let own = tmp.path().join("tuios-1");
        let shared = tmp.path().join("shared");
        for dir in [&own, &shared] {
            fs::create_dir(dir).unwrap();
        }
        fs::set_permissions(&own, fs::Permissions::from_mode(0o777)).unwrap();
        // Sticky and world-writable, as /tmp is.
        fs::set_permissions(&shared, fs::Permissions::from_mode(0o1777)).unwrap();
        let own_err = check_private_dir(&own).unwrap_err().to_string();
        assert!(own_err.contains("chmod 700"), "{own_err}");
        let shared_err = check_private_dir(&shared).unwrap_err().to_string();
        assert!(!shared_err.contains("chmod"), "{shared_err}");
        assert!(shared_err.contains("XDG_RUNTIME_DIR"), "{shared_err}");
        assert!(shared_err.contains("TUIOS_SOCKET"), "{shared_err}");
    }

    #[test]
    fn socket_dir_of_bare_name_is_cwd() {
        assert_eq!(socket_dir(Path::new("x.sock")), Path::new("."));
        assert_eq!(socket_dir(Path::new("/a/x.sock")), Path::new("/a"));
    }
}
