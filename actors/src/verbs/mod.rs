//! The JSON verbs: each request arrives validated and decoded ([`protocol::verbs::Request`]), is
//! dispatched by an exhaustive match, and is carried out by messages to the session manager, a
//! session and a window. Every handler returns its verb's typed reply.

use protocol::verbs::common::OkReply;
use protocol::verbs::{Reply, Request};
use protocol::{ErrorCode, Hint, VerbError};
use serde_json::Value;

use crate::errors;
use crate::session::{self, ResolvedWindow};
use crate::session_manager::SessionRef;
use crate::window;

pub use crate::verb_env::{mailbox, VerbEnv};

mod agent_lookup;
mod option_lookup;
mod rows;

pub use list_sessions::session_list;

/// One module per verb, named as in `protocol::for_each_verb!`, each with
/// `handle(env, Params) -> Result<Reply, VerbError>`; the dispatch is one exhaustive match.
macro_rules! verb_modules {
    ($($variant:ident => $module:ident,)*) => {
        $(mod $module;)*

        /// Carry out one validated request; the error is what the client gets back.
        pub async fn dispatch(env: &VerbEnv, req: Request) -> Result<Reply, VerbError> {
            Ok(match req {
                $(Request::$variant(p) => Reply::$variant($module::handle(env, p).await?),)*
            })
        }
    };
}

/// The wire form of a typed reply. Replies are plain data (strings, numbers, maps with string
/// keys), so serializing cannot fail.
pub fn reply_value(reply: impl serde::Serialize) -> Value {
    serde_json::to_value(reply).expect("a reply type serializes to JSON")
}

protocol::for_each_verb!(verb_modules);

/// Carry out a run-command for an attached client (the client does its own client-side
/// commands; these are the ones the daemon owns).
pub async fn run_command_for_client(
    env: &VerbEnv,
    session: &str,
    name: String,
    args: Vec<String>,
) -> Result<Value, VerbError> {
    run_command::handle(
        env,
        protocol::verbs::run_command::Params {
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

/// The named window, or every window of the session when none is named (one closing
/// meanwhile is left out, not an error).
pub(super) async fn window_or_all(
    s: &SessionRef,
    target: Option<String>,
) -> Result<Vec<ResolvedWindow>, VerbError> {
    if target.is_some() {
        return Ok(vec![window(s, target).await?]);
    }
    let list = mailbox(s.addr.send(session::ListWindows).await)?;
    let mut all = Vec::new();
    for w in list.windows {
        match window(s, Some(w.id)).await {
            Ok(found) => all.push(found),
            Err(e) if e.code == protocol::ErrorCode::WindowNotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(all)
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
