//! Agent-state alerts (`notifications.agent.*`): when a window's agent enters a state the user
//! asked to hear about, the attached client raises it in the dock, as a desktop notification
//! (OSC 9 to the outer terminal), as a bell, and/or by running a command. The decisions are pure
//! and tested here; the loop in `mod.rs` carries them out.
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use protocol::attach::WindowView;

/// What `notifications.agent.*` asks for, read from the resolved options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertConfig {
    pub enabled: bool,
    pub notify: bool,
    pub sound: bool,
    /// `audio`, `bell`, `both` or empty (a bell). There is no audio player, so every mode
    /// sounds as the terminal bell.
    pub sound_mode: String,
    pub cooldown: Duration,
    pub dock: bool,
    pub command: String,
    pub settle: Duration,
    pub suppress_focused: bool,
    /// Minutes after local midnight, start and end; the window may wrap past midnight.
    pub quiet: Option<(u32, u32)>,
    pub states: BTreeSet<String>,
}

impl AlertConfig {
    /// From an option reader that gives the value in effect (session, override or default).
    pub fn read(get: &dyn Fn(&str) -> String) -> AlertConfig {
        let flag = |p: &str, dflt: bool| config::options::as_bool(&get(p)).unwrap_or(dflt);
        let secs = |p: &str, zero_means: u64| match config::options::as_int(&get(p)) {
            Some(n) if n > 0 => Duration::from_secs(n as u64),
            _ => Duration::from_secs(zero_means),
        };
        let states = ["needs_input", "errored", "done", "idle", "working"]
            .into_iter()
            .filter(|s| {
                let dflt = matches!(*s, "needs_input" | "errored" | "done");
                flag(&format!("notifications.agent.states.{s}"), dflt)
            })
            .map(str::to_string)
            .collect();
        let settle = match config::options::as_int(&get("notifications.agent.settle_seconds")) {
            Some(n) if n >= 0 => Duration::from_secs(n as u64),
            _ => Duration::from_secs(2),
        };
        AlertConfig {
            enabled: flag("notifications.agent.enabled", true),
            notify: flag("notifications.agent.notify", true),
            sound: flag("notifications.agent.sound", false),
            sound_mode: get("notifications.agent.sound_mode"),
            cooldown: secs("notifications.agent.sound_cooldown_seconds", 3),
            dock: flag("notifications.agent.dock", true),
            command: get("notifications.agent.command").trim().to_string(),
            settle,
            suppress_focused: flag("notifications.agent.suppress_focused", true),
            quiet: parse_quiet_hours(&get("notifications.agent.quiet_hours")),
            states,
        }
    }
}

/// `HH:MM-HH:MM` as minutes after midnight; anything else is no quiet window.
pub fn parse_quiet_hours(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.trim().split_once('-')?;
    let minute = |t: &str| -> Option<u32> {
        let (h, m) = t.trim().split_once(':')?;
        let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
        (h < 24 && m < 60).then_some(h * 60 + m)
    };
    Some((minute(a)?, minute(b)?))
}

fn in_quiet(quiet: Option<(u32, u32)>, minute: u32) -> bool {
    match quiet {
        None => false,
        Some((a, b)) if a <= b => (a..b).contains(&minute),
        // Wraps past midnight, e.g. 22:00-07:00.
        Some((a, b)) => minute >= a || minute < b,
    }
}

/// One alert to raise now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fired {
    pub window: String,
    pub title: String,
    pub state: String,
    pub previous: String,
    pub dock: bool,
    pub notify: bool,
    pub bell: bool,
    pub command: Option<String>,
}

impl Fired {
    /// The words shown and notified, e.g. `build: needs input`.
    pub fn text(&self) -> String {
        format!("{}: {}", self.title, self.state.replace('_', " "))
    }
}

/// An alert waiting out its settle time: the state it is for, the one before, and when it
/// fires.
#[derive(Debug)]
struct PendingAlert {
    state: String,
    previous: String,
    due: Instant,
}

/// Window states last seen, and alerts waiting out their settle time.
#[derive(Debug, Default)]
pub struct Alerts {
    seen: Option<BTreeMap<String, String>>,
    pending: BTreeMap<String, PendingAlert>,
    last_sound: Option<Instant>,
}

fn state_of(w: &WindowView) -> String {
    if w.agent_state.is_empty() {
        "none".to_string()
    } else {
        w.agent_state.clone()
    }
}

impl Alerts {
    /// Note state changes. The first look only learns the states: what a window was already
    /// doing when the client attached is not news.
    pub fn observe(&mut self, windows: &[WindowView], cfg: &AlertConfig, now: Instant) {
        let current: BTreeMap<String, String> = windows
            .iter()
            .map(|w| (w.id.clone(), state_of(w)))
            .collect();
        if let Some(seen) = &self.seen {
            for (id, state) in &current {
                let previous = seen.get(id).cloned().unwrap_or_else(|| "none".into());
                if *state == previous {
                    continue;
                }
                self.pending.remove(id);
                if cfg.enabled && cfg.states.contains(state) {
                    self.pending.insert(
                        id.clone(),
                        PendingAlert {
                            state: state.clone(),
                            previous,
                            due: now + cfg.settle,
                        },
                    );
                }
            }
        }
        // A window gone, or one that left the state before the settle time, drops its alert.
        self.pending
            .retain(|id, p| current.get(id).is_some_and(|s| *s == p.state));
        self.seen = Some(current);
    }

    /// The alerts whose settle time is over, with what each should do.
    pub fn due(
        &mut self,
        windows: &[WindowView],
        focused: Option<&str>,
        cfg: &AlertConfig,
        now: Instant,
        local_minute: impl Fn() -> u32,
    ) -> Vec<Fired> {
        let ready: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, p)| p.due <= now)
            .map(|(id, _)| id.clone())
            .collect();
        let mut out = Vec::new();
        for id in ready {
            let Some(p) = self.pending.remove(&id) else {
                continue;
            };
            // The local time is asked for only here: the C library's conversion reads the
            // environment and the zone rules, too slow for every turn of the run loop.
            if !cfg.enabled || in_quiet(cfg.quiet, local_minute()) {
                continue;
            }
            if cfg.suppress_focused && focused == Some(id.as_str()) {
                continue;
            }
            let Some(w) = windows.iter().find(|w| w.id == id) else {
                continue;
            };
            let bell = cfg.sound
                && self
                    .last_sound
                    .is_none_or(|at| now.duration_since(at) >= cfg.cooldown);
            if bell {
                self.last_sound = Some(now);
            }
            out.push(Fired {
                window: id.clone(),
                title: super::text::title_of(w),
                state: p.state,
                previous: p.previous,
                dock: cfg.dock,
                notify: cfg.notify,
                bell,
                command: (!cfg.command.is_empty()).then(|| cfg.command.clone()),
            });
        }
        out
    }
}

/// Minutes after local midnight now.
pub fn local_minute() -> u32 {
    let t = crate::clock::local_now();
    t.hour * 60 + t.minute
}

#[cfg(test)]
mod tests {
    use super::*;

    fn win(id: &str, state: &str) -> WindowView {
        WindowView {
            id: id.into(),
            title: format!("t{id}"),
            agent_state: state.into(),
            ..Default::default()
        }
    }

    fn cfg(pairs: &[(&str, &str)]) -> AlertConfig {
        let map: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        AlertConfig::read(&|p: &str| {
            map.get(p)
                .cloned()
                .or_else(|| config::options::resolve(p).map(|s| s.default.to_string()))
                .unwrap_or_default()
        })
    }

    #[test]
    fn defaults_follow_the_registry() {
        let c = cfg(&[]);
        assert!(c.enabled && c.notify && c.dock && c.suppress_focused && !c.sound);
        assert_eq!(c.settle, Duration::from_secs(2));
        assert_eq!(c.cooldown, Duration::from_secs(3));
        let states: Vec<&str> = c.states.iter().map(String::as_str).collect();
        assert_eq!(states, ["done", "errored", "needs_input"]);
        assert_eq!(c.quiet, None);
    }

    #[test]
    fn a_transition_alerts_after_settling_and_only_if_it_holds() {
        let c = cfg(&[]);
        let t0 = Instant::now();
        let mut a = Alerts::default();
        // Already blocked when the client attached: not news.
        a.observe(&[win("1", "needs_input"), win("2", "working")], &c, t0);
        assert!(a
            .due(&[], None, &c, t0 + Duration::from_secs(9), || 0)
            .is_empty());

        let now = [win("1", "needs_input"), win("2", "needs_input")];
        a.observe(&now, &c, t0);
        assert!(
            a.due(&now, None, &c, t0 + Duration::from_secs(1), || 0)
                .is_empty(),
            "settling"
        );
        let fired = a.due(&now, None, &c, t0 + Duration::from_secs(2), || 0);
        assert_eq!(fired.len(), 1);
        assert_eq!(fired[0].window, "2");
        assert_eq!(fired[0].previous, "working");
        assert_eq!(fired[0].text(), "t2: needs input");
        assert!(fired[0].dock && fired[0].notify && !fired[0].bell);
        assert!(
            a.due(&now, None, &c, t0 + Duration::from_secs(5), || 0)
                .is_empty(),
            "once"
        );

        // Leaving the state before the settle time drops the alert.
        a.observe(&[win("1", "needs_input"), win("2", "done")], &c, t0);
        a.observe(&[win("1", "needs_input"), win("2", "working")], &c, t0);
        assert!(a
            .due(&now, None, &c, t0 + Duration::from_secs(9), || 0)
            .is_empty());
    }

    #[test]
    fn focus_quiet_hours_states_and_the_master_switch() {
        let t0 = Instant::now();
        let later = t0 + Duration::from_secs(5);
        let run = |c: &AlertConfig, state: &str, focused: Option<&str>, minute: u32| {
            let mut a = Alerts::default();
            a.observe(&[win("1", "working")], c, t0);
            let now = [win("1", state)];
            a.observe(&now, c, t0);
            a.due(&now, focused, c, later, || minute).len()
        };
        let c = cfg(&[]);
        assert_eq!(run(&c, "done", None, 0), 1);
        assert_eq!(run(&c, "done", Some("1"), 0), 0, "the focused window");
        assert_eq!(run(&c, "idle", None, 0), 0, "idle is off by default");
        let c = cfg(&[("notifications.agent.suppress_focused", "off")]);
        assert_eq!(run(&c, "done", Some("1"), 0), 1);
        let c = cfg(&[("notifications.agent.enabled", "no")]);
        assert_eq!(run(&c, "done", None, 0), 0);
        let c = cfg(&[("notifications.agent.quiet_hours", "22:00-07:00")]);
        assert_eq!(run(&c, "done", None, 23 * 60), 0);
        assert_eq!(run(&c, "done", None, 6 * 60 + 59), 0);
        assert_eq!(run(&c, "done", None, 7 * 60), 1);
        let c = cfg(&[("notifications.agent.states.working", "on")]);
        assert_eq!(run(&c, "working", None, 0), 0, "no change, no alert");
    }

    #[test]
    fn sound_respects_the_cooldown_and_the_command_is_passed_on() {
        let c = cfg(&[
            ("notifications.agent.sound", "on"),
            ("notifications.agent.settle_seconds", "0"),
            ("notifications.agent.command", " notify-send hi "),
        ]);
        let t0 = Instant::now();
        let mut a = Alerts::default();
        a.observe(&[win("1", "working"), win("2", "working")], &c, t0);
        let now = [win("1", "done"), win("2", "working")];
        a.observe(&now, &c, t0);
        let f = a.due(&now, None, &c, t0, || 0);
        assert!(f[0].bell);
        assert_eq!(f[0].command.as_deref(), Some("notify-send hi"));
        let now = [win("1", "done"), win("2", "errored")];
        a.observe(&now, &c, t0 + Duration::from_secs(1));
        let f = a.due(&now, None, &c, t0 + Duration::from_secs(1), || 0);
        assert!(!f[0].bell, "within the cooldown");
        assert_eq!(parse_quiet_hours("9:05-17:30"), Some((545, 1050)));
        assert_eq!(parse_quiet_hours("25:00-01:00"), None);
        assert_eq!(parse_quiet_hours(""), None);
    }
}
