//! The SessionManager actor: the session table. Creates, finds and kills sessions and keeps the
//! "most recently active" order (a counter bumped by every verb or client action on a session).
use actix::prelude::*;
use futures_util::future::join_all;
use protocol::binary::{validate_session_name, BinaryErrorCode};
use protocol::{ErrorCode, Hint, VerbError};

use crate::errors;
use crate::event_hub::Publish;
use crate::session::{self, NewWindowSpec, Session};
use crate::Services;
use protocol::events::Event;

// Beside this file: a child module, so it can enter restored sessions in the table.
#[path = "resurrect.rs"]
pub mod resurrect;

struct SessionRecord {
    name: String,
    addr: Addr<Session>,
    /// Monotonic activity stamp; the highest is the most recently active session.
    activity: u64,
    /// Wall-clock seconds of the last activity, for listings.
    last_active: u64,
}

pub struct SessionManager {
    sessions: Vec<SessionRecord>,
    clock: u64,
    services: Services,
    /// `session-exists` waits: answered when a session of that name is created.
    watches: Vec<(String, tokio::sync::oneshot::Sender<()>)>,
    /// What a live upgrade handed over, until the manager takes it over as it starts.
    incoming: Option<crate::handover::format::IncomingHandover>,
    /// PTYs kept through a crash, until the saved windows restored at start claim theirs.
    survivors: crate::fd_store::Survivors,
}

impl SessionManager {
    pub fn new(
        services: Services,
        incoming: Option<crate::handover::format::IncomingHandover>,
        survivors: crate::fd_store::Survivors,
    ) -> Self {
        SessionManager {
            sessions: Vec::new(),
            clock: 0,
            services,
            watches: Vec::new(),
            incoming,
            survivors,
        }
    }

    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.sessions.iter().map(|s| s.name.clone()).collect();
        names.sort();
        names
    }

    fn touch(&mut self, idx: usize) {
        self.clock += 1;
        self.sessions[idx].activity = self.clock;
        self.sessions[idx].last_active = crate::unix_now_secs();
    }

    fn publish(&self, kind: &'static str, session: &str) {
        let mut e = Event::new(kind);
        e.session = session.to_string();
        self.services.hub.do_send(Publish(e));
    }

    fn resolve(&mut self, name: Option<&str>) -> Result<SessionRef, VerbError> {
        let idx = match name.filter(|n| !n.is_empty()) {
            Some(name) => self
                .sessions
                .iter()
                .position(|s| s.name == name)
                .ok_or_else(|| errors::session_not_found(name, &self.names()))?,
            None => self
                .sessions
                .iter()
                .enumerate()
                .max_by_key(|(_, s)| s.activity)
                .map(|(i, _)| i)
                .ok_or_else(errors::no_sessions)?,
        };
        self.touch(idx);
        let s = &self.sessions[idx];
        Ok(SessionRef {
            name: s.name.clone(),
            addr: s.addr.clone(),
        })
    }

    fn free_name(&self) -> String {
        (0..)
            .map(|n| format!("session-{n}"))
            .find(|n| !self.sessions.iter().any(|s| &s.name == n))
            .expect("an unbounded range always has a free name")
    }
}

impl Actor for SessionManager {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        resurrect::restore_at_start(self, ctx);
    }
}

/// A session that was found, for a verb to act on.
#[derive(Clone)]
pub struct SessionRef {
    pub name: String,
    pub addr: Addr<Session>,
}

/// Find a session by exact name, or the most recently active one when no name is given.
#[derive(Message)]
#[rtype(result = "Result<SessionRef, VerbError>")]
pub struct ResolveSession(pub Option<String>);

impl Handler<ResolveSession> for SessionManager {
    type Result = Result<SessionRef, VerbError>;
    fn handle(&mut self, msg: ResolveSession, _: &mut Self::Context) -> Self::Result {
        self.resolve(msg.0.as_deref())
    }
}

/// Find a session and a window in it: one message for the caller, whatever the hops.
#[derive(Message)]
#[rtype(result = "Result<(SessionRef, session::ResolvedWindow), VerbError>")]
pub struct ResolveTarget {
    pub session: Option<String>,
    pub window: Option<String>,
}

impl Handler<ResolveTarget> for SessionManager {
    type Result = ResponseFuture<Result<(SessionRef, session::ResolvedWindow), VerbError>>;
    fn handle(&mut self, msg: ResolveTarget, _: &mut Self::Context) -> Self::Result {
        let s = self.resolve(msg.session.as_deref());
        Box::pin(async move {
            let s = s?;
            let w = s
                .addr
                .send(session::ResolveWindow(msg.window))
                .await
                .map_err(|e| errors::internal(format!("the session did not answer: {e}")))??;
            Ok((s, w))
        })
    }
}

/// Answer `reply` once a session named `name` exists (at once if it does now).
#[derive(Message)]
#[rtype(result = "()")]
pub struct WatchSession {
    pub name: String,
    pub reply: tokio::sync::oneshot::Sender<()>,
}

impl Handler<WatchSession> for SessionManager {
    type Result = ();
    fn handle(&mut self, msg: WatchSession, _: &mut Self::Context) {
        if self.sessions.iter().any(|s| s.name == msg.name) {
            let _ = msg.reply.send(());
            return;
        }
        // Waits whose client left are dropped here, so the list stays as long as the live ones.
        self.watches.retain(|(_, tx)| !tx.is_closed());
        self.watches.push((msg.name, msg.reply));
    }
}

/// Create a session, with one window running the shell when `with_window` is set.
#[derive(Message)]
#[rtype(result = "Result<(String, Option<String>), (BinaryErrorCode, String)>")]
pub struct CreateSession {
    pub name: Option<String>,
    pub width: u16,
    pub height: u16,
    pub with_window: bool,
}

impl Handler<CreateSession> for SessionManager {
    type Result =
        ResponseActFuture<Self, Result<(String, Option<String>), (BinaryErrorCode, String)>>;
    fn handle(&mut self, msg: CreateSession, _: &mut Self::Context) -> Self::Result {
        let name = match msg.name.filter(|n| !n.is_empty()) {
            Some(n) => n,
            None => self.free_name(),
        };
        if let Err(why) = validate_session_name(&name) {
            return Box::pin(fut::ready(Err((BinaryErrorCode::InvalidName, why))));
        }
        if self.sessions.iter().any(|s| s.name == name) {
            return Box::pin(fut::ready(Err((
                BinaryErrorCode::SessionExists,
                format!("session {name} already exists"),
            ))));
        }
        let (w, h) = (msg.width.max(1), msg.height.max(1));
        let addr = Session::new(name.clone(), w, h, self.services.clone()).start();
        self.sessions.push(SessionRecord {
            name: name.clone(),
            addr: addr.clone(),
            activity: 0,
            last_active: crate::unix_now_secs(),
        });
        let idx = self.sessions.len() - 1;
        self.touch(idx);
        tracing::info!(session = %name, "session created");
        self.publish("session-created", &name);
        for (_, tx) in extract(&mut self.watches, |(n, _)| *n == name) {
            let _ = tx.send(());
        }
        if !msg.with_window {
            return Box::pin(fut::ready(Ok((name, None))));
        }
        let spec = NewWindowSpec {
            focus: true,
            ..Default::default()
        };
        Box::pin(
            async move {
                let res = addr.send(session::NewWindow(spec)).await;
                (name, addr, res)
            }
            .into_actor(self)
            .map(|(name, addr, res), act, _| match res {
                Ok(Ok(created)) => Ok((name, Some(created.window_id))),
                Ok(Err(e)) => {
                    // A session whose first window cannot start is not left behind half-made.
                    act.sessions.retain(|s| s.name != name);
                    act.publish("session-closed", &name);
                    addr.do_send(session::TerminateSession { tree: false });
                    Err((BinaryErrorCode::Internal, e.message))
                }
                Err(e) => {
                    act.sessions.retain(|s| s.name != name);
                    act.publish("session-closed", &name);
                    Err((BinaryErrorCode::Internal, e.to_string()))
                }
            }),
        )
    }
}

/// The sessions in creation order, each with its last activity time.
#[derive(Message)]
#[rtype(result = "Vec<(Addr<Session>, u64)>")]
pub struct ListSessions;

impl Handler<ListSessions> for SessionManager {
    type Result = MessageResult<ListSessions>;
    fn handle(&mut self, _: ListSessions, _: &mut Self::Context) -> Self::Result {
        MessageResult(
            self.sessions
                .iter()
                .map(|s| (s.addr.clone(), s.last_active))
                .collect(),
        )
    }
}

#[derive(Message)]
#[rtype(result = "usize")]
pub struct SessionCount;

impl Handler<SessionCount> for SessionManager {
    type Result = usize;
    fn handle(&mut self, _: SessionCount, _: &mut Self::Context) -> usize {
        self.sessions.len()
    }
}

/// Remove a session by exact name and end it; resolves when its programs are gone, to how
/// many processes were ended when `tree` asked for every process the windows started.
#[derive(Message)]
#[rtype(result = "Result<Option<usize>, VerbError>")]
pub struct KillSession {
    pub name: String,
    pub tree: bool,
}

impl Handler<KillSession> for SessionManager {
    type Result = ResponseFuture<Result<Option<usize>, VerbError>>;
    fn handle(&mut self, msg: KillSession, _: &mut Self::Context) -> Self::Result {
        let (name, tree) = (msg.name, msg.tree);
        if name.is_empty() {
            let err = VerbError::new(
                ErrorCode::InvalidParams,
                "session is required: kill-session never guesses which session to end",
            )
            .with_hint(
                Hint::new()
                    .param("session")
                    .command("tuios ls")
                    .available(self.names()),
            );
            return Box::pin(async move { Err(err) });
        }
        let Some(idx) = self.sessions.iter().position(|s| s.name == name) else {
            // A saved session that is not running is forgotten all the same.
            let err = errors::session_not_found(&name, &self.names());
            let dir = self.services.info.sessions_dir.clone();
            return Box::pin(async move {
                if resurrect::forget_saved(dir, name.clone()).await {
                    tracing::info!(session = %name, "saved session deleted");
                    // Nothing ran: nothing was ended.
                    Ok(tree.then_some(0))
                } else {
                    Err(err)
                }
            });
        };
        let record = self.sessions.remove(idx);
        tracing::info!(session = %name, "session killed");
        self.publish("session-closed", &name);
        Box::pin(async move {
            // The file goes first: a killed session never comes back.
            let _ = record.addr.send(session::saved::Forget).await;
            let ended = record.addr.send(session::TerminateSession { tree }).await;
            Ok(tree.then(|| ended.unwrap_or(0)))
        })
    }
}

/// End every session (daemon shutdown); resolves when their programs are gone.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Shutdown;

impl Handler<Shutdown> for SessionManager {
    type Result = ResponseFuture<()>;
    fn handle(&mut self, _: Shutdown, _: &mut Self::Context) -> Self::Result {
        self.watches.clear();
        let all: Vec<Addr<Session>> = self.sessions.drain(..).map(|s| s.addr).collect();
        Box::pin(async move {
            // Saved while every window is still there, for the next start to restore.
            join_all(all.iter().map(|s| s.send(session::saved::SaveNow))).await;
            join_all(
                all.iter()
                    .map(|s| s.send(session::TerminateSession { tree: false })),
            )
            .await;
        })
    }
}

/// Remove and return the items matching `pred`, keeping the order of the rest.
fn extract<T>(items: &mut Vec<T>, pred: impl Fn(&T) -> bool) -> Vec<T> {
    let (hit, keep) = std::mem::take(items).into_iter().partition(pred);
    *items = keep;
    hit
}
