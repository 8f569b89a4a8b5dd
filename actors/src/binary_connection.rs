//! The BinaryConnection actor: one per binary-protocol client (`tuios new`, `tuios kill-server`,
//! and later `tuios attach`). Frames are handled in order.
use actix::io::{FramedWrite, WriteHandler};
use actix::prelude::*;
use bytes::{Bytes, BytesMut};
use protocol::binary::{
    version_mismatch_message, BinaryErrorCode, ClientMessage, DaemonMessage, SessionSummary,
    BINARY_VERSION, MIN_BINARY_VERSION,
};
use tokio::io::AsyncRead;
use tokio::net::unix::OwnedWriteHalf;
use tokio_util::codec::{BytesCodec, FramedRead};

use crate::codec::{FrameCodec, FrameCodecError};
use crate::session_manager::{self, SessionManager};
use crate::verbs::{self, VerbEnv};

pub struct BinaryConnection {
    writer: FramedWrite<Bytes, OwnedWriteHalf, BytesCodec>,
    env: VerbEnv,
}

impl BinaryConnection {
    pub fn start<R: AsyncRead + Unpin + 'static>(reader: R, writer: OwnedWriteHalf, env: VerbEnv) {
        BinaryConnection::create(move |ctx| {
            ctx.add_stream(FramedRead::new(reader, FrameCodec));
            BinaryConnection {
                writer: FramedWrite::new(writer, BytesCodec::new(), ctx),
                env,
            }
        });
    }

    fn send(&mut self, msg: &DaemonMessage) {
        let mut buf = BytesMut::new();
        msg.encode(&mut buf);
        self.writer.write(buf.freeze());
    }

    fn error(&mut self, code: BinaryErrorCode, message: impl Into<String>) {
        self.send(&DaemonMessage::Error {
            code,
            message: message.into(),
        });
    }
}

impl BinaryConnection {
    fn client_op(&mut self, op: protocol::attach::ClientOp, _ctx: &mut Context<Self>) {
        tracing::debug!(?op, "attach operation before attach support");
        self.error(
            BinaryErrorCode::InvalidMessage,
            "attaching is not supported by this daemon yet",
        );
    }
}

impl Actor for BinaryConnection {
    type Context = Context<Self>;
}

impl WriteHandler<std::io::Error> for BinaryConnection {}

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
                self.writer.close();
                return;
            }
            Err(FrameCodecError::Io(e)) => {
                tracing::debug!(error = %e, "binary connection read failed");
                self.writer.close();
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

    fn finished(&mut self, _: &mut Self::Context) {
        // Flush what is queued before stopping (the default would drop it).
        self.writer.close();
    }
}
