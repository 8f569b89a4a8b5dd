//! One WebSocket, one attach: the attach client (`tui::attach_stream`, the same run loop and
//! renderer as `tuios attach`) runs on a thread of its own against a [`StreamTerminal`]; what
//! it draws goes out as binary frames, what the page's xterm.js sends comes in as binary
//! frames, and the page's size changes come as text frames (`{"type":"resize",...}`).
//!
//! The page is the outer terminal here, the browser its keyboard: pastes reach the attach
//! client bracketed (xterm.js does that once the client enables mode 2004), and the client
//! applies the Lumen paste rules as for any terminal.

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_ws::{AggregatedMessage, CloseCode, CloseReason, Session};
use serde::Deserialize;
use tokio::sync::{mpsc, oneshot};

use super::shares::{Share, ShareBook};
use crate::tui::{self, AttachEnd, SendError, StreamTerminal};

/// What the page asks for when it opens the attach WebSocket (`/ws?session=...`).
#[derive(Deserialize)]
pub struct WsQuery {
    /// The session to attach to; none: the most recently active one.
    pub session: Option<String>,
    /// Create the session if it does not exist (the page's "New session").
    #[serde(default)]
    pub create: bool,
    pub cols: Option<u16>,
    pub rows: Option<u16>,
}

/// Frames of output waiting for a slow browser before the attach loop blocks on its next
/// write (backpressure instead of memory).
const OUT_FRAMES: usize = 32;
/// Largest message the page may send (a big paste); larger ones close the connection.
const MAX_MESSAGE: usize = 4 << 20;
/// How often the server pings the page, and how long it waits for any sign of life before it
/// takes the browser for gone (a phone put to sleep never closes its socket).
const PING_EVERY: Duration = Duration::from_secs(30);
pub const SILENCE_LIMIT: Duration = Duration::from_secs(90);
/// Size assumed when the page gave none.
const DEFAULT_SIZE: (u16, u16) = (80, 24);

/// A control message from the page.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Control {
    Resize { cols: u16, rows: u16 },
}

/// The attach thread's output: each write (a frame, flushed once by the terminal) becomes one
/// WebSocket message. Blocks while the browser is behind.
struct ToBrowser(mpsc::Sender<Vec<u8>>);

impl Write for ToBrowser {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .blocking_send(buf.to_vec())
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the browser went away"))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Attaches running at once through one server: each is a thread and a daemon connection.
pub const MAX_ATTACHES: usize = 64;

/// One of the [`MAX_ATTACHES`] places, held by an attach thread until it ends.
pub struct Slot(Arc<AtomicUsize>);

impl Slot {
    /// A place, if one is free.
    pub fn take(count: &Arc<AtomicUsize>) -> Option<Slot> {
        count
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < MAX_ATTACHES).then_some(n + 1)
            })
            .ok()
            .map(|_| Slot(count.clone()))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// How often an attach through a shared link checks that the link still stands.
const SHARE_CHECK_EVERY: Duration = Duration::from_secs(1);

/// Who the attach is for.
pub struct AttachAs {
    /// The browser's address (session-info shows it).
    pub peer: String,
    /// The shared link it came through, if any: read-only when the link says so, and ended
    /// once the link is revoked or expires.
    pub share: Option<(Share, Arc<ShareBook>)>,
    /// How long a silent browser stays attached.
    pub silence_limit: Duration,
}

/// Start the attach for an upgraded WebSocket.
pub fn start(
    socket: PathBuf,
    query: WsQuery,
    slot: Slot,
    session: Session,
    messages: actix_ws::MessageStream,
    who: AttachAs,
) {
    let read_only = who.share.as_ref().is_some_and(|(s, _)| s.read_only);
    let via = format!("web {}", who.peer);
    let (cols, rows) = (
        query.cols.unwrap_or(DEFAULT_SIZE.0).max(1),
        query.rows.unwrap_or(DEFAULT_SIZE.1).max(1),
    );
    let (out_tx, out_rx) = mpsc::channel(OUT_FRAMES);
    let (term, input) = StreamTerminal::new(
        Box::new(ToBrowser(out_tx)),
        cols,
        rows,
        // xterm.js is xterm-like: None draws as xterm-256color.
        None,
        // xterm.js draws 24-bit colour.
        Some("truecolor"),
    );
    let (end_tx, end_rx) = oneshot::channel();
    let name = query.session.clone();
    let spawned = std::thread::Builder::new()
        .name("web-attach".into())
        .spawn(move || {
            let _slot = slot;
            // "New session" works even after the daemon stopped: start one, as `tuios new` does.
            if query.create {
                if let Err(f) = crate::autostart::ensure_daemon(&socket) {
                    let _ = end_tx.send(Err(f));
                    return;
                }
            }
            tui::set_attach_mode(read_only, via);
            let end = tui::attach_stream(&socket, name, query.create, term);
            let _ = end_tx.send(end);
        });
    if let Err(e) = spawned {
        tracing::error!("cannot start an attach thread: {e}");
        actix_web::rt::spawn(async move {
            let _ = session
                .close(Some(CloseReason {
                    code: CloseCode::Error,
                    description: Some("the server cannot start an attach now".into()),
                }))
                .await;
        });
        return;
    }
    let messages = messages
        .max_frame_size(MAX_MESSAGE)
        .aggregate_continuations()
        .max_continuation_size(MAX_MESSAGE);
    actix_web::rt::spawn(pump(session, messages, out_rx, input, end_rx, who));
}

/// Moves bytes both ways until the attach ends or the browser goes.
async fn pump(
    mut session: Session,
    mut messages: actix_ws::AggregatedMessageStream,
    mut out_rx: mpsc::Receiver<Vec<u8>>,
    input: tui::StreamInput,
    mut end_rx: oneshot::Receiver<Result<AttachEnd, crate::failure::Failure>>,
    who: AttachAs,
) {
    let silence_limit = who.silence_limit;
    let mut share_check = tokio::time::interval(SHARE_CHECK_EVERY);
    share_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut output_done = false;
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last_heard = Instant::now();
    let end = loop {
        tokio::select! {
            // Output first: what the client drew before it ended reaches the page first.
            biased;
            out = out_rx.recv(), if !output_done => match out {
                Some(bytes) => {
                    if session.binary(bytes).await.is_err() {
                        break None;
                    }
                }
                None => output_done = true,
            },
            end = &mut end_rx, if output_done => break end.ok(),
            _ = share_check.tick(), if who.share.is_some() => {
                if let Some((share, book)) = &who.share {
                    if !book.still_valid(share) {
                        tracing::info!(session = %share.session, "a shared link ended; detaching its browser");
                        break Some(Err(crate::failure::Failure::msg(
                            "the shared link was revoked or has expired",
                        )));
                    }
                }
            }
            _ = ping.tick() => {
                if last_heard.elapsed() > silence_limit {
                    tracing::info!("a browser stopped answering pings; detaching it");
                    break None;
                }
                if session.ping(b"").await.is_err() {
                    break None;
                }
            }
            msg = messages.recv() => match msg.inspect(|_| last_heard = Instant::now()) {
                Some(Ok(AggregatedMessage::Binary(bytes))) => match input.try_send(&bytes) {
                    Ok(()) => {}
                    Err(SendError::Gone) => {}
                    Err(SendError::Full) => {
                        tracing::warn!("a browser sent input faster than its attach reads it");
                        break None;
                    }
                },
                Some(Ok(AggregatedMessage::Text(text))) => match serde_json::from_str(&text) {
                    Ok(Control::Resize { cols, rows }) => {
                        input.resize(cols, rows);
                    }
                    Err(e) => tracing::debug!("ignored a control message from the page: {e}"),
                },
                Some(Ok(AggregatedMessage::Ping(p))) => {
                    let _ = session.pong(&p).await;
                }
                Some(Ok(AggregatedMessage::Pong(_))) => {}
                Some(Ok(AggregatedMessage::Close(_))) | None => break None,
                Some(Err(e)) => {
                    tracing::debug!("WebSocket error from the browser: {e}");
                    break None;
                }
            },
        }
    };
    tracing::debug!(ended = end.is_some(), "a web attach's socket is done");
    // The browser went (or the attach ended): dropping the input ends the attach as a detach.
    input.close();
    drop(input);
    let Some(end) = end else {
        let _ = session.close(None).await;
        return;
    };
    let (message, code) = match &end {
        Ok(end) => (end.message(), CloseCode::Normal),
        Err(f) => (f.lines().join("\n"), CloseCode::Error),
    };
    let note = serde_json::json!({"type": "end", "message": message});
    let _ = session.text(note.to_string()).await;
    // A close reason is limited to 123 bytes; the full text went in the message above.
    let _ = session
        .close(Some(CloseReason {
            code,
            description: None,
        }))
        .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attach_places_are_bounded_and_given_back() {
        let count = Arc::new(AtomicUsize::new(0));
        let slots: Vec<Slot> = (0..MAX_ATTACHES)
            .map(|_| Slot::take(&count).expect("a free place"))
            .collect();
        assert!(Slot::take(&count).is_none());
        drop(slots);
        assert_eq!(count.load(Ordering::Acquire), 0);
        assert!(Slot::take(&count).is_some());
    }
}
