//! `tuios web` for the tests: the real server on a free port, HTTP spoken by hand over a
//! TcpStream, and a WebSocket client (frames masked as a client must). Shared by web.rs,
//! web_flood.rs and web_input.rs.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Instant;

use crate::{poll, TestEnv, DEADLINE};

/// A running `tuios web`; stopped (SIGTERM, by pid) when dropped.
pub struct Web {
    pub child: Child,
    pub port: u16,
    pub token: String,
    pub url: String,
    pub stderr: std::path::PathBuf,
}

impl Web {
    pub fn start(env: &TestEnv, extra: &[&str]) -> Web {
        let mut args = vec!["web", "--port", "0"];
        args.extend_from_slice(extra);
        let stderr = env.dir().join(format!("web-{}.stderr", extra.len()));
        Web::spawn(env.command(&args), stderr)
    }

    /// Run `cmd` (a `tuios web`) and wait for the sign-in URL it prints.
    pub fn spawn(mut cmd: std::process::Command, stderr: std::path::PathBuf) -> Web {
        let mut child = cmd
            .env("TUIOS_LOG", "warn,tuios=debug")
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .expect("spawn tuios web");
        let out = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + DEADLINE;
        let url = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) if line.trim().contains("?token=") => break line.trim().to_string(),
                Ok(_) => {}
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!(
                        "tuios web printed no sign-in URL; stderr:\n{}",
                        std::fs::read_to_string(&stderr).unwrap_or_default()
                    );
                }
            }
        };
        let (base, token) = url.split_once("?token=").unwrap();
        let port: u16 = base
            .trim_end_matches('/')
            .rsplit(':')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        Web {
            child,
            port,
            token: token.to_string(),
            url: url.clone(),
            stderr,
        }
    }

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// One request (Connection: close) and its whole response.
    pub fn request(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Resp {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).expect("connect to tuios web");
        s.set_read_timeout(Some(DEADLINE)).unwrap();
        let mut req = format!("{method} {path} HTTP/1.1\r\n");
        if !headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("connection"))
        {
            req.push_str("Connection: close\r\n");
        }
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            req.push_str(&format!("Host: {}\r\n", self.host()));
        }
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        if !body.is_empty() {
            req.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        req.push_str("\r\n");
        req.push_str(body);
        s.write_all(req.as_bytes()).unwrap();
        let mut raw = Vec::new();
        let _ = s.read_to_end(&mut raw);
        Resp::parse(&raw)
    }

    pub fn get(&self, path: &str, headers: &[(&str, &str)]) -> Resp {
        self.request("GET", path, headers, "")
    }

    /// The session cookie, from the token.
    pub fn sign_in(&self) -> String {
        let r = self.get(&format!("/?token={}", self.token), &[]);
        assert_eq!(r.status, 303, "{r:?}");
        let set = r.header("set-cookie").expect("a cookie");
        set.split(';').next().unwrap().to_string()
    }

    /// The headers of a WebSocket upgrade request.
    pub fn upgrade_headers<'a>(
        cookie: Option<&'a str>,
        origin: Option<&'a str>,
    ) -> Vec<(&'a str, &'a str)> {
        let mut h = vec![
            ("Upgrade", "websocket"),
            ("Connection", "Upgrade"),
            ("Sec-WebSocket-Version", "13"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ];
        if let Some(c) = cookie {
            h.push(("Cookie", c));
        }
        if let Some(o) = origin {
            h.push(("Origin", o));
        }
        h
    }

    pub fn stop(mut self) -> std::process::ExitStatus {
        // SAFETY: kill(2) on our own, not yet reaped, child.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        poll(DEADLINE, "tuios web to exit on SIGTERM", || {
            self.child
                .try_wait()
                .unwrap()
                .ok_or_else(|| "still running".to_string())
        })
    }
}

impl Drop for Web {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "---- tuios web stderr ----\n{}",
                std::fs::read_to_string(&self.stderr).unwrap_or_default()
            );
        }
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Resp {
    pub fn parse(raw: &[u8]) -> Resp {
        let text = String::from_utf8_lossy(raw).to_string();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        Resp {
            status,
            headers,
            body: body.to_string(),
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

// --- A WebSocket attach, for real ------------------------------------------------------

/// A client-side WebSocket frame (masked, as a client must send).
pub fn ws_frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0x80 | opcode];
    let mask = [0x12u8, 0x34, 0x56, 0x78];
    match payload.len() {
        n if n < 126 => f.push(0x80 | n as u8),
        n if n < 65536 => {
            f.push(0x80 | 126);
            f.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            f.push(0x80 | 127);
            f.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    f.extend_from_slice(&mask);
    f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    f
}

/// Reads one server frame: (opcode, payload).
pub fn ws_read(s: &mut TcpStream) -> Option<(u8, Vec<u8>)> {
    let mut h = [0u8; 2];
    s.read_exact(&mut h).ok()?;
    let opcode = h[0] & 0x0f;
    let mut len = u64::from(h[1] & 0x7f);
    if len == 126 {
        let mut b = [0u8; 2];
        s.read_exact(&mut b).ok()?;
        len = u64::from(u16::from_be_bytes(b));
    } else if len == 127 {
        let mut b = [0u8; 8];
        s.read_exact(&mut b).ok()?;
        len = u64::from_be_bytes(b);
    }
    let mut payload = vec![0u8; len as usize];
    s.read_exact(&mut payload).ok()?;
    Some((opcode, payload))
}

/// A WebSocket to `/ws?QUERY` with the cookie and our Origin: the stream (for writing) and
/// the server's frames as they come.
pub fn open_ws(web: &Web, cookie: &str, query: &str) -> (TcpStream, mpsc::Receiver<(u8, Vec<u8>)>) {
    let s = TcpStream::connect(("127.0.0.1", web.port)).unwrap();
    let s = upgrade(web, s, cookie, query);
    // Output streams while the test types: read it on a thread.
    let mut reader = s.try_clone().unwrap();
    let (tx, rx) = mpsc::channel::<(u8, Vec<u8>)>();
    std::thread::spawn(move || {
        while let Some(frame) = ws_read(&mut reader) {
            if tx.send(frame).is_err() {
                break;
            }
        }
    });
    (s, rx)
}

/// Upgrades `s`, connected to the server, to a WebSocket on `/ws?QUERY` with the cookie and our
/// Origin; returns it with nothing read past the 101 response.
pub fn upgrade(web: &Web, mut s: TcpStream, cookie: &str, query: &str) -> TcpStream {
    s.set_read_timeout(Some(DEADLINE)).unwrap();
    let req = format!(
        "GET /ws?{query} HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\n\
         Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         Origin: {}\r\nCookie: {cookie}\r\n\r\n",
        web.host(),
        web.origin()
    );
    s.write_all(req.as_bytes()).unwrap();
    // The 101 head, byte by byte up to the blank line (frames may follow at once).
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut b = [0u8; 1];
        s.read_exact(&mut b).expect("the upgrade response");
        head.push(b[0]);
    }
    let head = String::from_utf8_lossy(&head);
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    s
}

/// A TCP connection to the server whose receive buffer is `rcvbuf` bytes and whose segments
/// are small (both set before the connection is made, so the window it offers stays small and
/// the server's send buffer, sized from the segment size, too): a browser that stops reading
/// holds little in the sockets between it and the server.
pub fn connect_with_small_buffer(web: &Web, rcvbuf: i32) -> TcpStream {
    use std::os::fd::FromRawFd;
    // SAFETY: plain socket calls on a descriptor we create and then own through TcpStream.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        assert!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
        let stream = TcpStream::from_raw_fd(fd);
        let r = libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_RCVBUF,
            (&rcvbuf as *const i32).cast(),
            std::mem::size_of::<i32>() as libc::socklen_t,
        );
        assert_eq!(r, 0, "SO_RCVBUF: {}", std::io::Error::last_os_error());
        // Small segments too: the server sizes its send buffer from the segment size.
        let mss: i32 = 536;
        let r = libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_MAXSEG,
            (&mss as *const i32).cast(),
            std::mem::size_of::<i32>() as libc::socklen_t,
        );
        assert_eq!(r, 0, "TCP_MAXSEG: {}", std::io::Error::last_os_error());
        let addr = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: web.port.to_be(),
            sin_addr: libc::in_addr {
                s_addr: u32::from_be_bytes([127, 0, 0, 1]).to_be(),
            },
            sin_zero: [0; 8],
        };
        let r = libc::connect(
            fd,
            (&addr as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        );
        assert_eq!(r, 0, "connect: {}", std::io::Error::last_os_error());
        stream
    }
}
