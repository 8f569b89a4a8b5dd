//! The Waiter actor behind `wait-for`: one per call. It registers a watch where the data is (the
//! window for output, exit and idle; the session manager for a session's appearance; the hub
//! for agent states), answers exactly once on a match or at the deadline, and stops. It also
//! stops when its connection's request is dropped (the client went away): the request holds a
//! cancel handle whose drop the waiter listens for, and stopping drops its watches, which their
//! owners forget at the next check.
use protocol::verbs::wait_for::{Params, Reply};
use std::time::Duration;

use actix::prelude::*;
use protocol::closest::{closest_match, echo_name};
use protocol::events::WAIT_CONDITIONS;
use protocol::registry;
use protocol::{ErrorCode, Hint, VerbError};
use regex::Regex;
use tokio::sync::oneshot;
use tokio::time::{timeout_at, Instant};

use crate::errors;
use crate::event_hub::{EventHub, WaiterLive};
use crate::session::ResolvedWindow;
use crate::session_manager::{self, SessionRef};
use crate::verb_env::{mailbox, VerbEnv};
use crate::window;

use super::session;
use crate::event_hub::SubscriptionKind;
use crate::session::AgentStates;
use protocol::agent::{parse_until, until_text};
use protocol::events::EventFilter;
use tokio::time::sleep_until;

const DEFAULT_TIMEOUT_MS: i64 = 30_000;
const DEFAULT_IDLE_MS: i64 = 500;
/// screen-settled's default: a screen usually redraws in well under this.
const DEFAULT_SETTLED_MS: i64 = 300;

type Answer = Result<Reply, VerbError>;

pub struct Waiter {
    env: VerbEnv,
    params: Option<Params>,
    reply: Option<oneshot::Sender<Answer>>,
    cancel: Option<oneshot::Receiver<()>>,
}

impl Actor for Waiter {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        if let Some(cancel) = self.cancel.take() {
            // Resolves when the request's handle is dropped: nobody wants the answer any more.
            ctx.spawn(cancel.into_actor(self).map(|_, _, ctx| ctx.stop()));
        }
        let env = self.env.clone();
        let Some(p) = self.params.take() else { return };
        let mut down = env.services.shutting_down.subscribe();
        ctx.spawn(
            async move {
                tokio::select! {
                    answer = run(&env, p) => answer,
                    _ = down.wait_for(|d| *d) => Err(errors::internal("the daemon is shutting down")),
                }
            }
                .into_actor(self)
                .map(|answer, act, ctx| {
                    if let Some(reply) = act.reply.take() {
                        let _ = reply.send(answer);
                    }
                    ctx.stop();
                }),
        );
    }
}

/// Carry out `wait-for`: start a Waiter and wait for its answer. Dropping the returned future
/// (the client went away) stops the waiter.
pub(super) async fn handle(env: &VerbEnv, p: Params) -> Answer {
    let (reply, answer) = oneshot::channel();
    let (_cancel, cancel) = oneshot::channel::<()>();
    Waiter {
        env: env.clone(),
        params: Some(p),
        reply: Some(reply),
        cancel: Some(cancel),
    }
    .start();
    answer
        .await
        .unwrap_or_else(|_| Err(errors::internal("the wait ended without an answer")))
}

/// Counts a live wait against its session for `session-info`'s `waiters`, until dropped.
struct LiveWait {
    hub: Addr<EventHub>,
    session: String,
}

impl LiveWait {
    fn new(env: &VerbEnv, session: &str) -> LiveWait {
        env.services.hub.do_send(WaiterLive {
            session: session.to_string(),
            live: true,
        });
        LiveWait {
            hub: env.services.hub.clone(),
            session: session.to_string(),
        }
    }
}

impl Drop for LiveWait {
    fn drop(&mut self) {
        self.hub.do_send(WaiterLive {
            session: std::mem::take(&mut self.session),
            live: false,
        });
    }
}

fn timeout_error(message: String, hint: Hint) -> VerbError {
    VerbError::new(ErrorCode::Timeout, message).with_hint(hint)
}

async fn run(env: &VerbEnv, p: Params) -> Answer {
    // The registry refuses a missing condition; an unknown one is refused here.
    let condition = p.condition.clone();
    if !WAIT_CONDITIONS.contains(&condition.as_str()) {
        let message = format!("unknown condition {}", echo_name(&condition));
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
        "agent-state" => {
            let _live = LiveWait::new(env, p.session.as_deref().unwrap_or_default());
            wait_agent_state(env, p, deadline).await
        }
        "screen-settled" => screen_settled(env, p, deadline).await,
        _ => window_idle(env, p, deadline).await,
    }
}

async fn session_exists(env: &VerbEnv, p: Params, deadline: Instant) -> Answer {
    let name = p.session.unwrap_or_default();
    if name.is_empty() {
        return Err(VerbError::invalid_params(
            "session",
            "session is required for the session-exists condition",
        ));
    }
    let _live = LiveWait::new(env, &name);
    let (tx, rx) = oneshot::channel();
    mailbox(
        env.manager
            .send(session_manager::WatchSession {
                name: name.clone(),
                reply: tx,
            })
            .await,
    )?;
    match timeout_at(deadline, rx).await {
        Ok(Ok(())) => Ok(Reply {
            condition: "session-exists".into(),
            matched: true,
            session: Some(name),
            ..Default::default()
        }),
        Ok(Err(_)) => Err(errors::internal("the daemon is shutting down")),
        Err(_) => Err(timeout_error(
            format!("timed out waiting for session {}", echo_name(&name)),
            Hint::new().param("timeout").verb("list-sessions").detail(
                "No session of that name appeared in time. Check the name, or raise timeout (milliseconds).",
            ),
        )),
    }
}

async fn target(env: &VerbEnv, p: &Params) -> Result<(SessionRef, ResolvedWindow), VerbError> {
    mailbox(
        env.manager
            .send(session_manager::ResolveTarget {
                session: p.session.clone(),
                window: p.window.clone(),
            })
            .await,
    )?
}

async fn window_output(env: &VerbEnv, p: Params, deadline: Instant) -> Answer {
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
    let _live = LiveWait::new(env, &s.name);
    let (tx, rx) = oneshot::channel();
    w.addr
        .send(window::WatchOutput {
            pattern: re,
            visible_only,
            fresh: p.fresh.unwrap_or(false),
            reply: tx,
        })
        .await
        .map_err(|_| errors::window_gone(&w.id))?;
    match timeout_at(deadline, rx).await {
        Ok(Ok(found)) => Ok(Reply {
            condition: "window-output".into(),
            matched: true,
            window: Some(p.window.clone().unwrap_or_default()),
            window_id: Some(w.id.clone()),
            pattern: Some(pattern),
            r#match: Some(found),
            ..Default::default()
        }),
        // The window dropped the watch: it closed (its last output did not match).
        Ok(Err(_)) => Err(errors::window_not_found(
            &w.id,
            &[],
            &format!("window {} closed before its output matched", w.id),
        )),
        Err(_) => Err(timeout_error(
            format!("timed out waiting for output matching {}", echo_name(&pattern)),
            Hint::new().param("pattern").verb("capture-pane").detail(
                "Nothing matched in time. Capture the pane to see what it printed, then adjust the pattern or raise timeout.",
            ),
        )),
    }
}

async fn window_exit(env: &VerbEnv, p: Params, deadline: Instant) -> Answer {
    let (s, w) = target(env, &p).await?;
    let _live = LiveWait::new(env, &s.name);
    let window_arg = p.window.clone().unwrap_or_default();
    let result = |exit: Option<crate::pty::ExitInfo>| Reply {
        condition: "window-exit".into(),
        matched: true,
        window: Some(window_arg.clone()),
        window_id: Some(w.id.clone()),
        exit_code: exit.and_then(|e| e.code),
        signal: exit.and_then(|e| e.signal),
        ..Default::default()
    };
    let (tx, rx) = oneshot::channel();
    if w.addr.send(window::WatchExit(tx)).await.is_err() {
        // Already gone: closed windows have exited by definition.
        return Ok(result(None));
    }
    match timeout_at(deadline, rx).await {
        Ok(Ok(exit)) => Ok(result(exit)),
        // Closed before its program exited.
        Ok(Err(_)) => Ok(result(None)),
        Err(_) => Err(timeout_error(
            format!("timed out waiting for window {} to exit", echo_name(&w.id)),
            Hint::new().param("timeout").detail(
                "The window's program was still running. Raise timeout (milliseconds), or send what ends it.",
            ),
        )),
    }
}

async fn window_idle(env: &VerbEnv, p: Params, deadline: Instant) -> Answer {
    let idle_ms = p.idle.filter(|i| *i > 0).unwrap_or(DEFAULT_IDLE_MS);
    let (s, w) = target(env, &p).await?;
    let _live = LiveWait::new(env, &s.name);
    let (tx, rx) = oneshot::channel();
    w.addr
        .send(window::WatchIdle {
            idle: Duration::from_millis(idle_ms as u64),
            reply: tx,
        })
        .await
        .map_err(|_| errors::window_gone(&w.id))?;
    match timeout_at(deadline, rx).await {
        // A window that closed prints nothing more: it is idle.
        Ok(_) => Ok(Reply {
            condition: "window-idle".into(),
            matched: true,
            window: Some(p.window.clone().unwrap_or_default()),
            window_id: Some(w.id.clone()),
            idle_ms: Some(idle_ms),
            ..Default::default()
        }),
        Err(_) => Err(timeout_error(
            format!("timed out waiting for window {} to go idle", echo_name(&w.id)),
            Hint::new().param("idle").detail(
                "The window never stayed quiet for the idle period. Raise timeout, or lower idle if it prints in bursts.",
            ),
        )),
    }
}

async fn screen_settled(env: &VerbEnv, p: Params, deadline: Instant) -> Answer {
    let idle_ms = p.idle.filter(|i| *i > 0).unwrap_or(DEFAULT_SETTLED_MS);
    let (s, w) = target(env, &p).await?;
    let _live = LiveWait::new(env, &s.name);
    let (tx, rx) = oneshot::channel();
    w.addr
        .send(window::WatchSettled {
            idle: Duration::from_millis(idle_ms as u64),
            reply: tx,
        })
        .await
        .map_err(|_| errors::window_gone(&w.id))?;
    match timeout_at(deadline, rx).await {
        Ok(Ok(hash)) => Ok(Reply {
            condition: "screen-settled".into(),
            matched: true,
            window: Some(p.window.clone().unwrap_or_default()),
            window_id: Some(w.id.clone()),
            idle_ms: Some(idle_ms),
            hash: Some(hash),
            ..Default::default()
        }),
        // The window dropped the watch: it closed, and its screen with it.
        Ok(Err(_)) => Err(errors::window_not_found(
            &w.id,
            &[],
            &format!("window {} closed before its screen settled", w.id),
        )),
        Err(_) => Err(timeout_error(
            format!("timed out waiting for window {} to settle", echo_name(&w.id)),
            Hint::new().param("idle").verb("capture-pane").detail(
                "The screen kept changing (a spinner or a clock never settles). Capture the pane to see what moves, raise timeout, or lower idle.",
            ),
        )),
    }
}

/// `wait-for` with `condition: agent-state`: until some window of the session (or the one
/// named) is in one of the `until` states.
pub async fn wait_agent_state(
    env: &VerbEnv,
    p: Params,
    deadline: Instant,
) -> Result<Reply, VerbError> {
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
            return Ok(Reply {
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
