//! Socket directory checks, the start lock and the probe, on real files in a temp directory.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::time::Duration;

use tuios_daemon::{paths, probe, probe_with_timeout, Probe, StartLock};

fn mode(p: &Path) -> u32 {
    fs::metadata(p).unwrap().mode() & 0o7777
}

fn set_mode(p: &Path, m: u32) {
    fs::set_permissions(p, fs::Permissions::from_mode(m)).unwrap();
}

#[test]
fn missing_socket_dir_is_created_private() {
    let tmp = tempfile::tempdir().unwrap();
    let socket = tmp.path().join("a").join("b").join("tuios.sock");
    paths::ensure_socket_dir(&socket).unwrap();
    let dir = socket.parent().unwrap();
    assert!(dir.is_dir());
    assert_eq!(mode(dir), 0o700);
    assert_eq!(mode(&tmp.path().join("a")), 0o700);
    // A second call accepts what the first created.
    paths::ensure_socket_dir(&socket).unwrap();
}

#[test]
fn private_existing_dir_is_accepted() {
    let tmp = tempfile::tempdir().unwrap();
    for m in [0o700, 0o755, 0o750] {
        set_mode(tmp.path(), m);
        paths::ensure_socket_dir(&tmp.path().join("tuios.sock"))
            .unwrap_or_else(|e| panic!("mode {m:o} refused: {e}"));
    }
}

#[test]
fn group_or_world_writable_dir_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let socket = tmp.path().join("tuios.sock");
    for m in [0o770, 0o777, 0o1777, 0o702] {
        set_mode(tmp.path(), m);
        let err = paths::ensure_socket_dir(&socket).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::PermissionDenied, "{m:o}");
        let msg = err.to_string();
        assert!(msg.contains(&format!("{m:04o}")), "{msg}");
        assert!(msg.contains(&tmp.path().display().to_string()), "{msg}");
    }
    set_mode(tmp.path(), 0o700);
}

#[test]
fn dir_owned_by_another_user_is_refused() {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    assert!(
        root,
        "this test gives a directory to another user, which needs root (CI runs as root)"
    );
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("theirs");
    fs::create_dir(&dir).unwrap();
    set_mode(&dir, 0o700);
    std::os::unix::fs::chown(&dir, Some(65534), Some(65534)).unwrap();
    let err = paths::ensure_socket_dir(&dir.join("tuios.sock")).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::PermissionDenied);
    assert!(err.to_string().contains("65534"), "{err}");
}

#[test]
fn socket_dir_that_is_a_file_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("plain");
    fs::write(&file, b"x").unwrap();
    assert!(paths::ensure_socket_dir(&file.join("tuios.sock")).is_err());
}

#[test]
fn probe_absent_stale_running() {
    let tmp = tempfile::tempdir().unwrap();
    let socket = tmp.path().join("tuios.sock");
    assert_eq!(probe(&socket), Probe::Absent);

    let listener = UnixListener::bind(&socket).unwrap();
    // The backlog accepts the connection even though nobody calls accept().
    assert_eq!(probe(&socket), Probe::Running);

    // Dropping a listener leaves its file behind: the classic stale socket.
    drop(listener);
    assert!(socket.exists());
    assert_eq!(probe(&socket), Probe::Stale);
}

#[test]
fn probe_of_a_regular_file_is_stale() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("not-a-socket");
    fs::write(&path, b"hello").unwrap();
    assert_eq!(
        probe_with_timeout(&path, Duration::from_secs(5)),
        Probe::Stale
    );
}

#[test]
fn start_lock_is_exclusive_and_reusable() {
    let tmp = tempfile::tempdir().unwrap();
    let path = paths::lock_path(&tmp.path().join("tuios.sock"));
    let first = StartLock::try_acquire(&path).unwrap().expect("first lock");
    assert_eq!(first.path(), path.as_path());
    assert!(
        StartLock::try_acquire(&path).unwrap().is_none(),
        "a second lock on the same file must fail while the first is held"
    );
    assert_eq!(mode(&path), 0o600);
    drop(first);
    assert!(path.exists(), "the lock file is never deleted");
    let again = StartLock::try_acquire(&path).unwrap();
    assert!(again.is_some(), "the lock is free again once dropped");
}

#[cfg(target_os = "linux")]
#[test]
fn start_lock_fd_is_close_on_exec() {
    let tmp = tempfile::tempdir().unwrap();
    let path = paths::lock_path(&tmp.path().join("tuios.sock"));
    let _lock = StartLock::try_acquire(&path).unwrap().expect("lock");
    let mut found = false;
    for entry in fs::read_dir("/proc/self/fd").unwrap().flatten() {
        let Ok(target) = fs::read_link(entry.path()) else {
            continue;
        };
        if target != path {
            continue;
        }
        let fd: i32 = entry.file_name().to_str().unwrap().parse().unwrap();
        // SAFETY: F_GETFD only reads the descriptor's flags.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
        assert!(flags >= 0);
        assert_ne!(flags & libc::FD_CLOEXEC, 0, "lock fd must be close-on-exec");
        found = true;
    }
    assert!(found, "lock file descriptor not found in /proc/self/fd");
}
