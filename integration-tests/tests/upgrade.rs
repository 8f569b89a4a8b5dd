//! Live upgrade through the real binary: `tuios upgrade` (and SIGUSR2) re-executes the daemon in
//! the same process; a program counting in a window keeps counting (same pid, still the
//! daemon's child), its scrollback and title survive, and an attached `tuios attach` client
//! reconnects by itself. A binary on disk that cannot take over leaves the daemon as it was.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};
use tuios_integration_tests::{
    poll, require_tmux, run_with_deadline, tuios_bin, JsonConn, TestDaemon, TestEnv, TmuxClient,
    DEADLINE,
};

/// Prints its pid, sets a title and bracketed paste, then counts upward every 100 ms.
const COUNTER: &str = r#"printf '\033]2;counting\007\033[?2004h'; echo "pid $$"; i=0; while :; do i=$((i+1)); echo "n=$i"; sleep 0.1; done"#;

fn counter_window(conn: &mut JsonConn, session: &str) -> String {
    let created = conn.ok(
        "new-window",
        json!({"session": session, "name": "counter", "command": ["sh", "-c", COUNTER], "remain": true}),
    );
    created["window_id"].as_str().unwrap().to_string()
}

fn capture_all(conn: &mut JsonConn, session: &str, window: &str) -> String {
    let r = conn.ok(
        "capture-pane",
        json!({"session": session, "window": window, "scrollback": true}),
    );
    r["content"].as_str().unwrap_or_default().to_string()
}

/// The highest count the window shows (scrollback included).
fn last_count(text: &str) -> u64 {
    text.lines()
        .filter_map(|l| {
            l.split_whitespace()
                .last()?
                .strip_prefix("n=")?
                .parse()
                .ok()
        })
        .max()
        .unwrap_or(0)
}

fn pid_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with("pid "))
        .map(str::to_owned)
        .collect()
}

/// Wait until the count passes `above`, on a fresh connection (the daemon may have just
/// re-executed); the capture then.
fn wait_count_above(env: &TestEnv, session: &str, window: &str, above: u64) -> String {
    poll(DEADLINE, &format!("the count to pass {above}"), || {
        let mut conn = JsonConn::connect(env.socket());
        let text = capture_all(&mut conn, session, window);
        if last_count(&text) > above {
            Ok(text)
        } else {
            Err(format!("last count {}", last_count(&text)))
        }
    })
}

fn parent_of(pid: u32) -> u32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the program runs");
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    rest.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// A daemon started from another binary than the harness's; stopped (SIGTERM, then SIGKILL
/// by pid) when dropped.
struct OwnDaemon(std::process::Child);

impl OwnDaemon {
    fn pid(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for OwnDaemon {
    fn drop(&mut self) {
        let pid = self.0.id() as i32;
        // SAFETY: kill(2) on the pid of our own child, which is not yet reaped.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        let deadline = std::time::Instant::now() + DEADLINE;
        while self.0.try_wait().ok().flatten().is_none() {
            if std::time::Instant::now() >= deadline {
                // SAFETY: as above.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                let _ = self.0.wait();
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20)); // one poll step
        }
    }
}

fn window_row(conn: &mut JsonConn, session: &str, window: &str) -> Value {
    conn.window_row(session, window)
}

#[test]
fn upgrade_keeps_the_program_its_screen_and_the_attached_client() {
    require_tmux!();
    let mut daemon = TestDaemon::start();
    let daemon_pid = daemon.pid();
    let session = daemon.new_session("up");
    let mut conn = daemon.conn();
    let window = counter_window(&mut conn, &session);
    let before = wait_count_above(daemon.env(), &session, &window, 5);
    let pid_line = pid_lines(&before);
    assert_eq!(pid_line.len(), 1, "{before}");
    let program: u32 = pid_line[0][4..].trim().parse().unwrap();
    assert_eq!(parent_of(program), daemon_pid);
    assert_eq!(
        window_row(&mut conn, &session, &window)["title"],
        "counting"
    );

    let client = TmuxClient::start(daemon.env(), &session, 100, 30);
    client.wait_mode("TERM");
    poll(DEADLINE, "the client to be attached", || {
        let info = daemon
            .conn()
            .ok("session-info", json!({"session": session}));
        (info["clients"] == 1)
            .then_some(())
            .ok_or_else(|| info.to_string())
    });

    let out = daemon.cli(&["upgrade"]);
    assert!(out.status.success(), "{out:?}\n{}", daemon.stderr_log());
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("upgraded") && said.contains(&format!("pid {daemon_pid}")),
        "{said}"
    );
    assert!(
        daemon.process().try_wait().is_none(),
        "the daemon process goes on"
    );

    // The same program, counting on: no restart, nothing lost from its scrollback.
    let count = last_count(&before);
    let after = wait_count_above(daemon.env(), &session, &window, count + 3);
    assert_eq!(
        pid_lines(&after),
        pid_line,
        "the program was not restarted:\n{after}"
    );
    assert!(
        after.contains("n=1\n"),
        "the scrollback's start is kept:\n{after}"
    );
    let seen: std::collections::HashSet<&str> = after.lines().map(str::trim).collect();
    for n in 1..=last_count(&after) {
        assert!(
            seen.contains(format!("n={n}").as_str()),
            "n={n} is missing:\n{after}"
        );
    }
    assert_eq!(parent_of(program), daemon_pid, "still the daemon's child");
    let mut conn = daemon.conn();
    let row = window_row(&mut conn, &session, &window);
    assert_eq!(row["title"], "counting", "{row}");
    assert_eq!(row["display_name"], "counter", "{row}");
    assert_eq!(row["alive"], true, "{row}");
    let hello = conn.ok("hello", json!({}));
    assert_eq!(hello["pid"], daemon_pid);

    // The attached client came back by itself and shows the counting.
    poll(DEADLINE, "the client to attach again", || {
        let info = daemon
            .conn()
            .ok("session-info", json!({"session": session}));
        (info["clients"] == 1)
            .then_some(())
            .ok_or_else(|| info.to_string())
    });
    let shown = last_count(&capture_all(&mut conn, &session, &window));
    client.wait_screen("the client showing the count going on", |s| {
        s.lines()
            .filter_map(|l| {
                let at = l.find("n=")?;
                l[at + 2..]
                    .split(|c: char| !c.is_ascii_digit())
                    .next()?
                    .parse::<u64>()
                    .ok()
            })
            .any(|n| n > shown)
    });

    // SIGUSR2 (systemd's ExecReload=) does the same.
    let count = last_count(&capture_all(&mut conn, &session, &window));
    daemon.process().signal(libc::SIGUSR2);
    let after = wait_count_above(daemon.env(), &session, &window, count + 3);
    assert_eq!(pid_lines(&after), pid_line, "{after}");
    assert_eq!(parent_of(program), daemon_pid);

    // The program's exit still reaches the window after two upgrades (the new supervisor
    // reaps the handed-over child).
    let mut conn = daemon.conn();
    // SAFETY: kill(2) on the program's pid, which the test read from its own output and
    // checked is the daemon's (unreaped) child.
    unsafe { libc::kill(program as i32, libc::SIGTERM) };
    conn.ok(
        "wait-for",
        json!({"session": session, "window": window, "condition": "window-exit", "timeout": 20000}),
    );
    let row = window_row(&mut conn, &session, &window);
    assert_eq!(row["alive"], false, "{row}");
    assert_eq!(row["signal"], libc::SIGTERM, "{row}");
    drop(client);
    daemon.terminate();
}

/// A copy of the tuios binary in the test's directory, so the test can replace it on disk.
fn own_binary(env: &TestEnv) -> std::path::PathBuf {
    let path = env.dir().join("tuios-copy");
    std::fs::copy(tuios_bin(), &path).unwrap();
    path
}

fn replace_with_script(path: &Path, script: &str) {
    std::fs::remove_file(path).unwrap();
    std::fs::write(path, format!("#!/bin/sh\n{script}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `tuios daemon` run from `binary`, with the test environment's variables.
fn spawn_daemon_from(env: &TestEnv, binary: &Path) -> OwnDaemon {
    let template = env.command(&["daemon"]);
    let mut cmd = Command::new(binary);
    cmd.arg("daemon").current_dir(env.dir());
    for (key, value) in template.get_envs() {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    let log = std::fs::File::create(env.dir().join("copy.stderr")).unwrap();
    let proc = OwnDaemon(cmd.stderr(log).spawn().expect("spawn the copied daemon"));
    poll(DEADLINE, "the copied daemon to serve", || {
        std::os::unix::net::UnixStream::connect(env.socket())
            .map(drop)
            .map_err(|e| e.to_string())
    });
    proc
}

#[test]
fn a_binary_that_cannot_take_over_leaves_the_daemon_as_it_was() {
    let env = TestEnv::new();
    let binary = own_binary(&env);
    let mut proc = spawn_daemon_from(&env, &binary);
    let daemon_pid = proc.pid();
    let out = env.cli(&["new", "-d", "keep"]);
    assert!(out.status.success(), "{out:?}");
    let mut conn = JsonConn::connect(env.socket());
    let window = counter_window(&mut conn, "keep");
    let before = wait_count_above(&env, "keep", &window, 2);

    // The copy on disk could take over: a check says so and replaces nothing.
    let checked = conn.ok("upgrade", json!({"check": true}));
    assert_eq!(checked["would_upgrade"], true, "{checked}");
    assert_eq!(checked["binary"], binary.display().to_string(), "{checked}");
    assert!(
        checked["reads"]
            .as_array()
            .is_some_and(|r| r.contains(&checked["writes"])),
        "{checked}"
    );

    // An older tuios: it knows no --handover-versions.
    replace_with_script(&binary, "echo 'error: unexpected argument' >&2; exit 2");
    let out = run_with_deadline(env.command(&["upgrade"]), DEADLINE);
    assert!(!out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("does not support live upgrade"), "{err}");
    assert!(err.contains("hint:"), "{err}");

    // A newer one that reads another handover format only.
    replace_with_script(&binary, "echo 'tuios-handover 99'");
    let error = conn.err_code("upgrade", json!({}), "command_failed");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains("[99]"), "{error}");

    // Untouched: same connection still served, the program counting on, same pid.
    assert!(proc.0.try_wait().unwrap().is_none());
    let after = wait_count_above(&env, "keep", &window, last_count(&before) + 3);
    assert_eq!(pid_lines(&after), pid_lines(&before), "{after}");
    let hello = conn.ok("hello", json!({}));
    assert_eq!(hello["pid"], daemon_pid);
    drop(proc);
}

// ---------------------------------------------------------------------------------------------
// Crash survival: the test plays systemd. It is the daemon's NOTIFY_SOCKET and keeps the
// descriptors the daemon stores (FDSTORE=1, FDNAME=, SCM_RIGHTS), drops the ones it removes
// (FDSTOREREMOVE=1), and after a SIGKILL starts the daemon again with them in LISTEN_FDS and
// their names in LISTEN_FDNAMES.

/// systemd's side of the notify socket and its descriptor store.
struct FakeSystemd {
    socket: std::os::unix::net::UnixDatagram,
    path: std::path::PathBuf,
    store: Vec<(String, std::os::fd::OwnedFd)>,
}

impl FakeSystemd {
    fn new(env: &TestEnv) -> FakeSystemd {
        let path = env.dir().join("notify.sock");
        let socket = std::os::unix::net::UnixDatagram::bind(&path).unwrap();
        socket.set_nonblocking(true).unwrap();
        FakeSystemd {
            socket,
            path,
            store: Vec::new(),
        }
    }

    /// Take every datagram waiting now into the store.
    fn receive(&mut self) {
        use std::os::fd::{AsRawFd, FromRawFd};
        loop {
            let mut buf = [0u8; 4096];
            let mut iov = libc::iovec {
                iov_base: buf.as_mut_ptr().cast(),
                iov_len: buf.len(),
            };
            let mut control = [0u8; 256];
            // SAFETY: a zeroed msghdr is valid; every pointer set below outlives the call.
            let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
            msg.msg_iov = &mut iov;
            msg.msg_iovlen = 1;
            msg.msg_control = control.as_mut_ptr().cast();
            msg.msg_controllen = control.len() as _;
            // SAFETY: recvmsg on our own socket with buffers described by `msg`.
            let n = unsafe {
                libc::recvmsg(
                    self.socket.as_raw_fd(),
                    &mut msg,
                    libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC,
                )
            };
            if n < 0 {
                return;
            }
            let text = String::from_utf8_lossy(&buf[..n as usize]).to_string();
            let mut fds = Vec::new();
            // SAFETY: walking the control messages the kernel wrote into `control`.
            unsafe {
                let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
                while !cmsg.is_null() {
                    if (*cmsg).cmsg_level == libc::SOL_SOCKET
                        && (*cmsg).cmsg_type == libc::SCM_RIGHTS
                    {
                        let data = libc::CMSG_DATA(cmsg).cast::<i32>();
                        let count = ((*cmsg).cmsg_len as usize - libc::CMSG_LEN(0) as usize)
                            / std::mem::size_of::<i32>();
                        for i in 0..count {
                            fds.push(std::os::fd::OwnedFd::from_raw_fd(*data.add(i)));
                        }
                    }
                    cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
                }
            }
            let field = |key: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(key))
                    .map(str::to_owned)
            };
            let name = field("FDNAME=").unwrap_or_else(|| "stored".into());
            if field("FDSTOREREMOVE=").as_deref() == Some("1") {
                self.store.retain(|(n, _)| *n != name);
            } else if field("FDSTORE=").as_deref() == Some("1") {
                for fd in fds {
                    self.store.push((name.clone(), fd));
                }
            }
        }
    }

    fn names(&mut self) -> Vec<String> {
        self.receive();
        self.store.iter().map(|(n, _)| n.clone()).collect()
    }
}

/// What systemd 254 and later tell the service about its store.
const SYSTEMD_254: &[(&str, &str)] = &[("FDSTORE", "64")];

/// The variables the shipped unit sets (`Environment=`): all an older systemd, which sets no
/// FDSTORE, gives the daemon to go by.
fn shipped_unit_env() -> Vec<(String, String)> {
    let unit = Path::new(env!("CARGO_MANIFEST_DIR")).join("../contrib/systemd/tuios.service");
    let text = std::fs::read_to_string(&unit).expect("read contrib/systemd/tuios.service");
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("Environment="))
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// `tuios daemon` as systemd starts it: NOTIFY_SOCKET, `store_env` (what the service is told
/// about the store), and when `fds` are given, those as fds 3.. with
/// LISTEN_PID/LISTEN_FDS/LISTEN_FDNAMES.
fn start_under_systemd(
    env: &TestEnv,
    systemd: &FakeSystemd,
    store_env: &[(&str, &str)],
    fds: &[(String, std::os::fd::OwnedFd)],
) -> OwnDaemon {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    let names: Vec<&str> = fds.iter().map(|(n, _)| n.as_str()).collect();
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c");
    if fds.is_empty() {
        cmd.arg("exec \"$0\" daemon");
    } else {
        cmd.arg(format!(
            "LISTEN_PID=$$ LISTEN_FDS={} LISTEN_FDNAMES={} exec \"$0\" daemon",
            fds.len(),
            names.join(":")
        ));
    }
    cmd.arg(tuios_bin());
    for (key, value) in env.command(&[]).get_envs() {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    cmd.env_remove("FDSTORE").envs(store_env.iter().copied());
    cmd.env("NOTIFY_SOCKET", &systemd.path)
        .current_dir(env.dir())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(
            std::fs::File::create(env.dir().join(format!("systemd-{}.stderr", fds.len()))).unwrap(),
        );
    let raw: Vec<i32> = fds.iter().map(|(_, fd)| fd.as_raw_fd()).collect();
    // SAFETY: only async-signal-safe calls (fcntl, dup2, close) between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            // Out of the way first, so no target number overwrites a source.
            let mut high = Vec::with_capacity(raw.len());
            for &fd in &raw {
                let h = libc::fcntl(fd, libc::F_DUPFD, 1000);
                if h < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                high.push(h);
            }
            for (i, &h) in high.iter().enumerate() {
                if libc::dup2(h, 3 + i as i32) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::close(h);
            }
            Ok(())
        });
    }
    let proc = OwnDaemon(cmd.spawn().expect("spawn the daemon under fake systemd"));
    poll(DEADLINE, "the daemon to serve", || {
        std::os::unix::net::UnixStream::connect(env.socket())
            .map(drop)
            .map_err(|e| e.to_string())
    });
    proc
}

#[test]
fn programs_survive_a_daemon_crash_under_systemd() {
    let env = TestEnv::new();
    let mut systemd = FakeSystemd::new(&env);
    let mut daemon = start_under_systemd(&env, &systemd, SYSTEMD_254, &[]);
    let out = env.cli(&["new", "-d", "crash"]);
    assert!(out.status.success(), "{out:?}");
    let mut conn = JsonConn::connect(env.socket());
    let created = conn.ok(
        "new-window",
        json!({"session": "crash", "name": "counter", "remain": true,
               "command": ["sh", "-c", r#"i=0; while :; do i=$((i+1)); echo "$$ n=$i"; sleep 0.1; done"#]}),
    );
    let window = created["window_id"].as_str().unwrap().to_string();
    let before = wait_count_above(&env, "crash", &window, 3);
    let program: u32 = before
        .lines()
        .find_map(|l| l.split_whitespace().next()?.parse().ok())
        .expect("the program prints its pid");

    // The listener and both windows' PTYs are in the store; the session is saved.
    let wanted = format!("pty-{window}");
    poll(DEADLINE, "the descriptors in the store", || {
        let names = systemd.names();
        (names.contains(&"tuios".to_string()) && names.contains(&wanted) && names.len() == 3)
            .then_some(())
            .ok_or_else(|| format!("{names:?}"))
    });
    // Saved with the window's screen (its scrollback stays out of the file).
    let saved = env.dir().join("state/tuios/sessions/crash.json");
    let snapshot = poll(DEADLINE, "the session to be saved with its screen", || {
        let text = std::fs::read_to_string(&saved).unwrap_or_default();
        let doc: Value = serde_json::from_str(&text).map_err(|e| format!("{e}: {text}"))?;
        doc["windows"]
            .as_array()
            .and_then(|ws| ws.iter().find(|w| w["id"] == window.as_str()))
            .and_then(|w| w["screen"].as_str())
            .filter(|s| s.contains(" n="))
            .map(str::to_owned)
            .ok_or(text)
    });
    // The first line the snapshot shows, as the emulator will show it again.
    let shown = snapshot
        .split("\r\n")
        .map(|row| {
            let mut plain = String::new();
            let mut chars = row.chars();
            while let Some(c) = chars.next() {
                if c == '\u{1b}' {
                    // Skip a CSI sequence: ESC [ params final.
                    if chars.next() == Some('[') {
                        for c in chars.by_ref() {
                            if c.is_ascii_alphabetic() {
                                break;
                            }
                        }
                    }
                } else {
                    plain.push(c);
                }
            }
            plain.trim_end().to_string()
        })
        .find(|l| l.contains(" n="))
        .expect("a counted line in the snapshot");

    // A window that closes leaves the store.
    let extra = conn.ok("new-window", json!({"session": "crash", "name": "brief"}));
    let extra_id = extra["window_id"].as_str().unwrap().to_string();
    poll(DEADLINE, "the new window's PTY in the store", || {
        let names = systemd.names();
        names
            .contains(&format!("pty-{extra_id}"))
            .then_some(())
            .ok_or_else(|| format!("{names:?}"))
    });
    conn.ok(
        "close-window",
        json!({"session": "crash", "window": extra_id}),
    );
    poll(
        DEADLINE,
        "the closed window's PTY to leave the store",
        || {
            let names = systemd.names();
            (!names.contains(&format!("pty-{extra_id}")))
                .then_some(())
                .ok_or_else(|| format!("{names:?}"))
        },
    );
    drop(conn);

    // The crash.
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(daemon.pid() as i32, libc::SIGKILL) };
    let _ = daemon.0.wait();
    std::mem::forget(daemon);
    let last = last_count(&before);
    assert!(
        std::path::Path::new(&format!("/proc/{program}")).exists(),
        "the program outlived the daemon"
    );

    // systemd restarts the service with what it kept.
    systemd.receive();
    let kept = std::mem::take(&mut systemd.store);
    let daemon = start_under_systemd(&env, &systemd, SYSTEMD_254, &kept);
    drop(kept);
    let mut conn = JsonConn::connect(env.socket());
    let row = window_row(&mut conn, "crash", &window);
    assert_eq!(row["alive"], true, "{row}");
    assert_eq!(row["display_name"], "counter", "{row}");
    // The saved screen is back (the program's newer output follows it).
    let back = capture_all(&mut conn, "crash", &window);
    assert!(
        back.lines().any(|l| l.trim_end() == shown),
        "{shown:?} not in\n{back}"
    );
    // Its output goes on, from the same program.
    let after = wait_count_above(&env, "crash", &window, last + 3);
    let pids: std::collections::HashSet<&str> = after
        .lines()
        .filter(|l| l.contains(" n="))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        pids.into_iter().collect::<Vec<_>>(),
        [program.to_string().as_str()],
        "{after}"
    );

    // It is not the new daemon's child: its end is seen, its status is not invented.
    let mut events = JsonConn::connect(env.socket());
    events.subscribe(json!({"session": "crash", "types": ["window-exit"]}));
    // SAFETY: kill(2) on the program's pid, read from its own output and checked alive above.
    unsafe { libc::kill(program as i32, libc::SIGTERM) };
    conn.ok(
        "wait-for",
        json!({"session": "crash", "window": window, "condition": "window-exit", "timeout": 20000}),
    );
    let row = window_row(&mut conn, "crash", &window);
    assert_eq!(row["alive"], false, "{row}");
    assert!(row["exit_code"].is_null(), "{row}");
    assert!(row.get("signal").is_none(), "{row}");
    assert!(
        row["exit_reason"]
            .as_str()
            .is_some_and(|r| r.contains("crashed")),
        "{row}"
    );
    let exit = events.read_line();
    assert_eq!(exit["type"], "window-exit", "{exit}");
    assert!(exit.get("exit_code").is_none(), "{exit}");
    assert!(
        exit["exit_reason"]
            .as_str()
            .is_some_and(|r| r.contains("crashed")),
        "the event says why there is no status: {exit}"
    );
    drop(daemon);
}

/// systemd 252 (Debian 12, RHEL 9) keeps descriptors for a unit with FileDescriptorStoreMax=
/// but sets no FDSTORE: the shipped unit's own variable must be enough for the daemon to store,
/// and a program must outlive a crash as under a newer systemd.
#[test]
fn the_shipped_unit_keeps_programs_through_a_crash_without_fdstore() {
    let unit_env = shipped_unit_env();
    assert!(
        !unit_env.is_empty(),
        "the shipped unit sets the daemon's store size"
    );
    let unit_env: Vec<(&str, &str)> = unit_env
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let env = TestEnv::new();
    let mut systemd = FakeSystemd::new(&env);
    let mut daemon = start_under_systemd(&env, &systemd, &unit_env, &[]);
    let out = env.cli(&["new", "-d", "old"]);
    assert!(out.status.success(), "{out:?}");
    let mut conn = JsonConn::connect(env.socket());
    let created = conn.ok(
        "new-window",
        json!({"session": "old", "name": "counter", "remain": true,
               "command": ["sh", "-c", r#"i=0; while :; do i=$((i+1)); echo "$$ n=$i"; sleep 0.1; done"#]}),
    );
    let window = created["window_id"].as_str().unwrap().to_string();
    let before = wait_count_above(&env, "old", &window, 3);
    let wanted = format!("pty-{window}");
    poll(DEADLINE, "the descriptors in the store", || {
        let names = systemd.names();
        (names.contains(&"tuios".to_string()) && names.contains(&wanted))
            .then_some(())
            .ok_or_else(|| format!("{names:?}"))
    });
    // Saved, so the restarted daemon knows the window the kept terminal belongs to.
    let saved = env.dir().join("state/tuios/sessions/old.json");
    poll(DEADLINE, "the session to be saved with the window", || {
        let text = std::fs::read_to_string(&saved).unwrap_or_default();
        text.contains(&window).then_some(()).ok_or(text)
    });
    drop(conn);

    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(daemon.pid() as i32, libc::SIGKILL) };
    let _ = daemon.0.wait();
    std::mem::forget(daemon);
    systemd.receive();
    let kept = std::mem::take(&mut systemd.store);
    let daemon = start_under_systemd(&env, &systemd, &unit_env, &kept);
    drop(kept);
    let mut conn = JsonConn::connect(env.socket());
    let row = window_row(&mut conn, "old", &window);
    assert_eq!(row["alive"], true, "{row}");
    let after = wait_count_above(&env, "old", &window, last_count(&before) + 3);
    let program: u32 = before
        .lines()
        .find_map(|l| l.split_whitespace().next()?.parse().ok())
        .expect("the program prints its pid");
    let now = after
        .lines()
        .rev()
        .find(|l| l.contains(" n="))
        .and_then(|l| l.split_whitespace().next()?.parse::<u32>().ok());
    assert_eq!(
        now,
        Some(program),
        "the same program goes on counting:\n{after}"
    );
    drop(daemon);
}
