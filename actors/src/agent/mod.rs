//! Agent state: what an agent CLI running in a window is doing (none, working, needs_input,
//! idle, done, errored), who said so, and the tiers that find out by themselves.
//!
//! - The window reports what its output shows ([`PaneProbe`], called from `Window::feed`): OSC
//!   9;4 progress sequences, and that output happened (throttled).
//! - The session keeps each window's state ([`state::WindowAgent`]) and runs the detector on a
//!   timer of its own, re-probing a window when it prints; it runs the harness's screen rules on
//!   output, and the silence heuristic on a second timer that only ticks while a window is
//!   working (see `session/agent.rs`).
//! - [`manifest`] and [`screen`] are the harness manifests ([`manifest_cache`] the copy the
//!   daemon shares); [`proc`] reads /proc.
//!
//! Environment (the first four read once, as the daemon starts; the directory at each load):
//! - `TUIOS_AGENT_AUTODETECT` (`0|false|no|off` or `1|true|yes|on`): the detector's switch when a
//!   session sets no `daemon.agent_autodetect`.
//! - `TUIOS_AGENT_DETECT_SECONDS`: the poll interval when a session sets no
//!   `daemon.agent_detect_seconds` (0 means 2 s, negative turns detection off).
//! - `TUIOS_AGENT_STALL_SECONDS`: silence before a working window is called idle (default 30,
//!   fractions allowed, 0 or less turns the heuristic off).
//! - `TUIOS_AGENT_BINARIES`: more agent names for the name list, comma-separated.
//! - `TUIOS_HARNESS_DIR`: the user manifest directory (default
//!   `$XDG_CONFIG_HOME/tuios/harnesses`).
//! - `TUIOS_AGENT_TRANSCRIPT_SECONDS`: how often a window attributed to a harness with
//!   transcripts looks for its transcript and reads the one it joined (default 10, fractions
//!   allowed, 0 or less turns the tier off).
//! - `HOME`: `{home}` of a manifest's transcript directory. The daemon's own home, not the
//!   agent's: the agent runs as the daemon's user, and a pane's environment is the program's to
//!   change, so it is no better a guide.
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use actix::prelude::*;
use protocol::agent::{osc_progress_state, AgentState};

pub mod manifest;
pub mod manifest_cache;
pub mod osc;
pub mod proc;
pub mod screen;
pub mod state;
pub mod transcript;
pub mod transcript_spec;

pub use state::WindowAgent;

/// Session option switching the detector.
pub const OPT_AUTODETECT: &str = "daemon.agent_autodetect";
/// Session option with the detector's interval.
pub const OPT_DETECT_SECONDS: &str = "daemon.agent_detect_seconds";

/// Poll interval when nothing sets one.
pub const DEFAULT_DETECT: Duration = Duration::from_secs(2);
/// Silence before a working window is called idle, when nothing sets it.
pub const DEFAULT_STALL: Duration = Duration::from_secs(30);
/// A quieter OSC state must stand this long before it is published.
pub const OSC_HOLD: Duration = Duration::from_millis(700);
/// Shortest gap between two output notices of one window (re-probe and screen scans follow them).
pub const ACTIVITY_THROTTLE_MS: u64 = 250;
/// Quiet time after output before the screen is read once more.
pub const SETTLE: Duration = Duration::from_millis(400);
/// How often the transcript tier searches and reads, when nothing sets it.
pub const DEFAULT_TRANSCRIPT: Duration = Duration::from_secs(10);
/// Quiet time after a window's output before its joined transcript is read.
pub const TRANSCRIPT_DEBOUNCE: Duration = Duration::from_millis(150);
/// A repeated OSC state is passed on again at most this often (it keeps a working claim fresh).
const OSC_REPEAT_MS: u64 = 1_000;

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// Monotonic milliseconds since the first call in this process (never 0 after the first
/// millisecond, so 0 can mean "never").
pub fn now_ms() -> u64 {
    epoch().elapsed().as_millis() as u64 + 1
}

pub fn unix_ns() -> u64 {
    crate::event_hub::unix_nanos()
}

/// Agent detection settings from the environment. The daemon reads them once at start and hands
/// them to the actors in `DaemonInfo::agent`.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentSettings {
    pub autodetect: Option<bool>,
    pub detect_seconds: Option<i64>,
    /// `None`: the silence heuristic is off.
    pub stall: Option<Duration>,
    /// Lowercased extra agent names.
    pub extra_names: Vec<String>,
    /// The transcript tier's search and read interval; `None`: the tier is off.
    pub transcript_every: Option<Duration>,
    /// The daemon's home directory, `{home}` in transcript directories.
    pub home: Option<std::path::PathBuf>,
}

impl AgentSettings {
    /// Read from this process's environment.
    pub fn from_env() -> AgentSettings {
        AgentSettings::from_lookup(|k| std::env::var(k).ok())
    }

    /// Read from a variable lookup (the process environment in the daemon).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> AgentSettings {
        let autodetect = get("TUIOS_AGENT_AUTODETECT").and_then(|v| bool_word(&v));
        let detect_seconds = get("TUIOS_AGENT_DETECT_SECONDS").and_then(|v| v.trim().parse().ok());
        let stall = seconds(get("TUIOS_AGENT_STALL_SECONDS"), DEFAULT_STALL);
        let transcript_every = seconds(get("TUIOS_AGENT_TRANSCRIPT_SECONDS"), DEFAULT_TRANSCRIPT);
        let home = get("HOME")
            .filter(|h| h.starts_with('/'))
            .map(std::path::PathBuf::from);
        let extra_names = get("TUIOS_AGENT_BINARIES")
            .map(|v| {
                v.split(',')
                    .map(|n| n.trim().to_lowercase())
                    .filter(|n| !n.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        AgentSettings {
            autodetect,
            detect_seconds,
            stall,
            extra_names,
            transcript_every,
            home,
        }
    }

    /// The detector's interval for a session with these option values; `None` when it is off.
    /// The session's options come first, then the environment, then the default.
    pub fn detect_interval(&self, options: &BTreeMap<String, String>) -> Option<Duration> {
        let on = options
            .get(OPT_AUTODETECT)
            .and_then(|v| config::options::as_bool(v))
            .or(self.autodetect)
            .unwrap_or(true);
        let seconds = options
            .get(OPT_DETECT_SECONDS)
            .and_then(|v| config::options::as_int(v))
            .or(self.detect_seconds)
            .unwrap_or(0);
        match (on, seconds) {
            (false, _) => None,
            (true, s) if s < 0 => None,
            (true, 0) => Some(DEFAULT_DETECT),
            (true, s) => Some(Duration::from_secs(s as u64)),
        }
    }

    /// How often the silence heuristic looks: a quarter of the timeout, within 0.2 s to 10 s.
    pub fn stall_tick(&self) -> Option<Duration> {
        self.stall
            .map(|t| (t / 4).clamp(Duration::from_millis(200), Duration::from_secs(10)))
    }
}

/// A duration in seconds (fractions allowed): `default` when unset or unreadable, `None` when 0
/// or less.
fn seconds(v: Option<String>, default: Duration) -> Option<Duration> {
    match v {
        None => Some(default),
        Some(v) => match v.trim().parse::<f64>() {
            Ok(s) if s.is_finite() && s > 0.0 => Some(Duration::from_secs_f64(s.min(1e9))),
            Ok(_) => None,
            Err(_) => Some(default),
        },
    }
}

/// `0|false|no|off` and `1|true|yes|on`, any case.
pub fn bool_word(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "0" | "false" | "no" | "off" => Some(false),
        "1" | "true" | "yes" | "on" => Some(true),
        _ => None,
    }
}

/// What a window tells its session about its agent. Both are rare: an OSC state when it changes
/// (or at most once a second when repeated), and output at most every 250 ms.
#[derive(Message)]
#[rtype(result = "()")]
pub enum AgentNotice {
    Osc {
        window_id: String,
        state: AgentState,
    },
    Activity {
        window_id: String,
    },
}

/// The link between a window and its session for agent state: where notices go, the pid of the
/// window's program, and the time of its last output (shared, so the session reads it without a
/// message).
#[derive(Clone)]
pub struct PaneLink {
    window_id: String,
    notices: Option<Recipient<AgentNotice>>,
    last_output: Arc<AtomicU64>,
    pub pid: i32,
}

impl PaneLink {
    pub fn new(notices: Recipient<AgentNotice>, window_id: String, pid: i32) -> PaneLink {
        PaneLink {
            window_id,
            notices: Some(notices),
            last_output: Arc::new(AtomicU64::new(0)),
            pid,
        }
    }

    /// A link that reports to nobody (tests).
    pub fn detached(window_id: &str, pid: i32) -> PaneLink {
        PaneLink {
            window_id: window_id.to_string(),
            notices: None,
            last_output: Arc::new(AtomicU64::new(0)),
            pid,
        }
    }

    /// [`now_ms`] of the window's last output; 0 when it has printed nothing.
    pub fn last_output_ms(&self) -> u64 {
        self.last_output.load(Ordering::Relaxed)
    }

    fn send(&self, notice: AgentNotice) -> bool {
        match &self.notices {
            // A full mailbox drops the notice; the probe retries on the next output.
            Some(r) => r.try_send(notice).is_ok(),
            None => true,
        }
    }
}

/// The window's half: scans output for OSC 9;4 and tells the session about output, cheaply
/// enough to run on every chunk.
#[derive(Debug, Default)]
pub struct PaneProbe {
    osc: osc::OscScanner,
    /// The OSC state last passed on, and when.
    sent: Option<(AgentState, u64)>,
    pending: Option<AgentState>,
    last_activity_ms: u64,
}

impl PaneProbe {
    pub fn on_output(&mut self, link: &PaneLink, bytes: &[u8]) {
        let now = now_ms();
        link.last_output.store(now, Ordering::Relaxed);
        if let Some(state) = self.osc.feed(bytes).and_then(osc_progress_state) {
            let repeat = self
                .sent
                .is_some_and(|(s, t)| s == state && now.saturating_sub(t) < OSC_REPEAT_MS);
            if !repeat {
                self.pending = Some(state);
            }
        }
        if let Some(state) = self.pending {
            if link.send(AgentNotice::Osc {
                window_id: link.window_id.clone(),
                state,
            }) {
                self.sent = Some((state, now));
                self.pending = None;
            }
        }
        if self.last_activity_ms == 0
            || now.saturating_sub(self.last_activity_ms) >= ACTIVITY_THROTTLE_MS
        {
            let sent = link.send(AgentNotice::Activity {
                window_id: link.window_id.clone(),
            });
            if sent {
                self.last_activity_ms = now;
            }
        }
    }
}

/// Login shells: a window whose foreground program is one of these runs nothing in particular.
pub const SHELLS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "fish",
    "dash",
    "ksh",
    "csh",
    "tcsh",
    "nu",
    "xonsh",
    "elvish",
    "pwsh",
    "powershell",
    "cmd",
];

/// The `foreground_cmd` of a window: the base name of its foreground program, empty for a
/// shell (including the session's own, whatever it is called).
pub fn foreground_cmd(p: &proc::ProcInfo, session_shell: Option<&str>) -> String {
    let name = manifest::base_name(&p.comm);
    let own = session_shell.map(manifest::base_name);
    if name.is_empty() || SHELLS.contains(&name.as_str()) || own.as_deref() == Some(name.as_str()) {
        return String::new();
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings_of(vars: &[(&str, &str)]) -> AgentSettings {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        AgentSettings::from_lookup(|k| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()))
    }

    #[test]
    fn environment_settings() {
        let s = settings_of(&[]);
        assert_eq!(s.autodetect, None);
        assert_eq!(s.stall, Some(DEFAULT_STALL));
        assert_eq!(s.stall_tick(), Some(Duration::from_millis(7_500)));
        assert!(s.extra_names.is_empty());
        let s = settings_of(&[
            ("TUIOS_AGENT_AUTODETECT", "Off"),
            ("TUIOS_AGENT_DETECT_SECONDS", "5"),
            ("TUIOS_AGENT_STALL_SECONDS", "0.5"),
            ("TUIOS_AGENT_BINARIES", " MyAgent, ,other "),
        ]);
        assert_eq!(s.autodetect, Some(false));
        assert_eq!(s.detect_seconds, Some(5));
        assert_eq!(s.stall, Some(Duration::from_millis(500)));
        assert_eq!(s.stall_tick(), Some(Duration::from_millis(200)));
        assert_eq!(s.extra_names, ["myagent", "other"]);
        assert_eq!(
            settings_of(&[("TUIOS_AGENT_STALL_SECONDS", "0")]).stall,
            None
        );
        assert_eq!(
            settings_of(&[("TUIOS_AGENT_STALL_SECONDS", "-3")]).stall,
            None
        );
        assert_eq!(s.transcript_every, Some(DEFAULT_TRANSCRIPT));
        let s = settings_of(&[
            ("TUIOS_AGENT_TRANSCRIPT_SECONDS", "0.25"),
            ("HOME", "/home/u"),
        ]);
        assert_eq!(s.transcript_every, Some(Duration::from_millis(250)));
        assert_eq!(s.home.as_deref(), Some(std::path::Path::new("/home/u")));
        let s = settings_of(&[("TUIOS_AGENT_TRANSCRIPT_SECONDS", "0"), ("HOME", "rel")]);
        assert_eq!((s.transcript_every, s.home), (None, None));
        assert_eq!(bool_word("YES"), Some(true));
        assert_eq!(bool_word("maybe"), None);
    }

    #[test]
    fn detect_interval_layers_session_over_environment() {
        let opts = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let plain = settings_of(&[]);
        assert_eq!(plain.detect_interval(&opts(&[])), Some(DEFAULT_DETECT));
        assert_eq!(
            plain.detect_interval(&opts(&[(OPT_DETECT_SECONDS, "7")])),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            plain.detect_interval(&opts(&[(OPT_DETECT_SECONDS, "-1")])),
            None
        );
        assert_eq!(
            plain.detect_interval(&opts(&[(OPT_AUTODETECT, "false")])),
            None
        );
        let off = settings_of(&[("TUIOS_AGENT_AUTODETECT", "0")]);
        assert_eq!(off.detect_interval(&opts(&[])), None);
        assert_eq!(
            off.detect_interval(&opts(&[(OPT_AUTODETECT, "true")])),
            Some(DEFAULT_DETECT),
            "the session's own value wins"
        );
        let slow = settings_of(&[("TUIOS_AGENT_DETECT_SECONDS", "9")]);
        assert_eq!(
            slow.detect_interval(&opts(&[])),
            Some(Duration::from_secs(9))
        );
    }

    #[test]
    fn probe_passes_on_osc_changes_and_repeats_sparingly() {
        let link = PaneLink::detached("w", 0);
        let mut p = PaneProbe::default();
        p.on_output(&link, b"\x1b]9;4;1\x07");
        assert_eq!(p.sent.map(|s| s.0), Some(AgentState::Working));
        let first = p.sent.unwrap().1;
        assert!(link.last_output_ms() > 0);
        p.on_output(&link, b"\x1b]9;4;3;10\x07");
        assert_eq!(p.sent.unwrap().1, first, "a quick repeat is not passed on");
        p.on_output(&link, b"\x1b]9;4;0\x07");
        assert_eq!(p.sent.map(|s| s.0), Some(AgentState::Idle));
        p.on_output(&link, b"plain");
        assert_eq!(p.pending, None);
    }

    #[test]
    fn foreground_cmd_blanks_shells() {
        let p = |comm: &str| proc::ProcInfo {
            pid: 1,
            comm: comm.into(),
            argv: vec![],
            exe: String::new(),
        };
        assert_eq!(foreground_cmd(&p("bash"), None), "");
        assert_eq!(foreground_cmd(&p("-zsh"), None), "");
        assert_eq!(foreground_cmd(&p("myshell"), Some("/opt/bin/myshell")), "");
        assert_eq!(foreground_cmd(&p("vim"), Some("/bin/bash")), "vim");
        assert_eq!(foreground_cmd(&p("Claude"), None), "claude");
    }
}
