//! The attached client's connection: handshake and attach on the caller's thread, then a reader
//! thread that decodes frames into a channel (and wakes the terminal's input wait), and a writer
//! used from the run loop.

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender};
use std::time::Duration;

use bytes::BytesMut;
use protocol::attach::{ClientOp, DaemonOp, SessionView};
use protocol::binary::{
    split_frame, BinaryErrorCode, ClientMessage, DaemonMessage, BINARY_VERSION,
};

use crate::failure::Failure;
use crate::json_client::connect_socket;

/// Handshake and attach answer quickly; a daemon that does not is stuck.
const SETUP_TIMEOUT: Duration = Duration::from_secs(10);
/// A write that blocks this long means the daemon stopped reading.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// What the reader thread passes on.
#[derive(Debug)]
pub enum Incoming {
    Message(Box<DaemonMessage>),
    Closed(String),
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

    /// The next message; `Ok(None)` at end of stream.
    pub fn next(&mut self) -> Result<Option<DaemonMessage>, String> {
        loop {
            match split_frame(&mut self.buf) {
                Ok(Some((kind, payload))) => {
                    return DaemonMessage::decode(kind, &payload)
                        .map(Some)
                        .map_err(|e| format!("cannot decode a message from the daemon: {e}"));
                }
                Ok(None) => {}
                Err(e) => return Err(format!("bad frame from the daemon: {e}")),
            }
            let mut chunk = [0u8; 64 * 1024];
            let n = match self.stream.read(&mut chunk) {
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
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }
}

pub struct Conn {
    writer: UnixStream,
    reader: Option<FrameReader>,
}

impl Drop for Conn {
    /// The reader thread holds a clone of the socket: shutting the socket itself down lets the
    /// daemon see this client leave now (a stream attach ends while the process lives on) and
    /// ends the reader thread.
    fn drop(&mut self) {
        let _ = self.writer.shutdown(std::net::Shutdown::Both);
    }
}

impl Conn {
    /// Connects and exchanges Hello/Welcome. No daemon is [`Failure::NoDaemon`] (exit 3).
    pub fn connect(socket: &Path) -> Result<Conn, Failure> {
        let stream = connect_socket(socket)?;
        let _ = stream.set_read_timeout(Some(SETUP_TIMEOUT));
        let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
        let reader = stream
            .try_clone()
            .map_err(|e| Failure::msg(format!("cannot use the daemon connection: {e}")))?;
        let mut conn = Conn {
            writer: stream,
            reader: Some(FrameReader::new(reader)),
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
        let reader = self.reader.as_mut().expect("reader is kept until started");
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

    /// Starts the reader thread: every message goes to `tx`, then `wake` is called so the run
    /// loop, waiting for terminal input, looks at the channel.
    pub fn start_reader(&mut self, tx: SyncSender<Incoming>, wake: impl Fn() + Send + 'static) {
        let Some(mut reader) = self.reader.take() else {
            return;
        };
        let _ = reader.stream.set_read_timeout(None);
        std::thread::Builder::new()
            .name("tuios-attach-reader".into())
            .spawn(move || loop {
                let item = match reader.next() {
                    Ok(Some(m)) => Incoming::Message(Box::new(m)),
                    Ok(None) => Incoming::Closed("the daemon closed the connection".into()),
                    Err(e) => Incoming::Closed(e),
                };
                let closed = matches!(item, Incoming::Closed(_));
                if tx.send(item).is_err() {
                    return;
                }
                wake();
                if closed {
                    return;
                }
            })
            .expect("spawning the reader thread");
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
        } if over(*width, *height) => {
            let (width, height) = cap(*width, *height);
            Some(ClientOp::Attach {
                session: session.clone(),
                create: *create,
                width,
                height,
                max_fps: *max_fps,
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

/// A channel pair for [`Conn::start_reader`].
pub fn channel() -> (SyncSender<Incoming>, Receiver<Incoming>) {
    std::sync::mpsc::sync_channel(INCOMING_QUEUE)
}
