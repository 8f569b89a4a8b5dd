//! The Waiter behind `wait-for`: one per call. It subscribes to the event hub *before* its first
//! check, so nothing that happens between the request and the check can be missed; then it
//! re-checks on the events that could change the answer, an idle timer, and the deadline, and
//! answers exactly once. It lives inside its connection's request: if the client goes away, the
//! wait is dropped and its subscription guard unsubscribes it.
use std::sync::Arc;
use std::time::Duration;

use protocol::closest::{closest_match, echo_name};
use protocol::events::{EventFilter, WAIT_CONDITIONS};
use protocol::params::WaitForParams;
use protocol::registry;
use protocol::{ErrorCode, Hint, VerbError};
use regex::Regex;
use serde_json::{json, Value};
use tokio::time::{sleep_until, Instant};

use crate::errors;
use crate::event_hub::{SubscriptionGuard, SubscriptionKind};
use crate::session::{self, ResolvedWindow};
use crate::session_manager::{self, SessionRef};
use crate::subscriber::EventQueue;
use crate::verbs::VerbEnv;
use crate::window;

const DEFAULT_TIMEOUT_MS: i64 = 30_000;
const DEFAULT_IDLE_MS: i64 = 500;

fn mailbox<T>(r: Result<T, actix::MailboxError>) -> Result<T, VerbError> {
    r.map_err(|e| errors::internal(format!("the daemon could not complete the wait: {e}")))
}

fn timeout_error(message: String, hint: Hint) -> VerbError {
    VerbError::new(ErrorCode::Timeout, message).with_hint(hint)
}

async fn subscribe(
    env: &VerbEnv,
    filter: EventFilter,
) -> Result<(SubscriptionGuard, Arc<EventQueue>), VerbError> {
    let queue = EventQueue::new(crate::subscriber::DEFAULT_QUEUE);
    let guard = SubscriptionGuard::subscribe(
        &env.services.hub,
        SubscriptionKind::Waiter,
        filter,
        queue.clone(),
    )
    .await
    .map_err(|e| errors::internal(format!("could not watch for events: {e}")))?;
    Ok((guard, queue))
}

/// Carry out `wait-for`.
pub async fn wait_for(env: &VerbEnv, p: WaitForParams) -> Result<Value, VerbError> {
    let condition = p.condition.clone().unwrap_or_default();
    if condition.is_empty() || !WAIT_CONDITIONS.contains(&condition.as_str()) {
        let message = if condition.is_empty() {
            "condition is required".to_string()
        } else {
            format!("unknown condition {}", echo_name(&condition))
        };
        return Err(VerbError::new(ErrorCode::InvalidParams, message).with_hint(
            Hint::new()
                .param("condition")
                .accepted(WAIT_CONDITIONS)
                .did_you_mean(closest_match(&condition, WAIT_CONDITIONS.iter().copied())),
        ));
    }
    let timeout_ms = p.timeout.filter(|t| *t > 0).unwrap_or(DEFAULT_TIMEOUT_MS);
    let deadline = Instant::now() + Duration::from_millis(timeout_ms as u64);
    match condition.as_str() {
        "session-exists" => session_exists(env, p, deadline).await,
        "window-output" => window_output(env, p, deadline).await,
        "window-exit" => window_exit(env, p, deadline).await,
        "agent-state" => crate::agent::verbs::wait_agent_state(env, p, deadline).await,
        _ => window_idle(env, p, deadline).await,
    }
}

async fn session_exists(
    env: &VerbEnv,
    p: WaitForParams,
    deadline: Instant,
) -> Result<Value, VerbError> {
    let name = p.session.unwrap_or_default();
    if name.is_empty() {
        return Err(VerbError::invalid_params(
            "session",
            "session is required for the session-exists condition",
        ));
    }
    let (_guard, queue) = subscribe(
        env,
        EventFilter {
            session: Some(name.clone()),
            window: None,
            types: vec!["session-created".into()],
        },
    )
    .await?;
    let exists = |env: &VerbEnv, name: String| {
        let manager = env.manager.clone();
        async move {
            // Looking a session up by name would also mark it active; listing does not.
            let rows = crate::verbs::session_rows(&manager)
                .await
                .unwrap_or_default();
            rows.iter().any(|r| r["name"] == name.as_str())
        }
    };
    if exists(env, name.clone()).await {
        return Ok(
            json!({"type": "wait_result", "condition": "session-exists", "matched": true, "session": name}),
        );
    }
    loop {
        tokio::select! {
            ev = queue.next() => {
                if ev.is_none() { return Err(errors::internal("the daemon is shutting down")); }
                if exists(env, name.clone()).await {
                    return Ok(json!({"type": "wait_result", "condition": "session-exists", "matched": true, "session": name}));
                }
            }
            _ = sleep_until(deadline) => {
                return Err(timeout_error(
                    format!("timed out waiting for session {}", echo_name(&name)),
                    Hint::new().param("timeout").verb("list-sessions").detail(
                        "No session of that name appeared in time. Check the name, or raise timeout (milliseconds).",
                    ),
                ));
            }
        }
    }
}

async fn target(
    env: &VerbEnv,
    p: &WaitForParams,
) -> Result<(SessionRef, ResolvedWindow), VerbError> {
    let s = mailbox(
        env.manager
            .send(session_manager::ResolveSession(p.session.clone()))
            .await,
    )??;
    let w = mailbox(s.addr.send(session::ResolveWindow(p.window.clone())).await)??;
    Ok((s, w))
}

fn window_filter(s: &SessionRef, w: &ResolvedWindow, types: &[&str]) -> EventFilter {
    EventFilter {
        session: Some(s.name.clone()),
        window: Some(w.id.clone()),
        types: types.iter().map(|t| t.to_string()).collect(),
    }
}

async fn window_output(
    env: &VerbEnv,
    p: WaitForParams,
    deadline: Instant,
) -> Result<Value, VerbError> {
    let pattern = p.pattern.clone().unwrap_or_default();
    if pattern.is_empty() {
        return Err(VerbError::invalid_params(
            "pattern",
            "pattern is required for the window-output condition",
        ));
    }
    let re = Regex::new(&pattern).map_err(|e| {
        VerbError::new(ErrorCode::InvalidParams, format!("invalid pattern: {e}")).with_hint(
            Hint::new().param("pattern").detail(
                "pattern is a regular expression in the syntax of Rust's regex crate (like RE2).",
            ),
        )
    })?;
    let source = p.source.clone().unwrap_or_default();
    if !source.is_empty() {
        registry::check_accepted("wait-for", "source", &source)?;
    }
    let visible_only = source == "visible";
    let (s, w) = target(env, &p).await?;
    let (_guard, queue) =
        subscribe(env, window_filter(&s, &w, &["output", "window-closed"])).await?;
    let mut scan = window::ScanSince::start(visible_only);
    if p.fresh.unwrap_or(false) {
        // The baseline is where the cursor stands now: only what is written from here can match.
        scan = mailbox(w.addr.send(window::Baseline(scan)).await)
            .map_err(|_| errors::window_gone(&w.id))?;
    }
    let matched = |text: &str| re.find(text).map(|m| m.as_str().to_string());
    let window_arg = p.window.clone().unwrap_or_default();
    let ok = |found: String| {
        json!({
            "type": "wait_result",
            "condition": "window-output",
            "matched": true,
            "window": window_arg,
            "window_id": w.id,
            "pattern": pattern,
            "match": found,
        })
    };
    loop {
        let (text, next) = mailbox(w.addr.send(window::Scan(scan)).await)
            .map_err(|_| errors::window_gone(&w.id))?;
        scan = next;
        if let Some(found) = matched(&text) {
            return Ok(ok(found));
        }
        tokio::select! {
            ev = queue.next() => {
                if ev.is_none() {
                    return Err(errors::internal("the daemon is shutting down"));
                }
                // Everything already queued is covered by one scan.
                let mut closed = false;
                let mut next = ev;
                while let Some(e) = next {
                    closed |= e.kind == "window-closed";
                    next = queue.try_next();
                }
                if closed {
                    // The last output may have matched; the window is gone, so it cannot be read.
                    return Err(errors::window_not_found(&w.id, &[], &format!(
                        "window {} closed before its output matched", w.id)));
                }
            }
            _ = sleep_until(deadline) => {
                return Err(timeout_error(
                    format!("timed out waiting for output matching {}", echo_name(&pattern)),
                    Hint::new().param("pattern").verb("capture-pane").detail(
                        "Nothing matched in time. Capture the pane to see what it printed, then adjust the pattern or raise timeout.",
                    ),
                ));
            }
        }
    }
}

async fn window_exit(
    env: &VerbEnv,
    p: WaitForParams,
    deadline: Instant,
) -> Result<Value, VerbError> {
    let (s, w) = target(env, &p).await?;
    let (_guard, queue) = subscribe(
        env,
        window_filter(&s, &w, &["window-exit", "window-closed"]),
    )
    .await?;
    let window_arg = p.window.clone().unwrap_or_default();
    let result = |exit: Option<crate::pty::ExitInfo>| {
        let mut v = json!({
            "type": "wait_result",
            "condition": "window-exit",
            "matched": true,
            "window": window_arg,
            "window_id": w.id,
        });
        if let Some(e) = exit {
            if let Some(c) = e.code {
                v["exit_code"] = json!(c);
            }
            if let Some(sig) = e.signal {
                v["signal"] = json!(sig);
            }
        }
        v
    };
    match w.addr.send(window::GetState).await {
        Ok(state) if state.exited.is_some() => return Ok(result(state.exited)),
        Ok(_) => {}
        // Already gone: closed windows have exited by definition.
        Err(_) => return Ok(result(None)),
    }
    loop {
        tokio::select! {
            ev = queue.next() => {
                let Some(e) = ev else { return Err(errors::internal("the daemon is shutting down")) };
                match e.kind {
                    "window-exit" => return Ok(result(Some(crate::pty::ExitInfo { code: e.exit_code, signal: e.signal }))),
                    "window-closed" => return Ok(result(None)),
                    // A gap means events were lost: ask the window itself.
                    _ => if let Ok(state) = w.addr.send(window::GetState).await {
                        if state.exited.is_some() { return Ok(result(state.exited)); }
                    } else {
                        return Ok(result(None));
                    },
                }
            }
            _ = sleep_until(deadline) => {
                return Err(timeout_error(
                    format!("timed out waiting for window {} to exit", echo_name(&w.id)),
                    Hint::new().param("timeout").detail(
                        "The window's program was still running. Raise timeout (milliseconds), or send what ends it.",
                    ),
                ));
            }
        }
    }
}

async fn window_idle(
    env: &VerbEnv,
    p: WaitForParams,
    deadline: Instant,
) -> Result<Value, VerbError> {
    let idle_ms = p.idle.filter(|i| *i > 0).unwrap_or(DEFAULT_IDLE_MS);
    let idle = Duration::from_millis(idle_ms as u64);
    let (s, w) = target(env, &p).await?;
    let (_guard, queue) = subscribe(env, window_filter(&s, &w, &["output"])).await?;
    let window_arg = p.window.clone().unwrap_or_default();
    let mut quiet_until = Instant::now() + idle;
    loop {
        tokio::select! {
            ev = queue.next() => {
                if ev.is_none() { return Err(errors::internal("the daemon is shutting down")); }
                quiet_until = Instant::now() + idle;
            }
            _ = sleep_until(quiet_until), if quiet_until <= deadline => {
                return Ok(json!({
                    "type": "wait_result",
                    "condition": "window-idle",
                    "matched": true,
                    "window": window_arg,
                    "window_id": w.id,
                    "idle_ms": idle_ms,
                }));
            }
            _ = sleep_until(deadline) => {
                return Err(timeout_error(
                    format!("timed out waiting for window {} to go idle", echo_name(&w.id)),
                    Hint::new().param("idle").detail(
                        "The window never stayed quiet for the idle period. Raise timeout, or lower idle if it prints in bursts.",
                    ),
                ));
            }
        }
    }
}
