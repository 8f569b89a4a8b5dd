//! Verbs that create windows and arrange them: new-window, workspaces, focus, moves, flags.
use std::path::PathBuf;

use protocol::attach::RoutedRequest;
use protocol::closest::echo_name;
use protocol::params::*;
use protocol::verbs::{
    focus_window, list_workspaces, move_window, new_window, select_workspace, set_layout,
    set_window, split_window,
};
use protocol::{Hint, VerbError};
use serde_json::Value;

use super::{mailbox, session, VerbEnv};
use crate::session::{self as sess, NewWindowSpec};

pub(super) async fn new_window(
    env: &VerbEnv,
    params: NewWindowParams,
) -> Result<new_window::Reply, VerbError> {
    let extra_env = super::new_session::parse_env(params.env.unwrap_or_default())?;
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

pub(super) async fn list_workspaces(
    env: &VerbEnv,
    p: SessionParams,
) -> Result<list_workspaces::Reply, VerbError> {
    let s = session(env, p.session).await?;
    mailbox(s.addr.send(sess::ListWorkspaces).await)
}

pub(super) async fn select_workspace(
    env: &VerbEnv,
    p: SelectWorkspaceParams,
) -> Result<select_workspace::Reply, VerbError> {
    let n = p.workspace;
    let s = session(env, p.session).await?;
    mailbox(s.addr.send(sess::SelectWorkspace(n)).await)?
}

pub(super) async fn move_window(
    env: &VerbEnv,
    p: MoveWindowParams,
) -> Result<move_window::Reply, VerbError> {
    let n = p.workspace;
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

pub(super) async fn set_window(
    env: &VerbEnv,
    p: SetWindowParams,
) -> Result<set_window::Reply, VerbError> {
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

pub(super) async fn focus_window(
    env: &VerbEnv,
    p: FocusWindowParams,
) -> Result<focus_window::Reply, VerbError> {
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

pub(super) async fn split_window(
    env: &VerbEnv,
    p: SplitWindowParams,
) -> Result<split_window::Reply, VerbError> {
    let direction = p.direction.clone();
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
    let window_id = data
        .get("window_id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let note = window_id.is_empty().then(|| {
        "the split ran but no new window has reached the daemon yet; call list-windows to find it"
            .to_string()
    });
    Ok(split_window::Reply {
        direction,
        window_id,
        name: p.name,
        note,
        ..Default::default()
    })
}

pub(super) async fn set_layout(
    env: &VerbEnv,
    p: SetLayoutParams,
) -> Result<set_layout::Reply, VerbError> {
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
    // The client's answer is free-form; what it leaves out (or sends in another shape) reads
    // as unknown.
    let text = |k: &str| {
        data.get(k)
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_string()
    };
    Ok(set_layout::Reply {
        tiling_mode: text("tiling_mode"),
        layout_mode: text("layout_mode"),
        master_ratio: data
            .get("master_ratio")
            .and_then(Value::as_f64)
            .unwrap_or(0.5),
        ..Default::default()
    })
}
