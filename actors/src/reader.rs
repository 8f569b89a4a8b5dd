//! The read side of a connection: a task that decodes items from the socket and hands each to
//! its connection actor together with a permit. The actor keeps the permit until the item is
//! fully dealt with (its answer written to the socket). With every permit out the task stops
//! reading, so a peer that pipelines requests faster than it reads the answers is held back by
//! its own socket buffer, never by the daemon's memory.
use std::sync::Arc;

use actix::prelude::*;
use futures_util::StreamExt;
use tokio::io::AsyncRead;
use tokio::sync::{oneshot, OwnedSemaphorePermit, Semaphore};
use tokio_util::codec::{Decoder, FramedRead};

/// One decoded item (or a decoding error), or the end of the input (`item: None`).
pub struct Incoming<T> {
    pub item: Option<T>,
    /// Released when dropped: hold it until the item's answer is written.
    pub permit: Option<OwnedSemaphorePermit>,
}

impl<T: 'static> Message for Incoming<T> {
    type Result = ();
}

/// Stops the reader task when dropped (the connection actor keeps it for its lifetime).
pub struct ReaderGuard {
    _stop: oneshot::Sender<()>,
}

/// Start reading `reader` with `decoder`, at most `permits` items unanswered at once.
pub fn spawn<R, D>(
    reader: R,
    decoder: D,
    permits: usize,
    to: Recipient<Incoming<Result<D::Item, D::Error>>>,
) -> ReaderGuard
where
    R: AsyncRead + Unpin + 'static,
    D: Decoder + 'static,
    D::Item: Send + 'static,
    D::Error: Send + 'static,
{
    let (stop_tx, mut stop_rx) = oneshot::channel::<()>();
    let permits = Arc::new(Semaphore::new(permits.max(1)));
    actix::spawn(async move {
        let mut frames = FramedRead::new(reader, decoder);
        loop {
            let permit = tokio::select! {
                p = permits.clone().acquire_owned() => match p {
                    Ok(p) => p,
                    Err(_) => return,
                },
                _ = &mut stop_rx => return,
            };
            let next = tokio::select! {
                n = frames.next() => n,
                _ = &mut stop_rx => return,
            };
            let end = !matches!(next, Some(Ok(_)));
            let msg = Incoming {
                item: next,
                permit: Some(permit),
            };
            if to.send(msg).await.is_err() || end {
                // The connection is gone, the input ended, or framing was lost.
                return;
            }
        }
    });
    ReaderGuard { _stop: stop_tx }
}
