//! A window's PTY input: one ordered queue of writes (bounded: `WRITE_QUEUE` jobs), drained by
//! a task on the window's arbiter, and a direct path beside it. While nothing is queued, an
//! attached client's keystroke is written to the PTY at once by the connection that read it,
//! without a hop to the window's thread: that hop was a thread wake-up on every key. Whatever
//! the kernel does not take at once is queued, so the order of writes is kept either way.
//!
//! Writes that go through the window's thread (pastes, keys encoded with the window's modes,
//! verbs) hold a [`Ticket`] from the moment they are sent until the window has queued them; a
//! direct write waits (takes the window's way) while any ticket is out, so it never overtakes a
//! write sent before it, whoever sent that one.
use std::collections::HashMap;
use std::io;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use tokio::sync::{mpsc, oneshot};

/// Queued writes per window. Verb writes wait for room; emulator replies are dropped when full.
const WRITE_QUEUE: usize = 256;

/// One write to the PTY, with an optional completion signal.
pub struct WriteJob {
    pub bytes: Vec<u8>,
    pub done: Option<oneshot::Sender<io::Result<()>>>,
}

/// The writing end of one window's PTY, shared by the window and the connections showing it.
pub struct PtyInput {
    /// None once the window's program is gone: then only the window answers writes.
    open: Mutex<Option<Open>>,
    /// Jobs handed to the queue and not yet written. Raised under `open`'s lock, lowered by the
    /// writer task once a job is written: zero means nothing can be writing now.
    queued: Arc<AtomicUsize>,
    /// Writes sent through the window and not yet queued by it (see [`Ticket`]).
    in_flight: Arc<AtomicUsize>,
    window: String,
    /// Where it is registered, to leave when the program is gone.
    registry: PtyInputs,
    /// The last bytes verbs wrote, to catch a frame introducer split across requests.
    verb_tail: Mutex<Vec<u8>>,
    /// A recording of the window's input runs: keys go through the window, which records
    /// them, instead of straight to the PTY.
    recorded: std::sync::atomic::AtomicBool,
}

/// Verb input bytes kept to check the next request against: longer than any introducer prefix.
const VERB_TAIL: usize = 8;

/// Held by a write on its way through the window's mailbox; dropped once the window queued it.
pub struct Ticket(Arc<AtomicUsize>);

impl Drop for Ticket {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The open PTY inputs by window id, for writers that know only the id (verbs, attached
/// clients). One per actor system, held in its services; windows register their input as they
/// start. Entries are weak: the window owns its input.
#[derive(Clone, Default)]
pub struct PtyInputs(Arc<Mutex<HashMap<String, Weak<PtyInput>>>>);

impl PtyInputs {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Weak<PtyInput>>> {
        // Each change is one map operation, so a poisoned lock is still consistent.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The PTY input of window `id`, while its program runs.
    pub fn find(&self, id: &str) -> Option<Arc<PtyInput>> {
        self.lock().get(id).and_then(Weak::upgrade)
    }
}

/// A ticket for a write about to be sent to window `id` (None when it has no open input).
pub fn ticket(inputs: &PtyInputs, id: &str) -> Option<Ticket> {
    inputs.find(id).map(|input| input.ticket())
}

/// Verbs check their input for frame introducers one request at a time; this also refuses one
/// split across requests (`Escape`, then `_lumen;...`), which the program would read as one.
/// Returns false (and keeps nothing) when `bytes` would complete an introducer the previous verb
/// input began. Call before writing verb input; typed keys in between reset it ([`typed`]).
pub fn verb_input_ok(inputs: &PtyInputs, id: &str, bytes: &[u8]) -> bool {
    let Some(input) = inputs.find(id) else {
        return true;
    };
    let mut tail = input.verb_tail.lock().unwrap_or_else(|e| e.into_inner());
    let mut joined = tail.clone();
    joined.extend_from_slice(bytes);
    if !protocol::lumen::contains_frame_introducer(&tail)
        && protocol::lumen::contains_frame_introducer(&joined)
    {
        return false;
    }
    let keep = joined.len().saturating_sub(VERB_TAIL);
    *tail = joined.split_off(keep);
    true
}

/// Keys a user typed reached window `id`: verb input before them no longer runs into the next.
pub fn typed(inputs: &PtyInputs, id: &str) {
    if let Some(input) = inputs.find(id) {
        input
            .verb_tail
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}

/// What became of a direct write.
pub enum Direct {
    /// Written whole.
    Written,
    /// Partly written; the rest is queued and the receiver says when it is written.
    Queued(oneshot::Receiver<io::Result<()>>),
    /// Not written: earlier writes are pending or the program is gone. The caller goes through
    /// the window, holding the ticket (None when the window has no open input).
    Refused(Vec<u8>, Option<Ticket>),
}

/// Write `bytes` to window `id`'s PTY now if nothing is pending before them (see
/// [`PtyInput::write_direct`]).
pub fn write(inputs: &PtyInputs, id: &str, bytes: Vec<u8>) -> Direct {
    match inputs.find(id) {
        Some(input) => input.write_direct(bytes),
        None => Direct::Refused(bytes, None),
    }
}

struct Open {
    tx: mpsc::Sender<WriteJob>,
    /// A second descriptor of the same (non-blocking) PTY, for direct writes.
    fd: OwnedFd,
}

/// What became of a job offered to the queue.
pub enum Queued {
    Now,
    /// The queue is full: the job waits its turn (already counted; see [`Waiting::send`]).
    Full(Waiting),
    Closed,
}

/// A job waiting for room in a full queue. Dropped unsent, it is no longer counted.
pub struct Waiting {
    job: Option<WriteJob>,
    tx: mpsc::Sender<WriteJob>,
    queued: Arc<AtomicUsize>,
}

impl Waiting {
    pub async fn send(mut self) -> Result<(), ()> {
        let job = self.job.take().ok_or(())?;
        if self.tx.send(job).await.is_err() {
            self.queued.fetch_sub(1, Ordering::AcqRel);
            return Err(());
        }
        Ok(())
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if self.job.is_some() {
            self.queued.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

impl PtyInput {
    /// Start the writer task on the current arbiter and register the input in `registry`. `fd`
    /// is a non-blocking descriptor of the PTY master (`pty::writer_fd`).
    pub fn start(fd: OwnedFd, window: &str, registry: &PtyInputs) -> io::Result<Arc<PtyInput>> {
        let direct = fd.try_clone()?;
        let (tx, mut rx) = mpsc::channel::<WriteJob>(WRITE_QUEUE);
        let queued = Arc::new(AtomicUsize::new(0));
        let written = queued.clone();
        actix::spawn(async move {
            // Registered with the reactor only while the PTY is full: a registration kept while
            // idle would wake this thread on every change of the PTY's write room (each key
            // the program reads).
            let mut blocked = None;
            while let Some(job) = rx.recv().await {
                let res = crate::fdio::write_all(&fd, &job.bytes, &mut blocked).await;
                written.fetch_sub(1, Ordering::AcqRel);
                let failed = res.is_err();
                if let Some(done) = job.done {
                    let _ = done.send(res);
                }
                if failed {
                    // The PTY is gone; later jobs would fail the same way, so fail them fast.
                    while let Some(job) = rx.recv().await {
                        written.fetch_sub(1, Ordering::AcqRel);
                        if let Some(done) = job.done {
                            let _ = done.send(Err(rustix::io::Errno::IO.into()));
                        }
                    }
                    return;
                }
                if rx.is_empty() {
                    blocked = None;
                }
            }
        });
        let input = Arc::new(PtyInput {
            open: Mutex::new(Some(Open { tx, fd: direct })),
            queued,
            in_flight: Arc::new(AtomicUsize::new(0)),
            window: window.to_string(),
            registry: registry.clone(),
            verb_tail: Mutex::new(Vec::new()),
            recorded: Default::default(),
        });
        let mut all = registry.lock();
        // Forget inputs whose windows are gone; an adopted window replaces its old entry.
        all.retain(|_, w| w.strong_count() > 0);
        all.insert(window.to_string(), Arc::downgrade(&input));
        Ok(input)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Open>> {
        // A panic while holding the lock cannot leave the state half-changed (each change is
        // one statement), so a poisoned lock is still usable.
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queue `job` behind every earlier write.
    pub fn queue(&self, job: WriteJob) -> Queued {
        let open = self.lock();
        let Some(open) = open.as_ref() else {
            return Queued::Closed;
        };
        self.queued.fetch_add(1, Ordering::AcqRel);
        match open.tx.try_send(job) {
            Ok(()) => Queued::Now,
            Err(mpsc::error::TrySendError::Full(job)) => Queued::Full(Waiting {
                job: Some(job),
                tx: open.tx.clone(),
                queued: self.queued.clone(),
            }),
            Err(mpsc::error::TrySendError::Closed(_)) => {
                self.queued.fetch_sub(1, Ordering::AcqRel);
                Queued::Closed
            }
        }
    }

    /// A ticket for a write about to be sent through the window.
    pub fn ticket(&self) -> Ticket {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        Ticket(self.in_flight.clone())
    }

    /// Write `bytes` now if nothing is queued or in flight before them; what the PTY does not
    /// take at once is queued.
    pub fn write_direct(&self, bytes: Vec<u8>) -> Direct {
        let open = self.lock();
        let Some(open) = open.as_ref() else {
            return Direct::Refused(bytes, None);
        };
        if self.queued.load(Ordering::SeqCst) != 0
            || self.in_flight.load(Ordering::SeqCst) != 0
            || self.recorded.load(Ordering::Acquire)
        {
            return Direct::Refused(bytes, Some(self.ticket()));
        }
        let mut done = 0;
        while done < bytes.len() {
            match rustix::io::write(&open.fd, &bytes[done..]) {
                Ok(n) => done += n,
                Err(rustix::io::Errno::INTR) => {}
                Err(rustix::io::Errno::AGAIN) => break,
                Err(_) if done == 0 => return Direct::Refused(bytes, Some(self.ticket())),
                // Part was written: the rest goes through the queue, which reports the error.
                Err(_) => break,
            }
        }
        if done == bytes.len() {
            return Direct::Written;
        }
        // The program is not reading fast enough: the rest waits in the queue (empty, as
        // nothing was queued), ahead of any later write.
        let (tx, rx) = oneshot::channel();
        self.queued.fetch_add(1, Ordering::AcqRel);
        let rest = WriteJob {
            bytes: bytes[done..].to_vec(),
            done: Some(tx),
        };
        if open.tx.try_send(rest).is_err() {
            self.queued.fetch_sub(1, Ordering::AcqRel);
        }
        Direct::Queued(rx)
    }

    /// Whether keys must pass through the window (to be recorded) rather than straight in.
    pub fn set_recorded(&self, recorded: bool) {
        self.recorded.store(recorded, Ordering::Release);
    }

    /// The program is gone: later writes are refused, and the writer task ends once the window
    /// lets go of it.
    pub fn close(&self) {
        self.lock().take();
        let mut all = self.registry.lock();
        if all
            .get(&self.window)
            .is_some_and(|w| std::ptr::eq(w.as_ptr(), self))
        {
            all.remove(&self.window);
        }
    }
}
