//! The attached client's connection: handshake and attach on the caller's thread, then the
//! daemon's messages either read on the run loop's own thread when its wait says the socket is
//! readable (a terminal that can wait on it: the local one), or by a reader thread that decodes
//! frames into a channel and wakes the terminal's input wait (stream terminals); and a writer
//! used from the run loop.

use std::io::{self, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError};
use std::time::Duration;

use bytes::BytesMut;
use protocol::attach::{ClientOp, DaemonOp, SessionView};
use protocol::binary::{
    split_frame, BinaryErrorCode, ClientMessage, DaemonMessage, BINARY_VERSION,
};

use super::term::{Term, Waker};
use crate::failure::Failure;
use crate::json_client::connect_socket;

/// Handshake and attach answer quickly; a daemon that does not is stuck.
const SETUP_TIMEOUT: Duration = Duration::from_secs(10);
/// A write that blocks this long means the daemon stopped reading.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// Bytes read from the daemon at a time.
const READ_CHUNK: usize = 64 * 1024;
/// Reads from the socket per readiness on the run loop's thread: a flood of output is taken in
/// slices, with the terminal's input and drawing in between (the socket stays readable, so the
/// next wait returns at once).
const READ_BUDGET: usize = 16;

/// What the connection passes on to the run loop.
#[derive(Debug)]
pub enum FromDaemon {
    Message(Box<DaemonMessage>),
    Closed(String),
    /// The reader thread is gone without saying why.
    ReaderGone,
}

/// Reads whole frames from a stream.
pub struct FrameReader {
    stream: UnixStream,
    buf: BytesMut,
}

impl FrameReader {
    pub fn new(stream: UnixStream) -> FrameReader {
        FrameReader {
            stream,
            buf: BytesMut::with_capacity(64 * 1024),
        }
    }

    /// A whole message already read, if there is one. Frames over the protocol's bound are an
    /// error.
    fn take(&mut self) -> Result<Option<DaemonMessage>, String> {
        match split_frame(&mut self.buf) {
            Ok(Some((kind, payload))) => DaemonMessage::decode(kind, &payload)
                .map(Some)
                .map_err(|e| format!("cannot decode a message from the daemon: {e}")),
            Ok(None) => Ok(None),
            Err(e) => Err(format!("bad frame from the daemon: {e}")),
        }
    }

    /// The next message; `Ok(None)` at end of stream.
    pub fn next(&mut self) -> Result<Option<DaemonMessage>, String> {
        loop {
            if let Some(m) = self.take()? {
                return Ok(Some(m));
            }
            let n = match self.fill(rustix::net::RecvFlags::empty()) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    return Err(format!(
                        "the daemon did not answer within {} s",
                        SETUP_TIMEOUT.as_secs()
                    ))
                }
                Err(e) => return Err(format!("reading from the daemon failed: {e}")),
            };
            if n == 0 {
                return Ok(None);
            }
        }
    }

    /// What the socket has now, without waiting: `Ok(0)` at end of stream, `WouldBlock` when
    /// nothing is there. The descriptor stays blocking (the writer shares it, and its writes
    /// must block): `MSG_DONTWAIT` makes just this read non-blocking.
    fn read_now(&mut self) -> io::Result<usize> {
        self.fill(rustix::net::RecvFlags::DONTWAIT)
    }

    /// One read straight into the buffer's spare room (no zeroed scratch chunk: clearing 64 KiB
    /// per read cost more than a typed key's whole frame).
    fn fill(&mut self, flags: rustix::net::RecvFlags) -> io::Result<usize> {
        self.buf.reserve(READ_CHUNK);
        let ((filled, _), _) =
            rustix::net::recv(self.stream.as_fd(), self.buf.spare_capacity_mut(), flags)?;
        let n = filled.len();
        // SAFETY: recv initialised the first `n` bytes of the spare capacity.
        unsafe { self.buf.set_len(self.buf.len() + n) };
        Ok(n)
    }
}

/// Where the daemon's messages come from.
enum Inbound {
    /// Handshake and attach: read on the caller's thread, with a timeout (taken out by
    /// [`DaemonConn::start`]).
    Setup(Option<FrameReader>),
    /// From the reader thread.
    Thread(Receiver<FromDaemon>),
    /// Read on the run loop's thread; `reads_left` of [`READ_BUDGET`] since the wait last said
    /// the socket was readable.
    Inline {
        reader: FrameReader,
        reads_left: usize,
    },
}

thread_local! {
    /// How this thread's attach asks to be attached: read-only, and what carries it ("web",
    /// "ssh", "" for a terminal). Per thread because an attach runs on one thread, and a
    /// reconnect (a fresh DaemonConn) must ask the same way.
    static ATTACH_MODE: std::cell::RefCell<(bool, String)> =
        const { std::cell::RefCell::new((false, String::new())) };
}

/// Sets how attaches made on this thread ask to be attached (see `ATTACH_MODE`): `via` is
/// "" for a terminal, else "web" or "ssh", optionally followed by a space and the peer.
pub fn set_attach_mode(read_only: bool, via: String) {
    ATTACH_MODE.set((read_only, via));
}

/// Whether attaches on this thread are read-only (the dock shows it; the app runs on the
/// attach's thread).
pub fn attach_read_only() -> bool {
    ATTACH_MODE.with_borrow(|m| m.0)
}

pub struct DaemonConn {
    writer: UnixStream,
    inbound: Inbound,
}

impl Drop for DaemonConn {
    /// The reader thread (if any) holds a clone of the socket: shutting the socket itself down
    /// lets the daemon see this client leave now (a stream attach ends while the process lives
    /// on) and ends the reader thread.
    fn drop(&mut self) {
        let _ = self.writer.shutdown(std::net::Shutdown::Both);
    }
}

impl DaemonConn {
    /// Connects and exchanges Hello/Welcome. No daemon is [`Failure::NoDaemon`] (exit 3).
    pub fn connect(socket: &Path) -> Result<DaemonConn, Failure> {
        let stream = connect_socket(socket)?;
        let _ = stream.set_read_timeout(Some(SETUP_TIMEOUT));
        let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
        let reader = stream
            .try_clone()
            .map_err(|e| Failure::msg(format!("cannot use the daemon connection: {e}")))?;
        let mut conn = DaemonConn {
            writer: stream,
            inbound: Inbound::Setup(Some(FrameReader::new(reader))),
        };
        conn.send(&ClientMessage::Hello {
            version: BINARY_VERSION,
            client_version: env!("CARGO_PKG_VERSION").to_string(),
        })
        .map_err(Failure::msg)?;
        match conn.recv_setup()? {
            DaemonMessage::Welcome { .. } => Ok(conn),
            DaemonMessage::Error { message, .. } => Err(Failure::with_hints(
                message,
                vec![
                    "if the daemon is from another tuios version, restart it: tuios kill-server"
                        .to_string(),
                ],
            )),
            other => Err(Failure::msg(format!(
                "unexpected reply from the daemon: {other:?}"
            ))),
        }
    }

    fn recv_setup(&mut self) -> Result<DaemonMessage, Failure> {
        let Inbound::Setup(Some(reader)) = &mut self.inbound else {
            return Err(Failure::msg("the connection is already started"));
        };
        match reader.next().map_err(Failure::msg)? {
            Some(m) => Ok(m),
            None => Err(Failure::msg(
                "the daemon closed the connection before answering",
            )),
        }
    }

    /// Sends Attach and waits for Attached; the daemon's refusal is the command's failure.
    pub fn attach(
        &mut self,
        session: Option<String>,
        create: bool,
        width: u16,
        height: u16,
    ) -> Result<SessionView, Failure> {
        let wanted = session.clone();
        self.send(&ClientMessage::Op(ClientOp::Attach {
            session,
            create,
            width,
            height,
            max_fps: 0,
            read_only: ATTACH_MODE.with_borrow(|m| m.0),
            via: ATTACH_MODE.with_borrow(|m| m.1.clone()),
        }))
        .map_err(Failure::msg)?;
        match self.recv_setup()? {
            DaemonMessage::Op(DaemonOp::Attached { state }) => Ok(state),
            DaemonMessage::Error { code, message } => {
                let mut hints = vec!["list the sessions that exist: tuios ls".to_string()];
                if code == BinaryErrorCode::SessionNotFound {
                    match &wanted {
                        Some(n) => hints.push(format!(
                            "create it and attach: tuios attach -c {n}   (or: tuios new {n})"
                        )),
                        None => hints.push("start one: tuios new NAME".to_string()),
                    }
                }
                Err(Failure::with_hints(message, hints))
            }
            other => Err(Failure::msg(format!(
                "unexpected reply from the daemon: {other:?}"
            ))),
        }
    }

    /// Starts taking the daemon's messages the way `term` allows: a terminal that can wait on
    /// the socket has the run loop read it (no thread hop per message); otherwise a reader
    /// thread wakes the terminal's wait.
    pub fn start_for<T: Term>(&mut self, term: &T) {
        self.start((!term.polls_daemon()).then(|| term.waker()));
    }

    /// Starts taking the daemon's messages after the attach. With a waker, a reader thread
    /// reads them into a channel and wakes the terminal's wait after each; without one, the run
    /// loop waits on [`DaemonConn::poll_fd`] itself and takes them with
    /// [`DaemonConn::next_incoming`].
    fn start(&mut self, waker: Option<Waker>) {
        let reader = match &mut self.inbound {
            Inbound::Setup(r) => r.take(),
            _ => None,
        };
        // Started already.
        let Some(mut reader) = reader else {
            return;
        };
        let _ = reader.stream.set_read_timeout(None);
        let Some(waker) = waker else {
            // Frames read with the attach answer may already wait in the buffer: the first
            // look takes them before any wait.
            self.inbound = Inbound::Inline {
                reader,
                reads_left: READ_BUDGET,
            };
            return;
        };
        let (tx, rx) = channel();
        self.inbound = Inbound::Thread(rx);
        std::thread::Builder::new()
            .name("tuios-attach-reader".into())
            .spawn(move || loop {
                let item = match reader.next() {
                    Ok(Some(m)) => FromDaemon::Message(Box::new(m)),
                    Ok(None) => FromDaemon::Closed("the daemon closed the connection".into()),
                    Err(e) => FromDaemon::Closed(e),
                };
                let closed = matches!(item, FromDaemon::Closed(_));
                if tx.send(item).is_err() {
                    return;
                }
                waker.wake();
                if closed {
                    return;
                }
            })
            .expect("spawning the reader thread");
    }

    /// The socket for the run loop to wait on, when it reads the messages itself.
    pub fn poll_fd(&self) -> Option<BorrowedFd<'_>> {
        match &self.inbound {
            Inbound::Inline { reader, .. } => Some(reader.stream.as_fd()),
            _ => None,
        }
    }

    /// The wait saw the socket readable: the next [`DaemonConn::next_incoming`] calls read it.
    pub fn mark_readable(&mut self) {
        if let Inbound::Inline { reads_left, .. } = &mut self.inbound {
            *reads_left = READ_BUDGET;
        }
    }

    /// Whether [`DaemonConn::next_incoming`] has reading left to do (just started, or
    /// reconnected, and not looked yet): the loop must look before it waits, as the wait only
    /// sees the socket.
    pub fn has_unread(&self) -> bool {
        matches!(self.inbound, Inbound::Inline { reads_left, .. } if reads_left > 0)
    }

    /// The next message already here, without waiting; `None` when there is none for now.
    /// Read on this thread, every whole frame in the buffer is taken before `None`, so nothing
    /// sits read but unseen while the loop waits on the socket.
    pub fn next_incoming(&mut self) -> Option<FromDaemon> {
        match &mut self.inbound {
            Inbound::Setup(_) => None,
            Inbound::Thread(rx) => match rx.try_recv() {
                Ok(item) => Some(item),
                Err(TryRecvError::Empty) => None,
                Err(TryRecvError::Disconnected) => Some(FromDaemon::ReaderGone),
            },
            Inbound::Inline { reader, reads_left } => loop {
                match reader.take() {
                    Ok(Some(m)) => return Some(FromDaemon::Message(Box::new(m))),
                    Ok(None) => {}
                    Err(e) => return Some(FromDaemon::Closed(e)),
                }
                if *reads_left == 0 {
                    return None;
                }
                *reads_left -= 1;
                match reader.read_now() {
                    Ok(0) => {
                        return Some(FromDaemon::Closed(
                            "the daemon closed the connection".into(),
                        ))
                    }
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        *reads_left = 0;
                        return None;
                    }
                    Err(e) => {
                        return Some(FromDaemon::Closed(format!(
                            "reading from the daemon failed: {e}"
                        )))
                    }
                }
            },
        }
    }

    pub fn send(&mut self, msg: &ClientMessage) -> Result<(), String> {
        let mut frame = BytesMut::new();
        match msg {
            ClientMessage::Op(op) => match capped_sizes(op) {
                Some(op) => ClientMessage::Op(op).encode(&mut frame),
                None => msg.encode(&mut frame),
            },
            _ => msg.encode(&mut frame),
        }
        self.writer
            .write_all(&frame)
            .and_then(|()| self.writer.flush())
            .map_err(|e| match e.kind() {
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => format!(
                    "the daemon stopped reading for {} s",
                    WRITE_TIMEOUT.as_secs()
                ),
                _ => format!("writing to the daemon failed: {e}"),
            })
    }

    pub fn send_op(&mut self, op: ClientOp) -> Result<(), String> {
        self.send(&ClientMessage::Op(op))
    }
}

/// The daemon refuses terminal sizes over its limits (`protocol::limits::MAX_COLS` x
/// `MAX_ROWS`). An outer terminal larger than that still attaches: the sizes sent are capped,
/// and windows use the top-left part of their area. None when nothing needs capping.
fn capped_sizes(op: &ClientOp) -> Option<ClientOp> {
    use protocol::limits::{MAX_COLS, MAX_ROWS};
    let over = |w: u16, h: u16| w > MAX_COLS || h > MAX_ROWS;
    let cap = |w: u16, h: u16| (w.min(MAX_COLS), h.min(MAX_ROWS));
    match op {
        ClientOp::Attach {
            session,
            create,
            width,
            height,
            max_fps,
            read_only,
            via,
        } if over(*width, *height) => {
            let (width, height) = cap(*width, *height);
            Some(ClientOp::Attach {
                session: session.clone(),
                create: *create,
                width,
                height,
                max_fps: *max_fps,
                read_only: *read_only,
                via: via.clone(),
            })
        }
        ClientOp::Resize { width, height } if over(*width, *height) => {
            let (width, height) = cap(*width, *height);
            Some(ClientOp::Resize { width, height })
        }
        ClientOp::WindowSize { window, cols, rows } if over(*cols, *rows) => {
            let (cols, rows) = cap(*cols, *rows);
            Some(ClientOp::WindowSize {
                window: window.clone(),
                cols,
                rows,
            })
        }
        _ => None,
    }
}

/// Messages read from the daemon and not yet taken by the run loop. When the loop falls this
/// far behind, the reader thread waits, the socket fills, and the daemon skips screen frames
/// for this client (the latest rows still come): memory stays bounded either way.
const INCOMING_QUEUE: usize = 256;

/// A channel pair for the reader thread.
fn channel() -> (SyncSender<FromDaemon>, Receiver<FromDaemon>) {
    std::sync::mpsc::sync_channel(INCOMING_QUEUE)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection reading inline from one end of a real socket pair, with `already` in its
    /// buffer as if read with the attach answer; the other end plays the daemon.
    fn inline_conn(already: &[u8]) -> (DaemonConn, UnixStream) {
        let (ours, daemon) = UnixStream::pair().expect("socket pair");
        let mut reader = FrameReader::new(ours.try_clone().expect("clone"));
        reader.buf.extend_from_slice(already);
        let conn = DaemonConn {
            writer: ours,
            inbound: Inbound::Inline {
                reader,
                reads_left: READ_BUDGET,
            },
        };
        (conn, daemon)
    }

    fn frame(msg: &DaemonMessage) -> Vec<u8> {
        let mut b = BytesMut::new();
        msg.encode(&mut b);
        b.to_vec()
    }

    fn error(message: &str) -> DaemonMessage {
        DaemonMessage::Error {
            code: BinaryErrorCode::SessionNotFound,
            message: message.into(),
        }
    }

    fn message_text(item: Option<FromDaemon>) -> String {
        match item {
            Some(FromDaemon::Message(m)) => match *m {
                DaemonMessage::Error { message, .. } => message,
                DaemonMessage::Ok => "ok".into(),
                other => panic!("unexpected message {other:?}"),
            },
            other => panic!("expected a message, got {other:?}"),
        }
    }

    #[test]
    fn frames_in_the_buffer_and_on_the_socket_are_all_taken_before_none() {
        let (one, two, three) = (
            frame(&error("one")),
            frame(&error("two")),
            frame(&error("three")),
        );
        // Two whole frames and the start of a third were read with the attach answer.
        let mut already = one.clone();
        already.extend_from_slice(&two);
        already.extend_from_slice(&three[..5]);
        let (mut conn, mut daemon) = inline_conn(&already);
        assert!(conn.has_unread());
        assert!(conn.poll_fd().is_some());
        daemon.write_all(&three[5..]).expect("write");
        daemon.write_all(&frame(&DaemonMessage::Ok)).expect("write");

        assert_eq!(message_text(conn.next_incoming()), "one");
        assert_eq!(message_text(conn.next_incoming()), "two");
        assert_eq!(message_text(conn.next_incoming()), "three");
        assert_eq!(message_text(conn.next_incoming()), "ok");
        assert!(conn.next_incoming().is_none());
        assert!(!conn.has_unread());

        // Nothing is read until the wait says the socket is readable again.
        daemon.write_all(&frame(&error("four"))).expect("write");
        assert!(conn.next_incoming().is_none());
        conn.mark_readable();
        assert_eq!(message_text(conn.next_incoming()), "four");
        assert!(conn.next_incoming().is_none());
    }

    #[test]
    fn the_daemon_closing_is_reported_once_its_frames_are_taken() {
        let (mut conn, mut daemon) = inline_conn(&[]);
        daemon.write_all(&frame(&error("last"))).expect("write");
        drop(daemon);
        assert_eq!(message_text(conn.next_incoming()), "last");
        match conn.next_incoming() {
            Some(FromDaemon::Closed(why)) => assert_eq!(why, "the daemon closed the connection"),
            other => panic!("expected the close, got {other:?}"),
        }
    }

    #[test]
    fn a_frame_over_the_protocol_bound_ends_the_connection() {
        let (mut conn, mut daemon) = inline_conn(&[]);
        let too_long = u32::try_from(protocol::binary::MAX_FRAME_LEN + 1).expect("fits");
        daemon.write_all(&too_long.to_be_bytes()).expect("write");
        daemon.write_all(&[0]).expect("write");
        match conn.next_incoming() {
            Some(FromDaemon::Closed(why)) => assert!(why.starts_with("bad frame"), "{why}"),
            other => panic!("expected the connection to end, got {other:?}"),
        }
    }
}
