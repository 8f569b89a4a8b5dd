//! The session's side of agent state: each window's claim, the detector's timer, screen scans,
//! the OSC anti-flicker hold and the silence heuristic. Every applied change goes through
//! [`Session::agent_apply`], which publishes one `agent-state` event per real change of state.
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;
use protocol::agent::{may_replace, AgentSource, AgentState};
use protocol::events::Event;
use protocol::VerbError;

use super::views::{AgentReportOutcome, AgentStatus};
use super::Session;
use crate::agent::manifest::{Manifest, Registry};
use crate::agent::proc::ProcInfo;
use crate::agent::screen::tail_lines;
use crate::agent::state::{Report, ReportEffect, Stamp};
use crate::agent::transcript::AgentProc;
use crate::agent::{self, proc, AgentNotice, SETTLE};
use crate::event_hub::Publish;
use crate::window;

/// Every window's foreground is read at least this often while detection is on, output or not.
const FULL_SWEEP_MS: u64 = 30_000;

/// Timers of the session's agent tiers.
#[derive(Default)]
pub(super) struct SessionAgent {
    /// The detector's poll and its interval; absent while detection is off.
    detect: Option<(SpawnHandle, Duration)>,
    /// The silence heuristic's tick; runs only while some window is working.
    stall: Option<SpawnHandle>,
    /// A batch of /proc reads is running on the blocking pool. One at a time per session:
    /// windows asked for meanwhile wait in `probe_pending` (a set, so at most one entry per
    /// window) and go in the next batch.
    probing: bool,
    probe_pending: BTreeSet<String>,
    /// The transcript tier's tick (`session/transcript.rs`); runs only while some window has a
    /// transcript to follow.
    pub(super) transcript: Option<SpawnHandle>,
}

impl Session {
    /// Start (or stop, or re-time) the detector after the session's options say so.
    /// Load the harness manifests on the blocking pool, so screen rules have them before the
    /// first output arrives (actor threads only ever read the cached copy).
    pub(super) fn agent_warm_manifests(&mut self) {
        let manifests = &self.services.manifests;
        if manifests.cached().is_none() {
            let manifests = manifests.clone();
            actix_rt::task::spawn_blocking(move || drop(manifests.current()));
        }
    }

    pub(super) fn agent_reconfigure(&mut self, ctx: &mut Context<Self>) {
        let wanted = self.services.info.agent.detect_interval(&self.options);
        let current = self.agent.detect.as_ref().map(|(_, d)| *d);
        if wanted == current {
            return;
        }
        if let Some((handle, _)) = self.agent.detect.take() {
            ctx.cancel_future(handle);
        }
        match wanted {
            Some(interval) => {
                let handle = ctx.run_interval(interval, |act, ctx| act.agent_detect_tick(ctx));
                self.agent.detect = Some((handle, interval));
                tracing::debug!(session = %self.name, ?interval, "agent detector on");
            }
            None => {
                // The detector no longer watches, so what it claimed can no longer be kept true.
                for i in 0..self.windows.len() {
                    if self.windows[i].agent.auto {
                        self.agent_clear_auto(i, ctx);
                    }
                }
                tracing::debug!(session = %self.name, "agent detector off");
            }
        }
    }

    fn agent_detect_enabled(&self) -> bool {
        self.agent.detect.is_some()
    }

    /// Probe the windows whose foreground may have changed: those with output since their last
    /// probe (starting or leaving a program prints, if only the shell's echo and prompt), those
    /// never probed, and every window once per [`FULL_SWEEP_MS`] in case a program changed
    /// silently. Idle windows then cost no /proc reads between sweeps.
    fn agent_detect_tick(&mut self, ctx: &mut Context<Self>) {
        let now = agent::now_ms();
        let due: Vec<String> = self
            .windows
            .iter()
            .filter(|w| {
                let probed = w.agent.probed_ms;
                probed == 0
                    || w.agent.link.last_output_ms() >= probed
                    || now.saturating_sub(probed) >= FULL_SWEEP_MS
            })
            .map(|w| w.id.clone())
            .collect();
        self.agent_probe(due, ctx);
    }

    /// Read the foreground process of each of `windows` (and the manifests, when their directory
    /// changed) on the blocking pool, then act on what was found. Never blocks the session.
    fn agent_probe(&mut self, windows: Vec<String>, ctx: &mut Context<Self>) {
        self.agent.probe_pending.extend(windows);
        if self.agent.probing {
            return;
        }
        let mut reads = Vec::new();
        for id in std::mem::take(&mut self.agent.probe_pending) {
            let Some(i) = self.index_of(&id) else {
                continue;
            };
            if self.windows[i].exited.is_some() {
                if self.windows[i].agent.auto {
                    self.agent_clear_auto(i, ctx);
                }
                continue;
            }
            self.windows[i].agent.probed_ms = agent::now_ms();
            reads.push((id, self.windows[i].agent.link.pid));
        }
        if reads.is_empty() {
            return;
        }
        self.agent.probing = true;
        let manifests = self.services.manifests.clone();
        let read = actix_rt::task::spawn_blocking(move || {
            let registry = manifests.current();
            let found: Vec<(String, Option<ProcInfo>)> = reads
                .into_iter()
                .map(|(id, pid)| (id, proc::foreground(pid)))
                .collect();
            (registry, found)
        });
        ctx.spawn(read.into_actor(self).map(|res, act, ctx| {
            act.agent.probing = false;
            match res {
                Ok((registry, found)) => {
                    for (id, fg) in found {
                        if let Some(i) = act.index_of(&id) {
                            act.agent_probe_found(i, &registry, fg, ctx);
                        }
                    }
                }
                Err(e) => tracing::warn!(error = %e, "reading foreground processes failed"),
            }
            if !act.agent.probe_pending.is_empty() {
                act.agent_probe(Vec::new(), ctx);
            }
        }));
    }

    /// The shell a window of this session runs when given no program, to leave it out of
    /// `foreground_cmd`.
    fn agent_session_shell(&self) -> Option<String> {
        self.options
            .get("appearance.preferred_shell")
            .filter(|s| !s.trim().is_empty())
            .cloned()
            .or_else(|| self.services.info.default_shell.clone())
            .or_else(|| std::env::var("SHELL").ok())
    }

    /// Act on window `i`'s foreground process as just read: promote a window nothing claims
    /// when an agent is in front, bring an agent the silence heuristic called idle back to
    /// working, clear a window the detector promoted once its agent has left.
    fn agent_probe_found(
        &mut self,
        i: usize,
        registry: &Registry,
        fg: Option<ProcInfo>,
        ctx: &mut Context<Self>,
    ) {
        if self.windows[i].exited.is_some() {
            if self.windows[i].agent.auto {
                self.agent_clear_auto(i, ctx);
            }
            return;
        }
        let shell = self.agent_session_shell();
        let fg_cmd = fg
            .as_ref()
            .map(|p| agent::foreground_cmd(p, shell.as_deref()))
            .unwrap_or_default();
        self.windows[i].agent.foreground_cmd = fg_cmd;
        let found = fg
            .as_ref()
            .and_then(|p| registry.identify(p, &self.services.info.agent.extra_names));
        // The transcript tier checks its join against this process.
        self.windows[i].agent.agent_proc = match (&found, &fg) {
            (Some(f), Some(p)) if f.harness.is_some() => Some(AgentProc {
                pid: p.pid,
                exe: p.exe.clone(),
            }),
            _ => None,
        };
        let Some(found) = found else {
            if self.windows[i].agent.auto {
                self.agent_clear_auto(i, ctx);
            }
            return;
        };
        let a = &self.windows[i].agent;
        let had_harness = a.harness.is_some();
        let low_claim = a
            .source
            .is_none_or(|s| s.rank() <= AgentSource::Detect.rank());
        let promote = a.state == AgentState::None;
        let resume = a.state == AgentState::Idle && low_claim;
        if promote || resume {
            let mut r = Report::new(AgentState::Working, AgentSource::Detect);
            r.harness = found.harness.clone();
            let out = self.agent_apply(i, r, ctx);
            if out.applied && promote {
                self.windows[i].agent.auto = true;
            }
        } else if !had_harness && found.harness.is_some() {
            // Attribution only, so the harness's screen rules run for a claim someone else made.
            self.windows[i].agent.harness = found.harness;
        }
        if !had_harness && self.windows[i].agent.harness.is_some() {
            // Newly attributed: what is on screen already counts.
            self.agent_scan(i, false, ctx);
        }
        self.agent_transcript_ensure(i, ctx);
    }

    fn agent_clear_auto(&mut self, i: usize, ctx: &mut Context<Self>) {
        self.agent_apply(
            i,
            Report::new(AgentState::None, AgentSource::Detect).forced(),
            ctx,
        );
    }

    /// Apply a report to window `i`; publishes the event and tells attached clients.
    pub(super) fn agent_apply(
        &mut self,
        i: usize,
        report: Report,
        ctx: &mut Context<Self>,
    ) -> ReportEffect {
        let out = self.windows[i].agent.apply(report, Stamp::now());
        self.agent_after(i, out, ctx);
        out
    }

    fn agent_after(&mut self, i: usize, out: ReportEffect, ctx: &mut Context<Self>) {
        if !out.applied {
            return;
        }
        let w = &self.windows[i];
        if out.changed {
            tracing::debug!(session = %self.name, window = %w.id, state = %out.state, source = w.agent.source_name(), "agent state");
            let mut e = Event::new("agent-state");
            e.session = self.name.clone();
            e.window = w.id.clone();
            e.pty_id = w.pty_id.clone();
            e.state = out.state.as_str().to_string();
            self.services.hub.do_send(Publish(e));
        }
        if out.state == AgentState::Working {
            self.agent_ensure_stall(ctx);
        }
        self.agent_transcript_ensure(i, ctx);
        self.broadcast_state();
    }

    fn agent_ensure_stall(&mut self, ctx: &mut Context<Self>) {
        if self.agent.stall.is_some() {
            return;
        }
        if let Some(tick) = self.services.info.agent.stall_tick() {
            self.agent.stall = Some(ctx.run_interval(tick, |act, ctx| act.agent_stall_tick(ctx)));
        }
    }

    /// Demote working windows that have been silent for the timeout; stop ticking when no
    /// window is working.
    fn agent_stall_tick(&mut self, ctx: &mut Context<Self>) {
        let Some(timeout) = self.services.info.agent.stall else {
            return;
        };
        let now = agent::now_ms();
        let mut working = false;
        for i in 0..self.windows.len() {
            let a = &self.windows[i].agent;
            if a.state != AgentState::Working {
                continue;
            }
            working = true;
            let last = a.link.last_output_ms().max(a.at_ms);
            if now.saturating_sub(last) < timeout.as_millis() as u64 || a.stall_look {
                continue;
            }
            if self.agent_screen_rules(i).is_some() {
                // A last look at the screen first: a prompt there says more than silence.
                self.windows[i].agent.stall_look = true;
                self.agent_scan(i, true, ctx);
            } else {
                self.agent_demote(i, ctx);
            }
        }
        if !working {
            if let Some(h) = self.agent.stall.take() {
                ctx.cancel_future(h);
            }
        }
    }

    fn agent_demote(&mut self, i: usize, ctx: &mut Context<Self>) {
        // Silence reads only working and writes only idle, whoever claimed the window.
        self.agent_apply(
            i,
            Report::new(AgentState::Idle, AgentSource::Stall).forced(),
            ctx,
        );
    }

    /// The screen rules of the harness window `i` is attributed to, when there are any to run.
    fn agent_screen_rules(&self, i: usize) -> Option<Arc<Manifest>> {
        let harness = self.windows[i].agent.harness.as_deref()?;
        let m = self.services.manifests.cached()?.get(harness)?.clone();
        m.active_screen()?;
        Some(m)
    }

    /// Read the window's screen and run its harness's rules on the last rows. One scan at a time
    /// per window; a request during a scan runs once more after it. `for_stall` is the last look
    /// before the silence heuristic demotes: when no rule matches, it demotes.
    fn agent_scan(&mut self, i: usize, for_stall: bool, ctx: &mut Context<Self>) {
        let Some(m) = self.agent_screen_rules(i) else {
            self.windows[i].agent.stall_look = false;
            return;
        };
        let w = &mut self.windows[i];
        if w.agent.scan_busy && !for_stall {
            w.agent.scan_again = true;
            return;
        }
        w.agent.scan_busy = true;
        let addr = w.addr.clone();
        let id = w.id.clone();
        let fut = async move {
            addr.send(window::Capture {
                scrollback: false,
                styled: false,
            })
            .await
        };
        ctx.spawn(fut.into_actor(self).map(move |res, act, ctx| {
            let Some(i) = act.index_of(&id) else { return };
            act.windows[i].agent.scan_busy = false;
            // The attribution may have gone (the agent left) while the screen was read.
            let still = act.windows[i].agent.harness.as_deref() == Some(m.id.as_str());
            let matched = match res {
                Ok(_) if !still => true,
                Ok(screen) => {
                    let rules = m.active_screen().expect("checked before the scan");
                    let tail = tail_lines(&screen, rules.lines);
                    act.agent_screen_result(i, rules.classify(&tail), ctx)
                }
                Err(_) => true,
            };
            if for_stall {
                let a = &mut act.windows[i].agent;
                a.stall_look = false;
                if !matched && a.state == AgentState::Working {
                    act.agent_demote(i, ctx);
                }
            }
            if std::mem::take(&mut act.windows[i].agent.scan_again) {
                act.agent_scan(i, false, ctx);
            }
        }));
    }

    /// Act on a scan: a matching rule reports its state (source screen); no match hands back a
    /// claim the screen displaced. Returns whether a rule matched.
    fn agent_screen_result(
        &mut self,
        i: usize,
        verdict: Option<(usize, AgentState, String)>,
        ctx: &mut Context<Self>,
    ) -> bool {
        let a = &self.windows[i].agent;
        match verdict {
            Some((_, state, message)) => {
                if a.state == state && a.source == Some(AgentSource::Screen) {
                    return true;
                }
                let mut r = Report::new(state, AgentSource::Screen);
                r.message = Some(message).filter(|m| !m.is_empty());
                if !may_replace(a.source, AgentSource::Screen)
                    && a.blocker_may_override(state, agent::now_ms(), a.link.last_output_ms())
                {
                    r = r.forced();
                }
                self.agent_apply(i, r, ctx);
                true
            }
            None => {
                if a.source == Some(AgentSource::Screen) {
                    if let Some(claim) = a.displaced.clone() {
                        let out = self.windows[i].agent.restore(claim, Stamp::now());
                        self.agent_after(i, out, ctx);
                    }
                }
                false
            }
        }
    }

    fn agent_activity(&mut self, window_id: &str, ctx: &mut Context<Self>) {
        let Some(i) = self.index_of(window_id) else {
            return;
        };
        self.save_after_output(ctx);
        self.agent_look(i, ctx);
        self.agent_transcript_activity(i, ctx);
        self.agent_schedule_settle(window_id.to_string(), ctx);
    }

    /// Re-probe the foreground process (when detection is on) and read the screen (when the
    /// window's harness has rules).
    fn agent_look(&mut self, i: usize, ctx: &mut Context<Self>) {
        if self.agent_detect_enabled() {
            self.agent_probe(vec![self.windows[i].id.clone()], ctx);
        }
        if self.agent_screen_rules(i).is_some() {
            self.agent_scan(i, false, ctx);
        }
    }

    /// One more look once output has stopped for [`SETTLE`]: output notices are throttled, so
    /// the last of a burst may have gone unannounced, and the last frame a program draws before
    /// it waits is the one that matters.
    fn agent_schedule_settle(&mut self, window_id: String, ctx: &mut Context<Self>) {
        let Some(i) = self.index_of(&window_id) else {
            return;
        };
        if self.windows[i].agent.settle_pending {
            return;
        }
        self.windows[i].agent.settle_pending = true;
        ctx.run_later(SETTLE, move |act, ctx| act.agent_settle(window_id, ctx));
    }

    fn agent_settle(&mut self, window_id: String, ctx: &mut Context<Self>) {
        let Some(i) = self.index_of(&window_id) else {
            return;
        };
        let quiet = agent::now_ms().saturating_sub(self.windows[i].agent.link.last_output_ms());
        let settle = SETTLE.as_millis() as u64;
        if quiet < settle {
            let wait = Duration::from_millis(settle - quiet);
            ctx.run_later(wait, move |act, ctx| act.agent_settle(window_id, ctx));
            return;
        }
        self.windows[i].agent.settle_pending = false;
        self.agent_look(i, ctx);
    }

    /// An OSC 9;4 state from the pane. A state at least as loud as the current one is published
    /// at once; a quieter one only if it still stands after [`agent::OSC_HOLD`].
    fn agent_osc(&mut self, window_id: &str, state: AgentState, ctx: &mut Context<Self>) {
        let Some(i) = self.index_of(window_id) else {
            return;
        };
        let a = &mut self.windows[i].agent;
        a.hold_gen += 1;
        if state.loudness() >= a.state.loudness() {
            a.osc_hold = None;
            self.agent_apply(i, Report::new(state, AgentSource::Osc), ctx);
            return;
        }
        a.osc_hold = Some(state);
        let gen = a.hold_gen;
        let id = window_id.to_string();
        ctx.run_later(agent::OSC_HOLD, move |act, ctx| {
            let Some(i) = act.index_of(&id) else { return };
            let a = &mut act.windows[i].agent;
            if a.hold_gen != gen {
                return;
            }
            if let Some(state) = a.osc_hold.take() {
                act.agent_apply(i, Report::new(state, AgentSource::Osc), ctx);
            }
        });
    }

    /// Window `i`'s agent state, as `get-agent-state` reads it.
    fn agent_status(&self, i: usize) -> AgentStatus {
        let w = &self.windows[i];
        AgentStatus {
            window_id: w.id.clone(),
            state: w.agent.state,
            message: w.agent.message.clone(),
            since_ns: w.agent.at_ns,
            source: w.agent.source_name(),
            harness: w.agent.harness.clone(),
        }
    }
}

impl Handler<AgentNotice> for Session {
    type Result = ();
    fn handle(&mut self, msg: AgentNotice, ctx: &mut Self::Context) {
        match msg {
            AgentNotice::Osc { window_id, state } => self.agent_osc(&window_id, state, ctx),
            AgentNotice::Activity { window_id } => self.agent_activity(&window_id, ctx),
        }
    }
}

/// `set-agent-state` for a window of this session (params already checked).
#[derive(Message)]
#[rtype(result = "Result<AgentReportOutcome, VerbError>")]
pub struct SetAgentState {
    pub window: Option<String>,
    pub state: AgentState,
    pub source: AgentSource,
    pub message: Option<String>,
    pub harness: Option<String>,
}

impl Handler<SetAgentState> for Session {
    type Result = Result<AgentReportOutcome, VerbError>;
    fn handle(&mut self, msg: SetAgentState, ctx: &mut Self::Context) -> Self::Result {
        let i = self.resolve(msg.window.as_deref())?;
        let mut r = Report::new(msg.state, msg.source);
        r.message = msg.message.filter(|m| !m.is_empty());
        r.harness = msg.harness.filter(|h| !h.is_empty());
        let out = self.agent_apply(i, r, ctx);
        Ok(AgentReportOutcome {
            window_id: self.windows[i].id.clone(),
            state: out.state,
            applied: out.applied,
        })
    }
}

/// `get-agent-state` for a window of this session.
#[derive(Message)]
#[rtype(result = "Result<AgentStatus, VerbError>")]
pub struct GetAgentState(pub Option<String>);

impl Handler<GetAgentState> for Session {
    type Result = Result<AgentStatus, VerbError>;
    fn handle(&mut self, msg: GetAgentState, _: &mut Self::Context) -> Self::Result {
        let i = self.resolve(msg.0.as_deref())?;
        Ok(self.agent_status(i))
    }
}

/// Every window's id and agent state, for `wait-for agent-state`.
#[derive(Message)]
#[rtype(result = "Vec<(String, AgentState)>")]
pub struct AgentStates;

impl Handler<AgentStates> for Session {
    type Result = MessageResult<AgentStates>;
    fn handle(&mut self, _: AgentStates, _: &mut Self::Context) -> Self::Result {
        MessageResult(
            self.windows
                .iter()
                .map(|w| (w.id.clone(), w.agent.state))
                .collect(),
        )
    }
}

/// What the explain verbs need to know about a window, read in one go.
#[derive(Debug, Clone)]
pub struct AgentWindowInfo {
    pub window_id: String,
    pub addr: Addr<window::Window>,
    pub pid: i32,
    pub alive: bool,
    pub state: AgentState,
    pub source: &'static str,
    pub harness: Option<String>,
    pub auto: bool,
    /// The transcript tier's join (`joined`, `path`, `offset`) or why it made none (`joined`,
    /// `reason`); absent when the window has no transcript to follow.
    pub transcript: Option<serde_json::Value>,
}

#[derive(Message)]
#[rtype(result = "Result<AgentWindowInfo, VerbError>")]
pub struct GetAgentWindowInfo(pub Option<String>);

impl Handler<GetAgentWindowInfo> for Session {
    type Result = Result<AgentWindowInfo, VerbError>;
    fn handle(&mut self, msg: GetAgentWindowInfo, _: &mut Self::Context) -> Self::Result {
        let i = self.resolve(msg.0.as_deref())?;
        let w = &self.windows[i];
        Ok(AgentWindowInfo {
            window_id: w.id.clone(),
            addr: w.addr.clone(),
            pid: w.agent.link.pid,
            alive: w.exited.is_none(),
            state: w.agent.state,
            source: w.agent.source_name(),
            harness: w.agent.harness.clone(),
            auto: w.agent.auto,
            transcript: self.agent_transcript_view(i),
        })
    }
}
