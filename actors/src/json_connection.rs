//! The JsonConnection actor: one per verb-protocol client. Lines are answered strictly in order,
//! one at a time; a slow verb (a wait) blocks only its own connection. Output goes through one
//! writer task that interleaves responses with the connection's event stream, if it has one.
use std::collections::VecDeque;
use std::sync::Arc;

use actix::prelude::*;
use bytes::BytesMut;
use protocol::closest::closest_match;
use protocol::envelope::{failure_line, parse_request, success_line, Request};
use protocol::events::{EventFilter, EVENT_TYPES};
use protocol::params::SubscribeParams;
use protocol::registry::{self, decode};
use protocol::{ErrorCode, Hint, VerbError, MAX_LINE_BYTES};
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWriteExt};
use tokio::net::unix::OwnedWriteHalf;
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;

use crate::codec::{LineCodec, LineError};
use crate::event_hub::{SubscriptionGuard, SubscriptionKind};
use crate::session;
use crate::session_manager;
use crate::subscriber::{EventQueue, DEFAULT_QUEUE};
use crate::verbs::{self, VerbEnv};

/// What the writer task is told, in the order it must happen.
enum Outgoing {
    Line(String),
    /// Start writing this stream's events (after the ack line queued before it).
    Attach(Arc<EventQueue>),
    /// Stop writing events (before the unsubscribe ack queued after it).
    Detach,
}

pub struct JsonConnection {
    out: mpsc::UnboundedSender<Outgoing>,
    env: VerbEnv,
    queue: VecDeque<BytesMut>,
    /// The request being carried out, so it can be cancelled when the client goes away.
    in_flight: Option<SpawnHandle>,
    /// The peer finished sending; close once every queued line is answered.
    input_done: bool,
    stream: Option<SubscriptionGuard>,
    /// Written after every queued answer, just before closing (the oversized-line error).
    final_line: Option<String>,
    /// Resolves when the writer has flushed and closed the socket.
    writer_done: Option<tokio::sync::oneshot::Receiver<()>>,
    write_half_probe: Option<std::os::fd::RawFd>,
}

impl JsonConnection {
    pub fn start<R: AsyncRead + Unpin + 'static>(
        reader: R,
        writer: OwnedWriteHalf,
        env: VerbEnv,
    ) -> Addr<JsonConnection> {
        let probe = {
            use std::os::fd::AsRawFd;
            writer.as_ref().as_raw_fd()
        };
        let (out, rx) = mpsc::unbounded_channel();
        let (done_tx, done_rx) = tokio::sync::oneshot::channel::<()>();
        JsonConnection::create(move |ctx| {
            ctx.add_stream(FramedRead::new(reader, LineCodec::new(MAX_LINE_BYTES)));
            let addr = ctx.address();
            actix::spawn(async move {
                write_loop(writer, rx).await;
                drop(done_tx);
                addr.do_send(WriterDone);
            });
            JsonConnection {
                out,
                env,
                queue: VecDeque::new(),
                in_flight: None,
                input_done: false,
                stream: None,
                final_line: None,
                writer_done: Some(done_rx),
                write_half_probe: Some(probe),
            }
        })
    }

    fn send(&self, line: String) {
        let _ = self.out.send(Outgoing::Line(line));
    }

    fn next(&mut self, ctx: &mut Context<Self>) {
        while self.in_flight.is_none() {
            let Some(line) = self.queue.pop_front() else {
                if let Some(last) = self.final_line.take() {
                    self.send(last);
                }
                if self.input_done {
                    // Nothing left to answer: dropping the sender lets the writer flush and close.
                    ctx.stop();
                }
                return;
            };
            let text = String::from_utf8_lossy(&line);
            if text.trim().is_empty() {
                continue;
            }
            let req = match parse_request(&text) {
                Ok(req) => req,
                Err((id, err)) => {
                    self.send(failure_line(&id, &err));
                    continue;
                }
            };
            match req.verb.as_str() {
                "subscribe" => self.subscribe(req, ctx),
                "unsubscribe" => self.unsubscribe(req),
                _ => {
                    let env = self.env.clone();
                    let handle = ctx.spawn(
                        async move {
                            let res = verbs::dispatch(&env, &req).await;
                            (req.id, res)
                        }
                        .into_actor(self)
                        .map(|(id, res), act, ctx| {
                            act.in_flight = None;
                            act.send(match res {
                                Ok(result) => success_line(&id, &result),
                                Err(err) => failure_line(&id, &err),
                            });
                            act.next(ctx);
                        }),
                    );
                    self.in_flight = Some(handle);
                }
            }
        }
    }

    fn subscribe(&mut self, req: Request, ctx: &mut Context<Self>) {
        if let Err(err) = registry::validate(&req) {
            self.send(failure_line(&req.id, &err));
            return;
        }
        if self.stream.is_some() {
            let err = VerbError::new(
                ErrorCode::InvalidRequest,
                "this connection already has an event stream",
            )
            .with_hint(Hint::new().verb("unsubscribe").detail(
                "One stream per connection: unsubscribe first, or open another connection for a second filter.",
            ));
            self.send(failure_line(&req.id, &err));
            return;
        }
        let env = self.env.clone();
        let handle = ctx.spawn(
            async move {
                let res = start_stream(&env, &req).await;
                (req.id, res)
            }
            .into_actor(self)
            .map(|(id, res), act, ctx| {
                act.in_flight = None;
                match res {
                    Ok((guard, queue, result)) => {
                        act.stream = Some(guard);
                        act.send(success_line(&id, &result));
                        let _ = act.out.send(Outgoing::Attach(queue));
                    }
                    Err(err) => act.send(failure_line(&id, &err)),
                }
                act.next(ctx);
            }),
        );
        self.in_flight = Some(handle);
    }

    fn unsubscribe(&mut self, req: Request) {
        if let Err(err) = registry::validate(&req) {
            self.send(failure_line(&req.id, &err));
            return;
        }
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
            self.send(failure_line(&req.id, &err));
            return;
        }
        let _ = self.out.send(Outgoing::Detach);
        self.send(success_line(&req.id, &json!({"type": "unsubscribed"})));
    }

    /// The peer stopped sending. If it hung up completely (not just half-closed), the request in
    /// flight is abandoned so a wait does not outlive its client.
    fn peer_closed_reading(&mut self, ctx: &mut Context<Self>) {
        self.input_done = true;
        if let (Some(handle), Some(fd)) = (self.in_flight, self.write_half_probe) {
            if peer_hung_up(fd) {
                tracing::debug!("client hung up with a request in flight; cancelling it");
                ctx.cancel_future(handle);
                self.in_flight = None;
                self.queue.clear();
            } else {
                // Half-closed: the answer is still wanted. Check again now and then in case the
                // peer goes away later.
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

/// Whether the other end of a socket has closed completely (both directions).
fn peer_hung_up(fd: std::os::fd::RawFd) -> bool {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLOUT,
        revents: 0,
    };
    // SAFETY: poll on one descriptor we own, without waiting.
    let n = unsafe { libc::poll(&mut pfd, 1, 0) };
    n > 0 && pfd.revents & (libc::POLLHUP | libc::POLLERR) != 0
}

async fn start_stream(
    env: &VerbEnv,
    req: &Request,
) -> Result<(SubscriptionGuard, Arc<EventQueue>, Value), VerbError> {
    let p: SubscribeParams = decode(&req.params)?;
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
        let s = env
            .manager
            .send(session_manager::ResolveSession(Some(name.clone())))
            .await
            .map_err(|e| crate::errors::internal(e.to_string()))??;
        let w = s
            .addr
            .send(session::ResolveWindow(Some(target.clone())))
            .await
            .map_err(|e| crate::errors::internal(e.to_string()))??;
        window = Some(w.id);
    }
    let capacity = p.queue.filter(|q| *q > 0).unwrap_or(DEFAULT_QUEUE as i64);
    let queue = EventQueue::new(capacity.min(1 << 20) as usize);
    let filter = EventFilter {
        session: session.clone(),
        window: window.clone(),
        types: types.clone(),
    };
    let (guard, seq) = SubscriptionGuard::subscribe_at(
        &env.services.hub,
        SubscriptionKind::Stream,
        filter,
        queue.clone(),
    )
    .await
    .map_err(|e| crate::errors::internal(format!("could not open the event stream: {e}")))?;
    let mut result = json!({"type": "subscribed", "seq": seq, "queue": capacity});
    if let Some(s) = session {
        result["session"] = json!(s);
    }
    if let Some(w) = window {
        result["window"] = json!(w);
    }
    if !types.is_empty() {
        result["types"] = json!(types);
    }
    Ok((guard, queue, result))
}

/// The only writer of the socket: responses in order, events from the attached stream between
/// them. A client that stops reading blocks this task, not the daemon: its events pile up in the
/// bounded stream queue and turn into a `gap`.
async fn write_loop(mut writer: OwnedWriteHalf, mut rx: mpsc::UnboundedReceiver<Outgoing>) {
    let mut events: Option<Arc<EventQueue>> = None;
    loop {
        let line = tokio::select! {
            biased;
            msg = rx.recv() => match msg {
                None => break,
                Some(Outgoing::Line(line)) => line,
                Some(Outgoing::Attach(q)) => { events = Some(q); continue; }
                Some(Outgoing::Detach) => { events = None; continue; }
            },
            ev = next_event(&events) => match ev {
                Some(e) => serde_json::to_string(&*e).unwrap_or_default(),
                None => { events = None; continue; }
            },
        };
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        if let Err(e) = writer.write_all(&bytes).await {
            tracing::debug!(error = %e, "JSON connection write failed");
            return;
        }
    }
    let _ = writer.shutdown().await;
}

async fn next_event(events: &Option<Arc<EventQueue>>) -> Option<Arc<protocol::events::Event>> {
    match events {
        Some(q) => q.next().await,
        None => std::future::pending().await,
    }
}

impl Actor for JsonConnection {
    type Context = Context<Self>;
}

#[derive(Message)]
#[rtype(result = "()")]
struct WriterDone;

impl Handler<WriterDone> for JsonConnection {
    type Result = ();
    fn handle(&mut self, _: WriterDone, ctx: &mut Self::Context) {
        // The socket cannot be written any more: nothing left to do for this client.
        ctx.stop();
    }
}

impl StreamHandler<Result<BytesMut, LineError>> for JsonConnection {
    fn handle(&mut self, item: Result<BytesMut, LineError>, ctx: &mut Self::Context) {
        match item {
            Ok(line) => {
                self.queue.push_back(line);
                self.next(ctx);
            }
            Err(LineError::TooLong(n)) => {
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
                self.next(ctx);
            }
            Err(LineError::Io(e)) => {
                tracing::debug!(error = %e, "JSON connection read failed");
                self.peer_closed_reading(ctx);
            }
        }
    }

    fn finished(&mut self, ctx: &mut Self::Context) {
        self.peer_closed_reading(ctx);
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
