//! The daemon under test: the `tuios` binary, the private environment every test gets (socket,
//! HOME, config and state in a temporary directory), and starting and stopping the daemon.

use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::{run_with_deadline, JsonConn, DEADLINE, POLL_INTERVAL};

/// The `tuios` binary under test: `$TUIOS_TEST_BIN` if set, else `target/<profile>/tuios`
/// next to this test executable (which lives in `target/<profile>/deps`).
pub fn tuios_bin() -> PathBuf {
    if let Some(path) = std::env::var_os("TUIOS_TEST_BIN") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("cannot locate the test executable");
    let mut dir = exe
        .parent()
        .expect("test executable has no parent")
        .to_path_buf();
    if dir.ends_with("deps") {
        dir.pop();
    }
    let bin = dir.join("tuios");
    if !bin.is_file() {
        panic!(
            "the tuios binary is missing at {}; build it first with `cargo build -p tuios-client` \
             (or point TUIOS_TEST_BIN at one)",
            bin.display()
        );
    }
    bin
}

/// A private environment for one test: a temporary directory holding the socket, HOME,
/// config and state directories, and the environment every `tuios` process gets.
pub struct TestEnv {
    dir: tempfile::TempDir,
    socket: PathBuf,
}

static LOG_COUNTER: AtomicUsize = AtomicUsize::new(0);

impl Default for TestEnv {
    fn default() -> Self {
        Self::new()
    }
}

impl TestEnv {
    pub fn new() -> Self {
        // A short prefix under /tmp keeps the socket path well below the 108-byte sun_path limit.
        let dir = tempfile::Builder::new()
            .prefix("tuios-it-")
            .tempdir_in("/tmp")
            .expect("cannot create a temporary directory");
        // The client refuses a socket directory others can enter (tempfile makes 0755 ones).
        std::fs::set_permissions(
            dir.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )
        .expect("make the test directory private");
        for sub in ["home", "config", "state"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("create test subdirectory");
        }
        let socket = dir.path().join("tuios.sock");
        TestEnv { dir, socket }
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// `<socket>.pid`, written by the daemon while it runs.
    pub fn pid_file(&self) -> PathBuf {
        PathBuf::from(format!("{}.pid", self.socket.display()))
    }

    /// A `tuios` command with this environment: our socket, HOME and XDG dirs inside the
    /// temporary directory, no XDG_RUNTIME_DIR, `/bin/sh` as the shell, quiet logging, and no
    /// TUIOS_* variables inherited from whoever runs the tests.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(tuios_bin());
        cmd.args(args);
        for (key, _) in std::env::vars_os() {
            let key_str = key.to_string_lossy();
            if key_str.starts_with("TUIOS_") || key_str.starts_with("XDG_") || key_str == "ENV" {
                cmd.env_remove(&key);
            }
        }
        cmd.env("TUIOS_SOCKET", &self.socket)
            .env("HOME", self.dir().join("home"))
            .env("XDG_CONFIG_HOME", self.dir().join("config"))
            .env("XDG_STATE_HOME", self.dir().join("state"))
            .env("SHELL", "/bin/sh")
            .env("TUIOS_LOG", "warn")
            .env("TERM", "xterm-256color")
            .current_dir(self.dir())
            .stdin(Stdio::null());
        cmd
    }

    /// Run `tuios ARGS...` to completion (30 s deadline).
    pub fn cli(&self, args: &[&str]) -> Output {
        run_with_deadline(self.command(args), Duration::from_secs(30))
    }

    /// Spawn `tuios daemon` without waiting for it; its stderr goes to a file in the temp dir.
    pub fn spawn_daemon(&self) -> DaemonProcess {
        self.spawn_daemon_on(&self.socket)
    }

    /// Like `spawn_daemon`, with another socket path.
    pub fn spawn_daemon_on(&self, socket: &Path) -> DaemonProcess {
        self.spawn_daemon_with(socket, &[])
    }

    /// Like `spawn_daemon_on`, with extra environment variables for the daemon.
    pub fn spawn_daemon_with(&self, socket: &Path, vars: &[(&str, String)]) -> DaemonProcess {
        self.spawn_daemon_cmd(self.command(&["daemon"]), socket, vars)
    }

    fn spawn_daemon_cmd(
        &self,
        mut cmd: Command,
        socket: &Path,
        vars: &[(&str, String)],
    ) -> DaemonProcess {
        let n = LOG_COUNTER.fetch_add(1, Ordering::Relaxed);
        let log = self.dir().join(format!("daemon-{n}.stderr"));
        let file = std::fs::File::create(&log).expect("create daemon log");
        cmd.env("TUIOS_SOCKET", socket);
        for (key, value) in vars {
            cmd.env(key, value);
        }
        let child = cmd
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .expect("cannot spawn `tuios daemon`");
        DaemonProcess {
            child: Some(child),
            log,
        }
    }

    /// Wait until something accepts connections on the socket, failing early if `proc` exits.
    pub fn wait_for_socket(&self, proc: &mut DaemonProcess) {
        let deadline = Instant::now() + DEADLINE;
        loop {
            if UnixStream::connect(&self.socket).is_ok() {
                return;
            }
            if let Some(status) = proc.try_wait() {
                // Its stderr is printed when `proc` is dropped during the unwind.
                panic!("`tuios daemon` exited ({status}) before accepting connections");
            }
            if Instant::now() >= deadline {
                panic!(
                    "`tuios daemon` did not accept connections on {} within {DEADLINE:?}",
                    self.socket.display()
                );
            }
            std::thread::sleep(POLL_INTERVAL); // one poll step; the deadline bounds the loop
        }
    }

    /// Start a daemon in this environment and wait until it serves.
    pub fn start_daemon(self) -> TestDaemon {
        self.start_daemon_with(&[])
    }

    /// Like `start_daemon`, with the daemon's descriptor limit (soft and hard) set to `nofile`,
    /// which sets its connection cap.
    pub fn start_daemon_with_nofile(self, nofile: u64) -> TestDaemon {
        use std::os::unix::process::CommandExt;
        let mut cmd = self.command(&["daemon"]);
        let limit = libc::rlimit {
            rlim_cur: nofile,
            rlim_max: nofile,
        };
        // SAFETY: setrlimit is async-signal-safe and touches only the child's own limits.
        unsafe {
            cmd.pre_exec(move || {
                if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            });
        }
        let mut proc = self.spawn_daemon_cmd(cmd, &self.socket, &[]);
        self.wait_for_socket(&mut proc);
        TestDaemon { proc, env: self }
    }

    /// Like `start_daemon`, with extra environment variables for the daemon (PATH, switches).
    pub fn start_daemon_with(self, vars: &[(&str, String)]) -> TestDaemon {
        let mut proc = self.spawn_daemon_with(&self.socket, vars);
        self.wait_for_socket(&mut proc);
        TestDaemon { proc, env: self }
    }
}

/// A `tuios daemon` child process. Dropping it stops it: SIGTERM by pid, then SIGKILL by pid
/// if it has not exited within the deadline. When the test is failing, its stderr is printed.
pub struct DaemonProcess {
    child: Option<Child>,
    log: PathBuf,
}

impl DaemonProcess {
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map(Child::id).unwrap_or(0)
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The exit status if the process has exited (it is reaped then).
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        self.child
            .as_mut()
            .and_then(|c| c.try_wait().expect("try_wait on daemon"))
    }

    /// Wait for the process to exit, up to `timeout`; None if it is still running.
    pub fn wait_timeout(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(POLL_INTERVAL); // one poll step; the deadline bounds the loop
        }
    }

    pub fn signal(&self, sig: libc::c_int) {
        let pid = self.pid();
        if pid != 0 {
            // SAFETY: kill(2) with our own child's pid; the child is not reaped while we hold it.
            unsafe {
                libc::kill(pid as libc::pid_t, sig);
            }
        }
    }

    /// SIGTERM, then wait (deadline) for the exit status.
    pub fn terminate(&mut self) -> ExitStatus {
        if let Some(status) = self.try_wait() {
            return status;
        }
        self.signal(libc::SIGTERM);
        match self.wait_timeout(DEADLINE) {
            Some(status) => status,
            None => panic!(
                "daemon pid {} did not exit within {DEADLINE:?} of SIGTERM",
                self.pid()
            ),
        }
    }
}

impl Drop for DaemonProcess {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "---- daemon (pid {}) stderr ----\n{}---- end of daemon stderr ----",
                self.pid(),
                self.log_text()
            );
        }
        let Some(mut child) = self.child.take() else {
            return;
        };
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        // SAFETY: kill(2) on our own, not yet reaped, child.
        unsafe {
            libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(POLL_INTERVAL); // one poll step; the deadline bounds the loop
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// A running daemon on a private socket.
pub struct TestDaemon {
    // Declared first so the process is stopped before its temporary directory is removed.
    proc: DaemonProcess,
    env: TestEnv,
}

impl TestDaemon {
    /// Start a daemon in a fresh temporary environment and wait until it accepts connections.
    pub fn start() -> TestDaemon {
        TestEnv::new().start_daemon()
    }

    pub fn env(&self) -> &TestEnv {
        &self.env
    }

    pub fn socket(&self) -> &Path {
        self.env.socket()
    }

    pub fn dir(&self) -> &Path {
        self.env.dir()
    }

    pub fn pid(&self) -> u32 {
        self.proc.pid()
    }

    pub fn process(&mut self) -> &mut DaemonProcess {
        &mut self.proc
    }

    pub fn stderr_log(&self) -> String {
        self.proc.log_text()
    }

    /// A new JSON verb-protocol connection.
    pub fn conn(&self) -> JsonConn {
        JsonConn::connect(self.socket())
    }

    /// Run `tuios ARGS...` against this daemon.
    pub fn cli(&self, args: &[&str]) -> Output {
        self.env.cli(args)
    }

    /// Create a detached session through the CLI (`tuios new -d NAME`, binary protocol).
    pub fn new_session(&self, name: &str) -> String {
        let out = self.cli(&["new", "-d", name]);
        assert!(
            out.status.success(),
            "`tuios new -d {name}` failed ({}):\nstdout: {}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        name.to_string()
    }

    /// Create a session and return (name, id of its first window).
    pub fn session_with_window(&self, name: &str) -> (String, String) {
        self.new_session(name);
        let window = self.conn().first_window(name);
        (name.to_string(), window)
    }

    /// SIGTERM the daemon and wait for its exit status.
    pub fn terminate(&mut self) -> ExitStatus {
        self.proc.terminate()
    }
}
