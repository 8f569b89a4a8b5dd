//! The JSON verbs: each request arrives validated and decoded ([`protocol::verbs::Request`]), is
//! dispatched by an exhaustive match, and is carried out by messages to the session manager, a
//! session and a window. Every handler returns its verb's typed reply.

use actix::prelude::*;
use futures_util::future::join_all;

use protocol::params::*;
use protocol::registry;
use protocol::verbs::common::{OkReply, SessionRow};
use protocol::verbs::{self as typed, Reply, Request};
use protocol::{ErrorCode, Hint, VerbError, MIN_PROTOCOL_VERSION, PROTOCOL_VERSION};
use serde_json::{json, Map, Value};

use crate::errors;
use crate::event_hub::{CountSubscriptions, SubscriptionKind};
use crate::session::{self, ResolvedWindow};
use crate::session_manager::{self, SessionManager, SessionRef};
use crate::window;

pub use crate::session_manager::{mailbox, VerbEnv};

mod io;
mod labels;
mod new_session;
mod options;
mod run;
mod run_command;
mod windows;

/// The wire form of a typed reply. Replies are plain data (strings, numbers, maps with string
/// keys), so serializing cannot fail.
pub fn reply_value(reply: impl serde::Serialize) -> Value {
    serde_json::to_value(reply).expect("a reply type serializes to JSON")
}

/// Carry out one validated request; the error is what the client gets back. Every verb answers
/// with its own reply type, so the match is exhaustive on both sides.
pub async fn dispatch(env: &VerbEnv, req: Request) -> Result<Reply, VerbError> {
    use crate::agent::verbs as agent;
    Ok(match req {
        Request::Hello(p) => Reply::Hello(hello(env, p).await?),
        Request::ListVerbs(p) => Reply::ListVerbs(registry::list_verbs(
            p.verb.as_deref(),
            &env.services.info.version,
        )?),
        Request::ListSessions(_) => Reply::ListSessions(list_sessions(env).await?),
        Request::Resurrect(p) => Reply::Resurrect(mailbox(
            env.manager
                .send(session_manager::resurrect::Resurrect(p.session))
                .await,
        )??),
        Request::Upgrade(p) => Reply::Upgrade(crate::handover::request(env, p).await?),
        Request::SessionInfo(p) => Reply::SessionInfo(session_info(env, p).await?),
        Request::ListWindows(p) => {
            let s = session(env, p.session).await?;
            Reply::ListWindows(mailbox(s.addr.send(session::ListWindows).await)?)
        }
        Request::NewWindow(p) => Reply::NewWindow(windows::new_window(env, p).await?),
        Request::CloseWindow(p) => {
            let s = session(env, p.session).await?;
            mailbox(s.addr.send(session::CloseWindow(p.window)).await)??;
            Reply::CloseWindow(ok())
        }
        Request::KillSession(p) => {
            mailbox(
                env.manager
                    .send(session_manager::KillSession(p.session))
                    .await,
            )??;
            Reply::KillSession(ok())
        }
        Request::SendKeys(p) => Reply::SendKeys(io::send_keys(env, p).await?),
        Request::SendText(p) => Reply::SendText(io::send_text(env, p).await?),
        Request::CapturePane(p) => Reply::CapturePane(io::capture_pane(env, p).await?),
        Request::Resize(p) => Reply::Resize(io::resize(env, p).await?),
        Request::WaitFor(p) => Reply::WaitFor(crate::waiter::wait_for(env, p).await?),
        Request::ListWorkspaces(p) => {
            Reply::ListWorkspaces(windows::list_workspaces(env, p).await?)
        }
        Request::SelectWorkspace(p) => {
            Reply::SelectWorkspace(windows::select_workspace(env, p).await?)
        }
        Request::MoveWindow(p) => Reply::MoveWindow(windows::move_window(env, p).await?),
        Request::SetWindow(p) => Reply::SetWindow(windows::set_window(env, p).await?),
        Request::FocusWindow(p) => Reply::FocusWindow(windows::focus_window(env, p).await?),
        Request::SplitWindow(p) => Reply::SplitWindow(windows::split_window(env, p).await?),
        Request::SetLayout(p) => Reply::SetLayout(windows::set_layout(env, p).await?),
        Request::SetSessionName(p) => {
            Reply::SetSessionName(labels::set_session_name(env, p).await?)
        }
        Request::SetSessionAccent(p) => {
            Reply::SetSessionAccent(labels::set_session_accent(env, p).await?)
        }
        Request::SetWorkspaceName(p) => {
            Reply::SetWorkspaceName(labels::set_workspace_name(env, p).await?)
        }
        Request::SetWorkspaceOrder(p) => {
            Reply::SetWorkspaceOrder(labels::set_workspace_order(env, p).await?)
        }
        Request::ListOptions(p) => Reply::ListOptions(options::list_options(env, p).await?),
        Request::SetOption(p) => Reply::SetOption(options::set_option(env, p).await?),
        Request::GetOption(p) => Reply::GetOption(options::get_option(env, p).await?),
        Request::ListThemes(p) => Reply::ListThemes(options::list_themes(env, p).await?),
        Request::RunCommand(p) => Reply::RunCommand(run_command::run_command(env, p).await?),
        Request::Run(p) => Reply::Run(run::run(env, p).await?),
        Request::NewSession(p) => Reply::NewSession(new_session::new_session(env, p).await?),
        Request::SetAgentState(p) => Reply::SetAgentState(agent::set_agent_state(env, p).await?),
        Request::GetAgentState(p) => Reply::GetAgentState(agent::get_agent_state(env, p).await?),
        Request::ExplainAgentDetect(p) => {
            Reply::ExplainAgentDetect(agent::explain_agent_detect(env, p).await?)
        }
        Request::ExplainAgentScreen(p) => {
            Reply::ExplainAgentScreen(agent::explain_agent_screen(env, p).await?)
        }
        // A connection serves its own event stream (json_connection); it never reaches here.
        r @ (Request::Subscribe(_) | Request::Unsubscribe(_)) => {
            return Err(errors::internal(format!(
                "{} is served by the connection itself",
                r.verb()
            )))
        }
    })
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
            command: name,
            args: Some(args),
        },
    )
    .await
    .map(reply_value)
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

pub(super) fn ok() -> OkReply {
    OkReply::default()
}

pub(super) async fn session(env: &VerbEnv, name: Option<String>) -> Result<SessionRef, VerbError> {
    env.session(name).await
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

async fn hello(env: &VerbEnv, params: HelloParams) -> Result<typed::hello::Reply, VerbError> {
    params.check_protocol(&env.services.info.version)?;
    if let Some(client) = params.client {
        tracing::debug!(client = %client, version = ?params.version, "hello");
    }
    let sessions = mailbox(env.manager.send(session_manager::SessionCount).await)?;
    Ok(typed::hello::Reply {
        protocol: PROTOCOL_VERSION,
        min_protocol: MIN_PROTOCOL_VERSION,
        daemon_version: env.services.info.version.clone(),
        pid: env.services.info.pid,
        sessions,
        ..Default::default()
    })
}

async fn session_info(
    env: &VerbEnv,
    p: SessionParams,
) -> Result<typed::session_info::Reply, VerbError> {
    let s = session(env, p.session).await?;
    let mut info = mailbox(s.addr.send(session::SessionInfo).await)?;
    // Live wait-for calls on this session: a harness can check that none leaked.
    info.waiters = mailbox(
        env.services
            .hub
            .send(CountSubscriptions {
                kind: SubscriptionKind::Waiter,
                session: Some(s.name.clone()),
            })
            .await,
    )?;
    Ok(info)
}

/// The session rows of `list-sessions`, oldest first.
pub async fn session_list(manager: &Addr<SessionManager>) -> Result<Vec<SessionRow>, VerbError> {
    let list = mailbox(manager.send(session_manager::ListSessions).await)?;
    let summaries = join_all(list.iter().map(|(addr, _)| addr.send(session::Summarize))).await;
    let mut rows = Vec::new();
    for (summary, (_, last_active)) in summaries.into_iter().zip(list) {
        // A session that ended while we asked is simply not listed.
        let Ok(s) = summary else { continue };
        let windows: Vec<Map<String, Value>> = s
            .windows
            .iter()
            .zip(s.agents.iter().map(Some).chain(std::iter::repeat(None)))
            .map(|((id, title, ws), agent)| {
                let mut w = Map::new();
                w.insert("id".into(), json!(id));
                w.insert("title".into(), json!(title));
                w.insert("workspace".into(), json!(ws));
                for (k, v) in agent.into_iter().flatten() {
                    w.insert(k.clone(), v.clone());
                }
                w
            })
            .collect();
        rows.push(SessionRow {
            name: s.name,
            id: s.id,
            created: s.created,
            last_active,
            window_count: s.windows.len(),
            attached: s.clients > 0,
            width: s.width,
            height: s.height,
            current_workspace: s.current_workspace,
            display_name: s.display_name,
            accent: s.accent,
            restored: s.restored.then_some(true),
            windows: (!windows.is_empty()).then_some(windows),
        });
    }
    Ok(rows)
}

async fn list_sessions(env: &VerbEnv) -> Result<typed::list_sessions::Reply, VerbError> {
    let sessions = session_list(&env.manager).await?;
    let running: Vec<String> = sessions.iter().map(|r| r.name.clone()).collect();
    // Saved sessions that are not running, and saved files that cannot be used.
    let (saved, unreadable) = session_manager::resurrect::saved_listing(env, &running).await;
    Ok(typed::list_sessions::Reply {
        sessions,
        saved,
        unreadable,
        ..Default::default()
    })
}
