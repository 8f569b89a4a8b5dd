//! `tuios attach` where it cannot attach: no daemon, no terminal. Attaching for real, in tmux,
//! is tested end to end in integration-tests/tests/attach.rs.

mod common;

use common::{tuios, DaemonGuard};

#[test]
fn attach_without_a_daemon_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let socket = dir.path().join("tuios.sock");
    let out = tuios(&socket, &["attach", "w"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no tuios daemon is running"), "{stderr}");
    assert!(!socket.exists(), "attach must not start a daemon");
}

#[test]
fn attach_without_a_terminal_says_so() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let socket = dir.path().join("tuios.sock");
    let _daemon = DaemonGuard(socket.clone());
    let out = tuios(&socket, &["new", "-d", "w"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = tuios(&socket, &["attach", "w"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("needs a terminal"),
        "{out:?}"
    );
    // `new` without --detach and without a terminal creates the session and says why it
    // does not attach.
    let out = tuios(&socket, &["new", "second"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("created session second"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not attaching"));
}
