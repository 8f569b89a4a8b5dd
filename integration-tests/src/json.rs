//! The JSON verb-protocol client, and telling events from responses.

use serde_json::{json, Map, Value};
use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use crate::{poll, DEADLINE, READ_TIMEOUT};

/// A client of the JSON verb protocol: one request line out, one response line back.
pub struct JsonConn {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    next_id: u64,
}

/// Build a params object from pairs, leaving out nulls and empty strings (both mean "omit").
pub fn params(pairs: &[(&str, Value)]) -> Value {
    let mut map = Map::new();
    for (key, value) in pairs {
        let skip = value.is_null() || value.as_str().is_some_and(str::is_empty);
        if !skip {
            map.insert((*key).to_string(), value.clone());
        }
    }
    Value::Object(map)
}

impl JsonConn {
    pub fn connect(socket: &Path) -> JsonConn {
        let stream = UnixStream::connect(socket)
            .unwrap_or_else(|e| panic!("cannot connect to {}: {e}", socket.display()));
        stream
            .set_read_timeout(Some(READ_TIMEOUT))
            .expect("set_read_timeout");
        let writer = stream.try_clone().expect("clone stream");
        JsonConn {
            reader: BufReader::new(stream),
            writer,
            next_id: 1,
        }
    }

    /// Change how long one response may take (e.g. for a 2 MiB write).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.writer
            .set_read_timeout(Some(timeout))
            .expect("set_read_timeout");
    }

    pub fn stream(&self) -> &UnixStream {
        &self.writer
    }

    /// Write `line` followed by a newline.
    pub fn send_line(&mut self, line: &str) {
        let mut buf = Vec::with_capacity(line.len() + 1);
        buf.extend_from_slice(line.as_bytes());
        buf.push(b'\n');
        self.send_raw(&buf);
    }

    /// Write raw bytes as they are.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.writer
            .write_all(bytes)
            .and_then(|()| self.writer.flush())
            .unwrap_or_else(|e| panic!("write to daemon failed: {e}"));
    }

    /// Close our writing half: the daemon sees end of input.
    pub fn shutdown_write(&self) {
        let _ = self.writer.shutdown(std::net::Shutdown::Write);
    }

    /// The next raw line without its newline, or None at end of stream.
    /// Panics when nothing arrives within the read timeout.
    pub fn read_raw_line(&mut self) -> Option<String> {
        let mut buf = Vec::new();
        match self.reader.read_until(b'\n', &mut buf) {
            Ok(0) => None,
            Ok(_) => {
                if buf.last() == Some(&b'\n') {
                    buf.pop();
                }
                Some(String::from_utf8(buf).expect("response is not UTF-8"))
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                panic!(
                    "no response line from the daemon within the read timeout (partial: {:?})",
                    String::from_utf8_lossy(&buf)
                )
            }
            Err(e) if e.kind() == ErrorKind::ConnectionReset => None,
            Err(e) => panic!("read from daemon failed: {e}"),
        }
    }

    /// The next line, parsed as JSON. Panics at end of stream.
    pub fn read_line(&mut self) -> Value {
        let line = self
            .read_raw_line()
            .expect("the daemon closed the connection instead of answering");
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("response is not JSON ({e}): {line:?}"))
    }

    /// Send a request with a fresh numeric id and return the whole response
    /// (checked to echo the id). `params` of Null is left out of the request.
    pub fn call(&mut self, verb: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut req = json!({ "id": id, "verb": verb });
        if !params.is_null() {
            req["params"] = params;
        }
        self.send_line(&req.to_string());
        let resp = self.read_line();
        assert_eq!(
            resp.get("id"),
            Some(&json!(id)),
            "response does not echo the request id: {resp}"
        );
        resp
    }

    /// Send a request with a fresh string id without reading its answer; returns the id, for
    /// `read_response`. Lets a test have a request in flight (a wait) or read past events.
    pub fn send_request(&mut self, verb: &str, params: Value) -> String {
        let id = format!("req-{}", self.next_id);
        self.next_id += 1;
        let mut req = json!({ "id": id, "verb": verb });
        if !params.is_null() {
            req["params"] = params;
        }
        self.send_line(&req.to_string());
        id
    }

    /// Read up to the response to request `id`; returns it and the event lines that came
    /// before it (on a subscribed connection). Any other line fails the test.
    pub fn read_response(&mut self, id: &str) -> (Value, Vec<Value>) {
        let mut events = Vec::new();
        loop {
            let line = self.read_line();
            if line.get("id") == Some(&json!(id)) {
                return (line, events);
            }
            assert!(
                is_event(&line),
                "a line that is neither the response to {id} nor an event: {line}"
            );
            events.push(line);
        }
    }

    /// Subscribe this connection to events; returns the `seq` of the acknowledgement.
    pub fn subscribe(&mut self, params: Value) -> u64 {
        let ack = self.ok("subscribe", params);
        assert_eq!(ack["type"], "subscribed", "{ack}");
        ack["seq"]
            .as_u64()
            .unwrap_or_else(|| panic!("subscribed without a seq: {ack}"))
    }

    /// send-text to `window` of `session` (the focused window when `window` is empty).
    pub fn send_text(&mut self, session: &str, window: &str, text: &str) {
        self.send_input("send-text", session, window, "text", text);
    }

    /// send-keys to `window` of `session` (the focused window when `window` is empty).
    pub fn send_keys(&mut self, session: &str, window: &str, keys: &str) {
        self.send_input("send-keys", session, window, "keys", keys);
    }

    fn send_input(&mut self, verb: &str, session: &str, window: &str, key: &str, input: &str) {
        let mut p = json!({ "session": session, key: input });
        if !window.is_empty() {
            p["window"] = json!(window);
        }
        let result = self.ok(verb, p);
        assert_eq!(result["type"], "ok", "{verb}: {result}");
    }

    /// The `list-windows` row of `window`; the test fails when it is not listed.
    /// Waits until `program` holds the window's foreground (as the agent detector reads it).
    pub fn wait_foreground(&mut self, session: &str, window: &str, program: &str) {
        poll(DEADLINE, &format!("{program} in the foreground"), || {
            let d = self.ok(
                "explain-agent-detect",
                json!({"session": session, "window": window}),
            );
            if d["process"].to_string().contains(program) {
                Ok(())
            } else {
                Err(d.to_string())
            }
        });
    }

    pub fn window_row(&mut self, session: &str, window: &str) -> Value {
        let list = self.ok("list-windows", json!({ "session": session }));
        list["windows"]
            .as_array()
            .and_then(|rows| rows.iter().find(|w| w["window_id"] == window))
            .cloned()
            .unwrap_or_else(|| panic!("window {window} is not listed: {list}"))
    }

    /// The result of a call that must succeed.
    pub fn ok(&mut self, verb: &str, params: Value) -> Value {
        let resp = self.call(verb, params.clone());
        match resp.get("result") {
            Some(result) if resp.get("error").is_none() => {
                assert!(
                    result.get("type").and_then(Value::as_str).is_some(),
                    "result has no type discriminator: {resp}"
                );
                result.clone()
            }
            _ => panic!("{verb} {params} failed: {resp}"),
        }
    }

    /// The error object of a call that must fail.
    pub fn err(&mut self, verb: &str, params: Value) -> Value {
        let resp = self.call(verb, params.clone());
        match resp.get("error") {
            Some(error) if resp.get("result").is_none() => {
                assert!(
                    error.get("code").and_then(Value::as_str).is_some(),
                    "error has no code: {resp}"
                );
                assert!(
                    error.get("message").and_then(Value::as_str).is_some(),
                    "error has no message: {resp}"
                );
                error.clone()
            }
            _ => panic!("{verb} {params} was expected to fail but answered: {resp}"),
        }
    }

    /// The error object of a call that must fail with `code`.
    pub fn err_code(&mut self, verb: &str, params: Value, code: &str) -> Value {
        let error = self.err(verb, params.clone());
        assert_eq!(
            error["code"], code,
            "{verb} {params}: expected error code {code}, got {error}"
        );
        error
    }

    /// Window ids of a session, in `list-windows` order.
    pub fn window_ids(&mut self, session: &str) -> Vec<String> {
        let list = self.ok("list-windows", json!({ "session": session }));
        list["windows"]
            .as_array()
            .unwrap_or_else(|| panic!("list-windows has no windows array: {list}"))
            .iter()
            .map(|w| {
                w["window_id"]
                    .as_str()
                    .unwrap_or_else(|| panic!("window row without window_id: {w}"))
                    .to_string()
            })
            .collect()
    }

    /// Closes every window of the session but `keep`, so an attached client shows it alone.
    pub fn close_windows_but(&mut self, session: &str, keep: &str) {
        for id in self.window_ids(session).iter().filter(|id| *id != keep) {
            self.ok("close-window", json!({"session": session, "window": id}));
        }
    }

    /// The id of the first window of a session (a `tuios new -d` session starts with one).
    pub fn first_window(&mut self, session: &str) -> String {
        let ids = self.window_ids(session);
        ids.into_iter()
            .next()
            .unwrap_or_else(|| panic!("session {session} has no windows"))
    }

    /// Create a window and return its `window_created` result.
    pub fn new_window(&mut self, session: &str, extra: Value) -> Value {
        let mut p = json!({ "session": session });
        if let Value::Object(map) = extra {
            for (k, v) in map {
                p[k] = v;
            }
        }
        let result = self.ok("new-window", p);
        assert_eq!(result["type"], "window_created", "{result}");
        result
    }

    /// Create a window and return its id.
    pub fn new_window_id(&mut self, session: &str, extra: Value) -> String {
        let result = self.new_window(session, extra);
        result["window_id"]
            .as_str()
            .unwrap_or_else(|| panic!("window_created without window_id: {result}"))
            .to_string()
    }

    /// capture-pane with extra params (`source`, `styled`, `lines`, ...); returns `content`.
    pub fn capture(&mut self, session: &str, window: &str, extra: Value) -> String {
        let result = self.capture_result(session, window, extra);
        result["content"]
            .as_str()
            .unwrap_or_else(|| panic!("pane_content without content: {result}"))
            .to_string()
    }

    /// capture-pane returning the whole `pane_content` result.
    pub fn capture_result(&mut self, session: &str, window: &str, extra: Value) -> Value {
        let mut p = params(&[("session", json!(session)), ("window", json!(window))]);
        if let Value::Object(map) = extra {
            for (k, v) in map {
                p[k] = v;
            }
        }
        let result = self.ok("capture-pane", p);
        assert_eq!(result["type"], "pane_content", "{result}");
        result
    }

    /// Poll capture-pane (scrollback + screen) until `accept` returns Some for its content.
    /// Panics at the deadline with the last capture.
    pub fn wait_for_capture<T>(
        &mut self,
        session: &str,
        window: &str,
        what: &str,
        timeout: Duration,
        mut accept: impl FnMut(&str) -> Option<T>,
    ) -> T {
        let p = params(&[
            ("session", json!(session)),
            ("window", json!(window)),
            ("source", json!("recent")),
        ]);
        let what = format!("{what} in window {window:?} of {session:?}");
        poll(timeout, &what, || {
            let resp = self.call("capture-pane", p.clone());
            let content = resp["result"]["content"].as_str();
            match content.and_then(&mut accept) {
                Some(value) => Ok(value),
                None => Err(format!(
                    "last capture:\n{}",
                    content.map_or_else(|| resp.to_string(), str::to_string)
                )),
            }
        })
    }

    /// Poll until the pane's text (scrollback + screen) contains `needle`; returns the capture.
    pub fn wait_for_text(&mut self, session: &str, window: &str, needle: &str) -> String {
        self.wait_for_capture(session, window, &format!("{needle:?}"), DEADLINE, |c| {
            c.contains(needle).then(|| c.to_string())
        })
    }

    /// Poll until some line of the pane, with surrounding blanks trimmed, equals `line`.
    /// Suits command windows. In a shell window, output typed ahead can share a line with
    /// the prompt: there, have the shell compute the marker (`echo v-$((1+1))`) and wait
    /// for its result with `wait_for_text`, which the echoed command line cannot contain.
    pub fn wait_for_line(&mut self, session: &str, window: &str, line: &str) -> String {
        self.wait_for_capture(
            session,
            window,
            &format!("a line {line:?}"),
            DEADLINE,
            |c| c.lines().any(|l| l.trim() == line).then(|| c.to_string()),
        )
    }
}

/// A line the daemon wrote on its own, an event: a type, and no request id, result or error.
pub fn is_event(line: &Value) -> bool {
    line.get("id").is_none()
        && line.get("result").is_none()
        && line.get("error").is_none()
        && line["type"].is_string()
}
