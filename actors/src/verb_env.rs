//! The environment a verb runs in, in a module of its own so the acceptor, the connections and
//! the verb modules can all hold it without importing one another.
use actix::prelude::*;
use protocol::VerbError;

use crate::errors;
use crate::session_manager::{ResolveSession, SessionManager, SessionRef};
use crate::Services;

/// What every verb handler can reach: the session table and the daemon-wide services.
#[derive(Clone)]
pub struct VerbEnv {
    pub manager: Addr<SessionManager>,
    pub services: Services,
}

impl VerbEnv {
    /// The named session, or the most recently active one when no name is given.
    pub async fn session(&self, name: Option<String>) -> Result<SessionRef, VerbError> {
        mailbox(self.manager.send(ResolveSession(name)).await)?
    }
}

/// An actor's answer, or `internal` when the actor is gone (the daemon is shutting down).
pub fn mailbox<T>(r: Result<T, MailboxError>) -> Result<T, VerbError> {
    r.map_err(|e| errors::internal(format!("the daemon could not complete the request: {e}")))
}
