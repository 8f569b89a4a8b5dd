//! `tuios web` for the tests: the real server on a free port, and HTTP spoken by hand over a
//! TcpStream (shared by web.rs and web_flood.rs).

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
