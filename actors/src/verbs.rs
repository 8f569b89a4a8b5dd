//! The JSON verbs: each request is validated once against the registry, decoded into its typed
//! params, then carried out by messages to the session manager, a session and a window.
use std::path::PathBuf;

use actix::prelude::*;
use futures_util::future::join_all;
use protocol::closest::echo_name;
use protocol::envelope::Request;
use protocol::params::*;
use protocol::registry::{self, decode};
use protocol::{ErrorCode, Hint, VerbError, MIN_PROTOCOL_VERSION, PROTOCOL_VERSION};
use serde_json::{json, Value};

use crate::errors;
use crate::event_hub::{CountSubscriptions, SubscriptionKind};
use crate::session::{self, NewWindowSpec, ResolvedWindow, NUM_WORKSPACES};
use crate::session_manager::{self, SessionManager, SessionRef};
use crate::window;
use crate::Services;

/// What every verb handler can reach.
#[derive(Clone)]
pub struct VerbEnv {
    pub manager: Addr<SessionManager>,
    pub services: Services,
}

fn mailbox<T>(r: Result<T, MailboxError>) -> Result<T, VerbError> {
    r.map_err(|e| errors::internal(format!("the daemon could not complete the request: {e}")))
}

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
        "new-window" => new_window(env, decode(p)?).await,
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
        "send-keys" => send_keys(env, decode(p)?).await,
        "send-text" => send_text(env, decode(p)?).await,
        "capture-pane" => capture_pane(env, decode(p)?).await,
        "resize" => resize(env, decode(p)?).await,
        "wait-for" => crate::waiter::wait_for(env, decode(p)?).await,
        other => Err(errors::internal(format!(
            "verb {other} is registered but has no handler"
        ))),
    }
}

fn ok() -> Value {
    json!({"type": "ok"})
}

async fn session(env: &VerbEnv, name: Option<String>) -> Result<SessionRef, VerbError> {
    mailbox(
        env.manager
            .send(session_manager::ResolveSession(name))
            .await,
    )?
}

async fn window(s: &SessionRef, target: Option<String>) -> Result<ResolvedWindow, VerbError> {
    mailbox(s.addr.send(session::ResolveWindow(target)).await)?
}

/// A window whose program is still running, for verbs that write to or resize its PTY.
async fn live_window(s: &SessionRef, target: Option<String>) -> Result<ResolvedWindow, VerbError> {
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
            .map(|(id, title, ws)| json!({"id": id, "title": title, "workspace": ws}))
            .collect();
        let mut row = json!({
            "name": s.name,
            "id": s.id,
            "created": s.created,
            "last_active": last_active,
            "window_count": s.windows.len(),
            "attached": false,
            "width": s.width,
            "height": s.height,
            "current_workspace": s.current_workspace,
        });
        if !windows.is_empty() {
            row["windows"] = Value::Array(windows);
        }
        rows.push(row);
    }
    Ok(rows)
}

async fn list_sessions(env: &VerbEnv) -> Result<Value, VerbError> {
    Ok(json!({"type": "session_list", "sessions": session_rows(&env.manager).await?}))
}

async fn new_window(env: &VerbEnv, params: NewWindowParams) -> Result<Value, VerbError> {
    let s = session(env, params.session).await?;
    let workspace = params.workspace.unwrap_or(0);
    if workspace < 0 {
        return Err(VerbError::invalid_params(
            "workspace",
            "workspace is a workspace number such as 2; omit it for the current one",
        ));
    }
    let cwd = match params.cwd.filter(|c| !c.is_empty()) {
        None => None,
        Some(dir) => {
            let path = PathBuf::from(&dir);
            match std::fs::metadata(&path) {
                Err(e) => {
                    return Err(VerbError::invalid_params(
                        "cwd",
                        format!("cannot start a window in {}: {e}", echo_name(&dir)),
                    ))
                }
                Ok(m) if !m.is_dir() => {
                    return Err(VerbError::invalid_params(
                        "cwd",
                        format!("{} is not a directory", echo_name(&dir)),
                    ))
                }
                Ok(_) => Some(path),
            }
        }
    };
    let command = params.command.unwrap_or_default();
    if command.first().is_some_and(|c| c.is_empty()) {
        return Err(VerbError::invalid_params(
            "command",
            "command[0] is the program to run and cannot be empty",
        ));
    }
    if workspace > NUM_WORKSPACES {
        // Checked again by the session; caught here so nothing is spawned for a bad request.
        return Err(VerbError::new(
            ErrorCode::InvalidParams,
            format!("workspace {workspace} is out of range (1-{NUM_WORKSPACES})"),
        )
        .with_hint(Hint::new().param("workspace").verb("list-workspaces")));
    }
    let spec = NewWindowSpec {
        name: params.name.filter(|n| !n.trim().is_empty()),
        workspace,
        cwd,
        focus: params.focus.unwrap_or(true),
        command,
        remain: params.remain.unwrap_or(false),
    };
    mailbox(s.addr.send(session::NewWindow(spec)).await)?
}

async fn send_keys(env: &VerbEnv, params: SendKeysParams) -> Result<Value, VerbError> {
    let keys = params.keys.unwrap_or_default();
    if keys.is_empty() {
        return Err(VerbError::invalid_params(
            "keys",
            "keys is required, for example \"ls,Enter\" or \"ctrl+c\"",
        ));
    }
    let s = session(env, params.session).await?;
    let w = live_window(&s, params.window).await?;
    let bytes = protocol::keys::keys_to_bytes(
        &keys,
        params.literal.unwrap_or(false),
        params.raw.unwrap_or(false),
    )
    .map_err(|e| e.to_verb_error())?;
    mailbox(w.addr.send(window::WriteInput(bytes)).await)
        .map_err(|_| errors::window_gone(&w.id))??;
    Ok(ok())
}

async fn send_text(env: &VerbEnv, params: SendTextParams) -> Result<Value, VerbError> {
    let text = params.text.unwrap_or_default();
    if text.is_empty() {
        return Err(VerbError::invalid_params(
            "text",
            "text is required and cannot be empty",
        ));
    }
    let s = session(env, params.session).await?;
    let w = live_window(&s, params.window).await?;
    mailbox(w.addr.send(window::WriteInput(text.into_bytes())).await)
        .map_err(|_| errors::window_gone(&w.id))??;
    Ok(ok())
}

async fn capture_pane(env: &VerbEnv, params: CapturePaneParams) -> Result<Value, VerbError> {
    // The source is checked before the session, as the protocol orders it.
    let mode = params.mode()?;
    let s = session(env, params.session).await?;
    let w = window(&s, params.window).await?;
    let (scrollback, styled) = (mode.scrollback, mode.styled);
    let content = mailbox(w.addr.send(window::Capture { scrollback, styled }).await)
        .map_err(|_| errors::window_gone(&w.id))?;
    let content = slice_capture(
        &content,
        params.lines.unwrap_or(0),
        params.start.unwrap_or(0),
        params.end.unwrap_or(0),
    );
    Ok(json!({
        "type": "pane_content",
        "content": content,
        // The source actually read, whichever spelling asked for it.
        "source": mode.source(),
        "styled": styled,
        "window_id": w.id,
    }))
}

async fn resize(env: &VerbEnv, params: ResizeParams) -> Result<Value, VerbError> {
    let (width, height) = (params.width.unwrap_or(0), params.height.unwrap_or(0));
    if width <= 0 || height <= 0 {
        return Err(VerbError::invalid_params(
            "width",
            "width and height must both be positive",
        ));
    }
    if width > u16::MAX as i64 || height > u16::MAX as i64 {
        return Err(VerbError::invalid_params(
            "width",
            format!("width and height must be at most {}", u16::MAX),
        ));
    }
    let s = session(env, params.session).await?;
    let w = live_window(&s, params.window).await?;
    let (cols, rows) = (width as u16, height as u16);
    mailbox(w.addr.send(window::Resize { cols, rows }).await)
        .map_err(|_| errors::window_gone(&w.id))??;
    s.addr.do_send(session::WindowResized {
        window_id: w.id.clone(),
        cols,
        rows,
    });
    Ok(json!({"type": "resized", "width": width, "height": height, "window_id": w.id}))
}
