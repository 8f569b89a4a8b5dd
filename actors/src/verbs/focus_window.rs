//! `focus-window`: focus a window.
use super::{mailbox, rows, session, VerbEnv};
use crate::session::{self as sess, FocusState};
use protocol::attach::RoutedRequest;
use protocol::verbs::focus_window::{Params, Reply};
use protocol::{Hint, VerbError};

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
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
        let focus = mailbox(
            s.addr
                .send(sess::FocusWindow::Relative {
                    forward: rel == "next",
                })
                .await,
        )??;
        return Ok(reply(focus));
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
        return Ok(reply(mailbox(s.addr.send(sess::GetFocus).await)?));
    }
    let s = session(env, p.session).await?;
    let focus = mailbox(
        s.addr
            .send(sess::FocusWindow::Target(p.window.unwrap_or_default()))
            .await,
    )??;
    Ok(reply(focus))
}

fn reply(f: FocusState) -> Reply {
    Reply {
        focused_window_id: f.focused_window_id.unwrap_or_default(),
        current_workspace: f.current_workspace,
        window: f.window.map(rows::window_row),
        ..Default::default()
    }
}
