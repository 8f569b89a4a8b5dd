//! An attached client (`tuios attach`) driven through a real terminal: tmux.

use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::{poll, run_with_deadline, TestEnv, DEADLINE};

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
        Self::start_tuios(env, &["attach", session], width, height)
    }

    /// `tuios ARGS...` in a `width`x`height` terminal (a command that attaches, such as
    /// `tape play`), as [`TmuxClient::start_first_time`] runs `attach`.
    pub fn start_tuios(env: &TestEnv, args: &[&str], width: u16, height: u16) -> TmuxClient {
        // The pane runs a shell command line: spell the harness's environment out with env(1),
        // removals first as env wants them.
        let attach = env.command(args);
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
        Self::run_words("tuios-it", &words, width, height)
    }

    /// A private tmux server (named after `prefix`) whose one pane runs the shell words
    /// `words` in a `width`x`height` terminal; when they exit the pane prints `EXIT=<status>`
    /// and stays, so the test can read what was said.
    pub fn run_words(prefix: &str, words: &[String], width: u16, height: u16) -> TmuxClient {
        let n = TMUX_SERVERS.fetch_add(1, Ordering::Relaxed);
        let client = TmuxClient {
            server: format!("{prefix}-{}-{n}", std::process::id()),
        };
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
