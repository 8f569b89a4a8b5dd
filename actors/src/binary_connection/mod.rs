//! The BinaryConnection actor: one per binary-protocol client (`tuios new`, `tuios kill-server`,
//! and later `tuios attach`). Frames are handled in order.
use actix::prelude::*;
use bytes::{Bytes, BytesMut};
use protocol::attach::DaemonOp;
use protocol::binary::{
    version_mismatch_message, BinaryErrorCode, ClientMessage, DaemonMessage, SessionSummary,
    BINARY_VERSION, MIN_BINARY_VERSION,
};
use tokio::io::{AsyncRead, AsyncWriteExt};
use tokio::net::unix::OwnedWriteHalf;
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;

use crate::codec::{FrameCodec, FrameCodecError};
use crate::session::ToClient;
use crate::session_manager::{self, SessionManager, SessionRef};
use crate::verbs::{self, VerbEnv};
use crate::window::{RemoveViewer, Window};

mod attach;

/// Frames of screen updates queued per client before the client counts as behind.
const SCREEN_QUEUE: usize = 64;

pub struct BinaryConnection {
    /// Control frames (replies, state, notices) for the writer task, in order.
    out: mpsc::UnboundedSender<Bytes>,
    /// Screen frames, bounded: windows skip a frame rather than queue without limit.
    screens: mpsc::Sender<Bytes>,
    env: VerbEnv,
    attached: Option<Attached>,
}

/// The session this connection is attached to, and what it shows.
struct Attached {
    session: SessionRef,
    client: u64,
    fps: u16,
    /// Windows whose screens this client receives.
    viewing: Vec<(String, Addr<Window>)>,
}

impl BinaryConnection {
    pub fn start<R: AsyncRead + Unpin + 'static>(reader: R, writer: OwnedWriteHalf, env: VerbEnv) {
        let (out, out_rx) = mpsc::unbounded_channel();
        let (screens, screens_rx) = mpsc::channel(SCREEN_QUEUE);
        BinaryConnection::create(move |ctx| {
            ctx.add_stream(FramedRead::new(reader, FrameCodec));
            let addr = ctx.address();
            actix::spawn(async move {
                write_loop(writer, out_rx, screens_rx).await;
                addr.do_send(WriterDone);
            });
            BinaryConnection {
                out,
                screens,
                env,
                attached: None,
            }
        });
    }

    fn send(&mut self, msg: &DaemonMessage) {
        let mut buf = BytesMut::new();
        msg.encode(&mut buf);
        let _ = self.out.send(buf.freeze());
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

/// The only writer of the socket. Control frames go first; screen frames fill the gaps.
async fn write_loop(
    mut writer: OwnedWriteHalf,
    mut out: mpsc::UnboundedReceiver<Bytes>,
    mut screens: mpsc::Receiver<Bytes>,
) {
    loop {
        let frame = tokio::select! {
            biased;
            f = out.recv() => match f {
                Some(f) => f,
                None => break,
            },
            Some(f) = screens.recv() => f,
        };
        if let Err(e) = writer.write_all(&frame).await {
            tracing::debug!(error = %e, "binary connection write failed");
            return;
        }
    }
    let _ = writer.shutdown().await;
}

#[derive(Message)]
#[rtype(result = "()")]
struct WriterDone;

impl Handler<WriterDone> for BinaryConnection {
    type Result = ();
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
        }
        self.send(&DaemonMessage::Op(msg.0));
        if ended {
            // The session is gone; nothing more will come for this client.
            if let Some(a) = self.attached.take() {
                for (_, w) in a.viewing {
                    w.do_send(RemoveViewer(a.client));
                }
            }
        }
    }
}

impl Actor for BinaryConnection {
    type Context = Context<Self>;
}

async fn summaries(manager: &Addr<SessionManager>) -> Vec<SessionSummary> {
    let rows = verbs::session_rows(manager).await.unwrap_or_default();
    rows.iter()
        .map(|r| SessionSummary {
            name: r["name"].as_str().unwrap_or_default().to_string(),
            id: r["id"].as_str().unwrap_or_default().to_string(),
            created: r["created"].as_u64().unwrap_or(0),
            last_active: r["last_active"].as_u64().unwrap_or(0),
            window_count: r["window_count"].as_u64().unwrap_or(0) as usize,
            attached: r["attached"].as_bool().unwrap_or(false),
            width: r["width"].as_u64().unwrap_or(0) as u16,
            height: r["height"].as_u64().unwrap_or(0) as u16,
        })
        .collect()
}

impl StreamHandler<Result<(u8, Bytes), FrameCodecError>> for BinaryConnection {
    fn handle(&mut self, item: Result<(u8, Bytes), FrameCodecError>, ctx: &mut Self::Context) {
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
                self.error(BinaryErrorCode::InvalidMessage, e.to_string());
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
                    async move { manager.send(session_manager::KillSession(name)).await }
                        .into_actor(self)
                        .map(|res, act, _| match res {
                            Ok(Ok(())) => act.send(&DaemonMessage::Ok),
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
                // SAFETY: sending a signal to our own process.
                unsafe {
                    libc::kill(libc::getpid(), libc::SIGTERM);
                }
            }
        }
    }

    fn finished(&mut self, ctx: &mut Self::Context) {
        // The peer is done sending: stopping drops our senders, so the writer flushes what is
        // queued and then closes.
        self.close(ctx);
    }
}
