//! `new-window`: open a window in a session.
use super::{mailbox, session, VerbEnv};
use crate::session::{self as sess, NewWindowSpec, OpenedWindow};
use protocol::closest::echo_name;
use protocol::verbs::new_window::{Params, Reply};
use protocol::VerbError;
use std::path::PathBuf;

pub(super) async fn handle(env: &VerbEnv, params: Params) -> Result<Reply, VerbError> {
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
    Ok(reply(mailbox(s.addr.send(sess::NewWindow(spec)).await)??))
}

fn reply(w: OpenedWindow) -> Reply {
    Reply {
        window_id: w.window_id,
        name: w.name,
        workspace: w.workspace,
        pty_id: w.pty_id,
        focused: w.focused,
        // A window just opened has no box from a client yet.
        unplaced: true,
        ..Default::default()
    }
}
