//! Verbs that create windows and arrange them: new-window, workspaces, focus, moves, flags.
use std::path::PathBuf;

use protocol::attach::RoutedRequest;
use protocol::closest::echo_name;
use protocol::params::*;
use protocol::{Hint, VerbError};
use serde_json::Value;

use super::{mailbox, session, VerbEnv};
use crate::session::{self as sess, NewWindowSpec, NUM_WORKSPACES};

pub(super) async fn new_window(
    env: &VerbEnv,
    params: NewWindowParams,
    extra_env: Vec<(String, String)>,
) -> Result<Value, VerbError> {
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
            // A stat can stall on a hung network mount: never on the connection's thread.
            let probe = path.clone();
            let meta = actix_rt::task::spawn_blocking(move || std::fs::metadata(probe))
                .await
                .map_err(|e| {
                    crate::errors::internal(format!("could not check the directory: {e}"))
                })?;
            match meta {
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
    let spec = NewWindowSpec {
        name: params.name.filter(|n| !n.trim().is_empty()),
        workspace,
        cwd,
        focus: params.focus.unwrap_or(true),
        command,
        remain: params.remain.unwrap_or(false),
        env: extra_env,
    };
    mailbox(s.addr.send(sess::NewWindow(spec)).await)?
}

pub(super) async fn list_workspaces(env: &VerbEnv, p: SessionParams) -> Result<Value, VerbError> {
    let s = session(env, p.session).await?;
    mailbox(s.addr.send(sess::ListWorkspaces).await)
}

/// `workspace` given and non-zero, or the error naming what it is for.
fn required_workspace(workspace: Option<i64>, purpose: &str) -> Result<i64, VerbError> {
    match workspace.unwrap_or(0) {
        0 => Err(VerbError::invalid_params(
            "workspace",
            format!("workspace is required: the workspace number {purpose}, e.g. 2"),
        )
        .with_hint(
            Hint::new()
                .param("workspace")
                .verb("list-workspaces")
                .detail(format!("Workspaces are numbered 1 to {NUM_WORKSPACES}.")),
        )),
        n => Ok(n),
    }
}

pub(super) async fn select_workspace(
    env: &VerbEnv,
    p: SelectWorkspaceParams,
) -> Result<Value, VerbError> {
    let n = required_workspace(p.workspace, "to switch to")?;
    let s = session(env, p.session).await?;
    mailbox(s.addr.send(sess::SelectWorkspace(n)).await)?
}

pub(super) async fn move_window(env: &VerbEnv, p: MoveWindowParams) -> Result<Value, VerbError> {
    let n = required_workspace(p.workspace, "to move the window to")?;
    let s = session(env, p.session).await?;
    mailbox(
        s.addr
            .send(sess::MoveWindow {
                target: p.window,
                workspace: n,
                follow: p.follow.unwrap_or(false),
            })
            .await,
    )?
}

pub(super) async fn set_window(env: &VerbEnv, p: SetWindowParams) -> Result<Value, VerbError> {
    if p.name.is_none() && p.minimized.is_none() {
        return Err(VerbError::invalid_params(
            "name",
            "nothing to set: pass name, minimized, or both",
        ));
    }
    let s = session(env, p.session).await?;
    mailbox(
        s.addr
            .send(sess::SetWindow {
                target: p.window,
                name: p.name,
                minimized: p.minimized,
            })
            .await,
    )?
}

pub(super) async fn focus_window(env: &VerbEnv, p: FocusWindowParams) -> Result<Value, VerbError> {
    let given = |v: &Option<String>| v.as_deref().is_some_and(|s| !s.is_empty());
    let count = [given(&p.window), given(&p.relative), given(&p.direction)]
        .iter()
        .filter(|b| **b)
        .count();
    let hint = || {
        Hint::new().param("window").detail(
            "window names a window; relative (next or prev) cycles through the current workspace; \
             direction (left, right, up, down) moves by geometry and needs an attached client.",
        )
    };
    match count {
        0 => {
            return Err(VerbError::invalid_params(
                "window",
                "name the window to focus with one of window, relative or direction",
            )
            .with_hint(hint()))
        }
        1 => {}
        _ => return Err(VerbError::invalid_params(
            "window",
            "window, relative and direction are three ways to name one window; pass exactly one",
        )
        .with_hint(hint())),
    }
    if let Some(rel) = p.relative.filter(|r| !r.is_empty()) {
        protocol::registry::check_accepted("focus-window", "relative", &rel)?;
        let s = session(env, p.session).await?;
        return mailbox(
            s.addr
                .send(sess::FocusWindow::Relative {
                    forward: rel == "next",
                })
                .await,
        )?;
    }
    if let Some(dir) = p.direction.filter(|d| !d.is_empty()) {
        protocol::registry::check_accepted("focus-window", "direction", &dir)?;
        let s = session(env, p.session).await?;
        super::route(
            &s,
            RoutedRequest::FocusDirection { direction: dir },
            "focusing by direction",
        )
        .await?;
        // The client focused through the daemon; report the state as it now stands.
        return mailbox(s.addr.send(sess::FocusResult).await);
    }
    let s = session(env, p.session).await?;
    mailbox(
        s.addr
            .send(sess::FocusWindow::Target(p.window.unwrap_or_default()))
            .await,
    )?
}

pub(super) async fn split_window(env: &VerbEnv, p: SplitWindowParams) -> Result<Value, VerbError> {
    let direction = p.direction.clone().unwrap_or_default();
    if direction.is_empty() {
        return Err(VerbError::invalid_params(
            "direction",
            "direction is required: the axis to split along",
        )
        .with_hint(
            Hint::new()
                .param("direction")
                .accepted(protocol::registry::accepted_of("split-window", "direction")),
        ));
    }
    protocol::registry::check_accepted("split-window", "direction", &direction)?;
    let s = session(env, p.session).await?;
    let window = match p.window.filter(|w| !w.is_empty()) {
        // Resolve first, so a bad target is reported the same way attached or not.
        Some(target) => Some(mailbox(s.addr.send(sess::ResolveWindow(Some(target))).await)??.id),
        None => None,
    };
    let data = super::route(
        &s,
        RoutedRequest::Split {
            window,
            direction: direction.clone(),
            name: p.name.clone(),
        },
        "splitting a window",
    )
    .await?;
    let mut result = serde_json::json!({
        "type": "window_split",
        "direction": direction,
        "window_id": data.get("window_id").cloned().unwrap_or_else(|| serde_json::json!("")),
    });
    if let Some(name) = p.name {
        result["name"] = serde_json::json!(name);
    }
    Ok(result)
}

pub(super) async fn set_layout(env: &VerbEnv, p: SetLayoutParams) -> Result<Value, VerbError> {
    if p.tiling.is_none() && !p.equalize.unwrap_or(false) && !p.rotate.unwrap_or(false) {
        return Err(VerbError::invalid_params(
            "tiling",
            "nothing to set: pass tiling, equalize or rotate",
        ));
    }
    let s = session(env, p.session).await?;
    let data = super::route(
        &s,
        RoutedRequest::Layout {
            tiling: p.tiling,
            equalize: p.equalize.unwrap_or(false),
            rotate: p.rotate.unwrap_or(false),
        },
        "changing the layout",
    )
    .await?;
    let field = |k: &str, default: serde_json::Value| data.get(k).cloned().unwrap_or(default);
    Ok(serde_json::json!({
        "type": "layout",
        "tiling_mode": field("tiling_mode", serde_json::json!("unknown")),
        "layout_mode": field("layout_mode", serde_json::json!("unknown")),
        "master_ratio": field("master_ratio", serde_json::json!(0.5)),
    }))
}
