//! `tree` on close-window and kill-session: every process a window started ends, a `setsid`
//! daemon included, and the reply counts them; without it, the window's terminal session ends
//! (a `nohup` job too) and a `setsid` one survives, as before.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use tuios_integration_tests::{poll, JsonConn, TestDaemon, DEADLINE};

/// The tools the window's shell runs; a missing one fails the test rather than skipping it.
fn require_tools() {
    for tool in ["setsid", "nohup", "sleep"] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .expect("run sh")
            .status
            .success();
        assert!(
            found,
            "`{tool}` is needed by this test and is not installed"
        );
    }
}

/// Whether `pid` exists at all: a zombie still counts, so "gone" also proves it was reaped.
fn exists(pid: i32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Whether `pid` runs (exists and is not a zombie).
fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rfind(')')
                .map(|i| !s[i + 1..].trim_start().starts_with('Z'))
        })
        .unwrap_or(false)
}

fn wait_gone(pid: i32, what: &str) {
    poll(
        DEADLINE,
        &format!("{what} (pid {pid}) to end and be reaped"),
        || {
            if exists(pid) {
                Err(format!("/proc/{pid} is still there"))
            } else {
                Ok(())
            }
        },
    );
}

/// The pid a file holds once its writer has renamed it into place.
fn read_pid(path: &Path) -> i32 {
    poll(DEADLINE, &format!("a pid in {}", path.display()), || {
        std::fs::read_to_string(path)
            .map_err(|e| e.to_string())?
            .trim()
            .parse::<i32>()
            .map_err(|e| e.to_string())
    })
}

/// Start a `setsid` daemon and a `nohup` job in the window; their pids (setsid's, then
/// nohup's), both checked running.
fn start_jobs(daemon: &TestDaemon, conn: &mut JsonConn, session: &str, window: &str) -> (i32, i32) {
    let dir: PathBuf = daemon.dir().to_path_buf();
    let (s, n) = (dir.join("setsid.pid"), dir.join("nohup.pid"));
    // The setsid'd sh writes its own pid, then becomes the sleep (setsid may fork, so `$!`
    // would name the wrong process). Each file is renamed into place, so a read sees it whole.
    let line = format!(
        "setsid sh -c 'echo $$ > {s}.t && mv {s}.t {s}; exec sleep 600' & \
         nohup sleep 600 >/dev/null 2>&1 & echo $! > {n}.t && mv {n}.t {n}\n",
        s = s.display(),
        n = n.display()
    );
    conn.send_text(session, window, &line);
    let (setsid, nohup) = (read_pid(&s), read_pid(&n));
    assert!(running(setsid), "the setsid job {setsid} is not running");
    assert!(running(nohup), "the nohup job {nohup} is not running");
    (setsid, nohup)
}

fn ended(reply: &Value) -> u64 {
    reply["ended"]
        .as_u64()
        .unwrap_or_else(|| panic!("no `ended` count in {reply}"))
}

/// Without `tree` the nohup job ends with the terminal session; the setsid one is left (and
/// then killed here, and reaped by the daemon, its subreaper).
fn check_default(setsid: i32, nohup: i32, reply: &Value) {
    assert!(reply.get("ended").is_none(), "ended without tree: {reply}");
    wait_gone(nohup, "the nohup job");
    // The nohup job was killed after the hangup grace: the setsid one saw the same close.
    assert!(
        running(setsid),
        "the setsid job {setsid} was ended without tree"
    );
    // SAFETY: kill(2) with a pid just read and checked running; no memory is involved.
    let killed = unsafe { libc::kill(setsid, libc::SIGKILL) };
    assert_eq!(killed, 0, "kill the setsid job {setsid}");
    wait_gone(setsid, "the setsid job, killed by the test");
}

/// Starts the two jobs in a new window of `daemon`, closes it with `tree`, and checks both end.
fn close_with_tree_ends_both(daemon: &TestDaemon) {
    let (session, window) = daemon.session_with_window("tree");
    let mut conn = daemon.conn();
    let (setsid, nohup) = start_jobs(daemon, &mut conn, &session, &window);
    let reply = conn.ok(
        "close-window",
        json!({"session": session, "window": window, "tree": true}),
    );
    assert!(ended(&reply) >= 2, "{reply}");
    wait_gone(setsid, "the setsid job");
    wait_gone(nohup, "the nohup job");
}

#[test]
fn close_window_with_tree_ends_setsid_and_nohup_jobs() {
    require_tools();
    close_with_tree_ends_both(&TestDaemon::start());
}

#[test]
fn close_window_without_tree_leaves_the_setsid_job() {
    require_tools();
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("plain");
    let mut conn = daemon.conn();
    let (setsid, nohup) = start_jobs(&daemon, &mut conn, &session, &window);
    let reply = conn.ok(
        "close-window",
        json!({"session": session, "window": window}),
    );
    check_default(setsid, nohup, &reply);
}

#[test]
fn kill_session_with_tree_ends_setsid_and_nohup_jobs() {
    require_tools();
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("tree");
    let mut conn = daemon.conn();
    let (setsid, nohup) = start_jobs(&daemon, &mut conn, &session, &window);
    let reply = conn.ok("kill-session", json!({"session": session, "tree": true}));
    assert!(ended(&reply) >= 2, "{reply}");
    wait_gone(setsid, "the setsid job");
    wait_gone(nohup, "the nohup job");
}

#[test]
fn kill_session_without_tree_leaves_the_setsid_job() {
    require_tools();
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("plain");
    let mut conn = daemon.conn();
    let (setsid, nohup) = start_jobs(&daemon, &mut conn, &session, &window);
    let reply = conn.ok("kill-session", json!({"session": session}));
    check_default(setsid, nohup, &reply);
}

#[test]
fn the_cli_sends_tree_and_prints_the_count() {
    require_tools();
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("cli");
    let mut conn = daemon.conn();
    let (setsid, nohup) = start_jobs(&daemon, &mut conn, &session, &window);
    let out = daemon.cli(&["close-window", "-s", &session, "-w", &window, "--tree"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("processes ended"), "{text}");
    wait_gone(setsid, "the setsid job");
    wait_gone(nohup, "the nohup job");
}

/// A cgroup v2 directory of the test's own, removed when dropped (after the daemon in it has
/// stopped, so it is empty); None where the machine has no writable cgroup v2 hierarchy.
struct TestCgroup(PathBuf);

impl TestCgroup {
    fn make(tag: &str) -> Option<TestCgroup> {
        let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
        let mount = mountinfo.lines().find_map(|l| {
            let (left, right) = l.split_once(" - ")?;
            (right.split_whitespace().next()? == "cgroup2")
                .then(|| left.split_whitespace().nth(4).map(PathBuf::from))?
        })?;
        let dir = mount.join(format!("tuios-test-{}-{tag}", std::process::id()));
        std::fs::create_dir(&dir).ok()?;
        Some(TestCgroup(dir))
    }
}

impl Drop for TestCgroup {
    fn drop(&mut self) {
        // Children first: the window groups the daemon left, then its own leaf.
        if let Ok(entries) = std::fs::read_dir(&self.0) {
            for e in entries.flatten() {
                if e.path().is_dir() {
                    let _ = std::fs::remove_dir(e.path());
                }
            }
        }
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// A job that leaves the window's session *and* clears its environment, its parent gone: the
/// process-tree walk cannot tell it came from the window. Its pid.
fn start_escapee(daemon: &TestDaemon, conn: &mut JsonConn, session: &str, window: &str) -> i32 {
    let f = daemon.dir().join("escapee.pid");
    let line = format!(
        "env -i /bin/sh -c \"setsid /bin/sh -c 'echo \\$\\$ > {f}.t && mv {f}.t {f}; exec sleep 600' & exit\"\n",
        f = f.display()
    );
    conn.send_text(session, window, &line);
    let pid = read_pid(&f);
    assert!(running(pid), "the escapee {pid} is not running");
    pid
}

#[test]
fn with_delegated_cgroups_tree_ends_even_an_escapee() {
    require_tools();
    let cgroup = TestCgroup::make("tree");
    let Some(cg) = cgroup.as_ref() else {
        // No writable cgroup v2 here (an unprivileged container): the daemon asked for
        // cgroups says why not and still ends what the walk finds, as without them.
        let daemon = tuios_integration_tests::TestEnv::new()
            .start_daemon_with(&[("TUIOS_CGROUP_DELEGATED", "1".to_string())]);
        eprintln!("no writable cgroup v2 hierarchy: checking the fallback");
        close_with_tree_ends_both(&daemon);
        assert!(
            daemon.stderr_log().contains("windows get no cgroups"),
            "{}",
            daemon.stderr_log()
        );
        return;
    };
    let daemon = tuios_integration_tests::TestEnv::new().start_daemon_with(&[
        ("TUIOS_CGROUP_DELEGATED", "1".to_string()),
        ("TUIOS_CGROUP_BASE", cg.0.display().to_string()),
    ]);
    let (session, window) = daemon.session_with_window("cg");
    let mut conn = daemon.conn();
    // The daemon moved itself into its leaf; the window's program is in a group of its own.
    let procs = |p: &Path| std::fs::read_to_string(p.join("cgroup.procs")).unwrap_or_default();
    assert!(
        procs(&cg.0.join("daemon")).contains(&daemon.pid().to_string()),
        "the daemon is not in {}/daemon",
        cg.0.display()
    );
    let group = cg.0.join(format!("window-{window}"));
    assert!(
        !procs(&group).trim().is_empty(),
        "{} is empty",
        group.display()
    );

    let escapee = start_escapee(&daemon, &mut conn, &session, &window);
    let (setsid, nohup) = start_jobs(&daemon, &mut conn, &session, &window);
    assert!(
        procs(&group)
            .lines()
            .any(|l| l.trim() == escapee.to_string()),
        "the escapee {escapee} left the window's cgroup: {}",
        procs(&group)
    );
    let reply = conn.ok(
        "close-window",
        json!({"session": session, "window": window, "tree": true}),
    );
    assert!(ended(&reply) >= 3, "{reply}");
    wait_gone(escapee, "the escapee");
    wait_gone(setsid, "the setsid job");
    wait_gone(nohup, "the nohup job");
    // The emptied group is removed.
    poll(DEADLINE, "the window's cgroup to be removed", || {
        if group.exists() {
            Err(format!("{} is still there", group.display()))
        } else {
            Ok(())
        }
    });
}
