//! The JsonConnection actor: one per verb-protocol client. Lines are answered strictly in order,
//! one at a time; a slow verb blocks only its own connection.
use std::collections::VecDeque;

use actix::io::{FramedWrite, WriteHandler};
use actix::prelude::*;
use bytes::BytesMut;
use protocol::envelope::{failure_line, parse_request, success_line};
use protocol::{ErrorCode, VerbError, MAX_LINE_BYTES};
use tokio::io::AsyncRead;
use tokio::net::unix::OwnedWriteHalf;
use tokio_util::codec::{FramedRead, LinesCodec, LinesCodecError};

use crate::codec::{LineCodec, LineError};
use crate::verbs::{self, VerbEnv};

pub struct JsonConnection {
    writer: FramedWrite<String, OwnedWriteHalf, LinesCodec>,
    env: VerbEnv,
    queue: VecDeque<BytesMut>,
    busy: bool,
    /// The peer finished sending; close once every queued line is answered.
    input_done: bool,
}

impl JsonConnection {
    pub fn start<R: AsyncRead + Unpin + 'static>(reader: R, writer: OwnedWriteHalf, env: VerbEnv) {
        JsonConnection::create(move |ctx| {
            ctx.add_stream(FramedRead::new(reader, LineCodec::new(MAX_LINE_BYTES)));
            JsonConnection {
                writer: FramedWrite::new(writer, LinesCodec::new(), ctx),
                env,
                queue: VecDeque::new(),
                busy: false,
                input_done: false,
            }
        });
    }

    fn next(&mut self, ctx: &mut Context<Self>) {
        while !self.busy {
            let Some(line) = self.queue.pop_front() else {
                if self.input_done {
                    self.writer.close();
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
                    self.writer.write(failure_line(&id, &err));
                    continue;
                }
            };
            self.busy = true;
            let env = self.env.clone();
            ctx.spawn(
                async move {
                    let res = verbs::dispatch(&env, &req).await;
                    (req.id, res)
                }
                .into_actor(self)
                .map(|(id, res), act, ctx| {
                    let line = match res {
                        Ok(result) => success_line(&id, &result),
                        Err(err) => failure_line(&id, &err),
                    };
                    act.writer.write(line);
                    act.busy = false;
                    act.next(ctx);
                }),
            );
        }
    }
}

impl Actor for JsonConnection {
    type Context = Context<Self>;
}

impl WriteHandler<LinesCodecError> for JsonConnection {}

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
                // Lines before it are still answered in order; nothing after it is read.
                self.queue.clear();
                self.writer.write(failure_line(&None, &err));
                self.input_done = true;
                self.next(ctx);
            }
            Err(LineError::Io(e)) => {
                tracing::debug!(error = %e, "JSON connection read failed");
                self.input_done = true;
            }
        }
    }

    fn finished(&mut self, ctx: &mut Self::Context) {
        // Do not stop here: replies still queued would be lost. Close the writer once everything
        // in flight is answered; the actor stops when the writer has flushed.
        self.input_done = true;
        self.next(ctx);
    }
}
