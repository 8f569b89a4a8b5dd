//! `tuios ssh` for the tests: keys made by `ssh-keygen`, the real server on a free port, and the
//! real OpenSSH client, in batch or in a tmux pane (shared by ssh.rs and ssh_flood.rs).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::TmuxClient;
use crate::{describe, run_with_deadline, sh_quote, TestEnv, DEADLINE};

/// Fails the test, with what to install, when a tool it drives is missing.
pub fn require(tool: &str, package: &str) {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        found,
        "this test needs `{tool}`, which is not installed: `apt-get install {package}` (or run .ci/run, which does)"
    );
}

pub fn require_all() {
    require("ssh", "openssh-client");
    require("ssh-keygen", "openssh-client");
    require("tmux", "tmux");
}

/// A new ed25519 key pair `dir/name` (no passphrase); returns the private key's path.
pub fn keygen(dir: &Path, name: &str) -> PathBuf {
    let key = dir.join(name);
    let mut cmd = Command::new("ssh-keygen");
    cmd.args(["-q", "-t", "ed25519", "-N", "", "-C", name, "-f"])
        .arg(&key);
    let out = run_with_deadline(cmd, DEADLINE);
    assert!(out.status.success(), "ssh-keygen: {}", describe(&out));
    key
}

/// `SHA256:...` of a public key, as ssh-keygen prints it.
pub fn fingerprint(public: &Path) -> String {
    let mut cmd = Command::new("ssh-keygen");
    cmd.arg("-lf").arg(public);
    let out = run_with_deadline(cmd, DEADLINE);
    assert!(out.status.success(), "ssh-keygen -l: {}", describe(&out));
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .nth(1)
        .expect("a fingerprint")
        .to_string()
}

/// `dir/authorized_keys` (0600) holding the public halves of `keys`.
pub fn authorized_keys(dir: &Path, keys: &[&Path]) -> PathBuf {
    let text: String = keys
        .iter()
        .map(|k| std::fs::read_to_string(k.with_extension("pub")).expect("read public key"))
        .collect();
    // tuios ssh, like sshd, refuses a file in a directory others can write (whatever the umask).
    std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .expect("chmod the keys directory");
    let path = dir.join("authorized_keys");
    std::fs::write(&path, text).expect("write authorized_keys");
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o600))
        .expect("chmod authorized_keys");
    path
}

/// A running `tuios ssh --port 0`; stopped with SIGTERM when dropped.
pub struct SshServer {
    pub child: Child,
    pub port: u16,
    pub stderr: PathBuf,
}

impl SshServer {
    pub fn start(env: &TestEnv, authorized: &Path) -> SshServer {
        let mut cmd = env.command(&["ssh", "--port", "0", "--authorized-keys"]);
        cmd.arg(authorized);
        SshServer::spawn(env, cmd)
    }

    /// Runs `cmd` (a `tuios ssh` command line) and waits for the line naming its port.
    pub fn spawn(env: &TestEnv, mut cmd: Command) -> SshServer {
        let stderr = env.dir().join("ssh-server.stderr");
        cmd.env("TUIOS_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).expect("server log"));
        let mut child = cmd.spawn().expect("spawn tuios ssh");
        // The first line names the port it listens on; read on a thread to keep a deadline.
        let stdout = child.stdout.take().expect("stdout piped");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let _ = tx.send(line);
            // Keep reading so the server's later lines never meet a closed pipe.
            let mut rest = String::new();
            while reader.read_line(&mut rest).is_ok_and(|n| n > 0) {
                rest.clear();
            }
        });
        let line = rx.recv_timeout(DEADLINE).unwrap_or_default();
        let port = line
            .trim()
            .strip_prefix("tuios ssh: listening on ")
            .and_then(|addr| addr.rsplit(':').next())
            .and_then(|p| p.parse::<u16>().ok());
        let mut server = SshServer {
            child,
            port: 0,
            stderr,
        };
        match port {
            Some(p) => server.port = p,
            None => panic!(
                "tuios ssh did not say where it listens (first line {line:?}); its stderr:\n{}",
                server.log()
            ),
        }
        server
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// SIGTERM, then its exit status (20 s deadline).
    pub fn stop(&mut self) -> std::process::ExitStatus {
        // SAFETY: kill(2) on our own child's pid; no memory is involved.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
        let deadline = Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "tuios ssh did not stop on SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(20)); // one poll step inside the deadline
        }
    }
}

impl Drop for SshServer {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        if std::thread::panicking() {
            eprintln!("---- tuios ssh stderr ----\n{}---- end ----", self.log());
        }
    }
}

/// The `ssh` options every test uses: this key only, no known_hosts, no agent, no prompts.
pub fn ssh_options(key: &Path, port: u16) -> Vec<String> {
    [
        "-i",
        &key.to_string_lossy(),
        "-p",
        &port.to_string(),
        "-o",
        "IdentitiesOnly=yes",
        "-o",
        "IdentityAgent=none",
        "-o",
        "StrictHostKeyChecking=no",
        "-o",
        "UserKnownHostsFile=/dev/null",
        "-o",
        "GlobalKnownHostsFile=/dev/null",
        "-o",
        "LogLevel=ERROR",
        "-F",
        "/dev/null",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// `ssh` without a terminal, to completion.
pub fn ssh_batch(key: &Path, port: u16, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("ssh");
    cmd.args(ssh_options(key, port))
        .args(["-o", "BatchMode=yes"])
        .args(extra)
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    run_with_deadline(cmd, DEADLINE)
}

/// `ssh -tt` running in a tmux pane of a private tmux server: the user's terminal. When ssh
/// exits the pane prints `EXIT=<status>` and stays. Everything a tmux-hosted terminal does
/// (keys, capture, resize, waits, clean-up) is [`TmuxClient`]'s.
pub struct SshPane(TmuxClient);

impl std::ops::Deref for SshPane {
    type Target = TmuxClient;
    fn deref(&self) -> &TmuxClient {
        &self.0
    }
}

impl SshPane {
    pub fn start(key: &Path, port: u16, args: &[&str], width: u16, height: u16) -> SshPane {
        let mut words = vec!["ssh".to_string(), "-tt".to_string()];
        words.extend(ssh_options(key, port).iter().map(|w| sh_quote(w)));
        words.push("127.0.0.1".into());
        words.extend(args.iter().map(|a| sh_quote(a)));
        SshPane(TmuxClient::run_words("tuios-ssh-it", &words, width, height))
    }

    /// ssh's exit status, once it has exited.
    pub fn wait_exit(&self) -> i32 {
        let screen = self.wait_for("EXIT=");
        let status = screen
            .split("EXIT=")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|s| s.parse().ok());
        status.unwrap_or_else(|| panic!("no exit status on the screen:\n{screen}"))
    }
}

/// `tuios ssh --list --json` in `env`.
pub fn list(env: &TestEnv) -> Value {
    let out = env.cli(&["ssh", "--list", "--json"]);
    assert!(out.status.success(), "tuios ssh --list: {}", describe(&out));
    serde_json::from_slice(&out.stdout).expect("--list --json prints JSON")
}

/// The connected clients of the one server running in `env`.
pub fn clients(env: &TestEnv) -> Vec<Value> {
    let servers = list(env);
    let servers = servers.as_array().expect("an array of servers");
    assert_eq!(servers.len(), 1, "one server runs: {servers:?}");
    servers[0]["clients"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}
