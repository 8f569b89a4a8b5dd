//! `daemon::run` as a real process: this test binary re-executes itself with `daemon_child`
//! selected, and that test runs the daemon until a signal ends it.

use std::fs;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::os::unix::net::{UnixDatagram, UnixListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use tuios_daemon::{paths, DaemonOptions};

const CHILD_SOCKET: &str = "TUIOS_DAEMON_TEST_SOCKET";
const CHILD_CONFIG: &str = "TUIOS_DAEMON_TEST_CONFIG";
const DEADLINE: Duration = Duration::from_secs(30);

/// Not a test on its own: does nothing unless started by `spawn_daemon`.
#[test]
fn daemon_child() {
    let Some(socket) = std::env::var_os(CHILD_SOCKET) else {
        return;
    };
    let code = tuios_daemon::run(DaemonOptions {
        socket: Some(PathBuf::from(socket)),
        config: std::env::var_os(CHILD_CONFIG).map(PathBuf::from),
        log_level: Some("debug".into()),
        handover_versions: false,
    });
    std::process::exit(code);
}

struct Fixture {
    dir: tempfile::TempDir,
    socket: PathBuf,
    config: PathBuf,
}

impl Fixture {
    fn new(config: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("run").join("tuios.sock");
        let config_path = dir.path().join("config.toml");
        fs::write(&config_path, config).unwrap();
        Fixture {
            dir,
            socket,
            config: config_path,
        }
    }

    fn notify_socket(&self) -> (UnixDatagram, PathBuf) {
        let path = self.dir.path().join("notify.sock");
        let sock = UnixDatagram::bind(&path).unwrap();
        sock.set_read_timeout(Some(DEADLINE)).unwrap();
        (sock, path)
    }

    fn spawn(&self, notify: Option<&Path>) -> Child {
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.args(["--exact", "daemon_child", "--nocapture", "--test-threads=1"])
            .env(CHILD_SOCKET, &self.socket)
            .env(CHILD_CONFIG, &self.config)
            // Keep the runner's environment from leaking into the daemon's configuration.
            .env_remove("TUIOS_LOG_LEVEL")
            .env_remove("TUIOS_SCROLLBACK_LINES")
            .env_remove("TUIOS_SHELL")
            .env_remove("NOTIFY_SOCKET")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(n) = notify {
            cmd.env("NOTIFY_SOCKET", n);
        }
        cmd.spawn().unwrap()
    }
}

fn wait_ready(notify: &UnixDatagram) {
    let mut buf = [0u8; 4096];
    let n = notify
        .recv(&mut buf)
        .expect("no readiness notification in time");
    let msg = String::from_utf8_lossy(&buf[..n]);
    assert!(msg.lines().any(|l| l == "READY=1"), "{msg}");
    assert!(msg.contains("STATUS="), "{msg}");
}

fn wait_exit(child: &mut Child) -> (ExitStatus, String) {
    let deadline = Instant::now() + DEADLINE;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("daemon did not exit in time");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        e.read_to_string(&mut stderr).unwrap();
    }
    (status, stderr)
}

fn send_signal(child: &Child, sig: i32) {
    // SAFETY: kill only sends a signal to our own child.
    let rc = unsafe { libc::kill(child.id() as i32, sig) };
    assert_eq!(rc, 0);
}

fn mode(p: &Path) -> u32 {
    fs::metadata(p).unwrap().mode() & 0o7777
}

#[test]
fn start_serve_refuse_second_and_stop_cleanly() {
    let fx = Fixture::new("[daemon]\nscrollback_lines = 123\n\n[client]\nanything = 1\n");
    let (notify, notify_path) = fx.notify_socket();
    let mut first = fx.spawn(Some(&notify_path));
    wait_ready(&notify);

    let dir = fx.socket.parent().unwrap();
    assert_eq!(mode(dir), 0o700);
    let meta = fs::symlink_metadata(&fx.socket).unwrap();
    assert!(meta.file_type().is_socket());
    assert_eq!(mode(&fx.socket), 0o600);
    let pid_file = paths::pid_path(&fx.socket);
    assert_eq!(
        fs::read_to_string(&pid_file).unwrap().trim(),
        first.id().to_string()
    );
    assert_eq!(mode(&pid_file), 0o600);
    let lock_file = paths::lock_path(&fx.socket);
    assert!(lock_file.exists());

    // A second start on the same socket loses the lock and says so.
    let mut second = fx.spawn(None);
    let (status, stderr) = wait_exit(&mut second);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("already starting or running"), "{stderr}");
    assert!(fx.socket.exists(), "the loser must not touch the socket");

    // SIGHUP is not fatal; SIGTERM then stops the daemon with status 0.
    send_signal(&first, libc::SIGHUP);
    send_signal(&first, libc::SIGTERM);
    let (status, stderr) = wait_exit(&mut first);
    assert_eq!(status.code(), Some(0), "{status:?} {stderr}");
    assert!(!fx.socket.exists(), "socket removed on shutdown");
    assert!(!pid_file.exists(), "pid file removed on shutdown");
    assert!(lock_file.exists(), "lock file is never removed");
}

#[test]
fn stale_socket_is_replaced_and_sigint_stops() {
    let fx = Fixture::new("");
    fs::create_dir(fx.socket.parent().unwrap()).unwrap();
    drop(UnixListener::bind(&fx.socket).unwrap());
    assert!(fx.socket.exists());

    let (notify, notify_path) = fx.notify_socket();
    let mut child = fx.spawn(Some(&notify_path));
    wait_ready(&notify);
    assert_eq!(
        fs::read_to_string(paths::pid_path(&fx.socket))
            .unwrap()
            .trim(),
        child.id().to_string()
    );
    send_signal(&child, libc::SIGINT);
    let (status, stderr) = wait_exit(&mut child);
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("removed stale socket"), "{stderr}");
    assert!(!fx.socket.exists());
}

#[test]
fn live_foreign_listener_means_already_running() {
    let fx = Fixture::new("");
    fs::create_dir(fx.socket.parent().unwrap()).unwrap();
    let _listener = UnixListener::bind(&fx.socket).unwrap();
    let mut child = fx.spawn(None);
    let (status, stderr) = wait_exit(&mut child);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("already running"), "{stderr}");
    assert!(fx.socket.exists(), "a live socket is never removed");
}

#[test]
fn a_file_that_is_not_a_socket_is_left_alone() {
    let fx = Fixture::new("");
    fs::create_dir(fx.socket.parent().unwrap()).unwrap();
    fs::write(&fx.socket, b"precious").unwrap();
    let mut child = fx.spawn(None);
    let (status, stderr) = wait_exit(&mut child);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("not a socket"), "{stderr}");
    assert_eq!(fs::read(&fx.socket).unwrap(), b"precious");
}

#[test]
fn bad_configuration_exits_2_naming_the_key() {
    let fx = Fixture::new("[daemon]\nscrolback_lines = 5\n");
    let mut child = fx.spawn(None);
    let (status, stderr) = wait_exit(&mut child);
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("scrolback_lines"), "{stderr}");
    assert!(stderr.contains("scrollback_lines"), "{stderr}");
    assert!(!fx.socket.exists());
}

#[test]
fn unsafe_socket_dir_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let fx = Fixture::new("");
    let dir = fx.socket.parent().unwrap();
    fs::create_dir(dir).unwrap();
    fs::set_permissions(dir, fs::Permissions::from_mode(0o777)).unwrap();
    let mut child = fx.spawn(None);
    let (status, stderr) = wait_exit(&mut child);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("0777"), "{stderr}");
    assert!(!fx.socket.exists());
}
