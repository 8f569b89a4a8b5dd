//! The JSON verb client: one request line out, one response line back.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::failure::{DaemonError, Failure};
use crate::request_line::request_line;

/// How long a call waits for its answer unless the verb says otherwise.
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// Headroom added to a wait-for's own timeout, so the daemon's typed `timeout` error arrives
/// before the client gives up.
const WAIT_FOR_SLACK: Duration = Duration::from_secs(10);
/// The daemon's own line cap is 16 MiB for requests; a response (a capture with scrollback) may
/// be larger, but not unboundedly so.
const MAX_RESPONSE: u64 = 256 * 1024 * 1024;

pub struct JsonClient {
    socket: PathBuf,
    reader: BufReader<UnixStream>,
    writer: UnixStream,
}

/// Connect to the daemon's socket, turning "nothing there" into [`Failure::NoDaemon`]. Every
/// client connection goes through here, so nothing is sent before the socket's directory and
/// the listening process have been checked (see `socket_check`).
pub fn connect_socket(socket: &Path) -> Result<UnixStream, Failure> {
    // Connecting sends nothing; with no daemon there, "no daemon" is the more useful answer.
    let stream = connect_unchecked(socket)?;
    crate::socket_check::check_socket_dir(socket)?;
    crate::socket_check::check_peer(&stream, socket)?;
    Ok(stream)
}

fn connect_unchecked(socket: &Path) -> Result<UnixStream, Failure> {
    UnixStream::connect(socket).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused => {
            Failure::NoDaemon(socket.to_path_buf())
        }
        _ => match daemon::probe(socket) {
            daemon::Probe::Running => {
                Failure::msg(format!("cannot connect to {}: {e}", socket.display()))
            }
            daemon::Probe::Stale | daemon::Probe::Absent => Failure::NoDaemon(socket.to_path_buf()),
        },
    })
}

impl JsonClient {
    pub fn connect(socket: &Path) -> Result<Self, Failure> {
        let stream = connect_socket(socket)?;
        let writer = stream
            .try_clone()
            .map_err(|e| Failure::msg(format!("cannot use the daemon connection: {e}")))?;
        // A stuck daemon must not hang a script forever on the write side either.
        let _ = writer.set_write_timeout(Some(DEFAULT_READ_TIMEOUT));
        let client = JsonClient {
            socket: socket.to_path_buf(),
            reader: BufReader::new(stream),
            writer,
        };
        client.set_read_timeout(DEFAULT_READ_TIMEOUT)?;
        Ok(client)
    }

    pub fn set_read_timeout(&self, timeout: Duration) -> Result<(), Failure> {
        self.reader
            .get_ref()
            .set_read_timeout(Some(timeout))
            .map_err(|e| Failure::msg(format!("cannot set the read timeout: {e}")))
    }

    /// Send one request and return the raw response line (without its newline).
    pub fn call_raw(&mut self, verb: &str, params: Option<&Value>) -> Result<String, Failure> {
        let timeout = read_timeout_for(verb, params);
        self.set_read_timeout(timeout)?;
        let line = request_line(verb, params);
        self.writer
            .write_all(line.as_bytes())
            .and_then(|()| self.writer.flush())
            .map_err(|e| self.io_failure(e, timeout))?;
        let mut buf = self
            .read_line()
            .map_err(|e| self.io_failure(e, timeout))?
            .ok_or_else(|| self.closed_without_answer())?;
        while matches!(buf.last(), Some(b'\n' | b'\r')) {
            buf.pop();
        }
        String::from_utf8(buf).map_err(|_| Failure::msg("the daemon's response is not valid UTF-8"))
    }

    /// One line as received, newline included (absent only on a last line cut short by the
    /// close); `None` once the daemon has closed the connection.
    fn read_line(&mut self) -> io::Result<Option<Vec<u8>>> {
        let mut buf = Vec::new();
        let n = (&mut self.reader)
            .take(MAX_RESPONSE)
            .read_until(b'\n', &mut buf)?;
        Ok((n > 0).then_some(buf))
    }

    /// Read the lines that follow a subscribe ack. Events may be hours apart, so the read
    /// timeout is lifted for good; the write side stays open, because a half-closed
    /// connection tells the daemon to finish and hang up.
    pub fn into_stream(self) -> Result<EventStream, Failure> {
        self.reader
            .get_ref()
            .set_read_timeout(None)
            .map_err(|e| Failure::msg(format!("cannot clear the read timeout: {e}")))?;
        Ok(EventStream { client: self })
    }

    /// Send one request; `Ok(result)` on success, [`Failure::Verb`] on an error response.
    pub fn call(&mut self, verb: &str, params: Option<&Value>) -> Result<Value, Failure> {
        let line = self.call_raw(verb, params)?;
        parse_response(&line)
    }

    fn io_failure(&self, e: io::Error, timeout: Duration) -> Failure {
        match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => Failure::msg(format!(
                "the daemon on {} did not answer within {} s",
                self.socket.display(),
                timeout.as_secs()
            )),
            io::ErrorKind::BrokenPipe
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::UnexpectedEof => self.closed_without_answer(),
            _ => Failure::msg(format!("talking to the daemon failed: {e}")),
        }
    }

    /// A daemon that reads `{` as the start of a binary frame (one older than the JSON
    /// protocol) hangs up without a word; say so rather than reporting a bare EOF.
    fn closed_without_answer(&self) -> Failure {
        Failure::with_hints(
            format!(
                "the daemon on {} closed the connection without answering",
                self.socket.display()
            ),
            vec![
                "it may be an older tuios daemon that does not speak the JSON control protocol"
                    .to_string(),
                "restart it with: tuios kill-server, then run this command again".to_string(),
            ],
        )
    }
}

/// The rest of a subscribed connection, line by line.
pub struct EventStream {
    client: JsonClient,
}

impl EventStream {
    /// The next line exactly as the daemon wrote it; `None` once it closes the connection.
    pub fn next_line(&mut self) -> Result<Option<Vec<u8>>, Failure> {
        match self.client.read_line() {
            Ok(line) => Ok(line),
            // A daemon that stops or restarts resets the stream: that ends it, like a close.
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset => Ok(None),
            Err(e) => Err(Failure::msg(format!(
                "reading events from the daemon on {} failed: {e}",
                self.client.socket.display()
            ))),
        }
    }
}

/// A wait-for blocks in the daemon for its own timeout; wait that long plus headroom.
fn read_timeout_for(verb: &str, params: Option<&Value>) -> Duration {
    if verb != "wait-for" && verb != "run" {
        return DEFAULT_READ_TIMEOUT;
    }
    let ms = params
        .and_then(|p| p.get("timeout"))
        .and_then(Value::as_u64)
        .filter(|&ms| ms > 0)
        .unwrap_or(30_000);
    Duration::from_millis(ms).saturating_add(WAIT_FOR_SLACK)
}

/// Split a response line into its result or its error.
pub fn parse_response(line: &str) -> Result<Value, Failure> {
    let value: Value = serde_json::from_str(line)
        .map_err(|e| Failure::msg(format!("the daemon sent a response that is not JSON: {e}")))?;
    if let Some(result) = value.get("result") {
        return Ok(result.clone());
    }
    if let Some(err) = value.get("error") {
        return Err(Failure::Verb(DaemonError {
            code: err
                .get("code")
                .and_then(Value::as_str)
                .unwrap_or("internal")
                .to_string(),
            message: err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("the daemon reported an error without a message")
                .to_string(),
            hint: err.get("hint").cloned(),
        }));
    }
    Err(Failure::msg(
        "the daemon's response has neither a result nor an error",
    ))
}

/// True when a response line is an error response (for `tuios call`'s exit status).
pub fn is_error_response(line: &str) -> bool {
    serde_json::from_str::<Value>(line)
        .map(|v| v.get("error").is_some() || v.get("result").is_none())
        .unwrap_or(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn responses_split_into_result_or_error() {
        assert_eq!(
            parse_response(r#"{"id":1,"result":{"type":"ok"}}"#).unwrap(),
            json!({"type": "ok"})
        );
        match parse_response(
            r#"{"id":1,"error":{"code":"session_not_found","message":"nope","hint":{"command":"tuios ls"}}}"#,
        ) {
            Err(Failure::Verb(e)) => {
                assert_eq!(e.code, "session_not_found");
                assert_eq!(e.message, "nope");
                assert_eq!(e.hint, Some(json!({"command": "tuios ls"})));
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(parse_response("nope"), Err(Failure::Other { .. })));
        assert!(is_error_response(r#"{"error":{"code":"x","message":"y"}}"#));
        assert!(!is_error_response(r#"{"id":1,"result":{"type":"ok"}}"#));
        assert!(is_error_response("garbage"));
    }

    #[test]
    fn wait_for_reads_longer_than_its_timeout() {
        assert_eq!(read_timeout_for("list-windows", None), DEFAULT_READ_TIMEOUT);
        assert_eq!(
            read_timeout_for("wait-for", Some(&json!({"timeout": 60000}))),
            Duration::from_secs(70)
        );
        assert_eq!(read_timeout_for("wait-for", None), Duration::from_secs(40));
    }

    #[test]
    fn negative_or_zero_wait_timeouts_mean_the_default() {
        for t in [json!(0), json!(-5), json!("soon")] {
            assert_eq!(
                read_timeout_for("wait-for", Some(&json!({"timeout": t}))),
                Duration::from_secs(40)
            );
        }
        assert_eq!(
            read_timeout_for("wait-for", Some(&json!({"condition": "window-idle"}))),
            Duration::from_secs(40)
        );
    }

    /// A one-connection fake daemon: reads the request line, writes `replies` one write each,
    /// and hands the request line back through the join handle.
    fn fake_daemon(
        replies: &[&'static [u8]],
    ) -> (
        tempfile::TempDir,
        std::path::PathBuf,
        std::thread::JoinHandle<String>,
    ) {
        let dir = tempfile::tempdir().unwrap();
        // The client only talks to a socket in a directory closed to others.
        std::fs::set_permissions(
            dir.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )
        .unwrap();
        let sock = dir.path().join("tuios.sock");
        let listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        let replies = replies.to_vec();
        let server = std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let mut w = stream;
            for r in replies {
                w.write_all(r).unwrap();
            }
            line
        });
        (dir, sock, server)
    }

    #[test]
    fn a_stream_yields_every_line_after_the_ack_without_a_timeout() {
        // Ack and first event in one write: the event must survive the ack's buffering; the last
        // line has no newline.
        let (_dir, sock, server) = fake_daemon(&[
            b"{\"id\":1,\"result\":{\"type\":\"subscribed\",\"seq\":3}}\n{\"seq\":4,\"type\":\"bell\"}\n",
            b"{\"seq\":5,\"type\":\"gap\"}",
        ]);
        let mut client = JsonClient::connect(&sock).unwrap();
        let ack = client
            .call("subscribe", Some(&json!({"types": ["bell"]})))
            .unwrap();
        assert_eq!(ack["seq"], 3);
        let mut stream = client.into_stream().unwrap();
        assert_eq!(stream.client.reader.get_ref().read_timeout().unwrap(), None);
        assert_eq!(
            stream.next_line().unwrap().as_deref(),
            Some(&b"{\"seq\":4,\"type\":\"bell\"}\n"[..])
        );
        server.join().unwrap();
        assert_eq!(
            stream.next_line().unwrap().as_deref(),
            Some(&b"{\"seq\":5,\"type\":\"gap\"}"[..])
        );
        assert_eq!(stream.next_line().unwrap(), None);
    }

    #[test]
    fn missing_socket_is_no_daemon() {
        let dir = tempfile::tempdir().unwrap();
        let sock = dir.path().join("tuios.sock");
        assert!(matches!(
            JsonClient::connect(&sock),
            Err(Failure::NoDaemon(p)) if p == sock
        ));
    }

    #[test]
    fn one_line_round_trip_against_a_fake_daemon() {
        let (_dir, sock, server) = fake_daemon(&[b"{\"id\":1,\"result\":{\"type\":\"ok\"}}\n"]);
        let mut client = JsonClient::connect(&sock).unwrap();
        let result = client
            .call("send-text", Some(&json!({"text": "hi"})))
            .unwrap();
        assert_eq!(result, json!({"type": "ok"}));
        let sent = server.join().unwrap();
        let sent: Value = serde_json::from_str(&sent).unwrap();
        assert_eq!(
            sent,
            json!({"id": 1, "verb": "send-text", "params": {"text": "hi"}})
        );
    }
}
