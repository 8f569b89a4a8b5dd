//! The agent verbs (set-agent-state, get-agent-state, explain-agent-detect,
//! explain-agent-screen) and the `agent-state` condition of wait-for.

use protocol::agent::{parse_source_param, parse_state_param, parse_until, until_text};
use protocol::closest::{closest_match, echo_name};
use protocol::events::EventFilter;
use protocol::params::{
    AgentWindowParams, ExplainAgentScreenParams, SetAgentStateParams, WaitForParams,
};
use protocol::verbs::{
    explain_agent_detect, explain_agent_screen, get_agent_state, set_agent_state, wait_for,
};
use protocol::{ErrorCode, Hint, VerbError};
use serde_json::json;
use tokio::time::{sleep_until, Instant};

use super::manifest::Registry;
use super::proc;
use super::screen::{tail_lines, DEFAULT_TAIL_LINES};
use crate::errors;
use crate::event_hub::SubscriptionKind;
use crate::session::{
    AgentStates, AgentWindowInfo, GetAgentState, GetAgentWindowInfo, SetAgentState,
};
use crate::session_manager::{mailbox, SessionRef, VerbEnv};
use crate::window;

async fn session(env: &VerbEnv, name: Option<String>) -> Result<SessionRef, VerbError> {
    env.session(name).await
}

pub async fn set_agent_state(
    env: &VerbEnv,
    p: SetAgentStateParams,
) -> Result<set_agent_state::Reply, VerbError> {
    let state = parse_state_param(Some(p.state.as_str()))?;
    let source = parse_source_param(p.source.as_deref())?;
    let s = session(env, p.session).await?;
    mailbox(
        s.addr
            .send(SetAgentState {
                window: p.window,
                state,
                source,
                message: p.message,
                harness: p.harness,
            })
            .await,
    )?
}

pub async fn get_agent_state(
    env: &VerbEnv,
    p: AgentWindowParams,
) -> Result<get_agent_state::Reply, VerbError> {
    let s = session(env, p.session).await?;
    mailbox(s.addr.send(GetAgentState(p.window)).await)?
}

async fn window_info(
    env: &VerbEnv,
    session_name: Option<String>,
    window: Option<String>,
) -> Result<AgentWindowInfo, VerbError> {
    let s = session(env, session_name).await?;
    mailbox(s.addr.send(GetAgentWindowInfo(window)).await)?
}

/// File and /proc reads, off the actor thread.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, VerbError> {
    actix_rt::task::spawn_blocking(f)
        .await
        .map_err(|e| errors::internal(format!("could not read the process table: {e}")))
}

pub async fn explain_agent_detect(
    env: &VerbEnv,
    p: AgentWindowParams,
) -> Result<explain_agent_detect::Reply, VerbError> {
    let info = window_info(env, p.session, p.window).await?;
    let pid = info.pid;
    let alive = info.alive;
    let manifests = env.services.manifests.clone();
    let (registry, fg) = blocking(move || {
        let registry = manifests.fresh();
        let fg = if alive { proc::foreground(pid) } else { None };
        (registry, fg)
    })
    .await?;
    let mut out = explain_agent_detect::Reply {
        window_id: info.window_id.clone(),
        state: info.state.as_str().to_string(),
        source: info.source.to_string(),
        harness_id: info.harness.clone().unwrap_or_default(),
        auto_detected: info.auto,
        running: fg.is_some(),
        matched: false,
        ..Default::default()
    };
    let Some(fg) = fg else {
        out.reason = Some(
            if alive {
                "no foreground process could be read for this window"
            } else {
                "the window's program has exited"
            }
            .to_string(),
        );
        return Ok(out);
    };
    let e = registry.explain(&fg, &env.services.info.agent.extra_names);
    out.process = Some(e.facts.to_json(&fg));
    out.manifests = Some(
        e.manifests
            .iter()
            .map(|(id, v)| {
                let mut m = json!({"id": id, "matched": v.matched});
                if let Some(r) = &v.rule {
                    m["rule"] = json!(r);
                }
                if let Some(r) = &v.reason {
                    m["reason"] = json!(r);
                }
                m
            })
            .collect(),
    );
    out.name_list = e.name_list.clone();
    if !registry.problems.is_empty() {
        out.manifest_problems = Some(registry.problems.clone());
    }
    match &e.identified {
        Some(found) => {
            out.matched = true;
            out.matched_rule = Some(found.rule.to_string());
            out.matched_harness = Some(found.harness.clone().unwrap_or_default());
            if found.harness.is_none() {
                out.note = Some(
                    "identified by the agent name list rather than a manifest, so no harness is named and no screen rules run".to_string(),
                );
            }
        }
        None => {
            out.reason = Some(format!(
                "{} is not a known agent: no manifest and no name in the agent list matches it",
                fg.comm
            ));
        }
    }
    Ok(out)
}

fn unknown_harness(name: &str, registry: &Registry) -> VerbError {
    let ids = registry.ids();
    VerbError::new(
        ErrorCode::InvalidParams,
        format!("unknown harness {}", echo_name(name)),
    )
    .with_hint(
        Hint::new()
            .param("harness")
            .did_you_mean(closest_match(name, ids.iter().map(String::as_str)))
            .available(ids.iter().cloned())
            .detail("harness names a manifest in the registry; a TOML file in the user manifest directory adds one."),
    )
}

pub async fn explain_agent_screen(
    env: &VerbEnv,
    p: ExplainAgentScreenParams,
) -> Result<explain_agent_screen::Reply, VerbError> {
    let manifests = env.services.manifests.clone();
    let registry = blocking(move || manifests.fresh()).await?;
    let asked = p.harness.clone().filter(|h| !h.is_empty());
    if let Some(h) = &asked {
        if registry.get(h).is_none() {
            return Err(unknown_harness(h, &registry));
        }
    }
    let info = window_info(env, p.session, p.window).await?;
    let harness = asked.or(info.harness.clone());
    let manifest = harness.as_deref().and_then(|h| registry.get(h)).cloned();
    let rules = manifest.as_ref().and_then(|m| m.screen.clone());
    let lines = p
        .lines
        .filter(|n| *n > 0)
        .map(|n| n as usize)
        .or(rules.as_ref().map(|r| r.lines))
        .unwrap_or(DEFAULT_TAIL_LINES);
    let screen = info
        .addr
        .send(window::Capture {
            scrollback: false,
            styled: false,
        })
        .await
        .map_err(|_| errors::window_gone(&info.window_id))?;
    let tail = tail_lines(&screen, lines);
    let mut out = explain_agent_screen::Reply {
        window_id: info.window_id.clone(),
        harness_id: manifest.as_ref().map(|m| m.id.clone()).unwrap_or_default(),
        state: info.state.as_str().to_string(),
        source: info.source.to_string(),
        lines: lines as i64,
        tail: Vec::new(),
        rules: Vec::new(),
        matched: false,
        rule: -1,
        ..Default::default()
    };
    match (&manifest, &rules) {
        (Some(_), Some(rules)) => {
            let v = rules.evaluate(&tail);
            out.enabled = Some(rules.enabled);
            out.rules = v.rules.iter().map(|r| r.to_json()).collect();
            let winner = v.winner.filter(|_| rules.enabled);
            out.matched = winner.is_some();
            out.rule = winner.map(|w| w as i64).unwrap_or(-1);
            out.rule_state = Some(
                winner
                    .map(|w| rules.rules[w].state.as_str())
                    .unwrap_or("")
                    .to_string(),
            );
        }
        (Some(m), None) => {
            out.enabled = Some(false);
            out.note = Some(format!("the {} manifest has no screen rules", m.id));
        }
        (None, _) => {
            out.note = Some(
                "the window is attributed to no harness; pass harness to evaluate a manifest's rules"
                    .to_string(),
            );
        }
    }
    out.tail = tail;
    Ok(out)
}

/// `wait-for` with `condition: agent-state`: until some window of the session (or the one
/// named) is in one of the `until` states.
pub async fn wait_agent_state(
    env: &VerbEnv,
    p: WaitForParams,
    deadline: Instant,
) -> Result<wait_for::Reply, VerbError> {
    let until = parse_until(p.until.as_deref())?;
    let s = session(env, p.session.clone()).await?;
    let pinned = match p.window.as_deref().filter(|w| !w.is_empty()) {
        Some(w) => Some(
            mailbox(
                s.addr
                    .send(crate::session::ResolveWindow(Some(w.to_string())))
                    .await,
            )??
            .id,
        ),
        None => None,
    };
    let mut queue = crate::subscriber::open(
        &env.services.hub,
        SubscriptionKind::Waiter,
        EventFilter {
            session: Some(s.name.clone()),
            window: pinned.clone(),
            types: vec!["agent-state".into(), "window-closed".into()],
        },
        crate::subscriber::DEFAULT_QUEUE,
    )
    .await
    .map_err(|e| errors::internal(format!("could not watch for events: {e}")))?;
    let wanted = until_text(&until);
    loop {
        let states = mailbox(s.addr.send(AgentStates).await)?;
        if let Some(w) = &pinned {
            if !states.iter().any(|(id, _)| id == w) {
                return Err(errors::window_not_found(
                    w,
                    &[],
                    &format!("the watched window closed before reaching {wanted}"),
                ));
            }
        }
        let hit = states
            .iter()
            .find(|(id, st)| pinned.as_deref().is_none_or(|w| w == id) && until.contains(st));
        if let Some((id, st)) = hit {
            return Ok(wait_for::Reply {
                condition: "agent-state".into(),
                matched: true,
                window: Some(id.clone()),
                window_id: Some(id.clone()),
                state: Some(st.as_str().to_string()),
                ..Default::default()
            });
        }
        tokio::select! {
            ev = queue.next() => {
                if ev.is_none() {
                    return Err(errors::internal("the daemon is shutting down"));
                }
                // Whatever else is queued is covered by the one check.
                while queue.try_next().is_some() {}
            }
            _ = sleep_until(deadline) => {
                return Err(VerbError::new(
                    ErrorCode::Timeout,
                    format!("timed out waiting for agent state {wanted}"),
                ).with_hint(Hint::new().param("until").verb("get-agent-state").detail(
                    "No window reached the state in time. Read the current state with get-agent-state, or raise timeout (milliseconds).",
                )));
            }
        }
    }
}
