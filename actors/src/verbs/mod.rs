//! The JSON verbs: each request is validated once against the registry, decoded into its typed
//! params, then carried out by messages to the session manager, a session and a window.

use actix::prelude::*;
use futures_util::future::join_all;

use protocol::envelope::Request;
use protocol::params::*;
use protocol::registry::{self, decode};
use protocol::{ErrorCode, Hint, VerbError, MIN_PROTOCOL_VERSION, PROTOCOL_VERSION};
use serde_json::{json, Value};

use crate::errors;
use crate::event_hub::{CountSubscriptions, SubscriptionKind};
use crate::session::{self, ResolvedWindow};
use crate::session_manager::{self, SessionManager, SessionRef};
use crate::window;
use crate::Services;

/// What every verb handler can reach.
#[derive(Clone)]
pub struct VerbEnv {
    pub manager: Addr<SessionManager>,
    pub services: Services,
}

pub(super) fn mailbox<T>(r: Result<T, MailboxError>) -> Result<T, VerbError> {
    r.map_err(|e| errors::internal(format!("the daemon could not complete the request: {e}")))
}

mod io;
mod labels;
mod new_session;
mod options;
mod run;
mod run_command;
mod windows;

/// Carry out one request; the error is what the client gets back.
pub async fn dispatch(env: &VerbEnv, req: &Request) -> Result<Value, VerbError> {
    let spec = registry::validate(req)?;
    let p = &req.params;
    match spec.name {
        "hello" => hello(env, decode(p)?).await,
        "list-verbs" => {
            let params: ListVerbsParams = decode(p)?;
            registry::list_verbs(params.verb.as_deref(), &env.services.info.version)
        }
        "list-sessions" => list_sessions(env).await,
        "resurrect" => {
            let params: SessionParams = decode(p)?;
            mailbox(
                env.manager
                    .send(session_manager::resurrect::Resurrect(params.session))
                    .await,
            )?
        }
        "upgrade" => crate::handover::request(p).await,
        "session-info" => {
            let params: SessionParams = decode(p)?;
            let s = session(env, params.session).await?;
            let mut info = mailbox(s.addr.send(session::SessionInfo).await)?;
            // Live wait-for calls on this session: a harness can check that none leaked.
            info["waiters"] = json!(mailbox(
                env.services
                    .hub
                    .send(CountSubscriptions {
                        kind: SubscriptionKind::Waiter,
                        session: Some(s.name.clone()),
                    })
                    .await
            )?);
            Ok(info)
        }
        "list-windows" => {
            let params: SessionParams = decode(p)?;
            let s = session(env, params.session).await?;
            mailbox(s.addr.send(session::ListWindows).await)
        }
        "new-window" => {
            let extra: new_session::EnvParam = decode(p)?;
            let extra = new_session::parse_env(extra.env.unwrap_or_default())?;
            windows::new_window(env, decode(p)?, extra).await
        }
        "close-window" => {
            let params: WindowParams = decode(p)?;
            let s = session(env, params.session).await?;
            mailbox(s.addr.send(session::CloseWindow(params.window)).await)??;
            Ok(ok())
        }
        "kill-session" => {
            let params: SessionParams = decode(p)?;
            mailbox(
                env.manager
                    .send(session_manager::KillSession(
                        params.session.unwrap_or_default(),
                    ))
                    .await,
            )??;
            Ok(ok())
        }
        "send-keys" => io::send_keys(env, decode(p)?).await,
        "send-text" => io::send_text(env, decode(p)?).await,
        "capture-pane" => io::capture_pane(env, decode(p)?).await,
        "resize" => io::resize(env, decode(p)?).await,
        "wait-for" => crate::waiter::wait_for(env, decode(p)?).await,
        "list-workspaces" => windows::list_workspaces(env, decode(p)?).await,
        "select-workspace" => windows::select_workspace(env, decode(p)?).await,
        "move-window" => windows::move_window(env, decode(p)?).await,
        "set-window" => windows::set_window(env, decode(p)?).await,
        "focus-window" => windows::focus_window(env, decode(p)?).await,
        "split-window" => windows::split_window(env, decode(p)?).await,
        "set-layout" => windows::set_layout(env, decode(p)?).await,
        "set-session-name" => labels::set_session_name(env, decode(p)?).await,
        "set-session-accent" => labels::set_session_accent(env, decode(p)?).await,
        "set-workspace-name" => labels::set_workspace_name(env, decode(p)?).await,
        "set-workspace-order" => labels::set_workspace_order(env, decode(p)?).await,
        "list-options" => options::list_options(env, decode(p)?).await,
        "set-option" => options::set_option(env, decode(p)?).await,
        "get-option" => options::get_option(env, decode(p)?).await,
        "list-themes" => options::list_themes(env, decode(p)?).await,
        "run-command" => run_command::run_command(env, decode(p)?).await,
        "run" => run::run(env, decode(p)?).await,
        "new-session" => new_session::new_session(env, decode(p)?).await,
        "set-agent-state" => crate::agent::verbs::set_agent_state(env, decode(p)?).await,
        "get-agent-state" => crate::agent::verbs::get_agent_state(env, decode(p)?).await,
        "explain-agent-detect" => crate::agent::verbs::explain_agent_detect(env, decode(p)?).await,
        "explain-agent-screen" => crate::agent::verbs::explain_agent_screen(env, decode(p)?).await,
        other => Err(errors::internal(format!(
            "verb {other} is registered but has no handler"
        ))),
    }
}

/// Carry out a run-command for an attached client (the client does its own client-side
/// commands; these are the ones the daemon owns).
pub async fn run_command_for_client(
    env: &VerbEnv,
    session: &str,
    name: String,
    args: Vec<String>,
) -> Result<Value, VerbError> {
    run_command::run_command(
        env,
        RunCommandParams {
            session: Some(session.to_string()),
            command: Some(name),
            args: Some(args),
        },
    )
    .await
}

/// Hand work to the session's attached client and wait for its answer; `needs_client` when
/// nobody is attached.
pub(super) async fn route(
    s: &SessionRef,
    request: protocol::attach::RoutedRequest,
    what: &str,
) -> Result<Value, VerbError> {
    match mailbox(s.addr.send(session::Route(request)).await)? {
        Ok(data) => Ok(data),
        Err(None) => Err(needs_client(&s.name, what)),
        Err(Some(e)) => Err(e),
    }
}

/// The error for work that needs an attached client's viewport.
pub(super) fn needs_client(session: &str, what: &str) -> VerbError {
    VerbError::new(
        ErrorCode::NeedsClient,
        format!("{what} needs an attached client, and session {session} has none"),
    )
    .with_hint(
        Hint::new()
            .command(format!("tuios attach {session}"))
            .detail("This works on what a client displays (layout, geometry, input modes), and a headless daemon has no view of its own. Attach a client and retry."),
    )
}

pub(super) fn ok() -> Value {
    json!({"type": "ok"})
}

pub(super) async fn session(env: &VerbEnv, name: Option<String>) -> Result<SessionRef, VerbError> {
    mailbox(
        env.manager
            .send(session_manager::ResolveSession(name))
            .await,
    )?
}

pub(super) async fn window(
    s: &SessionRef,
    target: Option<String>,
) -> Result<ResolvedWindow, VerbError> {
    mailbox(s.addr.send(session::ResolveWindow(target)).await)?
}

/// A window whose program is still running, for verbs that write to or resize its PTY.
pub(super) async fn live_window(
    s: &SessionRef,
    target: Option<String>,
) -> Result<ResolvedWindow, VerbError> {
    let w = window(s, target).await?;
    if !w.alive {
        return Err(errors::pty_not_found(&w.id));
    }
    Ok(w)
}

async fn hello(env: &VerbEnv, params: HelloParams) -> Result<Value, VerbError> {
    params.check_protocol(&env.services.info.version)?;
    if let Some(client) = params.client {
        tracing::debug!(client = %client, version = ?params.version, "hello");
    }
    let sessions = mailbox(env.manager.send(session_manager::SessionCount).await)?;
    Ok(json!({
        "type": "hello",
        "protocol": PROTOCOL_VERSION,
        "min_protocol": MIN_PROTOCOL_VERSION,
        "daemon_version": env.services.info.version,
        "pid": env.services.info.pid,
        "sessions": sessions,
    }))
}

/// The session rows of `list-sessions`, oldest first.
pub async fn session_rows(manager: &Addr<SessionManager>) -> Result<Vec<Value>, VerbError> {
    let list = mailbox(manager.send(session_manager::ListSessions).await)?;
    let summaries = join_all(list.iter().map(|(addr, _)| addr.send(session::Summarize))).await;
    let mut rows = Vec::new();
    for (summary, (_, last_active)) in summaries.into_iter().zip(list) {
        // A session that ended while we asked is simply not listed.
        let Ok(s) = summary else { continue };
        let windows: Vec<Value> = s
            .windows
            .iter()
            .zip(s.agents.iter().map(Some).chain(std::iter::repeat(None)))
            .map(|((id, title, ws), agent)| {
                let mut w = json!({"id": id, "title": title, "workspace": ws});
                for (k, v) in agent.into_iter().flatten() {
                    w[k] = v.clone();
                }
                w
            })
            .collect();
        let mut row = json!({
            "name": s.name,
            "id": s.id,
            "created": s.created,
            "last_active": last_active,
            "window_count": s.windows.len(),
            "attached": s.clients > 0,
            "width": s.width,
            "height": s.height,
            "current_workspace": s.current_workspace,
        });
        if let Some(d) = s.display_name {
            row["display_name"] = json!(d);
        }
        if let Some(a) = s.accent {
            row["accent"] = json!(a);
        }
        if s.restored {
            row["restored"] = json!(true);
        }
        if !windows.is_empty() {
            row["windows"] = Value::Array(windows);
        }
        rows.push(row);
    }
    Ok(rows)
}

async fn list_sessions(env: &VerbEnv) -> Result<Value, VerbError> {
    let sessions = session_rows(&env.manager).await?;
    let running: Vec<String> = sessions
        .iter()
        .filter_map(|r| r["name"].as_str().map(str::to_owned))
        .collect();
    // Saved sessions that are not running, and saved files that cannot be used.
    let (saved, unreadable) = session_manager::resurrect::saved_listing(&running).await;
    Ok(json!({
        "type": "session_list",
        "sessions": sessions,
        "saved": saved,
        "unreadable": unreadable,
    }))
}
