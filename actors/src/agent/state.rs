//! One window's agent state and the rules for changing it: source ranks, harness attribution,
//! and the screen tier's hand-back of a claim it displaced. The Session actor owns one per
//! window and turns the outcomes into events.
use protocol::agent::{may_replace, AgentSource, AgentState};
use serde_json::{json, Map, Value};

use super::transcript::{AgentProc, TranscriptWatch};
use super::PaneLink;

/// A window's agent state, as a window's description carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentFacts {
    pub state: AgentState,
    /// What the last report said; `None` when it said nothing.
    pub message: Option<String>,
    /// When the state was last set (Unix nanoseconds); `None` if it never was.
    pub since_ns: Option<u64>,
    /// The harness the window is attributed to.
    pub harness: Option<String>,
    /// The program in the foreground, when it is not the session's shell.
    pub foreground_cmd: Option<String>,
}

/// A claim on a window, as it stood before the screen tier displaced it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pub state: AgentState,
    pub source: Option<AgentSource>,
    pub message: String,
    pub harness: Option<String>,
    pub auto: bool,
}

/// A report of a state, from any tier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub state: AgentState,
    pub source: AgentSource,
    pub message: Option<String>,
    pub harness: Option<String>,
    /// Skip the rank check: the detector clearing a window whose agent left, the stall
    /// heuristic, a claim handed back, the visible-blocker exception.
    pub force: bool,
}

impl Report {
    pub fn new(state: AgentState, source: AgentSource) -> Report {
        Report {
            state,
            source,
            message: None,
            harness: None,
            force: false,
        }
    }

    pub fn forced(mut self) -> Report {
        self.force = true;
        self
    }
}

/// What a report did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportEffect {
    /// False when a higher-ranked claim stands; nothing changed then.
    pub applied: bool,
    /// The state value changed (an `agent-state` event is due).
    pub changed: bool,
    /// The state after the report.
    pub state: AgentState,
}

/// Times a report is stamped with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Unix nanoseconds, for clients.
    pub unix_ns: u64,
    /// Monotonic milliseconds, for the silence and blocker timers.
    pub mono_ms: u64,
}

impl Stamp {
    pub fn now() -> Stamp {
        Stamp {
            unix_ns: super::unix_ns(),
            mono_ms: super::now_ms(),
        }
    }
}

/// How long a claim must have stood before a visible prompt may override it.
pub const BLOCKER_GRACE_MS: u64 = 2_000;

pub struct WindowAgent {
    pub link: PaneLink,
    pub state: AgentState,
    pub message: String,
    pub at_ns: u64,
    pub at_ms: u64,
    /// Who holds the window; `None` when unclaimed.
    pub source: Option<AgentSource>,
    pub harness: Option<String>,
    /// The detector promoted this window, so it clears it when the agent leaves.
    pub auto: bool,
    /// Base name of the foreground program; empty for a shell.
    pub foreground_cmd: String,
    /// The claim the screen tier displaced, handed back when its rule stops matching.
    pub displaced: Option<Claim>,
    /// An OSC state waiting out the anti-flicker hold, and the generation of its timer.
    pub osc_hold: Option<AgentState>,
    pub hold_gen: u64,
    pub scan_busy: bool,
    pub scan_again: bool,
    pub settle_pending: bool,
    pub stall_look: bool,
    /// When the detector last read this window's foreground process (ms); 0 = never.
    pub probed_ms: u64,
    /// The agent process the detector last found, when a manifest recognised it.
    pub agent_proc: Option<AgentProc>,
    /// The transcript tier's join and search.
    pub transcript: TranscriptWatch,
}

impl WindowAgent {
    pub fn new(link: PaneLink) -> WindowAgent {
        WindowAgent {
            link,
            state: AgentState::None,
            message: String::new(),
            at_ns: 0,
            at_ms: 0,
            source: None,
            harness: None,
            auto: false,
            foreground_cmd: String::new(),
            displaced: None,
            osc_hold: None,
            hold_gen: 0,
            scan_busy: false,
            scan_again: false,
            settle_pending: false,
            stall_look: false,
            probed_ms: 0,
            agent_proc: None,
            transcript: TranscriptWatch::default(),
        }
    }

    pub fn claim(&self) -> Claim {
        Claim {
            state: self.state,
            source: self.source,
            message: self.message.clone(),
            harness: self.harness.clone(),
            auto: self.auto,
        }
    }

    /// Apply a report under the rank rule. A report naming a harness attributes the window to
    /// it; one naming none keeps the attribution; `none` clears the claim, the attribution and
    /// the detector's ownership.
    pub fn apply(&mut self, r: Report, now: Stamp) -> ReportEffect {
        if !r.force && !may_replace(self.source, r.source) {
            return ReportEffect {
                applied: false,
                changed: false,
                state: self.state,
            };
        }
        let before = self.state;
        if r.source == AgentSource::Screen {
            if self.source != Some(AgentSource::Screen) {
                self.displaced = Some(self.claim());
            }
        } else {
            self.displaced = None;
        }
        self.state = r.state;
        self.message = r.message.unwrap_or_default();
        self.at_ns = now.unix_ns;
        self.at_ms = now.mono_ms;
        if r.state == AgentState::None {
            self.source = None;
            self.harness = None;
            self.auto = false;
            self.displaced = None;
        } else {
            self.source = Some(r.source);
            if let Some(h) = r.harness.filter(|h| !h.is_empty()) {
                self.harness = Some(h);
            }
        }
        ReportEffect {
            applied: true,
            changed: before != self.state,
            state: self.state,
        }
    }

    /// Put back a displaced claim.
    pub fn restore(&mut self, c: Claim, now: Stamp) -> ReportEffect {
        let before = self.state;
        self.state = c.state;
        self.source = c.source;
        self.message = c.message;
        self.harness = c.harness;
        self.auto = c.auto;
        self.displaced = None;
        self.at_ns = now.unix_ns;
        self.at_ms = now.mono_ms;
        ReportEffect {
            applied: true,
            changed: before != self.state,
            state: self.state,
        }
    }

    /// The visible-blocker exception: a prompt on screen may override a higher-ranked claim
    /// that differs, is at least [`BLOCKER_GRACE_MS`] old, and that the pane has printed since.
    /// (A socket caller naming source screen has observed nothing, so this is the daemon's own.)
    pub fn blocker_may_override(
        &self,
        state: AgentState,
        now_ms: u64,
        last_output_ms: u64,
    ) -> bool {
        state == AgentState::NeedsInput
            && self.state != state
            && last_output_ms > self.at_ms
            && now_ms.saturating_sub(self.at_ms) >= BLOCKER_GRACE_MS
    }

    /// The source get-agent-state reports: the claimant, or `report` for an unclaimed window.
    pub fn source_name(&self) -> &'static str {
        self.source.map(|s| s.as_str()).unwrap_or("report")
    }

    /// What a window's description says of its agent: each fact only when set.
    pub fn facts(&self) -> AgentFacts {
        AgentFacts {
            state: self.state,
            message: (!self.message.is_empty()).then(|| self.message.clone()),
            since_ns: (self.at_ns != 0).then_some(self.at_ns),
            harness: self.harness.clone(),
            foreground_cmd: (!self.foreground_cmd.is_empty()).then(|| self.foreground_cmd.clone()),
        }
    }

    /// The agent keys of a list-sessions window entry (each only when set); the foreground
    /// program is left out for windows the user named.
    pub fn session_keys(&self, named: bool) -> Map<String, Value> {
        let mut m = Map::new();
        if self.state != AgentState::None {
            m.insert("agent_state".into(), json!(self.state.as_str()));
        }
        if self.at_ns != 0 {
            m.insert("agent_state_at".into(), json!(self.at_ns));
        }
        if let Some(h) = &self.harness {
            m.insert("agent_harness".into(), json!(h));
        }
        if !self.message.is_empty() {
            m.insert("agent_message".into(), json!(self.message));
        }
        if !named && !self.foreground_cmd.is_empty() {
            m.insert("foreground_cmd".into(), json!(self.foreground_cmd));
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use AgentSource::*;
    use AgentState as S;

    fn agent() -> WindowAgent {
        WindowAgent::new(PaneLink::detached("w1", 0))
    }

    fn at(ms: u64) -> Stamp {
        Stamp {
            unix_ns: ms * 1_000_000,
            mono_ms: ms,
        }
    }

    #[test]
    fn a_lower_source_never_overwrites_a_higher_claim() {
        let order = [Report, Transcript, Osc, Screen, Detect, Stall];
        for (i, &claimant) in order.iter().enumerate() {
            for (j, &incoming) in order.iter().enumerate() {
                let mut a = agent();
                a.apply(super::Report::new(S::Working, claimant), at(1));
                let out = a.apply(super::Report::new(S::Done, incoming), at(2));
                let stands = j <= i;
                assert_eq!(out.applied, stands, "{incoming} over {claimant}");
                assert_eq!(out.changed, stands, "{incoming} over {claimant}");
                assert_eq!(a.state, if stands { S::Done } else { S::Working });
                assert_eq!(a.source, Some(if stands { incoming } else { claimant }));
                assert_eq!(
                    a.at_ms,
                    if stands { 2 } else { 1 },
                    "refused reports change nothing"
                );
            }
        }
    }

    #[test]
    fn unclaimed_windows_take_anything_and_none_clears_the_claim() {
        let mut a = agent();
        assert_eq!(a.source_name(), "report");
        let out = a.apply(super::Report::new(S::Idle, Stall), at(1));
        assert!(out.applied && out.changed);
        assert_eq!(a.source_name(), "stall");
        let mut r = super::Report::new(S::Working, Report);
        r.harness = Some("codex".into());
        r.message = Some("busy".into());
        a.apply(r, at(2));
        assert_eq!(
            (a.harness.as_deref(), a.message.as_str()),
            (Some("codex"), "busy")
        );
        // No harness named: the attribution stays; the message is the report's.
        let out = a.apply(super::Report::new(S::Working, Report), at(3));
        assert!(out.applied && !out.changed);
        assert_eq!(a.harness.as_deref(), Some("codex"));
        assert_eq!(a.message, "");
        a.auto = true;
        a.apply(super::Report::new(S::None, Report), at(4));
        assert_eq!((a.source, a.harness.clone(), a.auto), (None, None, false));
        // Cleared: the lowest source may claim it again.
        assert!(a.apply(super::Report::new(S::Idle, Stall), at(5)).applied);
    }

    #[test]
    fn forced_reports_skip_the_rank_check() {
        let mut a = agent();
        a.apply(super::Report::new(S::Working, Report), at(1));
        let out = a.apply(super::Report::new(S::Idle, Stall).forced(), at(2));
        assert!(out.applied && out.changed);
        assert_eq!(a.source, Some(Stall));
    }

    #[test]
    fn the_screen_hands_back_what_it_displaced() {
        let mut a = agent();
        let mut r = super::Report::new(S::Working, Detect);
        r.harness = Some("claude-code".into());
        a.apply(r, at(1));
        a.auto = true;
        a.apply(super::Report::new(S::NeedsInput, Screen), at(2));
        let kept = a.displaced.clone().unwrap();
        assert_eq!(
            (kept.state, kept.source, kept.auto),
            (S::Working, Some(Detect), true)
        );
        // A second screen report keeps the original claim, not the screen's own.
        a.apply(super::Report::new(S::Idle, Screen), at(3));
        assert_eq!(a.displaced.as_ref().unwrap().source, Some(Detect));
        let out = a.restore(a.displaced.clone().unwrap(), at(4));
        assert!(out.changed);
        assert_eq!(
            (a.state, a.source, a.auto),
            (S::Working, Some(Detect), true)
        );
        assert_eq!(a.harness.as_deref(), Some("claude-code"));
        assert!(a.displaced.is_none());
        // Any other source forgets a displaced claim.
        a.apply(super::Report::new(S::NeedsInput, Screen), at(5));
        a.apply(super::Report::new(S::Done, Report), at(6));
        assert!(a.displaced.is_none());
    }

    #[test]
    fn visible_blocker_exception_needs_age_output_and_a_difference() {
        let mut a = agent();
        a.apply(super::Report::new(S::Working, Report), at(1_000));
        // Too young.
        assert!(!a.blocker_may_override(S::NeedsInput, 2_000, 1_500));
        // Old enough, but nothing printed since the claim.
        assert!(!a.blocker_may_override(S::NeedsInput, 5_000, 900));
        // Old enough, printed since: the prompt wins.
        assert!(a.blocker_may_override(S::NeedsInput, 5_000, 4_000));
        // Only a blocked prompt qualifies, and only when it differs.
        assert!(!a.blocker_may_override(S::Idle, 5_000, 4_000));
        a.apply(super::Report::new(S::NeedsInput, Report), at(1_000));
        assert!(!a.blocker_may_override(S::NeedsInput, 5_000, 4_000));
    }

    // The window row's agent keys are built from these facts (`verbs::rows`, whose test holds
    // that an unset fact leaves its key out).
    #[test]
    fn facts_hold_only_what_is_set() {
        let mut a = agent();
        assert_eq!(
            a.facts(),
            AgentFacts {
                state: S::None,
                message: None,
                since_ns: None,
                harness: None,
                foreground_cmd: None,
            }
        );
        assert!(a.session_keys(false).is_empty());
        let mut r = super::Report::new(S::NeedsInput, Report);
        r.message = Some("approve".into());
        r.harness = Some("codex".into());
        a.apply(r, at(7));
        a.foreground_cmd = "codex".into();
        assert_eq!(
            a.facts(),
            AgentFacts {
                state: S::NeedsInput,
                message: Some("approve".into()),
                since_ns: Some(7_000_000),
                harness: Some("codex".into()),
                foreground_cmd: Some("codex".into()),
            }
        );
        assert!(a.session_keys(true).get("foreground_cmd").is_none());
        assert_eq!(a.session_keys(false)["foreground_cmd"], "codex");
    }
}
