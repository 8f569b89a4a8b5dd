//! An SSH channel as the attach client's terminal: the client's output goes out as channel
//! data, and the channel's data and window changes come in through the terminal's input
//! handle (see `tui::attach_stream`).

use std::io::{self, Write};
use std::path::PathBuf;

use russh::server::Handle;
use russh::ChannelId;

use crate::failure::Failure;
use crate::tui::{attach_stream, StreamTerminal};

/// The attach client's output, written to the channel. Each write waits until the connection
/// takes it, so a slow link slows the client's frames rather than queueing them here.
pub struct ChannelWriter {
    handle: Handle,
    channel: ChannelId,
    rt: tokio::runtime::Handle,
}

impl ChannelWriter {
    pub fn new(handle: Handle, channel: ChannelId, rt: tokio::runtime::Handle) -> ChannelWriter {
        ChannelWriter {
            handle,
            channel,
            rt,
        }
    }

    /// Text on the channel's stderr (extended data 1), for what goes wrong before or after the
    /// attach.
    pub fn stderr(&self, text: &str) {
        let _ = self.rt.block_on(self.handle.extended_data(
            self.channel,
            1,
            bytes::Bytes::copy_from_slice(text.as_bytes()),
        ));
    }

    /// Ends the channel: exit status, EOF, close. The client's `ssh` exits with `code`.
    pub fn finish(&self, code: i32) {
        let status = u32::try_from(code).unwrap_or(1);
        self.rt.block_on(async {
            let _ = self.handle.exit_status_request(self.channel, status).await;
            let _ = self.handle.eof(self.channel).await;
            let _ = self.handle.close(self.channel).await;
        });
    }
}

impl Clone for ChannelWriter {
    fn clone(&self) -> ChannelWriter {
        ChannelWriter {
            handle: self.handle.clone(),
            channel: self.channel,
            rt: self.rt.clone(),
        }
    }
}

impl Write for ChannelWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        self.rt
            .block_on(
                self.handle
                    .data(self.channel, bytes::Bytes::copy_from_slice(buf)),
            )
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the ssh channel is closed"))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// How an SSH client's attach asks to be attached.
pub struct AttachAs {
    pub read_only: bool,
    /// The key's fingerprint: who the session's other users see.
    pub key: String,
}

/// Runs one attach client on `term` until it ends; returns the exit status for the channel.
/// Failures before the attach (no such session, no daemon) are told on the channel's stderr.
pub fn run_attach(
    socket: PathBuf,
    session: Option<String>,
    term: StreamTerminal,
    out: ChannelWriter,
    how: AttachAs,
) -> i32 {
    crate::tui::set_attach_mode(how.read_only, format!("ssh {}", how.key));
    // A watcher never creates a session: it may only look at what exists.
    match attach_stream(&socket, session, !how.read_only, term) {
        Ok(end) => {
            tracing::info!(message = %end.message(), "ssh attach ended");
            end.exit_code()
        }
        Err(failure) => {
            let text: String = failure
                .lines()
                .iter()
                .map(|l| format!("tuios ssh: {l}\r\n"))
                .collect();
            out.stderr(&text);
            failure_code(&failure)
        }
    }
}

fn failure_code(f: &Failure) -> i32 {
    f.exit_code()
}
