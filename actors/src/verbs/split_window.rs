//! `split-window`: split a tiled pane in two, opening a new window in the new half.
use super::{mailbox, session, VerbEnv};
use crate::session::{self as sess};
use protocol::attach::RoutedRequest;
use protocol::verbs::split_window::{Params, Reply};
use protocol::VerbError;
use serde_json::Value;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
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
    Ok(Reply {
        direction,
        window_id,
        name: p.name,
        note,
        ..Default::default()
    })
}
