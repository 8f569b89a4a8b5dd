//! Opening the daemon's own files (start lock, pid file) without following symbolic links.
//!
//! The files live beside the socket, in a directory that only its owner may write to; still, a
//! symlink found at one of these paths was put there by someone, and following it would let
//! that someone point the daemon's writes (as its user, possibly root) at any file. So a symlink
//! is refused, never followed, and a file that is not a regular file of ours is refused too.

use std::fs::File;
use std::io;
use std::path::Path;

use rustix::fs::{FileType, Mode, OFlags};

/// Why an existing path cannot be used, in the daemon's words.
fn refused(path: &Path, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "refusing to use {}: {why}; remove it (it is not something tuios creates) and start \
             the daemon again",
            path.display()
        ),
    )
}

/// Opens `path` for reading and writing, creating it with mode 0600 if missing, without
/// following a symlink at it; the opened file must be a regular file owned by the effective user.
pub fn open_own_file(path: &Path) -> io::Result<File> {
    let fd = rustix::fs::open(
        path,
        OFlags::RDWR | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NOCTTY,
        Mode::from_raw_mode(0o600),
    )
    .map_err(|e| match e {
        // O_NOFOLLOW reports a symlink as ELOOP.
        rustix::io::Errno::LOOP => refused(path, "it is a symbolic link"),
        e => io::Error::new(
            io::Error::from(e).kind(),
            format!("cannot open {}: {e}", path.display()),
        ),
    })?;
    check_own_regular(path, &fd)?;
    Ok(File::from(fd))
}

/// Creates `path` anew (O_EXCL: never an existing file, never through a symlink) with mode 0600.
pub fn create_new_file(path: &Path) -> io::Result<File> {
    let fd = rustix::fs::open(
        path,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    )
    .map_err(|e| {
        io::Error::new(
            io::Error::from(e).kind(),
            format!("cannot create {}: {e}", path.display()),
        )
    })?;
    Ok(File::from(fd))
}

/// Refuses a symlink (or anything but a regular file) at `path`; a missing path is fine.
pub fn refuse_symlink(path: &Path) -> io::Result<()> {
    match rustix::fs::lstat(path) {
        Ok(st) => {
            let ty = FileType::from_raw_mode(st.st_mode);
            if ty == FileType::Symlink {
                return Err(refused(path, "it is a symbolic link"));
            }
            if ty != FileType::RegularFile {
                return Err(refused(path, "it is not a regular file"));
            }
            Ok(())
        }
        Err(rustix::io::Errno::NOENT) => Ok(()),
        Err(e) => Err(io::Error::new(
            io::Error::from(e).kind(),
            format!("cannot inspect {}: {e}", path.display()),
        )),
    }
}

fn check_own_regular(path: &Path, fd: &impl rustix::fd::AsFd) -> io::Result<()> {
    let st = rustix::fs::fstat(fd).map_err(io::Error::from)?;
    if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
        return Err(refused(path, "it is not a regular file"));
    }
    let me = rustix::process::geteuid().as_raw();
    if st.st_uid != me {
        return Err(refused(
            path,
            &format!("it belongs to uid {}, not to you (uid {me})", st.st_uid),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symlinks_are_refused_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("target");
        std::fs::write(&target, b"precious").unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();

        let err = open_own_file(&link).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert!(create_new_file(&link).is_err());
        assert!(refuse_symlink(&link).is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"precious");

        // A dangling symlink is not followed into creating its target either.
        let dangling = tmp.path().join("dangling");
        std::os::unix::fs::symlink(tmp.path().join("nowhere"), &dangling).unwrap();
        assert!(open_own_file(&dangling).is_err());
        assert!(create_new_file(&dangling).is_err());
        assert!(!tmp.path().join("nowhere").exists());
    }

    #[test]
    fn regular_files_are_fine() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("f");
        open_own_file(&p).unwrap();
        open_own_file(&p).unwrap();
        refuse_symlink(&p).unwrap();
        refuse_symlink(&tmp.path().join("missing")).unwrap();
        assert!(
            create_new_file(&p).is_err(),
            "O_EXCL refuses an existing file"
        );
        let dir = tmp.path().join("d");
        std::fs::create_dir(&dir).unwrap();
        assert!(open_own_file(&dir).is_err());
        assert!(refuse_symlink(&dir).is_err());
    }
}
