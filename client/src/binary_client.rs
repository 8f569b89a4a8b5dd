//! The binary-protocol client used for session commands (`new`, `kill-server`).

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use bytes::BytesMut;
use protocol::binary::{
    split_frame, BinaryErrorCode, ClientMessage, DaemonMessage, BINARY_VERSION,
};

use crate::failure::Failure;
use crate::json_client::connect_socket;

/// Session commands answer quickly; a daemon that does not is stuck.
const TIMEOUT: Duration = Duration::from_secs(10);

pub struct BinaryClient {
    stream: UnixStream,
    buf: BytesMut,
}

/// What the daemon's Welcome says about itself.
#[derive(Debug, Clone)]
pub struct Welcome {
    pub daemon_version: String,
    pub pid: u32,
}

impl BinaryClient {
    pub fn connect(socket: &Path) -> Result<Self, Failure> {
        let stream = connect_socket(socket)?;
        let _ = stream.set_read_timeout(Some(TIMEOUT));
        let _ = stream.set_write_timeout(Some(TIMEOUT));
        Ok(BinaryClient {
            stream,
            buf: BytesMut::with_capacity(4096),
        })
    }

    pub fn send(&mut self, msg: &ClientMessage) -> Result<(), Failure> {
        let mut frame = BytesMut::new();
        msg.encode(&mut frame);
        self.stream
            .write_all(&frame)
            .and_then(|()| self.stream.flush())
            .map_err(io_failure)
    }

    pub fn recv(&mut self) -> Result<DaemonMessage, Failure> {
        loop {
            match split_frame(&mut self.buf) {
                Ok(Some((kind, payload))) => {
                    return DaemonMessage::decode(kind, &payload).map_err(|e| {
                        Failure::msg(format!("cannot decode the daemon's reply: {e}"))
                    });
                }
                Ok(None) => {}
                Err(e) => return Err(Failure::msg(format!("bad frame from the daemon: {e}"))),
            }
            let mut chunk = [0u8; 8192];
            let n = self.stream.read(&mut chunk).map_err(io_failure)?;
            if n == 0 {
                return Err(Failure::msg(
                    "the daemon closed the connection before answering",
                ));
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    /// Exchange Hello/Welcome. `Ok(Err(..))` is the daemon's refusal (code and message), kept
    /// apart so kill-server can still stop a daemon of another version.
    pub fn hello(&mut self) -> Result<Result<Welcome, (BinaryErrorCode, String)>, Failure> {
        self.send(&ClientMessage::Hello {
            version: BINARY_VERSION,
            client_version: env!("CARGO_PKG_VERSION").to_string(),
        })?;
        match self.recv()? {
            DaemonMessage::Welcome {
                daemon_version,
                pid,
                ..
            } => Ok(Ok(Welcome {
                daemon_version,
                pid,
            })),
            DaemonMessage::Error { code, message } => Ok(Err((code, message))),
            other => Err(unexpected(&other)),
        }
    }

    /// [`Self::hello`] where a refusal is simply the command's failure.
    // Unused since `tuios new` creates sessions over JSON; kept for binary-protocol commands.
    #[allow(dead_code)]
    pub fn handshake(&mut self) -> Result<Welcome, Failure> {
        self.hello()?.map_err(|(_, message)| {
            Failure::with_hints(
                message,
                vec![
                    "if the daemon is from another tuios version, restart it: tuios kill-server"
                        .to_string(),
                ],
            )
        })
    }
}

pub fn unexpected(msg: &DaemonMessage) -> Failure {
    Failure::msg(format!("unexpected reply from the daemon: {msg:?}"))
}

fn io_failure(e: io::Error) -> Failure {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => Failure::msg(format!(
            "the daemon did not answer within {} s",
            TIMEOUT.as_secs()
        )),
        _ => Failure::msg(format!("talking to the daemon failed: {e}")),
    }
}
