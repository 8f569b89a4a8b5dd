//! Harness for the end-to-end tests: runs the real `tuios` binary on a private socket in a
//! temporary directory and talks to it over the wire, exactly as a script would.
//!
//! Every test starts its own daemon, so tests are independent and can run in parallel
//! (nextest or `cargo test`). Nothing here sleeps to wait for something: waits poll a
//! condition with a deadline.

use serde_json::{json, Map, Value};
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Default deadline for anything the daemon should do "soon". Generous, because the tests
/// run on a loaded 2-core machine; a correct daemon finishes far sooner.
pub const DEADLINE: Duration = Duration::from_secs(20);
/// How long one response line may take before the test fails.
pub const READ_TIMEOUT: Duration = Duration::from_secs(20);
/// Pause between two probes of a polled condition.
pub const POLL_INTERVAL: Duration = Duration::from_millis(20);

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

/// Poll `probe` until it yields a value or `timeout` passes (then panic naming `what`).
pub fn wait_until<T>(timeout: Duration, what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
    poll(timeout, what, || probe().ok_or_else(String::new))
}

/// Poll `probe` until it yields `Ok` or `timeout` passes; then panic naming `what` and the
/// last `Err`, which says what was seen instead.
pub fn poll<T>(timeout: Duration, what: &str, mut probe: impl FnMut() -> Result<T, String>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        let seen = match probe() {
            Ok(value) => return value,
            Err(seen) => seen,
        };
        if Instant::now() >= deadline {
            if seen.is_empty() {
                panic!("timed out after {timeout:?} waiting for {what}");
            }
            panic!("timed out after {timeout:?} waiting for {what}; {seen}");
        }
        std::thread::sleep(POLL_INTERVAL); // one poll step; the deadline bounds the loop
    }
}

/// A command's status and both outputs, for assertion messages.
pub fn describe(out: &Output) -> String {
    format!(
        "status {}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Run a command to completion with a deadline, capturing stdout and stderr.
/// A command still running at the deadline is killed and the test fails.
pub fn run_with_deadline(mut cmd: Command, timeout: Duration) -> Output {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let described = format!("{cmd:?}");
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {described}: {e}"));
    // Drain both pipes on threads so a chatty child never blocks on a full pipe.
    let mut out_pipe = child.stdout.take().expect("stdout piped");
    let mut err_pipe = child.stderr.take().expect("stderr piped");
    let out_thread = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out_pipe.read_to_end(&mut buf);
        buf
    });
    let err_thread = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err_pipe.read_to_end(&mut buf);
        buf
    });
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait().expect("try_wait") {
            Some(status) => break status,
            None if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{described} did not finish within {timeout:?}");
            }
            None => std::thread::sleep(POLL_INTERVAL), // one poll step inside the deadline
        }
    };
    Output {
        status,
        stdout: out_thread.join().unwrap_or_default(),
        stderr: err_thread.join().unwrap_or_default(),
    }
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
        let n = LOG_COUNTER.fetch_add(1, Ordering::Relaxed);
        let log = self.dir().join(format!("daemon-{n}.stderr"));
        let file = std::fs::File::create(&log).expect("create daemon log");
        let mut cmd = self.command(&["daemon"]);
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

/// A client of the JSON verb protocol: one request line out, one response line back.
pub struct JsonConn {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    next_id: u64,
}

/// Build a params object from pairs, leaving out nulls and empty strings (both mean "omit").
pub fn params(pairs: &[(&str, Value)]) -> Value {
    let mut map = Map::new();
    for (key, value) in pairs {
        let skip = value.is_null() || value.as_str().is_some_and(str::is_empty);
        if !skip {
            map.insert((*key).to_string(), value.clone());
        }
    }
    Value::Object(map)
}

impl JsonConn {
    pub fn connect(socket: &Path) -> JsonConn {
        let stream = UnixStream::connect(socket)
            .unwrap_or_else(|e| panic!("cannot connect to {}: {e}", socket.display()));
        stream
            .set_read_timeout(Some(READ_TIMEOUT))
            .expect("set_read_timeout");
        let writer = stream.try_clone().expect("clone stream");
        JsonConn {
            reader: BufReader::new(stream),
            writer,
            next_id: 1,
        }
    }

    /// Change how long one response may take (e.g. for a 2 MiB write).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.writer
            .set_read_timeout(Some(timeout))
            .expect("set_read_timeout");
    }

    pub fn stream(&self) -> &UnixStream {
        &self.writer
    }

    /// Write `line` followed by a newline.
    pub fn send_line(&mut self, line: &str) {
        let mut buf = Vec::with_capacity(line.len() + 1);
        buf.extend_from_slice(line.as_bytes());
        buf.push(b'\n');
        self.send_raw(&buf);
    }

    /// Write raw bytes as they are.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.writer
            .write_all(bytes)
            .and_then(|()| self.writer.flush())
            .unwrap_or_else(|e| panic!("write to daemon failed: {e}"));
    }

    /// Close our writing half: the daemon sees end of input.
    pub fn shutdown_write(&self) {
        let _ = self.writer.shutdown(std::net::Shutdown::Write);
    }

    /// The next raw line without its newline, or None at end of stream.
    /// Panics when nothing arrives within the read timeout.
    pub fn read_raw_line(&mut self) -> Option<String> {
        let mut buf = Vec::new();
        match self.reader.read_until(b'\n', &mut buf) {
            Ok(0) => None,
            Ok(_) => {
                if buf.last() == Some(&b'\n') {
                    buf.pop();
                }
                Some(String::from_utf8(buf).expect("response is not UTF-8"))
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                panic!(
                    "no response line from the daemon within the read timeout (partial: {:?})",
                    String::from_utf8_lossy(&buf)
                )
            }
            Err(e) if e.kind() == ErrorKind::ConnectionReset => None,
            Err(e) => panic!("read from daemon failed: {e}"),
        }
    }

    /// The next line, parsed as JSON. Panics at end of stream.
    pub fn read_line(&mut self) -> Value {
        let line = self
            .read_raw_line()
            .expect("the daemon closed the connection instead of answering");
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("response is not JSON ({e}): {line:?}"))
    }

    /// Send a request with a fresh numeric id and return the whole response
    /// (checked to echo the id). `params` of Null is left out of the request.
    pub fn call(&mut self, verb: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut req = json!({ "id": id, "verb": verb });
        if !params.is_null() {
            req["params"] = params;
        }
        self.send_line(&req.to_string());
        let resp = self.read_line();
        assert_eq!(
            resp.get("id"),
            Some(&json!(id)),
            "response does not echo the request id: {resp}"
        );
        resp
    }

    /// Send a request with a fresh string id without reading its answer; returns the id, for
    /// `read_response`. Lets a test have a request in flight (a wait) or read past events.
    pub fn send_request(&mut self, verb: &str, params: Value) -> String {
        let id = format!("req-{}", self.next_id);
        self.next_id += 1;
        let mut req = json!({ "id": id, "verb": verb });
        if !params.is_null() {
            req["params"] = params;
        }
        self.send_line(&req.to_string());
        id
    }

    /// Read up to the response to request `id`; returns it and the event lines that came
    /// before it (on a subscribed connection). Any other line fails the test.
    pub fn read_response(&mut self, id: &str) -> (Value, Vec<Value>) {
        let mut events = Vec::new();
        loop {
            let line = self.read_line();
            if line.get("id") == Some(&json!(id)) {
                return (line, events);
            }
            assert!(
                is_event(&line),
                "a line that is neither the response to {id} nor an event: {line}"
            );
            events.push(line);
        }
    }

    /// Subscribe this connection to events; returns the `seq` of the acknowledgement.
    pub fn subscribe(&mut self, params: Value) -> u64 {
        let ack = self.ok("subscribe", params);
        assert_eq!(ack["type"], "subscribed", "{ack}");
        ack["seq"]
            .as_u64()
            .unwrap_or_else(|| panic!("subscribed without a seq: {ack}"))
    }

    /// send-text to `window` of `session` (the focused window when `window` is empty).
    pub fn send_text(&mut self, session: &str, window: &str, text: &str) {
        self.send_input("send-text", session, window, "text", text);
    }

    /// send-keys to `window` of `session` (the focused window when `window` is empty).
    pub fn send_keys(&mut self, session: &str, window: &str, keys: &str) {
        self.send_input("send-keys", session, window, "keys", keys);
    }

    fn send_input(&mut self, verb: &str, session: &str, window: &str, key: &str, input: &str) {
        let mut p = json!({ "session": session, key: input });
        if !window.is_empty() {
            p["window"] = json!(window);
        }
        let result = self.ok(verb, p);
        assert_eq!(result["type"], "ok", "{verb}: {result}");
    }

    /// The `list-windows` row of `window`; the test fails when it is not listed.
    /// Waits until `program` holds the window's foreground (as the agent detector reads it).
    pub fn wait_foreground(&mut self, session: &str, window: &str, program: &str) {
        poll(DEADLINE, &format!("{program} in the foreground"), || {
            let d = self.ok(
                "explain-agent-detect",
                json!({"session": session, "window": window}),
            );
            if d["process"].to_string().contains(program) {
                Ok(())
            } else {
                Err(d.to_string())
            }
        });
    }

    pub fn window_row(&mut self, session: &str, window: &str) -> Value {
        let list = self.ok("list-windows", json!({ "session": session }));
        list["windows"]
            .as_array()
            .and_then(|rows| rows.iter().find(|w| w["window_id"] == window))
            .cloned()
            .unwrap_or_else(|| panic!("window {window} is not listed: {list}"))
    }

    /// The result of a call that must succeed.
    pub fn ok(&mut self, verb: &str, params: Value) -> Value {
        let resp = self.call(verb, params.clone());
        match resp.get("result") {
            Some(result) if resp.get("error").is_none() => {
                assert!(
                    result.get("type").and_then(Value::as_str).is_some(),
                    "result has no type discriminator: {resp}"
                );
                result.clone()
            }
            _ => panic!("{verb} {params} failed: {resp}"),
        }
    }

    /// The error object of a call that must fail.
    pub fn err(&mut self, verb: &str, params: Value) -> Value {
        let resp = self.call(verb, params.clone());
        match resp.get("error") {
            Some(error) if resp.get("result").is_none() => {
                assert!(
                    error.get("code").and_then(Value::as_str).is_some(),
                    "error has no code: {resp}"
                );
                assert!(
                    error.get("message").and_then(Value::as_str).is_some(),
                    "error has no message: {resp}"
                );
                error.clone()
            }
            _ => panic!("{verb} {params} was expected to fail but answered: {resp}"),
        }
    }

    /// The error object of a call that must fail with `code`.
    pub fn err_code(&mut self, verb: &str, params: Value, code: &str) -> Value {
        let error = self.err(verb, params.clone());
        assert_eq!(
            error["code"], code,
            "{verb} {params}: expected error code {code}, got {error}"
        );
        error
    }

    /// Window ids of a session, in `list-windows` order.
    pub fn window_ids(&mut self, session: &str) -> Vec<String> {
        let list = self.ok("list-windows", json!({ "session": session }));
        list["windows"]
            .as_array()
            .unwrap_or_else(|| panic!("list-windows has no windows array: {list}"))
            .iter()
            .map(|w| {
                w["window_id"]
                    .as_str()
                    .unwrap_or_else(|| panic!("window row without window_id: {w}"))
                    .to_string()
            })
            .collect()
    }

    /// The id of the first window of a session (a `tuios new -d` session starts with one).
    pub fn first_window(&mut self, session: &str) -> String {
        let ids = self.window_ids(session);
        ids.into_iter()
            .next()
            .unwrap_or_else(|| panic!("session {session} has no windows"))
    }

    /// Create a window and return its `window_created` result.
    pub fn new_window(&mut self, session: &str, extra: Value) -> Value {
        let mut p = json!({ "session": session });
        if let Value::Object(map) = extra {
            for (k, v) in map {
                p[k] = v;
            }
        }
        let result = self.ok("new-window", p);
        assert_eq!(result["type"], "window_created", "{result}");
        result
    }

    /// Create a window and return its id.
    pub fn new_window_id(&mut self, session: &str, extra: Value) -> String {
        let result = self.new_window(session, extra);
        result["window_id"]
            .as_str()
            .unwrap_or_else(|| panic!("window_created without window_id: {result}"))
            .to_string()
    }

    /// capture-pane with extra params (`source`, `styled`, `lines`, ...); returns `content`.
    pub fn capture(&mut self, session: &str, window: &str, extra: Value) -> String {
        let result = self.capture_result(session, window, extra);
        result["content"]
            .as_str()
            .unwrap_or_else(|| panic!("pane_content without content: {result}"))
            .to_string()
    }

    /// capture-pane returning the whole `pane_content` result.
    pub fn capture_result(&mut self, session: &str, window: &str, extra: Value) -> Value {
        let mut p = params(&[("session", json!(session)), ("window", json!(window))]);
        if let Value::Object(map) = extra {
            for (k, v) in map {
                p[k] = v;
            }
        }
        let result = self.ok("capture-pane", p);
        assert_eq!(result["type"], "pane_content", "{result}");
        result
    }

    /// Poll capture-pane (scrollback + screen) until `accept` returns Some for its content.
    /// Panics at the deadline with the last capture.
    pub fn wait_for_capture<T>(
        &mut self,
        session: &str,
        window: &str,
        what: &str,
        timeout: Duration,
        mut accept: impl FnMut(&str) -> Option<T>,
    ) -> T {
        let p = params(&[
            ("session", json!(session)),
            ("window", json!(window)),
            ("source", json!("recent")),
        ]);
        let what = format!("{what} in window {window:?} of {session:?}");
        poll(timeout, &what, || {
            let resp = self.call("capture-pane", p.clone());
            let content = resp["result"]["content"].as_str();
            match content.and_then(&mut accept) {
                Some(value) => Ok(value),
                None => Err(format!(
                    "last capture:\n{}",
                    content.map_or_else(|| resp.to_string(), str::to_string)
                )),
            }
        })
    }

    /// Poll until the pane's text (scrollback + screen) contains `needle`; returns the capture.
    pub fn wait_for_text(&mut self, session: &str, window: &str, needle: &str) -> String {
        self.wait_for_capture(session, window, &format!("{needle:?}"), DEADLINE, |c| {
            c.contains(needle).then(|| c.to_string())
        })
    }

    /// Poll until some line of the pane, with surrounding blanks trimmed, equals `line`.
    /// Suits command windows. In a shell window, output typed ahead can share a line with
    /// the prompt: there, have the shell compute the marker (`echo v-$((1+1))`) and wait
    /// for its result with `wait_for_text`, which the echoed command line cannot contain.
    pub fn wait_for_line(&mut self, session: &str, window: &str, line: &str) -> String {
        self.wait_for_capture(
            session,
            window,
            &format!("a line {line:?}"),
            DEADLINE,
            |c| c.lines().any(|l| l.trim() == line).then(|| c.to_string()),
        )
    }
}

/// A line the daemon wrote on its own, an event: a type, and no request id, result or error.
pub fn is_event(line: &Value) -> bool {
    line.get("id").is_none()
        && line.get("result").is_none()
        && line.get("error").is_none()
        && line["type"].is_string()
}

/// `tuios paste-check` on `paste` (through a file), as for a window with or without bracketed
/// paste; its JSON report.
pub fn paste_check(env: &TestEnv, paste: &[u8], bracketed: bool) -> Value {
    static N: AtomicUsize = AtomicUsize::new(0);
    let file = env
        .dir()
        .join(format!("paste-{}.bin", N.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&file, paste).expect("write the paste file");
    let path = file.to_str().expect("temporary paths are UTF-8");
    let mut args = vec!["paste-check", path];
    if bracketed {
        args.push("--bracketed");
    }
    let out = env.cli(&args);
    assert!(
        out.status.success(),
        "paste-check {paste:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "paste-check {paste:?} printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// The bytes of a paste-check field, undoing its `\xNN` escapes. Anything else than printable
/// ASCII and those escapes fails the test: the report escapes every other byte.
pub fn unescape(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = s.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b == b'\\' {
            assert!(
                tail.len() >= 3 && tail[0] == b'x',
                "only \\xNN escapes in {s:?}"
            );
            let hex = std::str::from_utf8(&tail[1..3]).expect("hex digits");
            out.push(u8::from_str_radix(hex, 16).expect("hex digits"));
            rest = &tail[3..];
        } else {
            assert!((0x20..0x7f).contains(&b), "raw byte {b:#x} in {s:?}");
            out.push(b);
            rest = tail;
        }
    }
    out
}

/// Verbs the daemon adds to the spec's, each marked as an extension in its description.
pub const EXTENSION_VERBS: [&str; 4] = ["new-session", "resurrect", "run", "upgrade"];

/// `list-verbs` names without the extensions, for comparing with [`SPEC_VERBS`].
pub fn without_extensions(names: &[String]) -> Vec<String> {
    for ext in EXTENSION_VERBS {
        assert!(
            names.iter().any(|n| n == ext),
            "extension verb {ext} is not listed"
        );
    }
    names
        .iter()
        .filter(|n| !EXTENSION_VERBS.contains(&n.as_str()))
        .cloned()
        .collect()
}

/// The 35 verbs of the spec, sorted as `list-verbs` lists them. The daemon may implement a
/// subset while it grows, and adds only the [`EXTENSION_VERBS`].
pub const SPEC_VERBS: [&str; 35] = [
    "capture-pane",
    "close-window",
    "explain-agent-detect",
    "explain-agent-screen",
    "focus-window",
    "get-agent-state",
    "get-option",
    "hello",
    "kill-session",
    "list-options",
    "list-sessions",
    "list-themes",
    "list-verbs",
    "list-windows",
    "list-workspaces",
    "move-window",
    "new-window",
    "resize",
    "run-command",
    "select-workspace",
    "send-keys",
    "send-text",
    "session-info",
    "set-agent-state",
    "set-layout",
    "set-option",
    "set-session-accent",
    "set-session-name",
    "set-window",
    "set-workspace-name",
    "set-workspace-order",
    "split-window",
    "subscribe",
    "unsubscribe",
    "wait-for",
];

/// The verbs every build must answer (the first milestone's set).
pub const CORE_VERBS: [&str; 12] = [
    "capture-pane",
    "close-window",
    "hello",
    "kill-session",
    "list-sessions",
    "list-verbs",
    "list-windows",
    "new-window",
    "resize",
    "send-keys",
    "send-text",
    "session-info",
];

/// The stable error codes, in the catalog order `list-verbs` publishes.
pub const ERROR_CODES: [&str; 13] = [
    "invalid_request",
    "unknown_verb",
    "invalid_params",
    "session_not_found",
    "window_not_found",
    "no_windows",
    "pty_not_found",
    "needs_client",
    "option_not_found",
    "command_failed",
    "timeout",
    "protocol_mismatch",
    "internal",
];

/// The strings of a JSON array of strings (panics on anything else).
pub fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("expected an array of strings, got {value}"))
        .iter()
        .map(|v| {
            v.as_str()
                .unwrap_or_else(|| panic!("expected a string, got {v}"))
                .to_string()
        })
        .collect()
}

// ----- an attached client, in tmux --------------------------------------------------------------

/// Single quotes for sh.
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Fails the calling test, saying what to install, when tmux is not installed: a test that
/// needs it never passes without it. (`require_tmux!(value)` is accepted for older call sites.)
#[macro_export]
macro_rules! require_tmux {
    () => {
        $crate::TmuxClient::require();
    };
    ($skipped:expr) => {
        $crate::TmuxClient::require();
    };
}

static TMUX_SERVERS: AtomicUsize = AtomicUsize::new(0);

/// A `tuios attach` client running in a tmux server of its own (a private `-L` socket, no
/// configuration file), in tmux session `t`: tmux plays the outer terminal, typed at with
/// `send-keys` and read with `capture-pane`. Dropping it kills that server and removes its
/// socket file; when the test is failing, the client's last screen is printed first.
pub struct TmuxClient {
    server: String,
}

impl TmuxClient {
    /// Panics with what to do when tmux is not installed.
    pub fn require() {
        assert!(
            Self::available(),
            "this test drives a real terminal through tmux, which is not installed: \
             install it (`apt-get install tmux`) or run `.ci/run`, which does"
        );
    }

    /// Whether tmux is installed.
    pub fn available() -> bool {
        Command::new("tmux")
            .arg("-V")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Starts `tuios attach SESSION` in a `width`x`height` terminal, with the environment `env`
    /// gives every tuios process (but tmux's own TERM). When the client exits, the pane prints
    /// `EXIT=<status>` and stays open, so the test can read what the client said.
    pub fn start(env: &TestEnv, session: &str, width: u16, height: u16) -> TmuxClient {
        // The first attach's hint line would cover the dock for seconds: it has a test of its
        // own (`start_first_time`); every other client starts as a returning user's.
        let marker = env.dir().join("state").join("tuios");
        std::fs::create_dir_all(&marker).expect("create the state directory");
        std::fs::write(marker.join("attach-hint-shown"), b"").expect("write the hint marker");
        Self::start_first_time(env, session, width, height)
    }

    /// Like [`TmuxClient::start`], as a user attaching for the first time would see it.
    pub fn start_first_time(env: &TestEnv, session: &str, width: u16, height: u16) -> TmuxClient {
        let n = TMUX_SERVERS.fetch_add(1, Ordering::Relaxed);
        let client = TmuxClient {
            server: format!("tuios-it-{}-{n}", std::process::id()),
        };
        // The pane runs a shell command line: spell the harness's environment out with env(1),
        // removals first as env wants them.
        let attach = env.command(&["attach", session]);
        let (mut unset, mut set) = (Vec::new(), Vec::new());
        for (key, value) in attach.get_envs() {
            let key = key.to_string_lossy();
            match value {
                _ if key == "TERM" => {}
                Some(value) => set.push(sh_quote(&format!("{key}={}", value.to_string_lossy()))),
                None => unset.push(format!("-u {}", sh_quote(&key))),
            }
        }
        let mut words = vec!["env".to_string()];
        words.extend(unset);
        words.extend(set);
        words.push(sh_quote(&attach.get_program().to_string_lossy()));
        words.extend(attach.get_args().map(|a| sh_quote(&a.to_string_lossy())));
        let script = format!("{}; echo EXIT=$?; sleep 600", words.join(" "));
        let (w, h) = (width.to_string(), height.to_string());
        client.tmux_ok(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            &w,
            "-y",
            &h,
            &script,
        ]);
        client
    }

    /// `tmux` on this client's server. The server, started by the first command, inherits
    /// none of the caller's tuios, XDG or tmux settings.
    fn command(&self) -> Command {
        let mut cmd = Command::new("tmux");
        cmd.arg("-L").arg(&self.server);
        for (key, _) in std::env::vars_os() {
            let k = key.to_string_lossy();
            if k.starts_with("TUIOS_") || k.starts_with("XDG_") || k == "TMUX" {
                cmd.env_remove(&key);
            }
        }
        cmd
    }

    /// Runs `tmux ARGS...` on this client's server.
    pub fn tmux(&self, args: &[&str]) -> Output {
        let mut cmd = self.command();
        cmd.args(args);
        run_with_deadline(cmd, DEADLINE)
    }

    /// Runs `tmux ARGS...` on this client's server; the test fails when tmux does.
    pub fn tmux_ok(&self, args: &[&str]) {
        let out = self.tmux(args);
        assert!(out.status.success(), "tmux {args:?}: {out:?}");
    }

    /// `tmux send-keys` to the client: key names such as `C-b`, `Enter`, `Left`, or `-l TEXT`.
    pub fn send_keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        self.tmux_ok(&args);
    }

    /// Raw bytes typed by the outer terminal, in one write (ASCII only: `send-keys -H`).
    pub fn send_hex(&self, bytes: &[u8]) {
        assert!(bytes.is_ascii(), "send-keys -H takes ASCII only");
        let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut args = vec!["send-keys", "-t", "t", "-H"];
        args.extend(hex.iter().map(String::as_str));
        self.tmux_ok(&args);
    }

    /// The leader (ctrl+b), then `key`.
    pub fn leader(&self, key: &str) {
        self.send_keys(&["C-b", key]);
    }

    /// Types `text` literally, then Enter.
    pub fn type_line(&self, text: &str) {
        self.send_keys(&["-l", text]);
        self.send_keys(&["Enter"]);
    }

    /// A real paste: the bytes go to a tmux buffer, then tmux pastes it, bracketed when the
    /// client turned bracketed paste on, with line feeds kept as they are (`-r`).
    pub fn paste(&self, bytes: &[u8]) {
        use std::os::unix::ffi::OsStrExt;
        let mut cmd = self.command();
        cmd.args(["set-buffer", "-b", "paste", "--"])
            .arg(std::ffi::OsStr::from_bytes(bytes));
        let out = run_with_deadline(cmd, DEADLINE);
        assert!(out.status.success(), "tmux set-buffer: {out:?}");
        self.tmux_ok(&["paste-buffer", "-p", "-r", "-b", "paste", "-t", "t"]);
    }

    /// Resizes the client's terminal.
    pub fn resize(&self, width: u16, height: u16) {
        let (w, h) = (width.to_string(), height.to_string());
        self.tmux_ok(&["resize-window", "-t", "t", "-x", &w, "-y", &h]);
    }

    /// What the client's terminal shows, as text.
    pub fn capture(&self) -> String {
        let out = self.tmux(&["capture-pane", "-p", "-t", "t"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Polls the screen until `pred` holds; panics with the last screen at the deadline.
    pub fn wait_screen(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        poll(DEADLINE, what, || {
            let screen = self.capture();
            if pred(&screen) {
                Ok(screen)
            } else {
                Err(format!("the client shows:\n{screen}"))
            }
        })
    }

    /// Polls the screen until it shows `text`; returns the screen.
    pub fn wait_for(&self, text: &str) -> String {
        self.wait_screen(&format!("{text:?} on the client's screen"), |s| {
            s.contains(text)
        })
    }

    /// Waits until the client draws its dock in `mode` ("WM" or "TERM"); returns the screen.
    pub fn wait_mode(&self, mode: &str) -> String {
        let badge = format!(" {mode}");
        self.wait_screen(&format!("the dock in {mode} mode"), |s| {
            dock(s).is_some_and(|(_, line)| line.ends_with(&badge))
        })
    }
}

impl Drop for TmuxClient {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "---- client screen (tmux -L {}) ----\n{}---- end of client screen ----",
                self.server,
                self.capture()
            );
        }
        // tmux leaves its socket file behind when the server is killed: remove it as well.
        let out = self.tmux(&["display-message", "-p", "#{socket_path}"]);
        let socket = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let _ = self.tmux(&["kill-server"]);
        if !socket.is_empty() {
            let _ = std::fs::remove_file(socket);
        }
    }
}

/// The attach client's dock in a screen: its row number and text. It is the row ending in the
/// mode badge.
pub fn dock(screen: &str) -> Option<(usize, &str)> {
    screen.lines().enumerate().find(|(_, l)| {
        [" WM", " TERM", " LEADER"]
            .iter()
            .any(|badge| l.ends_with(badge))
    })
}

/// A binary-protocol frame: `[u32 big-endian length][u8 kind][MessagePack payload]`, the length
/// counting the kind byte and the payload.
pub fn frame(kind: u8, payload: &Value) -> Vec<u8> {
    let body = rmp_serde::to_vec_named(payload).expect("MessagePack encoding");
    let mut out = Vec::with_capacity(body.len() + 5);
    out.extend_from_slice(&(body.len() as u32 + 1).to_be_bytes());
    out.push(kind);
    out.extend_from_slice(&body);
    out
}

pub fn read_frame(stream: &mut UnixStream) -> std::io::Result<(u8, Vec<u8>)> {
    let mut len = [0u8; 4];
    stream.read_exact(&mut len)?;
    let len = u32::from_be_bytes(len) as usize;
    assert!(len >= 1, "a frame without a kind byte");
    let mut body = vec![0u8; len];
    stream.read_exact(&mut body)?;
    let kind = body.remove(0);
    Ok((kind, body))
}
