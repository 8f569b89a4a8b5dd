//! What an attached client's socket is written from. The connection's writer task writes every
//! frame queued for it (control frames, the latest session state, screen frames), and windows
//! may write a screen frame straight to the socket from their own thread when nothing at all is
//! queued or being written: a typed key's echo then leaves without a thread hop to the
//! connection's arbiter. Frames are never interleaved and never reordered: a window writes only
//! when the writer is idle with empty queues (checked under one lock with every enqueue), and a
//! frame the socket did not take whole is finished by the writer before anything else.
//!
//! Bounds: screen frames queue up to `SCREEN_QUEUE` (windows skip a frame when it is full and
//! stay dirty), plus at most one frame a window began writing itself.
use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;
use tokio::sync::{mpsc, watch, Notify};

pub struct Outbox {
    shared: Mutex<OutboxState>,
    screens: mpsc::Sender<Bytes>,
    /// Tells the writer a window left a frame half written.
    leftover_ready: Notify,
}

/// The outbox's state behind its one lock, which the writer task and the windows both take.
#[derive(Default)]
struct OutboxState {
    /// Frames queued or being written by the writer task (control, state, screens, leftover).
    unwritten: usize,
    /// A session state waits in the connection's watch channel.
    state_pending: bool,
    /// The unwritten end of a frame a window wrote directly.
    leftover: Option<Bytes>,
    /// A second descriptor of the socket for direct writes; None once the connection closes.
    fd: Option<OwnedFd>,
    /// Direct writes are possible at all (`fd` was there from the start).
    direct: bool,
}

/// Why a screen frame was not taken.
pub enum NotTaken {
    /// The queue is full: the client is behind.
    Full,
    /// The connection is closing.
    Closed,
}

impl Outbox {
    pub fn new(fd: Option<OwnedFd>, screens: mpsc::Sender<Bytes>) -> Arc<Outbox> {
        let direct = fd.is_some();
        Arc::new(Outbox {
            shared: Mutex::new(OutboxState {
                fd,
                direct,
                ..Default::default()
            }),
            screens,
            leftover_ready: Notify::new(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, OutboxState> {
        // Every change under the lock is a single field update: a poisoned lock is consistent.
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queue a control frame on `out`. False when the queue is full or closed.
    pub fn queue_control(&self, out: &mpsc::Sender<Bytes>, frame: Bytes) -> bool {
        let mut s = self.lock();
        if out.try_send(frame).is_err() {
            return false;
        }
        s.unwritten += 1;
        true
    }

    /// Replace the pending session state (coalesced: only the latest is written).
    pub fn queue_state(&self, state: &watch::Sender<Option<Bytes>>, frame: Bytes) {
        let mut s = self.lock();
        state.send_replace(Some(frame));
        s.state_pending = true;
    }

    /// True when the client cannot take a screen frame now.
    pub fn screens_full(&self) -> bool {
        self.screens.capacity() == 0
    }

    pub fn is_closed(&self) -> bool {
        let s = self.lock();
        s.direct && s.fd.is_none()
    }

    /// Send a screen frame: written now from the caller's thread when nothing is queued or being
    /// written, else queued for the writer task.
    pub fn send_screen(&self, frame: Bytes) -> Result<(), NotTaken> {
        let mut s = self.lock();
        if s.direct && s.fd.is_none() {
            return Err(NotTaken::Closed);
        }
        if let (Some(fd), 0, false) = (s.fd.as_ref(), s.unwritten, s.state_pending) {
            let mut done = 0;
            while done < frame.len() {
                // SIGPIPE is ignored in this process: a vanished peer is an EPIPE here.
                match rustix::io::write(fd, &frame[done..]) {
                    Ok(n) => done += n,
                    Err(rustix::io::Errno::INTR) => {}
                    Err(rustix::io::Errno::AGAIN) => break,
                    // The peer is gone: the connection notices on its own side and closes.
                    Err(_) => return Ok(()),
                }
            }
            if done < frame.len() {
                s.leftover = Some(frame.slice(done..));
                s.unwritten += 1;
                drop(s);
                self.leftover_ready.notify_one();
            }
            return Ok(());
        }
        match self.screens.try_send(frame) {
            Ok(()) => {
                s.unwritten += 1;
                Ok(())
            }
            Err(mpsc::error::TrySendError::Full(_)) => Err(NotTaken::Full),
            Err(mpsc::error::TrySendError::Closed(_)) => Err(NotTaken::Closed),
        }
    }

    /// Writer side: a frame a window left half written, to be written before anything else.
    pub fn take_leftover(&self) -> Option<Bytes> {
        self.lock().leftover.take()
    }

    /// Writer side: wait until a window left a frame half written.
    pub async fn leftover(&self) {
        self.leftover_ready.notified().await
    }

    /// Writer side: take the latest session state, if one is pending.
    pub fn take_state(&self, state: &mut watch::Receiver<Option<Bytes>>) -> Option<Bytes> {
        let mut s = self.lock();
        s.state_pending = false;
        let frame = state.borrow_and_update().clone();
        if frame.is_some() {
            s.unwritten += 1;
        }
        frame
    }

    /// Writer side: a frame taken from a queue (or the leftover) was written.
    pub fn written(&self) {
        let mut s = self.lock();
        s.unwritten = s.unwritten.saturating_sub(1);
    }

    /// No more frames: windows stop writing, and the socket's second descriptor is closed.
    pub fn close(&self) {
        self.lock().fd = None;
    }
}
