//! The PtyReader actor: reads one window's PTY and hands each burst to its Window. While the
//! window parses one burst the reader fills the next (at most `pty::BURST` bytes each), then
//! waits: two bursts per window at most, so a window that cannot keep up stops the reads and the
//! program blocks on its PTY: backpressure through the kernel, never buffering in the daemon.
//! The burst in the window's hands holds the reader's one credit (a semaphore permit) and gives
//! it back when parsed: that wakes the reader only when it has the next burst waiting, not
//! after every echoed key as an answered message would.
//!
//! Readers run on the daemon's reader arbiter, not their window's: the kernel hands a PTY's
//! output over a few KiB at a time, so keeping it drained while the window parses is what lets a
//! flood run at the window's parsing speed. Bursts are `Bytes`, passed between threads without a
//! copy. A reader reads at most `pty::PASS` at a time and then yields to the thread's other
//! readers, so a flooding PTY never keeps a quiet window's echo waiting.
use std::os::fd::OwnedFd;
use std::sync::Arc;

use actix::prelude::*;
use bytes::{Bytes, BytesMut};
use tokio::net::unix::pipe;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

use crate::pty;

/// A reader quiet this long lets go of its read buffer: a flood leaves up to a burst of touched
/// pages in it, which an idle window should not keep.
const RELEASE_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// A burst of program output, in order, with the reader's credit: dropped once the window has
/// parsed the burst.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Output(pub Bytes, pub Option<OwnedSemaphorePermit>);

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

/// What a reader hands its output to (its window): any actor that takes the reader's three
/// messages, so this module does not depend on the window's.
pub trait OutputSink:
    Actor<Context = Context<Self>> + Handler<Output> + Handler<OutputEnded> + Handler<Drained>
{
}

impl<T> OutputSink for T where
    T: Actor<Context = Context<T>> + Handler<Output> + Handler<OutputEnded> + Handler<Drained>
{
}

pub struct PtyReader<W: OutputSink> {
    fd: Option<OwnedFd>,
    window: Addr<W>,
    drain: Arc<Notify>,
}

impl<W: OutputSink> PtyReader<W> {
    /// Start reading `fd` (a non-blocking dup of the PTY master) for `window`. Notifying `drain`
    /// asks the reader to deliver whatever is buffered now, without waiting for more, and then
    /// send [`Drained`]: the window's program was reaped, and background processes may keep the
    /// PTY open indefinitely.
    pub fn start(
        fd: OwnedFd,
        window: Addr<W>,
        drain: Arc<Notify>,
        arbiter: &ArbiterHandle,
    ) -> Addr<PtyReader<W>> {
        PtyReader::start_in_arbiter(arbiter, move |_| PtyReader {
            fd: Some(fd),
            window,
            drain,
        })
    }
}

impl<W: OutputSink> Actor for PtyReader<W> {
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
            // One burst in the window's hands at a time (it holds the permit); meanwhile the next
            // one accumulates in `buf` (up to a burst), so the PTY keeps draining while the
            // window works: at most two bursts per window, one parsing and one filling.
            let credit = Arc::new(Semaphore::new(1));
            let mut ended = false;
            loop {
                if !window.connected() {
                    return;
                }
                tokio::select! {
                    permit = credit.clone().acquire_owned(), if !buf.is_empty() => {
                        let Ok(permit) = permit else { return };
                        window.do_send(Output(buf.split().freeze(), Some(permit)));
                    }
                    // Cancel-safe: read_burst only awaits before its first read.
                    res = pty::read_burst(&rx, &mut buf), if !ended && buf.len() < pty::BURST => {
                        // A whole pass: the PTY may still be readable (a flood).
                        let more = matches!(res, Ok(n) if n >= pty::PASS);
                        match res {
                            Ok(0) => ended = true,
                            Ok(_) => {}
                            Err(e) => {
                                if e.raw_os_error() != Some(libc::EIO) {
                                    tracing::debug!(error = %e, "PTY read ended");
                                }
                                ended = true;
                            }
                        }
                        if !buf.is_empty() {
                            if let Ok(permit) = credit.clone().try_acquire_owned() {
                                window.do_send(Output(buf.split().freeze(), Some(permit)));
                            }
                        }
                        // Let the thread's other readers in before the next pass: without a
                        // yield this task stays ready as long as the PTY has data, and the
                        // runtime polls for other descriptors only when no task is ready. The
                        // yield resumes after that poll. A pass the kernel ended (an echo, a
                        // prompt) needs none: the next read waits for readiness anyway.
                        if more {
                            tokio::task::yield_now().await;
                        }
                    }
                    // One wake-up after the output stops, none while idle (no buffer to drop).
                    () = tokio::time::sleep(RELEASE_AFTER),
                        if buf.is_empty() && buf.capacity() > 0 => {
                        buf = BytesMut::new();
                    }
                    () = drain.notified() => {
                        // Everything in order (the mailbox keeps it): what was read ahead, what
                        // is buffered now, then `Drained`.
                        ended |= pty::read_available(&rx, &mut buf);
                        if !buf.is_empty() {
                            window.do_send(Output(buf.split().freeze(), None));
                        }
                        window.do_send(Drained);
                    }
                }
                if ended && buf.is_empty() {
                    break;
                }
            }
            window.do_send(OutputEnded);
        };
        ctx.spawn(read.into_actor(self).map(|(), _, ctx| ctx.stop()));
    }
}

impl<W: OutputSink> Handler<StopReading> for PtyReader<W> {
    type Result = ();
    fn handle(&mut self, _: StopReading, ctx: &mut Self::Context) {
        // Dropping the read future closes this reader's descriptor.
        ctx.stop();
    }
}
