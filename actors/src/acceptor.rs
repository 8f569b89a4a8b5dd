//! The Acceptor actor: owns the listener, checks each peer's uid, and hands the connection to the
//! JSON or binary side depending on its first byte.
use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;
use bytes::BytesMut;
use protocol::binary::{BinaryErrorCode, DaemonMessage};
use protocol::envelope::failure_line;
use protocol::{ErrorCode, Hint, VerbError};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::Semaphore;

use crate::binary_connection::BinaryConnection;
use crate::json_connection::{Drain, JsonConnection};
use crate::verb_env::VerbEnv;

/// How long a new connection may stay silent before its first byte; generous, since a script
/// may connect first and compute its request later.
const FIRST_BYTE_WAIT: Duration = Duration::from_secs(600);

/// Pause before accepting again when the process is out of file descriptors.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// How long a connection refused for being over the connection cap may take to send its first
/// byte (which says whether to answer in JSON or binary) before it is closed without a word.
const REFUSAL_WAIT: Duration = Duration::from_secs(1);

/// Connections being told they are over the limit at once; more are closed without a word.
const MAX_REFUSALS: usize = 64;

pub struct Acceptor {
    env: VerbEnv,
    uid: u32,
    /// Live JSON connections, so shutdown can let them answer before the daemon exits.
    json: Vec<Addr<JsonConnection>>,
    /// Places for live connections: a connection beyond them is told why and closed.
    slots: Arc<Semaphore>,
    /// How many places there are (`DaemonInfo::max_connections`).
    limit: usize,
    /// Whether the refusal above was logged since the last connection that fitted.
    refusing: bool,
    /// Places for the short tasks that tell a refused connection why.
    refusals: Arc<Semaphore>,
}

impl Acceptor {
    pub fn start(listener: UnixListener, env: VerbEnv) -> Addr<Acceptor> {
        Acceptor::create(move |ctx| {
            ctx.add_stream(futures_util::stream::unfold(
                (listener, false),
                |(l, backing_off)| async move {
                    let r = l.accept().await.map(|(s, _)| s);
                    let out_of_fds = matches!(
                        &r,
                        Err(e) if matches!(
                            rustix::io::Errno::from_io_error(e),
                            Some(rustix::io::Errno::MFILE | rustix::io::Errno::NFILE)
                        )
                    );
                    if out_of_fds {
                        // The pending connection stays queued and readiness stays set, so
                        // accepting again at once would spin: wait a little, log once.
                        if !backing_off {
                            tracing::warn!("out of file descriptors; accepting again shortly");
                        }
                        tokio::time::sleep(ACCEPT_BACKOFF).await;
                        return Some((Err(std::io::ErrorKind::WouldBlock.into()), (l, true)));
                    }
                    Some((r, (l, false)))
                },
            ));
            let limit = env.services.info.max_connections;
            Acceptor {
                env,
                uid: rustix::process::geteuid().as_raw(),
                json: Vec::new(),
                slots: Arc::new(Semaphore::new(limit)),
                limit,
                refusing: false,
                refusals: Arc::new(Semaphore::new(MAX_REFUSALS)),
            }
        })
    }
}

impl Actor for Acceptor {
    type Context = Context<Self>;
}

impl StreamHandler<std::io::Result<UnixStream>> for Acceptor {
    fn handle(&mut self, item: std::io::Result<UnixStream>, ctx: &mut Self::Context) {
        let stream = match item {
            Ok(s) => s,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                return;
            }
        };
        match stream.peer_cred() {
            Ok(cred) if cred.uid() == self.uid => {}
            Ok(cred) => {
                tracing::warn!(
                    peer_uid = cred.uid(),
                    "refused a connection from another user"
                );
                return;
            }
            Err(e) => {
                tracing::warn!(error = %e, "could not read peer credentials; refusing");
                return;
            }
        }
        let slot = match self.slots.clone().try_acquire_owned() {
            Ok(slot) => {
                self.refusing = false;
                slot
            }
            Err(_) => {
                if !self.refusing {
                    tracing::warn!(
                        limit = self.limit,
                        "too many connections; refusing new ones until some close"
                    );
                    self.refusing = true;
                }
                // Telling takes up to two seconds; a flood of newcomers is just closed.
                if let Ok(place) = self.refusals.clone().try_acquire_owned() {
                    let limit = self.limit;
                    actix::spawn(async move {
                        refuse(stream, limit).await;
                        drop(place);
                    });
                }
                return;
            }
        };
        let env = self.env.clone();
        let acceptor = ctx.address();
        actix::spawn(async move {
            let (mut reader, writer) = stream.into_split();
            let mut first = [0u8; 1];
            match tokio::time::timeout(FIRST_BYTE_WAIT, reader.read(&mut first)).await {
                Ok(Ok(1)) => {}
                _ => return,
            }
            let first = std::io::Cursor::new(first.to_vec());
            if matches!(first.get_ref()[0], b'{' | b' ' | b'\t' | b'\n' | b'\r') {
                let conn = JsonConnection::start(first.chain(reader), writer, env, slot);
                acceptor.do_send(Track(conn));
                return;
            }
            // An attached client's socket is read and written through descriptors registered
            // for one direction each (see `fdio`).
            let halves = reader
                .reunite(writer)
                .map_err(|e| std::io::Error::other(e.to_string()))
                .and_then(|stream| stream.into_std())
                .and_then(|stream| {
                    let fd = OwnedFd::from(stream);
                    let writer = fd.try_clone()?;
                    Ok((crate::fdio::FdReader::new(fd)?, writer))
                });
            match halves {
                Ok((reader, writer)) => {
                    BinaryConnection::start(first.chain(reader), writer, env, slot)
                }
                Err(e) => tracing::warn!(error = %e, "cannot set up a binary connection"),
            }
        });
    }
}

/// Tell a connection over the limit why it is being closed, in the protocol it speaks.
async fn refuse(mut stream: UnixStream, limit: usize) {
    let mut first = [0u8; 1];
    let Ok(Ok(1)) = tokio::time::timeout(REFUSAL_WAIT, stream.read(&mut first)).await else {
        return;
    };
    let message = format!(
        "the daemon is serving its limit of {limit} connections; try again when some close"
    );
    let bytes = if matches!(first[0], b'{' | b' ' | b'\t' | b'\n' | b'\r') {
        let err = VerbError::new(ErrorCode::Internal, message).with_hint(
            Hint::new().detail("close idle connections (subscribers, attached clients) first"),
        );
        let mut line = failure_line(&None, &err).into_bytes();
        line.push(b'\n');
        line
    } else {
        let mut buf = BytesMut::new();
        DaemonMessage::Error {
            code: BinaryErrorCode::Internal,
            message,
        }
        .encode(&mut buf);
        buf.to_vec()
    };
    let _ = tokio::time::timeout(REFUSAL_WAIT, stream.write_all(&bytes)).await;
}

/// Stop accepting connections (daemon shutdown). Dropping the listener frees the socket.
#[derive(Message)]
#[rtype(result = "()")]
pub struct StopAccepting;

impl Handler<StopAccepting> for Acceptor {
    type Result = ResponseFuture<()>;
    fn handle(&mut self, _: StopAccepting, ctx: &mut Self::Context) -> Self::Result {
        ctx.stop();
        // Requests in flight (waits end as the event hub closes) are answered and flushed.
        let conns: Vec<Addr<JsonConnection>> =
            self.json.drain(..).filter(|c| c.connected()).collect();
        Box::pin(async move {
            futures_util::future::join_all(conns.iter().map(|c| c.send(Drain))).await;
        })
    }
}

#[derive(Message)]
#[rtype(result = "()")]
struct Track(Addr<JsonConnection>);

impl Handler<Track> for Acceptor {
    type Result = ();
    fn handle(&mut self, msg: Track, _: &mut Self::Context) {
        self.json.retain(|c| c.connected());
        self.json.push(msg.0);
    }
}
