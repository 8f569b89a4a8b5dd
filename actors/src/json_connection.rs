//! The JsonConnection actor: one per verb-protocol client. Lines are answered strictly in order,
//! one at a time; a slow verb (a wait) blocks only its own connection. Output goes through one
//! writer task that interleaves responses with the connection's event stream, if it has one.
//!
//! Bounded: the reader task holds at most `MAX_PENDING` requests read but not yet answered (their
//! permits come back as the answers are written), so a client that pipelines behind a blocking
//! `wait-for`, or never reads its answers, is held back by its socket, not by our memory.
use std::collections::VecDeque;
use std::sync::Arc;

use crate::connection_slot::{ConnectionSlot, WriterDone, WriterEnd};
use actix::prelude::*;
use bytes::BytesMut;
use protocol::closest::closest_match;
use protocol::envelope::{failure_line, parse_request_bytes, success_line};
use protocol::events::{Event, EventFilter, EVENT_TYPES};
use protocol::verbs::{subscribe, Request as TypedRequest};
use protocol::{ErrorCode, Hint, VerbError, MAX_LINE_BYTES};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWriteExt};
use tokio::net::unix::OwnedWriteHalf;
use tokio::sync::{mpsc, OwnedSemaphorePermit};

use crate::codec::{LineCodec, LineError};
use crate::event_hub::SubscriptionKind;
use crate::reader::{self, Incoming, ReaderGuard};
use crate::session_manager;
use crate::subscriber::{self, SubscriberGuard};
use crate::verb_env::VerbEnv;
use crate::verbs::{self, reply_value};

/// Requests read from a connection and not yet answered.
pub const MAX_PENDING: usize = 32;

/// What the writer task is told, in the order it must happen.
enum ToWriter {
    /// An answer; its request's permit is released once it is written.
    Line(String, Option<OwnedSemaphorePermit>),
    /// Start writing this stream's events (after the ack line queued before it).
    Attach(mpsc::Receiver<Arc<Event>>),
    /// Stop writing events (before the unsubscribe ack queued after it).
    Detach,
}

/// A request line read and not yet handled, with its place among the `MAX_PENDING`.
type QueuedRequest = (BytesMut, Option<OwnedSemaphorePermit>);

pub struct JsonConnection {
    out: mpsc::Sender<ToWriter>,
    env: VerbEnv,
    queue: VecDeque<QueuedRequest>,
    /// The request being carried out, so it can be cancelled when the client goes away.
    in_flight: Option<SpawnHandle>,
    /// The permit of the request in flight, returned with its answer.
    in_flight_permit: Option<OwnedSemaphorePermit>,
    /// The peer finished sending; close once every queued line is answered.
    input_done: bool,
    stream: Option<SubscriberGuard>,
    /// Written after every queued answer, just before closing (the oversized-line error).
    final_line: Option<String>,
    /// Resolves when the writer has flushed and closed the socket.
    writer_done: Option<tokio::sync::oneshot::Receiver<()>>,
    _reader: Option<ReaderGuard>,
    /// The socket, for noticing a full hang-up while a request is in flight.
    probe: Option<std::os::fd::RawFd>,
    /// This connection's place under the connection limit, given back when the actor stops.
    _slot: ConnectionSlot,
}

impl JsonConnection {
    pub fn start<R: AsyncRead + Unpin + 'static>(
        reader: R,
        writer: OwnedWriteHalf,
        env: VerbEnv,
        slot: ConnectionSlot,
    ) -> Addr<JsonConnection> {
        // Room for every pending request's answer plus a subscribe's stream handoff.
        let (out, rx) = mpsc::channel(2 * MAX_PENDING + 4);
        let (done_tx, done_rx) = tokio::sync::oneshot::channel::<()>();
        let probe = {
            use std::os::fd::AsRawFd;
            writer.as_ref().as_raw_fd()
        };
        JsonConnection::create(move |ctx| {
            let addr = ctx.address();
            let guard = reader::spawn(
                reader,
                LineCodec::new(MAX_LINE_BYTES),
                MAX_PENDING,
                addr.clone().recipient(),
            );
            actix::spawn(async move {
                let end = write_loop(writer, rx).await;
                drop(done_tx);
                addr.do_send(WriterDone(end));
            });
            JsonConnection {
                out,
                env,
                queue: VecDeque::new(),
                in_flight: None,
                in_flight_permit: None,
                input_done: false,
                stream: None,
                final_line: None,
                writer_done: Some(done_rx),
                _reader: Some(guard),
                probe: Some(probe),
                _slot: slot,
            }
        })
    }

    fn send_with(
        &mut self,
        line: String,
        permit: Option<OwnedSemaphorePermit>,
        ctx: &mut Context<Self>,
    ) {
        self.push(ToWriter::Line(line, permit), ctx);
    }

    fn push(&mut self, msg: ToWriter, ctx: &mut Context<Self>) {
        // The channel has room for every answer the permits allow; full means a bug, and
        // closing beats growing.
        if let Err(mpsc::error::TrySendError::Full(_)) = self.out.try_send(msg) {
            tracing::error!("JSON connection's answer queue overflowed; closing it");
            ctx.stop();
        }
    }

    fn next(&mut self, ctx: &mut Context<Self>) {
        while self.in_flight.is_none() {
            let Some((line, permit)) = self.queue.pop_front() else {
                if let Some(last) = self.final_line.take() {
                    self.send_with(last, None, ctx);
                }
                if self.input_done {
                    // Nothing left to answer: dropping the sender lets the writer flush and close.
                    ctx.stop();
                }
                return;
            };
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let req = match parse_request_bytes(&line) {
                Ok(req) => req,
                Err((id, err)) => {
                    self.send_with(failure_line(&id, &err), permit, ctx);
                    continue;
                }
            };
            let request = match TypedRequest::parse(&req) {
                Ok(request) => request,
                Err(err) => {
                    self.send_with(failure_line(&req.id, &err), permit, ctx);
                    continue;
                }
            };
            let id = req.id;
            match request {
                // The connection's own stream: served here, not by a verb handler.
                TypedRequest::Subscribe(p) => self.subscribe(id, p, permit, ctx),
                TypedRequest::Unsubscribe(_) => self.unsubscribe(id, permit, ctx),
                request => {
                    let env = self.env.clone();
                    self.in_flight_permit = permit;
                    let handle = ctx.spawn(
                        async move {
                            let res = verbs::dispatch(&env, request).await.map(reply_value);
                            (id, res)
                        }
                        .into_actor(self)
                        .map(|(id, res), act, ctx| {
                            act.in_flight = None;
                            let permit = act.in_flight_permit.take();
                            let line = match res {
                                Ok(result) => success_line(&id, &result),
                                Err(err) => failure_line(&id, &err),
                            };
                            act.send_with(line, permit, ctx);
                            act.next(ctx);
                        }),
                    );
                    self.in_flight = Some(handle);
                }
            }
        }
    }

    fn subscribe(
        &mut self,
        id: Option<Value>,
        p: subscribe::Params,
        permit: Option<OwnedSemaphorePermit>,
        ctx: &mut Context<Self>,
    ) {
        if self.stream.is_some() {
            let err = VerbError::new(
                ErrorCode::InvalidRequest,
                "this connection already has an event stream",
            )
            .with_hint(Hint::new().verb("unsubscribe").detail(
                "One stream per connection: unsubscribe first, or open another connection for a second filter.",
            ));
            self.send_with(failure_line(&id, &err), permit, ctx);
            return;
        }
        let env = self.env.clone();
        self.in_flight_permit = permit;
        let handle = ctx.spawn(
            async move {
                let res = start_stream(&env, p).await;
                (id, res)
            }
            .into_actor(self)
            .map(|(id, res), act, ctx| {
                act.in_flight = None;
                let permit = act.in_flight_permit.take();
                match res {
                    Ok((sub, result)) => {
                        let (events, guard) = sub.into_parts();
                        act.stream = Some(guard);
                        act.send_with(success_line(&id, &reply_value(result)), permit, ctx);
                        act.push(ToWriter::Attach(events), ctx);
                    }
                    Err(err) => act.send_with(failure_line(&id, &err), permit, ctx),
                }
                act.next(ctx);
            }),
        );
        self.in_flight = Some(handle);
    }

    fn unsubscribe(
        &mut self,
        id: Option<Value>,
        permit: Option<OwnedSemaphorePermit>,
        ctx: &mut Context<Self>,
    ) {
        if self.stream.take().is_none() {
            let err = VerbError::new(
                ErrorCode::InvalidRequest,
                "this connection has no event stream",
            )
            .with_hint(
                Hint::new()
                    .verb("subscribe")
                    .detail("There is no stream to close; subscribe opens one."),
            );
            self.send_with(failure_line(&id, &err), permit, ctx);
            return;
        }
        self.push(ToWriter::Detach, ctx);
        let reply = protocol::verbs::unsubscribe::Reply::default();
        self.send_with(success_line(&id, &reply_value(reply)), permit, ctx);
    }

    /// The peer stopped sending. A request in flight is still answered (the peer may have only
    /// half-closed); if the peer hangs up completely, the request is dropped, which stops its
    /// waiter, and the connection ends.
    fn peer_closed_reading(&mut self, ctx: &mut Context<Self>) {
        self.input_done = true;
        self._reader = None;
        if let (Some(handle), Some(fd)) = (self.in_flight, self.probe) {
            if peer_hung_up(fd) {
                tracing::debug!("client hung up with a request in flight; cancelling it");
                ctx.cancel_future(handle);
                self.in_flight = None;
                self.in_flight_permit = None;
                self.queue.clear();
            } else {
                // Half-closed: the answer is still wanted. Look again later in case the peer
                // goes away meanwhile.
                ctx.run_later(std::time::Duration::from_millis(200), |act, ctx| {
                    if act.in_flight.is_some() {
                        act.peer_closed_reading(ctx);
                    }
                });
                return;
            }
        }
        self.next(ctx);
    }
}

async fn start_stream(
    env: &VerbEnv,
    p: subscribe::Params,
) -> Result<(subscriber::Subscription, subscribe::Reply), VerbError> {
    let types = p.types.unwrap_or_default();
    for t in &types {
        if !EVENT_TYPES.contains(&t.as_str()) {
            return Err(VerbError::new(
                ErrorCode::InvalidParams,
                format!("unknown event type {}", protocol::closest::echo_name(t)),
            )
            .with_hint(
                Hint::new()
                    .param("types")
                    .accepted(EVENT_TYPES)
                    .did_you_mean(closest_match(t, EVENT_TYPES.iter().copied())),
            ));
        }
    }
    let session = p.session.filter(|s| !s.is_empty());
    let mut window = p.window.filter(|w| !w.is_empty());
    if let (Some(name), Some(target)) = (&session, &window) {
        // Any window target is accepted when the session is named; events carry window ids.
        let (_, w) = env
            .manager
            .send(session_manager::ResolveTarget {
                session: Some(name.clone()),
                window: Some(target.clone()),
            })
            .await
            .map_err(|e| crate::errors::internal(e.to_string()))??;
        window = Some(w.id);
    }
    let filter = EventFilter {
        session: session.clone(),
        window: window.clone(),
        types: types.clone(),
    };
    let sub = subscriber::open(
        &env.services.hub,
        SubscriptionKind::Stream,
        filter,
        subscriber::clamp_queue(p.queue),
    )
    .await
    .map_err(|e| crate::errors::internal(format!("could not open the event stream: {e}")))?;
    // The queue in force is reported: a request above the maximum is clamped, visibly.
    let result = subscribe::Reply {
        seq: sub.seq,
        queue: sub.capacity,
        session,
        window,
        types: (!types.is_empty()).then_some(types),
        ..Default::default()
    };
    Ok((sub, result))
}

/// The only writer of the socket: responses in order, events from the attached stream between
/// them. A client that stops reading blocks this task, not the daemon: its events pile up in the
/// subscriber's bounded queue and turn into a `gap`. While idle it also watches for the peer
/// hanging up completely, so a wait whose client left is dropped at once.
async fn write_loop(mut writer: OwnedWriteHalf, mut rx: mpsc::Receiver<ToWriter>) -> WriterEnd {
    let mut events: Option<mpsc::Receiver<Arc<Event>>> = None;
    loop {
        let (line, permit) = tokio::select! {
            biased;
            msg = rx.recv() => match msg {
                None => break,
                Some(ToWriter::Line(line, permit)) => (line, permit),
                Some(ToWriter::Attach(q)) => { events = Some(q); continue; }
                Some(ToWriter::Detach) => { events = None; continue; }
            },
            ev = next_event(&mut events) => match ev {
                Some(e) => (serde_json::to_string(&*e).unwrap_or_default(), None),
                None => { events = None; continue; }
            },
        };
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        if let Err(e) = writer.write_all(&bytes).await {
            tracing::debug!(error = %e, "JSON connection write failed");
            return WriterEnd::PeerGone;
        }
        drop(permit);
    }
    let _ = writer.shutdown().await;
    WriterEnd::Done
}

/// Whether the other end of a socket has closed completely (both directions), which a
/// half-close (the peer only finished sending) never causes.
fn peer_hung_up(fd: std::os::fd::RawFd) -> bool {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    // SAFETY: `fd` is the connection's socket, held open by its writer half for as long as the
    // connection actor asks; it is only borrowed for this one poll.
    let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    let mut fds = [PollFd::from_borrowed_fd(fd, PollFlags::OUT)];
    // A zero timeout: look, never wait.
    let now = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    matches!(poll(&mut fds, Some(&now)), Ok(n) if n > 0)
        && fds[0].revents().intersects(PollFlags::HUP | PollFlags::ERR)
}

async fn next_event(events: &mut Option<mpsc::Receiver<Arc<Event>>>) -> Option<Arc<Event>> {
    match events {
        Some(q) => q.recv().await,
        None => std::future::pending().await,
    }
}

impl Actor for JsonConnection {
    type Context = Context<Self>;
}

impl Handler<WriterDone> for JsonConnection {
    type Result = ();
    fn handle(&mut self, msg: WriterDone, ctx: &mut Self::Context) {
        if msg.0 == WriterEnd::PeerGone {
            if let Some(handle) = self.in_flight.take() {
                tracing::debug!("client hung up with a request in flight; cancelling it");
                // Dropping the request drops its waiter's handle, which stops the waiter.
                ctx.cancel_future(handle);
            }
        }
        // The socket cannot be written any more: nothing left to do for this client.
        ctx.stop();
    }
}

impl Handler<Incoming<Result<BytesMut, LineError>>> for JsonConnection {
    type Result = ();
    fn handle(&mut self, msg: Incoming<Result<BytesMut, LineError>>, ctx: &mut Self::Context) {
        match msg.item {
            Some(Ok(line)) => {
                self.queue.push_back((line, msg.permit));
                self.next(ctx);
            }
            Some(Err(LineError::TooLong(n))) => {
                let err = VerbError::new(
                    ErrorCode::InvalidRequest,
                    format!(
                        "request line of at least {n} bytes exceeds the {} MiB limit; closing the connection",
                        MAX_LINE_BYTES >> 20
                    ),
                );
                tracing::warn!(bytes = n, "oversized request line");
                // Lines before it are still answered in order, then this error, then the
                // connection closes: framing is lost, so nothing after it can be trusted.
                self.final_line = Some(failure_line(&None, &err));
                self.input_done = true;
                self._reader = None;
                self.next(ctx);
            }
            Some(Err(LineError::Io(e))) => {
                tracing::debug!(error = %e, "JSON connection read failed");
                self.peer_closed_reading(ctx);
            }
            None => self.peer_closed_reading(ctx),
        }
    }
}

/// Daemon shutdown: answer what is in flight, read nothing more, and resolve once the answers
/// are written.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Drain;

impl Handler<Drain> for JsonConnection {
    type Result = ResponseFuture<()>;
    fn handle(&mut self, _: Drain, ctx: &mut Self::Context) -> Self::Result {
        self.input_done = true;
        self._reader = None;
        self.queue.clear();
        self.next(ctx);
        let done = self.writer_done.take();
        Box::pin(async move {
            if let Some(done) = done {
                let _ = tokio::time::timeout(std::time::Duration::from_secs(2), done).await;
            }
        })
    }
}
