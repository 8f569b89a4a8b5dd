//! Is the socket really our daemon's? Checked before a single byte is sent.
//!
//! A client sends keystrokes, pastes and `send-text` payloads. If another local user could put
//! a socket where the client looks (a shared /tmp when XDG_RUNTIME_DIR is unset), they would
//! receive all of it. So the socket's directory must belong to us with no access for group or
//! others, and the process at the other end must run as our uid (SO_PEERCRED).

use std::os::unix::fs::MetadataExt;
use std::os::unix::net::UnixStream;
use std::path::Path;

use crate::failure::Failure;
use crate::output::shell_quote;

/// Checks the socket's directory. A directory that does not exist is fine here: there is no
/// daemon then, and connecting says so.
pub fn check_socket_dir(socket: &Path) -> Result<(), Failure> {
    let dir = daemon::paths::socket_dir(socket);
    let me = rustix::process::geteuid().as_raw();
    let link = match std::fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(Failure::msg(format!(
                "cannot inspect the socket directory {}: {e}",
                dir.display()
            )))
        }
    };
    if link.file_type().is_symlink() && link.uid() != me && link.uid() != 0 {
        return Err(refusal(
            socket,
            format!(
                "its directory {} is a symbolic link owned by uid {}, not by you (uid {me})",
                dir.display(),
                link.uid()
            ),
            Advice::Elsewhere,
        ));
    }
    let meta = match std::fs::metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(Failure::msg(format!(
                "cannot inspect the socket directory {}: {e}",
                dir.display()
            )))
        }
    };
    if !meta.is_dir() {
        return Err(refusal(
            socket,
            format!("{} is not a directory", dir.display()),
            Advice::Elsewhere,
        ));
    }
    if meta.uid() != me {
        return Err(refusal(
            socket,
            format!(
                "its directory {} belongs to uid {}, not to you (uid {me})",
                dir.display(),
                meta.uid()
            ),
            Advice::Foreign,
        ));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o077 != 0 {
        // chmod is the fix only for a directory that exists for tuios; a shared one such as
        // /tmp or a home directory must keep its mode, and the socket should move instead.
        let dedicated = mode & 0o1000 == 0
            && dir
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("tuios"));
        return Err(refusal(
            socket,
            format!(
                "its directory {} has mode {mode:04o}: group or others have access to it",
                dir.display()
            ),
            if dedicated {
                Advice::Chmod
            } else {
                Advice::Elsewhere
            },
        ));
    }
    Ok(())
}

/// Checks that the process listening on the other end runs as our uid.
pub fn check_peer(stream: &UnixStream, socket: &Path) -> Result<(), Failure> {
    let me = rustix::process::geteuid().as_raw();
    let cred = rustix::net::sockopt::socket_peercred(stream).map_err(|e| {
        Failure::msg(format!(
            "cannot tell who listens on {}: {e}; not sending anything to it",
            socket.display()
        ))
    })?;
    let peer = cred.uid.as_raw();
    if peer != me {
        return Err(refusal(
            socket,
            format!(
                "the process listening on it (pid {}) runs as uid {peer}, not as you (uid {me})",
                cred.pid.as_raw_nonzero()
            ),
            Advice::Foreign,
        ));
    }
    Ok(())
}

enum Advice {
    /// The directory is ours and made for tuios: close it.
    Chmod,
    /// Someone else's directory or socket: do not use it at all.
    Foreign,
    /// A shared or odd location: put the socket somewhere private.
    Elsewhere,
}

fn refusal(socket: &Path, found: String, advice: Advice) -> Failure {
    let dir = daemon::paths::socket_dir(socket);
    let private =
        "mkdir -m 700 \"$HOME/.tuios\" && export TUIOS_SOCKET=\"$HOME/.tuios/tuios.sock\"";
    let elsewhere = format!("use a socket in a directory only you can enter: {private}");
    let mut hints = Vec::new();
    match advice {
        Advice::Chmod => {
            hints.push(format!(
                "if you made {} for tuios, close it to others: chmod 700 {}",
                dir.display(),
                shell_quote(&dir.to_string_lossy())
            ));
            hints.push(format!("or {elsewhere}"));
        }
        Advice::Foreign => {
            hints.push(
                "someone else may be waiting for what you type there; do not use it".to_owned(),
            );
            hints.push(elsewhere);
        }
        Advice::Elsewhere => hints.push(elsewhere),
    }
    hints.push(
        "with XDG_RUNTIME_DIR set (a login session sets it to /run/user/UID), tuios uses a private directory in it".to_owned(),
    );
    Failure::with_hints(
        format!(
            "refusing to use the tuios socket {}: {found}",
            socket.display()
        ),
        hints,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn text(f: Failure) -> String {
        f.lines().join("\n")
    }

    #[test]
    fn private_dir_passes_open_dir_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let socket = tmp.path().join("tuios.sock");
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        check_socket_dir(&socket).unwrap();
        for mode in [0o755, 0o750, 0o701, 0o1777] {
            std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(mode)).unwrap();
            let msg = text(check_socket_dir(&socket).unwrap_err());
            assert!(msg.contains(&format!("{mode:04o}")), "{msg}");
            // A temp directory is not tuios's own: never advise opening or closing it.
            assert!(!msg.contains("chmod"), "{msg}");
        }
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        // Missing: nothing to check, connecting reports no daemon.
        check_socket_dir(&tmp.path().join("missing").join("tuios.sock")).unwrap();
    }

    #[test]
    fn a_dedicated_dir_gets_chmod_advice() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("tuios-7");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let msg = text(check_socket_dir(&dir.join("tuios.sock")).unwrap_err());
        assert!(msg.contains("chmod 700"), "{msg}");
        assert!(!msg.contains("chmod 700 /tmp\n"), "{msg}");
    }

    #[test]
    fn our_own_peer_passes() {
        let tmp = tempfile::tempdir().unwrap();
        let socket = tmp.path().join("s");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let stream = UnixStream::connect(&socket).unwrap();
        check_peer(&stream, &socket).unwrap();
    }
}
