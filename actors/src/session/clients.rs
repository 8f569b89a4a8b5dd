//! Attached clients of a session: attach and detach, the session's size (the smallest client's),
//! the state every client draws from, and the routing of work only a client can do.
use std::collections::HashMap;
use std::time::Duration;

use actix::prelude::*;
use protocol::attach::{
    DaemonOp, NoticeLevel, RoutedRequest, SessionView, WindowBox, WindowModes, WindowView,
};
use protocol::events::{ClientInfo, Event};
use protocol::{ErrorCode, Hint, VerbError};
use serde_json::Value;
use tokio::sync::oneshot;

use super::{Session, NUM_WORKSPACES};
use crate::event_hub::Publish;

/// How long a routed request waits for the client's answer.
pub const ROUTE_TIMEOUT: Duration = Duration::from_secs(10);

/// Something for one attached client's connection.
#[derive(Message, Clone)]
#[rtype(result = "()")]
pub struct ToClient(pub DaemonOp);

pub(super) struct ClientEntry {
    pub id: u64,
    pub sink: Recipient<ToClient>,
    pub width: u16,
    pub height: u16,
    /// The client's leader key as it announced it (None: not said, the default ctrl+b).
    pub leader: Option<String>,
    /// The latest outer box the client's layout gave each window (windows of the session only).
    pub boxes: HashMap<String, WindowBox>,
    /// When the client last reported geometry (a counter, for "most recent").
    pub placed_at: u64,
    pub how: ClientHow,
    /// When it attached, in Unix seconds.
    pub since: u64,
}

/// How a client is attached, as its connection says.
#[derive(Debug, Clone, Default)]
pub struct ClientHow {
    /// Watch only: never sizes the session, never answers routed requests.
    pub read_only: bool,
    /// "terminal", "web" or "ssh".
    pub kind: String,
    /// "uid=N pid=N" of the socket's peer, empty when unknown.
    pub peer: String,
}

/// The leader key of a client that did not announce one.
pub const DEFAULT_LEADER: &str = "ctrl+b";

/// Client bookkeeping kept in the session.
#[derive(Default)]
pub(super) struct Clients {
    pub list: Vec<ClientEntry>,
    next_id: u64,
    next_request: u64,
    /// Counter stamping geometry reports.
    geometry_seq: u64,
    /// The client whose leader key a send-keys pressed last without a key after it: the next
    /// send-keys goes to it too, so `ctrl+b` then `n` in two calls acts as in one.
    pub leader_pending: Option<u64>,
    /// Routed requests waiting for an answer: the client asked, and where the answer goes.
    pending: HashMap<u64, (u64, oneshot::Sender<Result<Value, VerbError>>)>,
    /// The layout last pushed by a client (opaque JSON).
    pub layout: Option<String>,
    pub version: u64,
}

impl Session {
    pub(super) fn view(&self) -> SessionView {
        SessionView {
            name: self.name.clone(),
            display_name: self.display_name.clone().unwrap_or_default(),
            accent: self.accent.clone().unwrap_or_default(),
            width: self.width,
            height: self.height,
            current_workspace: self.current_workspace,
            num_workspaces: NUM_WORKSPACES,
            focused: self
                .focused
                .clone()
                .filter(|id| self.index_of(id).is_some()),
            windows: self
                .windows
                .iter()
                .map(|w| WindowView {
                    id: w.id.clone(),
                    title: w.title().to_string(),
                    display_name: w.display_name().to_string(),
                    custom_name: w.custom_name.clone(),
                    workspace: w.workspace,
                    minimized: w.minimized,
                    alive: w.exited.is_none(),
                    cols: w.cols,
                    rows: w.rows,
                    modes: w.modes,
                    agent_state: w.agent.state.as_str().to_string(),
                    cwd: w.cwd.clone(),
                })
                .collect(),
            workspace_names: self.workspace_names.clone(),
            workspace_order: self.workspace_order.clone(),
            options: self.options.clone(),
            layout: self.clients.layout.clone(),
            clients: self.clients.list.len() as u32,
            version: self.clients.version,
        }
    }

    /// Tell every attached client the state changed.
    pub(super) fn broadcast_state(&mut self) {
        if self.clients.list.is_empty() {
            return;
        }
        self.clients.version += 1;
        let op = DaemonOp::State { state: self.view() };
        for c in &self.clients.list {
            c.sink.do_send(ToClient(op.clone()));
        }
    }

    pub(super) fn notify_clients(&self, level: NoticeLevel, text: &str) {
        for c in &self.clients.list {
            c.sink.do_send(ToClient(DaemonOp::Notice {
                level,
                text: text.to_string(),
            }));
        }
    }

    /// The session takes the smallest attached client's size.
    fn recompute_size(&mut self) {
        let sized: Vec<&ClientEntry> = self
            .clients
            .list
            .iter()
            .filter(|c| c.width > 0 && c.height > 0 && !c.how.read_only)
            .collect();
        if sized.is_empty() {
            return;
        }
        self.width = sized.iter().map(|c| c.width).min().unwrap_or(self.width);
        self.height = sized.iter().map(|c| c.height).min().unwrap_or(self.height);
    }

    /// `client-attached` / `client-detached`, carrying the client as session-info lists it.
    fn publish_client(&self, kind: &'static str, c: &ClientEntry) {
        let mut e = Event::new(kind);
        e.session = self.name.clone();
        e.client = Some(ClientInfo {
            kind: c.how.kind.clone(),
            read_only: c.how.read_only,
            since: c.since,
            peer: c.how.peer.clone(),
        });
        self.services.hub.do_send(Publish(e));
    }

    pub(super) fn has_clients(&self) -> bool {
        !self.clients.list.is_empty()
    }

    /// Where the attached clients placed a window: the box of the client whose terminal is the
    /// session's size (the smallest client, whose layout every client shares), else of the
    /// client that reported most recently. None when no client has placed it.
    pub(super) fn window_box(&self, id: &str) -> Option<&WindowBox> {
        let size = (self.width, self.height);
        self.clients
            .list
            .iter()
            .filter_map(|c| c.boxes.get(id).map(|b| (c, b)))
            .max_by_key(|(c, _)| ((c.width, c.height) == size, c.placed_at))
            .map(|(_, b)| b)
    }
}

/// Attach a client; answers with its id and the state to draw.
#[derive(Message)]
#[rtype(result = "(u64, SessionView)")]
pub struct AttachClient {
    pub sink: Recipient<ToClient>,
    pub width: u16,
    pub height: u16,
    pub how: ClientHow,
}

impl Handler<AttachClient> for Session {
    type Result = MessageResult<AttachClient>;
    fn handle(&mut self, msg: AttachClient, ctx: &mut Self::Context) -> Self::Result {
        self.save_soon(ctx);
        self.clients.next_id += 1;
        let id = self.clients.next_id;
        self.clients.list.push(ClientEntry {
            id,
            sink: msg.sink,
            width: msg.width,
            height: msg.height,
            leader: None,
            boxes: HashMap::new(),
            placed_at: 0,
            how: msg.how,
            since: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        });
        self.recompute_size();
        // A restored session is reported as restored until someone comes back to it (as Go does).
        self.saved.attached_since = true;
        tracing::info!(session = %self.name, client = id, clients = self.clients.list.len(), "client attached");
        if let Some(c) = self.clients.list.last() {
            self.publish_client("client-attached", c);
        }
        // The others learn of the new client and of any size change.
        self.broadcast_state();
        MessageResult((id, self.view()))
    }
}

#[derive(Message)]
#[rtype(result = "()")]
pub struct DetachClient(pub u64);

impl Handler<DetachClient> for Session {
    type Result = ();
    fn handle(&mut self, msg: DetachClient, ctx: &mut Self::Context) {
        self.save_soon(ctx);
        let Some(at) = self.clients.list.iter().position(|c| c.id == msg.0) else {
            return;
        };
        let gone = self.clients.list.remove(at);
        tracing::info!(session = %self.name, client = msg.0, "client detached");
        self.publish_client("client-detached", &gone);
        if self.clients.leader_pending == Some(msg.0) {
            self.clients.leader_pending = None;
        }
        // Requests routed to a client that left cannot be answered by it: fail them now
        // rather than at their time limit.
        let orphaned: Vec<u64> = self
            .clients
            .pending
            .iter()
            .filter(|(_, (client, _))| *client == msg.0)
            .map(|(id, _)| *id)
            .collect();
        for id in orphaned {
            if let Some((_, tx)) = self.clients.pending.remove(&id) {
                let _ = tx.send(Err(command_failed(
                    "the attached client went away before answering",
                )));
            }
        }
        self.recompute_size();
        self.broadcast_state();
    }
}

/// A client's terminal changed size.
#[derive(Message)]
#[rtype(result = "()")]
pub struct ClientResized {
    pub client: u64,
    pub width: u16,
    pub height: u16,
}

impl Handler<ClientResized> for Session {
    type Result = ();
    fn handle(&mut self, msg: ClientResized, ctx: &mut Self::Context) {
        self.save_soon(ctx);
        if let Some(c) = self.clients.list.iter_mut().find(|c| c.id == msg.client) {
            c.width = msg.width;
            c.height = msg.height;
        }
        let old = (self.width, self.height);
        self.recompute_size();
        if old != (self.width, self.height) {
            self.broadcast_state();
        }
    }
}

/// A client's layout, shared with the session's other clients.
#[derive(Message)]
#[rtype(result = "()")]
pub struct SetLayout(pub String);

impl Handler<SetLayout> for Session {
    type Result = ();
    fn handle(&mut self, msg: SetLayout, ctx: &mut Self::Context) {
        self.save_soon(ctx);
        if self.clients.layout.as_deref() != Some(msg.0.as_str()) {
            self.clients.layout = Some(msg.0);
            self.broadcast_state();
        }
    }
}

/// Where a client's layout placed the windows it shows (outer boxes); kept per client and
/// window, latest wins, for list-windows.
#[derive(Message)]
#[rtype(result = "()")]
pub struct ClientGeometry {
    pub client: u64,
    pub boxes: Vec<WindowBox>,
}

impl Handler<ClientGeometry> for Session {
    type Result = ();
    fn handle(&mut self, msg: ClientGeometry, ctx: &mut Self::Context) {
        self.save_soon(ctx);
        self.clients.geometry_seq += 1;
        let seq = self.clients.geometry_seq;
        let windows: std::collections::HashSet<&str> =
            self.windows.iter().map(|w| w.id.as_str()).collect();
        let Some(c) = self.clients.list.iter_mut().find(|c| c.id == msg.client) else {
            return;
        };
        // Bounded by the session's windows: boxes of unknown or closed windows are dropped.
        c.boxes.retain(|id, _| windows.contains(id.as_str()));
        for b in msg.boxes {
            if windows.contains(b.window.as_str()) {
                c.boxes.insert(b.window.clone(), b);
            }
        }
        c.placed_at = seq;
    }
}

/// A client's leader key, for send-keys routing.
#[derive(Message)]
#[rtype(result = "()")]
pub struct ClientLeader {
    pub client: u64,
    pub key: String,
}

impl Handler<ClientLeader> for Session {
    type Result = ();
    fn handle(&mut self, msg: ClientLeader, _: &mut Self::Context) {
        if let Some(c) = self.clients.list.iter_mut().find(|c| c.id == msg.client) {
            c.leader = Some(msg.key);
        }
    }
}

/// Each attached client and its leader key, in attach order, and the client a leader is
/// pending in (see `Clients::leader_pending`).
#[derive(Message)]
#[rtype(result = "(Vec<(u64, String)>, Option<u64>)")]
pub struct ClientLeaders;

impl Handler<ClientLeaders> for Session {
    type Result = MessageResult<ClientLeaders>;
    fn handle(&mut self, _: ClientLeaders, _: &mut Self::Context) -> Self::Result {
        let leaders = self
            .clients
            .list
            .iter()
            .map(|c| {
                let leader = c.leader.as_deref().unwrap_or(DEFAULT_LEADER);
                (c.id, leader.to_string())
            })
            .collect();
        MessageResult((leaders, self.clients.leader_pending))
    }
}

/// Records whether routed keys left a client's leader pressed without a key after it.
#[derive(Message)]
#[rtype(result = "()")]
pub struct LeaderPending(pub Option<u64>);

impl Handler<LeaderPending> for Session {
    type Result = ();
    fn handle(&mut self, msg: LeaderPending, _: &mut Self::Context) {
        self.clients.leader_pending = msg.0;
    }
}

/// Whether a client is attached (verbs choose between routing and acting headless).
#[derive(Message)]
#[rtype(result = "bool")]
pub struct HasClient;

impl Handler<HasClient> for Session {
    type Result = bool;
    fn handle(&mut self, _: HasClient, _: &mut Self::Context) -> bool {
        self.has_clients()
    }
}

/// Route work to an attached client and wait (at most `ROUTE_TIMEOUT`) for its answer.
/// `Err(None)` means no client is attached.
#[derive(Message)]
#[rtype(result = "Result<Value, Option<VerbError>>")]
pub struct Route(pub RoutedRequest);

impl Handler<Route> for Session {
    type Result = ResponseFuture<Result<Value, Option<VerbError>>>;
    fn handle(&mut self, msg: Route, ctx: &mut Self::Context) -> Self::Result {
        self.save_soon(ctx);
        // The first read-write client attached answers; any of them could, and all see the
        // result. A read-only one may not act for the session.
        let client = self
            .clients
            .list
            .iter()
            .find(|c| !c.how.read_only)
            .map(|c| c.id);
        self.route_to(client, msg.0)
    }
}

/// `Route` to one client (the one whose leader key a send-keys holds). `Err(None)` when that
/// client is no longer attached.
#[derive(Message)]
#[rtype(result = "Result<Value, Option<VerbError>>")]
pub struct RouteTo {
    pub client: u64,
    pub request: RoutedRequest,
}

impl Handler<RouteTo> for Session {
    type Result = ResponseFuture<Result<Value, Option<VerbError>>>;
    fn handle(&mut self, msg: RouteTo, ctx: &mut Self::Context) -> Self::Result {
        self.save_soon(ctx);
        self.route_to(Some(msg.client), msg.request)
    }
}

impl Session {
    fn route_to(
        &mut self,
        client: Option<u64>,
        kind: RoutedRequest,
    ) -> ResponseFuture<Result<Value, Option<VerbError>>> {
        let Some(client) = client.and_then(|id| self.clients.list.iter().find(|c| c.id == id))
        else {
            return Box::pin(async { Err(None) });
        };
        self.clients.next_request += 1;
        let request = self.clients.next_request;
        let (tx, rx) = oneshot::channel();
        self.clients.pending.insert(request, (client.id, tx));
        client
            .sink
            .do_send(ToClient(DaemonOp::Request { request, kind }));
        Box::pin(async move {
            match tokio::time::timeout(ROUTE_TIMEOUT, rx).await {
                Ok(Ok(res)) => res.map_err(Some),
                Ok(Err(_)) => Err(Some(command_failed(
                    "the attached client went away before answering",
                ))),
                Err(_) => Err(Some(command_failed(
                    "timed out waiting for the attached client",
                ))),
            }
        })
    }
}

pub fn command_failed(message: &str) -> VerbError {
    VerbError::new(ErrorCode::CommandFailed, message)
}

/// A client's answer to a routed request.
#[derive(Message)]
#[rtype(result = "()")]
pub struct RouteReply {
    pub request: u64,
    pub ok: bool,
    pub message: String,
    pub data: Option<String>,
}

impl Handler<RouteReply> for Session {
    type Result = ();
    fn handle(&mut self, msg: RouteReply, ctx: &mut Self::Context) {
        self.save_soon(ctx);
        let Some((_, tx)) = self.clients.pending.remove(&msg.request) else {
            return;
        };
        let res = if msg.ok {
            let data = msg
                .data
                .and_then(|d| serde_json::from_str::<Value>(&d).ok())
                .filter(Value::is_object)
                .unwrap_or_else(|| Value::Object(Default::default()));
            Ok(data)
        } else {
            let message = if msg.message.is_empty() {
                "the attached client refused the request".to_string()
            } else {
                msg.message
            };
            Err(VerbError::new(ErrorCode::CommandFailed, message).with_hint(
                Hint::new().detail(
                    "The attached client carried the request out and reported this failure.",
                ),
            ))
        };
        let _ = tx.send(res);
    }
}

/// Record a window's input modes (reported by the window when they change).
pub(super) fn set_modes(session: &mut Session, window_id: &str, modes: WindowModes) {
    if let Some(i) = session.index_of(window_id) {
        if session.windows[i].modes != modes {
            session.windows[i].modes = modes;
            session.broadcast_state();
        }
    }
}

/// Tell every client the session ended (kill-session).
pub(super) fn end_clients(session: &mut Session, reason: &str) {
    let clients: Vec<ClientEntry> = session.clients.list.drain(..).collect();
    for c in clients {
        c.sink.do_send(ToClient(DaemonOp::SessionEnded {
            session: session.name.clone(),
            reason: reason.to_string(),
        }));
        session.publish_client("client-detached", &c);
    }
    for (_, (_, tx)) in session.clients.pending.drain() {
        let _ = tx.send(Err(command_failed("the session ended")));
    }
}
