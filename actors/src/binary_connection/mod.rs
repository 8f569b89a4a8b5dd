//! The BinaryConnection actor: one per binary-protocol client (`tuios new`, `tuios kill-server`,
//! `tuios attach`). Frames are handled in order.
//!
//! Bounded: the reader task holds at most `MAX_PENDING_FRAMES` frames whose work is unfinished;
//! control frames for the peer are capped in count and bytes (a peer that stops reading is
//! disconnected, never buffered without limit); session state is coalesced (only the latest
//! view waits to be written); screen frames have their own small queue that windows skip when
//! it is full.
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;
use bytes::{Bytes, BytesMut};
use protocol::attach::DaemonOp;
use protocol::binary::{
    version_mismatch_message, BinaryErrorCode, ClientMessage, DaemonMessage, SessionSummary,
    BINARY_VERSION, MIN_BINARY_VERSION,
};
use tokio::io::AsyncRead;
use tokio::sync::{mpsc, watch, OwnedSemaphorePermit};

use crate::codec::{FrameCodec, FrameCodecError};
use crate::connection_slot::{ConnectionSlot, WriterDone, WriterEnd};
use crate::outbox::Outbox;
use crate::reader::{self, Incoming, ReaderGuard};
use crate::session::ToClient;
use crate::session_manager::{self, SessionManager, SessionRef};
use crate::verb_env::VerbEnv;
use crate::verbs;
use crate::window::{RemoveViewer, Window};

mod attach;

/// Frames of screen updates queued per client before the client counts as behind.
const SCREEN_QUEUE: usize = 64;
/// Control frames (replies, notices) queued for a peer; a peer this far behind is dropped.
pub const CONTROL_QUEUE: usize = 512;
/// Bytes of control frames queued for a peer before it is dropped (copy-mode scrollback
/// replies are the large ones).
pub const CONTROL_BYTES: usize = 32 << 20;
/// Frames read whose work is not finished yet; beyond it the connection stops reading.
pub const MAX_PENDING_FRAMES: usize = 64;
/// How long a new binary peer has to complete its first frame.
pub const HANDSHAKE_DEADLINE: Duration = protocol::limits::BINARY_HELLO_DEADLINE;

pub struct BinaryConnection {
    /// Control frames (replies, notices) for the writer task, in order.
    out: mpsc::Sender<Bytes>,
    /// Bytes in `out` not yet written.
    out_bytes: Arc<AtomicUsize>,
    /// The latest session state not yet written: a newer one replaces it (coalesced).
    state: watch::Sender<Option<Bytes>>,
    /// Screen frames, bounded: windows skip a frame rather than queue without limit. Every
    /// frame for the peer is queued through it (see `outbox`).
    outbox: Arc<Outbox>,
    env: VerbEnv,
    attached: Option<Attached>,
    /// The permit of the frame being handled; work that outlives the handler takes it along.
    held: Option<OwnedSemaphorePermit>,
    /// A complete frame has arrived (the handshake deadline no longer applies).
    greeted: bool,
    closing: bool,
    /// Tells the writer to give up on a peer that does not read (instead of flushing to it).
    abort_writer: Option<tokio::sync::oneshot::Sender<()>>,
    me: actix::WeakAddr<BinaryConnection>,
    /// Who is at the other end of the socket ("uid=N pid=N"), for session-info.
    peer: String,
    _reader: Option<ReaderGuard>,
    /// This connection's place under the connection limit, given back when the actor stops.
    _slot: ConnectionSlot,
}

/// The session this connection is attached to, and what it shows.
struct Attached {
    session: SessionRef,
    client: u64,
    fps: u16,
    /// Attached read-only: input-like operations are refused.
    read_only: bool,
    /// Windows whose screens this client receives.
    viewing: Vec<Viewed>,
}

impl Attached {
    /// Stop every shown window's frames for this client (once, as it leaves).
    fn drop_viewers(&self) {
        for v in &self.viewing {
            v.addr.do_send(RemoveViewer(self.client));
        }
    }
}

/// A window this client receives.
struct Viewed {
    id: String,
    addr: Addr<Window>,
}

impl BinaryConnection {
    pub fn start<R: AsyncRead + Unpin + 'static>(
        reader: R,
        writer: OwnedFd,
        env: VerbEnv,
        slot: ConnectionSlot,
    ) {
        let (out, out_rx) = mpsc::channel(CONTROL_QUEUE);
        let (screens, screens_rx) = mpsc::channel(SCREEN_QUEUE);
        // Windows write screen frames through a second descriptor of the socket; without one
        // (cannot happen short of running out of descriptors) they queue like everything else.
        let direct = rustix::io::fcntl_dupfd_cloexec(&writer, 0)
            .map_err(|e| tracing::warn!(error = %e, "cannot duplicate a client socket"))
            .ok();
        let outbox = Outbox::new(direct, screens);
        let peer = rustix::net::sockopt::socket_peercred(&writer)
            .map(|c| format!("uid={} pid={}", c.uid.as_raw(), c.pid.as_raw_nonzero()))
            .unwrap_or_default();
        let (state, state_rx) = watch::channel(None);
        let out_bytes = Arc::new(AtomicUsize::new(0));
        let (abort_writer, abort) = tokio::sync::oneshot::channel();
        BinaryConnection::create(move |ctx| {
            let addr = ctx.address();
            let guard = reader::spawn(
                reader,
                FrameCodec,
                MAX_PENDING_FRAMES,
                addr.clone().recipient(),
            );
            let written = out_bytes.clone();
            let to_write = outbox.clone();
            actix::spawn(async move {
                let queues = WriterQueues {
                    out: out_rx,
                    out_bytes: written,
                    state: state_rx,
                    screens: screens_rx,
                    outbox: to_write,
                };
                let end = write_loop(writer, queues, abort).await;
                addr.do_send(WriterDone(end));
            });
            ctx.run_later(HANDSHAKE_DEADLINE, |act, ctx| {
                if !act.greeted {
                    tracing::warn!("binary peer sent no complete frame in time; closing");
                    act.close(ctx);
                }
            });
            BinaryConnection {
                out,
                out_bytes,
                state,
                outbox,
                env,
                attached: None,
                held: None,
                greeted: false,
                closing: false,
                abort_writer: Some(abort_writer),
                me: ctx.address().downgrade(),
                peer,
                _reader: Some(guard),
                _slot: slot,
            }
        });
    }

    fn send(&mut self, msg: &DaemonMessage) {
        if self.closing {
            return;
        }
        let mut buf = BytesMut::new();
        msg.encode(&mut buf);
        let len = buf.len();
        let queued = self.out_bytes.fetch_add(len, Ordering::Relaxed) + len;
        let full = queued > CONTROL_BYTES || !self.outbox.queue_control(&self.out, buf.freeze());
        if full {
            // The peer stopped reading (or is gone): drop it rather than grow for it.
            tracing::warn!(
                queued,
                "binary peer is not reading its frames; disconnecting it"
            );
            self.closing = true;
            self.leave_session();
            self._reader = None;
            self.outbox.close();
            if let Some(abort) = self.abort_writer.take() {
                let _ = abort.send(());
            }
            if let Some(me) = self.me.upgrade() {
                me.do_send(CloseConnection);
            }
        }
    }

    /// The latest session state for the peer; an unwritten older one is replaced.
    fn send_state(&mut self, msg: &DaemonMessage) {
        let mut buf = BytesMut::new();
        msg.encode(&mut buf);
        self.outbox.queue_state(&self.state, buf.freeze());
    }

    /// Take the current frame's permit along into work that outlives the handler.
    fn hold(&mut self) -> Option<OwnedSemaphorePermit> {
        self.held.take()
    }

    fn error(&mut self, code: BinaryErrorCode, message: impl Into<String>) {
        self.send(&DaemonMessage::Error {
            code,
            message: message.into(),
        });
    }

    /// Stop reading and let the writer flush what is queued, then close.
    fn close(&mut self, ctx: &mut Context<Self>) {
        self.leave_session();
        ctx.stop();
    }
}

/// What the writer takes frames from.
struct WriterQueues {
    out: mpsc::Receiver<Bytes>,
    out_bytes: Arc<AtomicUsize>,
    state: watch::Receiver<Option<Bytes>>,
    screens: mpsc::Receiver<Bytes>,
    outbox: Arc<Outbox>,
}

/// The only writer of the socket. Control frames go first, then the latest session state, and
/// screen frames fill the gaps. `abort` fires when the peer is dropped for not reading: then
/// nothing more is written, not even what is queued.
async fn write_loop(
    writer: OwnedFd,
    mut q: WriterQueues,
    mut abort: tokio::sync::oneshot::Receiver<()>,
) -> WriterEnd {
    let outbox = q.outbox.clone();
    let end = write_frames(&writer, &mut q, &mut abort).await;
    // Windows stop writing before the socket is shut down.
    outbox.close();
    let _ = rustix::net::shutdown(&writer, rustix::net::Shutdown::Write);
    end
}

/// Writes frames until the queues close (`Done`), the abort fires or a write fails
/// (`PeerGone`).
async fn write_frames(
    writer: &OwnedFd,
    q: &mut WriterQueues,
    abort: &mut tokio::sync::oneshot::Receiver<()>,
) -> WriterEnd {
    let mut state_open = true;
    let mut abort_armed = true;
    // Registered for writability only while the peer's buffer is full (see `fdio`).
    let mut blocked = None;
    loop {
        let frame = tokio::select! {
            biased;
            a = &mut *abort, if abort_armed => {
                if a.is_ok() {
                    return WriterEnd::PeerGone;
                }
                abort_armed = false;
                continue;
            }
            () = q.outbox.leftover() => None,
            f = q.out.recv() => match f {
                Some(f) => {
                    q.out_bytes.fetch_sub(f.len(), Ordering::Relaxed);
                    Some(f)
                }
                None => return WriterEnd::Done,
            },
            changed = q.state.changed(), if state_open => {
                if changed.is_err() {
                    state_open = false;
                    continue;
                }
                match q.outbox.take_state(&mut q.state) {
                    Some(f) => Some(f),
                    None => continue,
                }
            }
            Some(f) = q.screens.recv() => Some(f),
        };
        // A frame a window began writing itself is finished first, whatever was taken above.
        let frames = [q.outbox.take_leftover(), frame];
        for f in frames.into_iter().flatten() {
            let written = tokio::select! {
                r = crate::fdio::write_all(writer, &f, &mut blocked) => r,
                a = &mut *abort, if abort_armed => {
                    if a.is_ok() {
                        return WriterEnd::PeerGone;
                    }
                    abort_armed = false;
                    crate::fdio::write_all(writer, &f, &mut blocked).await
                }
            };
            if let Err(e) = written {
                tracing::debug!(error = %e, "binary connection write failed");
                return WriterEnd::PeerGone;
            }
            q.outbox.written();
        }
    }
}

/// Close the connection (sent to itself when the peer fell too far behind).
#[derive(Message)]
#[rtype(result = "()")]
struct CloseConnection;

impl Handler<CloseConnection> for BinaryConnection {
    type Result = ();
    fn handle(&mut self, _: CloseConnection, ctx: &mut Self::Context) {
        self.close(ctx);
    }
}

impl Handler<WriterDone> for BinaryConnection {
    type Result = ();
    /// However the writer ended, the peer gets nothing more: leave the session and stop.
    fn handle(&mut self, _: WriterDone, ctx: &mut Self::Context) {
        self.leave_session();
        ctx.stop();
    }
}

impl Handler<ToClient> for BinaryConnection {
    type Result = ();
    fn handle(&mut self, msg: ToClient, ctx: &mut Self::Context) {
        let ended = matches!(msg.0, DaemonOp::SessionEnded { .. });
        if let DaemonOp::State { state } = &msg.0 {
            self.sync_views(state, ctx);
            self.send_state(&DaemonMessage::Op(msg.0));
            return;
        }
        self.send(&DaemonMessage::Op(msg.0));
        if ended {
            // The session is gone; nothing more will come for this client.
            if let Some(a) = self.attached.take() {
                a.drop_viewers();
            }
        }
    }
}

impl Actor for BinaryConnection {
    type Context = Context<Self>;
}

async fn summaries(manager: &Addr<SessionManager>) -> Vec<SessionSummary> {
    let rows = verbs::session_list(manager).await.unwrap_or_default();
    rows.iter().map(SessionSummary::from).collect()
}

impl Handler<Incoming<Result<(u8, Bytes), FrameCodecError>>> for BinaryConnection {
    type Result = ();
    fn handle(
        &mut self,
        msg: Incoming<Result<(u8, Bytes), FrameCodecError>>,
        ctx: &mut Self::Context,
    ) {
        if self.closing {
            self.close(ctx);
            return;
        }
        let Some(item) = msg.item else {
            // The peer is done sending: stopping drops our senders, so the writer flushes what
            // is queued and then closes.
            self.close(ctx);
            return;
        };
        self.greeted = true;
        self.held = msg.permit;
        let (kind, payload) = match item {
            Ok(frame) => frame,
            Err(FrameCodecError::Frame(e)) => {
                // Framing is lost; say why and hang up.
                self.error(BinaryErrorCode::InvalidMessage, e.to_string());
                self.close(ctx);
                return;
            }
            Err(FrameCodecError::Io(e)) => {
                tracing::debug!(error = %e, "binary connection read failed");
                self.close(ctx);
                return;
            }
        };
        let msg = match ClientMessage::decode(kind, &payload) {
            Ok(m) => m,
            Err(e) => {
                self.error(e.code(), e.to_string());
                return;
            }
        };
        let manager = self.env.manager.clone();
        match msg {
            ClientMessage::Hello {
                version,
                client_version,
            } => {
                if !(MIN_BINARY_VERSION..=BINARY_VERSION).contains(&version) {
                    let text = version_mismatch_message(
                        BINARY_VERSION,
                        version,
                        &self.env.services.info.version,
                    );
                    tracing::warn!(client = %client_version, version, "binary protocol mismatch");
                    self.error(BinaryErrorCode::VersionMismatch, text);
                    return;
                }
                let info = self.env.services.info.clone();
                ctx.wait(
                    async move { summaries(&manager).await }
                        .into_actor(self)
                        .map(move |sessions, act, _| {
                            act.send(&DaemonMessage::Welcome {
                                version: BINARY_VERSION,
                                min_version: MIN_BINARY_VERSION,
                                daemon_version: info.version.clone(),
                                pid: info.pid,
                                sessions: sessions.into_iter().map(|s| s.name).collect(),
                            })
                        }),
                );
            }
            ClientMessage::NewSession {
                name,
                width,
                height,
                detach,
            } => {
                ctx.wait(
                    async move {
                        manager
                            .send(session_manager::CreateSession {
                                name,
                                width,
                                height,
                                // Without a client nobody would create the first window, so a
                                // detached session always starts with one.
                                with_window: detach,
                            })
                            .await
                    }
                    .into_actor(self)
                    .map(|res, act, _| match res {
                        Ok(Ok((name, window_id))) => {
                            act.send(&DaemonMessage::SessionCreated { name, window_id })
                        }
                        Ok(Err((code, message))) => act.error(code, message),
                        Err(e) => act.error(BinaryErrorCode::Internal, e.to_string()),
                    }),
                );
            }
            ClientMessage::ListSessions => {
                ctx.wait(
                    async move { summaries(&manager).await }
                        .into_actor(self)
                        .map(|sessions, act, _| act.send(&DaemonMessage::SessionList { sessions })),
                );
            }
            ClientMessage::KillSession { name } => {
                ctx.wait(
                    async move {
                        manager
                            .send(session_manager::KillSession { name, tree: false })
                            .await
                    }
                    .into_actor(self)
                    .map(|res, act, _| match res {
                        Ok(Ok(_)) => act.send(&DaemonMessage::Ok),
                        Ok(Err(e)) => act.error(BinaryErrorCode::SessionNotFound, e.message),
                        Err(e) => act.error(BinaryErrorCode::Internal, e.to_string()),
                    }),
                );
            }
            ClientMessage::Op(op) => self.client_op(op, ctx),
            ClientMessage::KillServer => {
                tracing::info!("kill-server requested");
                self.send(&DaemonMessage::Ok);
                // The daemon's signal handling owns the orderly shutdown; ask it the same way
                // systemd would.
                let _ = rustix::process::kill_process(
                    rustix::process::getpid(),
                    rustix::process::Signal::TERM,
                );
            }
        }
    }
}
