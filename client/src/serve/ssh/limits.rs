//! How many connections `tuios ssh` holds, kept in two pools so that strangers cannot crowd out
//! the owner:
//!
//! - **Waiting** (connected, not authenticated yet): at most [`PRE_AUTH_FULL`], at most
//!   [`PRE_AUTH_PER_SOURCE`] per source address, each for at most [`LOGIN_GRACE`]. A new
//!   connection always gets in; when the pool is crowded the place it needs is taken from the
//!   *oldest* waiting connection (of its own address when that address holds its share, else
//!   of all), with a MaxStartups-style random early drop: from [`PRE_AUTH_START`] waiting
//!   connections on, with probability [`PRE_AUTH_RATE`]% rising linearly to 100% at
//!   [`PRE_AUTH_FULL`]. A real login authenticates within a second or two, so the oldest waiting
//!   connection is the one most likely stalled on purpose; a flood that connects and then says
//!   nothing holds places only until newer connections arrive, and never the owner's.
//! - **Sessions** (authenticated): at most [`MAX_SESSIONS`]. A connection moves here when its
//!   key is accepted, so waiting connections can never take a session's place; the one that
//!   finds it full is told so and disconnected.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::hash::BuildHasher;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::oneshot;

/// Authenticated connections at once: each costs an attach client (a thread, a renderer) and a
/// daemon connection per channel, so the bound is on what the machine would carry.
pub const MAX_SESSIONS: usize = 64;
/// Waiting connections below this are never touched: a few people logging in at once, or a
/// client retrying, see nothing of the limits.
pub const PRE_AUTH_START: usize = 10;
/// Chance (percent) at `PRE_AUTH_START` waiting connections that a new one takes the oldest's
/// place; it rises linearly to 100 at `PRE_AUTH_FULL` (OpenSSH's MaxStartups 10:30:100 uses the
/// same numbers, with a lower cap since ours only serves one user's keys).
pub const PRE_AUTH_RATE: u32 = 30;
/// Waiting connections never exceed this: a flood costs at most this many sockets and tasks.
pub const PRE_AUTH_FULL: usize = 60;
/// Waiting connections one source address may hold: a flood from one machine churns through
/// its own share and never pushes out anyone else's login.
pub const PRE_AUTH_PER_SOURCE: usize = 8;
/// Time from accept to authenticated (sshd's LoginGraceTime, shorter: a key login needs a
/// few round trips, a passphrase prompt a few seconds).
pub const LOGIN_GRACE: Duration = Duration::from_secs(20);
/// Closings made to make room are logged one by one at debug level, and summed at warn level at
/// most this often, so a flood does not flood the log.
const CLOSED_LOG_EVERY: Duration = Duration::from_secs(10);

/// Both pools, shared by every connection of the server.
pub struct Limits {
    waiting: Mutex<Waiting>,
    sessions: AtomicUsize,
    grace: Duration,
    /// Seeds the random early drop's rolls.
    rolls: AtomicU64,
}

#[derive(Default)]
struct Waiting {
    next: u64,
    /// By admission order, so the first entry is the oldest.
    conns: BTreeMap<u64, Entry>,
    per_source: HashMap<IpAddr, usize>,
    /// Closed to make room since the last warning, and when that was.
    closed: u64,
    warned: Option<Instant>,
}

struct Entry {
    source: IpAddr,
    /// Sent to close the connection; dropped (unsent) when it authenticates.
    close: oneshot::Sender<()>,
}

impl Waiting {
    fn remove(&mut self, seq: u64) -> Option<Entry> {
        let entry = self.conns.remove(&seq)?;
        if let Some(n) = self.per_source.get_mut(&entry.source) {
            *n -= 1;
            if *n == 0 {
                self.per_source.remove(&entry.source);
            }
        }
        Some(entry)
    }
}

/// Where a connection stands; held by its handler, its place is given back when dropped.
pub struct Place {
    limits: Arc<Limits>,
    state: State,
}

enum State {
    Waiting(u64),
    Session,
    /// Closed to make room, or already given back.
    None,
}

impl Limits {
    pub fn new(grace: Duration) -> Arc<Limits> {
        Arc::new(Limits {
            waiting: Mutex::new(Waiting::default()),
            sessions: AtomicUsize::new(0),
            grace,
            rolls: AtomicU64::new(0),
        })
    }

    /// Takes a waiting place for a connection from `source` (making room if needed) and wraps
    /// its stream so it closes if it is pushed out or does not authenticate in time.
    pub fn admit(self: &Arc<Self>, source: IpAddr, stream: TcpStream) -> (Place, Gated) {
        let (tx, rx) = oneshot::channel();
        let mut w = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        let mine = w.per_source.get(&source).copied().unwrap_or(0);
        let victim = if mine >= PRE_AUTH_PER_SOURCE {
            w.conns
                .iter()
                .find(|(_, e)| e.source == source)
                .map(|(seq, _)| *seq)
        } else if self.early_drop(w.conns.len()) {
            w.conns.keys().next().copied()
        } else {
            None
        };
        if let Some(entry) = victim.and_then(|seq| w.remove(seq)) {
            tracing::debug!(source = %entry.source, "closing the oldest unauthenticated connection to make room");
            let _ = entry.close.send(());
            w.closed += 1;
            if w.warned.is_none_or(|t| t.elapsed() >= CLOSED_LOG_EVERY) {
                tracing::warn!(
                    closed = w.closed,
                    waiting = w.conns.len(),
                    "unauthenticated connections closed to make room for newer ones (a flood?)"
                );
                w.closed = 0;
                w.warned = Some(Instant::now());
            }
        }
        let seq = w.next;
        w.next += 1;
        w.conns.insert(seq, Entry { source, close: tx });
        *w.per_source.entry(source).or_default() += 1;
        drop(w);
        let gated = Gated {
            inner: stream,
            gate: Some(Gate {
                close: rx,
                deadline: Box::pin(tokio::time::sleep(self.grace)),
            }),
        };
        let place = Place {
            limits: self.clone(),
            state: State::Waiting(seq),
        };
        (place, gated)
    }

    /// Whether a new connection takes the oldest one's place, with `waiting` connections
    /// waiting: never below the start, always at full, by chance in between.
    fn early_drop(&self, waiting: usize) -> bool {
        if waiting < PRE_AUTH_START {
            return false;
        }
        if waiting >= PRE_AUTH_FULL {
            return true;
        }
        let span = (PRE_AUTH_FULL - PRE_AUTH_START) as u64;
        let over = (waiting - PRE_AUTH_START) as u64;
        let rate = u64::from(PRE_AUTH_RATE);
        let percent = rate + (100 - rate) * over / span;
        // std's RandomState is seeded from the OS: enough for a drop nobody should predict.
        let n = self.rolls.fetch_add(1, Ordering::Relaxed);
        std::collections::hash_map::RandomState::new().hash_one(n) % 100 < percent
    }

    /// Sessions open now.
    #[cfg(test)]
    fn sessions(&self) -> usize {
        self.sessions.load(Ordering::Relaxed)
    }
}

impl Place {
    /// Moves an authenticated connection to the sessions pool; false when that is full (the
    /// connection stays waiting, its deadline still running, and should be disconnected).
    pub fn authenticate(&mut self) -> bool {
        let seq = match self.state {
            State::Waiting(seq) => seq,
            State::Session => return true,
            State::None => return false,
        };
        let taken = self
            .limits
            .sessions
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < MAX_SESSIONS).then_some(n + 1)
            })
            .is_ok();
        if taken {
            let mut w = self
                .limits
                .waiting
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            // Dropping the unsent closer lifts the deadline.
            drop(w.remove(seq));
            self.state = State::Session;
        }
        taken
    }

    pub fn is_session(&self) -> bool {
        matches!(self.state, State::Session)
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        match std::mem::replace(&mut self.state, State::None) {
            State::Waiting(seq) => {
                let mut w = self
                    .limits
                    .waiting
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                drop(w.remove(seq));
            }
            State::Session => {
                self.limits.sessions.fetch_sub(1, Ordering::AcqRel);
            }
            State::None => {}
        }
    }
}

/// A connection's stream while it waits: reads and writes fail once it is pushed out or its
/// time is up, which ends russh's handshake or session (and closes the socket) wherever it is,
/// the client's banner included.
pub struct Gated {
    inner: TcpStream,
    gate: Option<Gate>,
}

struct Gate {
    close: oneshot::Receiver<()>,
    deadline: Pin<Box<tokio::time::Sleep>>,
}

impl Gated {
    fn check(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        let Some(gate) = &mut self.gate else {
            return Ok(());
        };
        match Pin::new(&mut gate.close).poll(cx) {
            Poll::Ready(Ok(())) => {
                return Err(io::Error::new(
                    io::ErrorKind::ConnectionAborted,
                    "closed to make room for newer connections",
                ))
            }
            // The closer was dropped unsent: authenticated, no limit any more.
            Poll::Ready(Err(_)) => {
                self.gate = None;
                return Ok(());
            }
            Poll::Pending => {}
        }
        if gate.deadline.as_mut().poll(cx).is_ready() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "did not authenticate in time",
            ));
        }
        Ok(())
    }
}

impl AsyncRead for Gated {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.check(cx)?;
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Gated {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.check(cx)?;
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(rt: &tokio::runtime::Runtime) -> TcpStream {
        rt.block_on(async {
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = l.local_addr().unwrap();
            let (c, _) = tokio::join!(TcpStream::connect(addr), l.accept());
            c.unwrap()
        })
    }

    fn waiting(limits: &Limits) -> (usize, usize) {
        let w = limits.waiting.lock().unwrap();
        (w.conns.len(), w.per_source.len())
    }

    #[test]
    fn one_source_keeps_its_share_and_the_pool_never_exceeds_full() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let _enter = rt.enter();
        let limits = Limits::new(LOGIN_GRACE);
        let one: IpAddr = "10.0.0.1".parse().unwrap();
        let mut held = Vec::new();
        for _ in 0..20 {
            held.push(limits.admit(one, pair(&rt)));
        }
        assert_eq!(waiting(&limits), (PRE_AUTH_PER_SOURCE, 1));
        for i in 0..200u32 {
            let ip = IpAddr::from([10, 1, (i >> 8) as u8, i as u8]);
            held.push(limits.admit(ip, pair(&rt)));
        }
        assert!(waiting(&limits).0 <= PRE_AUTH_FULL);
        // The newest is always in; an authenticated one leaves the pool for the sessions.
        let (mut place, _stream) = held.pop().unwrap();
        let before = waiting(&limits).0;
        assert!(place.authenticate());
        assert_eq!(waiting(&limits).0, before - 1);
        assert_eq!(limits.sessions(), 1);
        drop(place);
        assert_eq!(limits.sessions(), 0);
        drop(held);
        assert_eq!(waiting(&limits), (0, 0));
    }
}
