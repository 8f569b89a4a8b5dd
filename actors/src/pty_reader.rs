//! The PtyReader actor: reads one window's PTY and hands each burst to its Window, waiting until
//! the window has parsed it before reading again. At most one burst (`pty::BURST` bytes) is ever
//! in flight, so a window that cannot keep up stops the reads and the program blocks on its
//! PTY: backpressure through the kernel, never buffering in the daemon.
//!
//! It runs on its window's arbiter (it is started from the window's own context), so the read
//! and the parse share a thread and a burst is never copied between threads.
use std::os::fd::OwnedFd;
use std::sync::Arc;

use actix::prelude::*;
use bytes::{Bytes, BytesMut};
use tokio::net::unix::pipe;
use tokio::sync::Notify;

use crate::pty;
use crate::window::Window;

/// A burst of program output, in order. The reply comes once the window has parsed it.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Output(pub Bytes);

/// The program's output ended (EOF or EIO: every holder of the PTY's other side is gone).
#[derive(Message)]
#[rtype(result = "()")]
pub struct OutputEnded;

/// Everything that was buffered when the window asked for a drain has been delivered (see
/// [`PtyReader::drain`]).
#[derive(Message)]
#[rtype(result = "()")]
pub struct Drained;

/// Stop reading (the window is closing).
#[derive(Message)]
#[rtype(result = "()")]
pub struct StopReading;

pub struct PtyReader {
    fd: Option<OwnedFd>,
    window: Addr<Window>,
    drain: Arc<Notify>,
}

impl PtyReader {
    /// Start reading `fd` (a non-blocking dup of the PTY master) for `window`. Notifying `drain`
    /// asks the reader to deliver whatever is buffered now, without waiting for more, and then
    /// send [`Drained`]: the window's program was reaped, and background processes may keep the
    /// PTY open indefinitely.
    pub fn start(fd: OwnedFd, window: Addr<Window>, drain: Arc<Notify>) -> Addr<PtyReader> {
        PtyReader {
            fd: Some(fd),
            window,
            drain,
        }
        .start()
    }
}

impl Actor for PtyReader {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        let Some(fd) = self.fd.take() else { return };
        let window = self.window.clone();
        let drain = self.drain.clone();
        let read = async move {
            let rx = match pipe::Receiver::from_owned_fd_unchecked(fd) {
                Ok(rx) => rx,
                Err(e) => {
                    tracing::error!(error = %e, "cannot watch a window's PTY; its output is lost");
                    window.do_send(OutputEnded);
                    return;
                }
            };
            let mut buf = BytesMut::new();
            loop {
                tokio::select! {
                    // Cancel-safe: read_burst only awaits before its first read.
                    res = pty::read_burst(&rx, &mut buf) => match res {
                        Ok(0) => break,
                        Ok(_) => {
                            if window.send(Output(buf.split().freeze())).await.is_err() {
                                return;
                            }
                        }
                        Err(e) => {
                            if e.raw_os_error() != Some(libc::EIO) {
                                tracing::debug!(error = %e, "PTY read ended");
                            }
                            break;
                        }
                    },
                    () = drain.notified() => {
                        let ended = pty::read_available(&rx, &mut buf);
                        if !buf.is_empty() && window.send(Output(buf.split().freeze())).await.is_err() {
                            return;
                        }
                        if window.send(Drained).await.is_err() {
                            return;
                        }
                        if ended {
                            break;
                        }
                    }
                }
            }
            window.do_send(OutputEnded);
        };
        ctx.spawn(read.into_actor(self).map(|(), _, ctx| ctx.stop()));
    }
}

impl Handler<StopReading> for PtyReader {
    type Result = ();
    fn handle(&mut self, _: StopReading, ctx: &mut Self::Context) {
        // Dropping the read future closes this reader's descriptor.
        ctx.stop();
    }
}
