//! A daemon started in the background by `tuios new` logs to `$XDG_STATE_HOME/tuios/daemon.log`
//! (0600, never through a symlink, moved to daemon.log.1 past 1 MiB); when the client's own
//! stderr is the systemd journal, the daemon logs there instead.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::PathBuf;
use std::process::{Output, Stdio};
use std::time::Duration;

use tuios_integration_tests::{describe, poll, run_with_deadline, TestEnv, DEADLINE};

/// The cap documented for the log file.
const CAP: u64 = 1024 * 1024;

fn log_path(env: &TestEnv) -> PathBuf {
    env.dir().join("state/tuios/daemon.log")
}

/// Stops the autostarted daemon (not our child) whatever the test does: kill-server, then
/// SIGTERM by the pid it wrote if it is somehow still there.
struct Autostarted<'a>(&'a TestEnv);

impl Drop for Autostarted<'_> {
    fn drop(&mut self) {
        let pid = std::fs::read_to_string(self.0.pid_file()).ok();
        let _ = self.0.cli(&["kill-server"]);
        if let Some(pid) = pid.and_then(|p| p.trim().parse::<i32>().ok()) {
            if std::fs::read_to_string(self.0.pid_file()).is_ok() {
                // SAFETY: kill(2) by the pid the daemon wrote for itself.
                unsafe {
                    libc::kill(pid, libc::SIGTERM);
                }
            }
        }
    }
}

/// `tuios new -d NAME` with info logging, so the daemon has something to say.
fn autostart(env: &TestEnv, name: &str) -> Output {
    let mut cmd = env.command(&["new", "-d", name]);
    cmd.env("TUIOS_LOG", "info").env_remove("JOURNAL_STREAM");
    run_with_deadline(cmd, Duration::from_secs(30))
}

fn wait_for_log(path: &std::path::Path, text: &str) -> String {
    poll(DEADLINE, &format!("{text:?} in {}", path.display()), || {
        let log = std::fs::read_to_string(path).unwrap_or_default();
        if log.contains(text) {
            Ok(log)
        } else {
            Err(format!("the log holds: {log:?}"))
        }
    })
}

#[test]
fn an_autostarted_daemon_logs_to_the_state_dir() {
    let env = TestEnv::new();
    let _guard = Autostarted(&env);
    let out = autostart(&env, "logged");
    assert!(out.status.success(), "{}", describe(&out));
    let path = log_path(&env);
    let log = wait_for_log(&path, "tuios daemon ready");
    assert!(
        log.contains(&env.socket().display().to_string()),
        "the ready line names the socket: {log}"
    );
    assert!(!log.contains('\x1b'), "no colour codes in a file: {log:?}");
    let meta = std::fs::symlink_metadata(&path).unwrap();
    assert!(meta.is_file());
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert_eq!(
        std::fs::metadata(path.parent().unwrap()).unwrap().mode() & 0o777,
        0o700,
        "the state directory is created private"
    );

    let out = env.cli(&["kill-server"]);
    assert!(out.status.success(), "{}", describe(&out));
    wait_for_log(&path, "tuios daemon stopped");
}

#[test]
fn a_log_over_the_cap_is_moved_aside_at_start() {
    let env = TestEnv::new();
    let _guard = Autostarted(&env);
    let path = log_path(&env);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let old = vec![b'o'; CAP as usize + 1];
    std::fs::write(&path, &old).unwrap();
    let out = autostart(&env, "rotated");
    assert!(out.status.success(), "{}", describe(&out));
    let log = wait_for_log(&path, "tuios daemon ready");
    assert!(
        !log.starts_with('o'),
        "a new file was started: {}",
        &log[..40]
    );
    assert_eq!(std::fs::read(path.with_extension("log.1")).unwrap(), old);
}

#[test]
fn a_line_that_would_pass_the_cap_starts_a_new_file() {
    let env = TestEnv::new();
    let _guard = Autostarted(&env);
    let path = log_path(&env);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    // Just under the cap: kept at start, and the first log line does not fit.
    let old = vec![b'o'; CAP as usize - 10];
    std::fs::write(&path, &old).unwrap();
    let out = autostart(&env, "capped");
    assert!(out.status.success(), "{}", describe(&out));
    let log = wait_for_log(&path, "tuios daemon ready");
    assert!(!log.contains('o'.to_string().repeat(20).as_str()), "{log}");
    assert_eq!(std::fs::read(path.with_extension("log.1")).unwrap(), old);
    assert!(std::fs::metadata(&path).unwrap().len() <= CAP);
}

#[test]
fn a_symlink_at_the_log_path_is_not_followed() {
    let env = TestEnv::new();
    let _guard = Autostarted(&env);
    let path = log_path(&env);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let target = env.dir().join("victim");
    std::os::unix::fs::symlink(&target, &path).unwrap();
    let out = autostart(&env, "linked");
    assert!(!out.status.success(), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert!(!target.exists(), "the link was followed");
    // Through the foreground daemon the reason is on stderr, in our words.
    let mut cmd = env.command(&["daemon", "--log-file", path.to_str().unwrap()]);
    cmd.env("TUIOS_SOCKET", env.dir().join("other.sock"));
    let out = run_with_deadline(cmd, Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("symbolic link"), "{err}");
    assert!(!target.exists(), "the link was followed");
}

#[test]
fn with_the_journal_as_stderr_the_daemon_logs_there() {
    let env = TestEnv::new();
    let _guard = Autostarted(&env);
    // Play systemd: JOURNAL_STREAM names the file our stderr is.
    let journal = env.dir().join("journal");
    let file = std::fs::File::create(&journal).unwrap();
    let meta = file.metadata().unwrap();
    let mut cmd = env.command(&["new", "-d", "journaled"]);
    cmd.env("TUIOS_LOG", "info")
        .env("JOURNAL_STREAM", format!("{}:{}", meta.dev(), meta.ino()))
        .stdout(Stdio::null())
        .stderr(file);
    let mut child = cmd.spawn().expect("spawn tuios new");
    let status = poll(DEADLINE, "tuios new to finish", || {
        child.try_wait().unwrap().ok_or_else(String::new)
    });
    assert!(
        status.success(),
        "{}",
        std::fs::read_to_string(&journal).unwrap()
    );
    wait_for_log(&journal, "tuios daemon ready");
    assert!(
        !log_path(&env).exists(),
        "no log file when the journal takes the log"
    );
}
