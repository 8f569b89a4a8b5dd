//! tuios: a daemon of the benchmark's own, its JSON connection, and phases (a) to (e) on it.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::measure::{idle_cpu, settled_rss_kib, IdleCpu};
use super::pty::LATENCY_SCRIPT;
use super::util::{await_prompt, has_row, poll_until, stop_child, window_id};
use super::{ctx, DONE_MARK, FLOOD_COLS, FLOOD_ROWS, MEM_COLS, MEM_ROWS, POLL, R};

pub(crate) struct Conn {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    next_id: u64,
}

impl Conn {
    pub(crate) fn open(sock: &Path) -> R<Conn> {
        let s = UnixStream::connect(sock).map_err(ctx("connecting to the daemon"))?;
        s.set_read_timeout(Some(Duration::from_secs(120)))
            .map_err(ctx("socket timeout"))?;
        let writer = s.try_clone().map_err(ctx("socket clone"))?;
        Ok(Conn {
            reader: BufReader::new(s),
            writer,
            next_id: 1,
        })
    }

    fn send(&mut self, verb: &str, params: Value) -> R<()> {
        let id = self.next_id;
        self.next_id += 1;
        let mut line = serde_json::to_vec(&json!({"id": id, "verb": verb, "params": params}))
            .map_err(ctx("encode"))?;
        line.push(b'\n');
        self.writer
            .write_all(&line)
            .map_err(ctx("writing a request"))
    }

    fn recv(&mut self) -> R<Value> {
        let mut line = String::new();
        let n = self
            .reader
            .read_line(&mut line)
            .map_err(ctx("reading a response"))?;
        if n == 0 {
            return Err("the daemon closed the connection".into());
        }
        serde_json::from_str(&line).map_err(ctx("decoding a response"))
    }

    /// The result of a response, or its error rendered as text.
    fn result(resp: Value) -> R<Value> {
        if let Some(e) = resp.get("error") {
            return Err(format!("daemon error: {e}"));
        }
        resp.get("result")
            .cloned()
            .ok_or_else(|| format!("response without result: {resp}"))
    }

    pub(crate) fn call(&mut self, verb: &str, params: Value) -> R<Value> {
        self.send(verb, params)?;
        Conn::result(self.recv()?)
    }
}

pub(crate) struct Tuios {
    child: Child,
    sock: PathBuf,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) bin: PathBuf,
    log: PathBuf,
    pub(crate) pid: u32,
    pub(crate) session: String,
}

type Env = Vec<(String, String)>;

/// Where a daemon tagged `tag` lives under `dir`: (socket, log, environment). The home is fresh
/// and private to the benchmark, so no saved session or user config reaches the daemon.
pub(crate) fn daemon_env(dir: &Path, tag: &str) -> R<(PathBuf, PathBuf, Env)> {
    let home = dir.join(format!("home-{tag}"));
    std::fs::create_dir_all(home.join(".config")).map_err(ctx("creating the daemon home"))?;
    let sock = dir.join(format!("tuios-{tag}.sock"));
    let log = dir.join(format!("daemon-{tag}.log"));
    let env = vec![
        (
            "TUIOS_SOCKET".to_string(),
            sock.to_string_lossy().into_owned(),
        ),
        ("HOME".into(), home.to_string_lossy().into_owned()),
        (
            "XDG_CONFIG_HOME".into(),
            home.join(".config").to_string_lossy().into_owned(),
        ),
        // Saved sessions stay in the benchmark's home, never the user's.
        (
            "XDG_STATE_HOME".into(),
            home.join(".state").to_string_lossy().into_owned(),
        ),
        ("SHELL".into(), "/bin/sh".into()),
        ("TUIOS_LOG".into(), "warn".into()),
        ("LC_ALL".into(), "C.UTF-8".into()),
        ("PS1".into(), "$ ".into()),
    ];
    Ok((sock, log, env))
}

/// `tuios daemon` with `env`, its stderr in `log`.
pub(crate) fn spawn_daemon(bin: &Path, env: &[(String, String)], log: &Path) -> R<Child> {
    if !bin.is_file() {
        return Err(format!(
            "no tuios binary at {} (build it: cargo build --release -p tuios-client, or set TUIOS_BIN)",
            bin.display()
        ));
    }
    Command::new(bin)
        .arg("daemon")
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("ENV")
        // The idle phase measures the detector as shipped: no inherited switches.
        .env_remove("TUIOS_AGENT_AUTODETECT")
        .env_remove("TUIOS_AGENT_DETECT_SECONDS")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(File::create(log).map_err(ctx("creating the daemon log"))?)
        .spawn()
        .map_err(ctx("starting tuios daemon"))
}

impl Tuios {
    pub(crate) fn start(bin: &Path, dir: &Path, tag: &str) -> R<Tuios> {
        let (sock, log, env) = daemon_env(dir, tag)?;
        let child = spawn_daemon(bin, &env, &log)?;
        let mut t = Tuios {
            child,
            sock,
            env,
            bin: bin.to_path_buf(),
            log,
            pid: 0,
            session: "bench".into(),
        };
        poll_until(
            Duration::from_secs(15),
            Duration::from_millis(10),
            "the daemon socket",
            || {
                if let Ok(Some(st)) = t.child.try_wait() {
                    return Err(format!(
                        "tuios daemon exited early ({st}); log:\n{}",
                        t.log_tail()
                    ));
                }
                Ok(UnixStream::connect(&t.sock).ok().map(|_| ()))
            },
        )?;
        let hello = t
            .conn()?
            .call("hello", json!({"client": "tuios-bench", "protocol": 1}))?;
        t.pid = hello
            .get("pid")
            .and_then(Value::as_u64)
            .map(|p| p as u32)
            .unwrap_or(t.child.id());
        let out = t.cli(&["new", "-d", "bench"])?;
        if !out.status.success() {
            return Err(format!(
                "tuios new -d bench failed ({}): {}{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(t)
    }

    pub(crate) fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    pub(crate) fn cli(&self, args: &[&str]) -> R<std::process::Output> {
        Command::new(&self.bin)
            .args(args)
            .env_remove("XDG_RUNTIME_DIR")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .output()
            .map_err(ctx("running the tuios CLI"))
    }

    pub(crate) fn conn(&self) -> R<Conn> {
        Conn::open(&self.sock)
    }

    /// Creates a `command` window, sized to cols x rows, whose script first waits for one line
    /// of input (so it starts only once the size is right). Returns the window id.
    fn gated_window(
        &self,
        c: &mut Conn,
        name: &str,
        script: &str,
        arg0: &str,
        cols: u16,
        rows: u16,
    ) -> R<String> {
        let command = json!(["/bin/sh", "-c", format!("read x; {script}"), arg0]);
        let mut params = json!({"session": self.session, "name": name, "command": command, "remain": true, "focus": false});
        let created = match c.call("new-window", params.clone()) {
            Ok(v) => v,
            // A daemon without `remain` (or `focus`): keep the program alive instead.
            Err(e) if e.contains("invalid_params") => {
                params = json!({"session": self.session, "name": name,
                    "command": ["/bin/sh", "-c", format!("read x; {script}; exec sleep 100000"), arg0]});
                c.call("new-window", params)?
            }
            Err(e) => return Err(e),
        };
        let id = created
            .get("window_id")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("new-window result without window_id: {created}"))?
            .to_string();
        c.call(
            "resize",
            json!({"session": self.session, "window": id, "width": cols, "height": rows}),
        )?;
        Ok(id)
    }

    pub(crate) fn capture(&self, c: &mut Conn, window: &str) -> R<String> {
        let r = c.call(
            "capture-pane",
            json!({"session": self.session, "window": window, "source": "visible"}),
        )?;
        Ok(r.get("content")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string())
    }

    pub(crate) fn throughput(&self, file: &Path, run: usize) -> R<f64> {
        let mut c = self.conn()?;
        let id = self.gated_window(
            &mut c,
            &format!("flood-{run}"),
            &format!("cat \"$0\"; printf '\\n{DONE_MARK}\\n'"),
            &file.to_string_lossy(),
            FLOOD_COLS,
            FLOOD_ROWS,
        )?;
        c.call(
            "send-text",
            json!({"session": self.session, "window": id, "text": "\n"}),
        )?;
        let t0 = Instant::now();
        poll_until(
            Duration::from_secs(300),
            POLL,
            "DONE-MARK in the tuios window",
            || Ok(self.capture(&mut c, &id)?.contains(DONE_MARK).then_some(())),
        )?;
        let secs = t0.elapsed().as_secs_f64();
        let _ = c.call(
            "close-window",
            json!({"session": self.session, "window": id}),
        );
        Ok(secs)
    }

    /// Whether the daemon lists and actually serves `wait-for`.
    fn has_wait_for(&self, c: &mut Conn, window: &str) -> bool {
        let listed = c
            .call("list-verbs", json!({}))
            .ok()
            .and_then(|r| r.get("verbs").and_then(Value::as_array).cloned())
            .is_some_and(|vs| {
                vs.iter()
                    .any(|v| v.get("verb").and_then(Value::as_str) == Some("wait-for"))
            });
        // Listed is not enough while the verb is being built: one probe that must match at once
        // (the prompt is on screen), on its own connection so a late reply cannot desync `c`.
        let probe = || -> R<Value> {
            let mut p = self.conn()?;
            p.reader
                .get_ref()
                .set_read_timeout(Some(Duration::from_secs(10)))
                .map_err(ctx("socket timeout"))?;
            p.call(
                "wait-for",
                json!({"condition": "window-output", "session": self.session, "window": window,
                    "pattern": "[$#]", "timeout": 5000}),
            )
        };
        listed && probe().is_ok()
    }

    pub(crate) fn roundtrip(&self, n: usize) -> R<(Vec<f64>, &'static str)> {
        let mut c = self.conn()?;
        let created = c.call(
            "new-window",
            json!({"session": self.session, "name": "roundtrip", "command": ["/bin/sh", "-i"], "focus": false}),
        )?;
        let id = created
            .get("window_id")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("new-window result without window_id: {created}"))?
            .to_string();
        c.call("resize", json!({"session": self.session, "window": id, "width": FLOOD_COLS, "height": FLOOD_ROWS}))?;
        poll_until(Duration::from_secs(15), POLL, "the shell prompt", || {
            Ok(self
                .capture(&mut c, &id)?
                .contains(['$', '#'])
                .then_some(()))
        })?;
        let use_wait = self.has_wait_for(&mut c, &id);
        let mut waiter = if use_wait { Some(self.conn()?) } else { None };
        let mut times = Vec::with_capacity(n);
        for i in 0..n {
            let want = (i + 1000).to_string();
            let text = format!("echo $(({i}+1000))\n");
            let t0 = Instant::now();
            if let Some(w) = waiter.as_mut() {
                // No `fresh`: the number is unique, and the wait may start after the output.
                w.send(
                    "wait-for",
                    json!({"condition": "window-output", "session": self.session, "window": id,
                        "pattern": format!("(?m)^{want}[ \\t]*$"), "timeout": 10000}),
                )?;
                c.call(
                    "send-text",
                    json!({"session": self.session, "window": id, "text": text}),
                )?;
                Conn::result(w.recv()?)?;
            } else {
                c.call(
                    "send-text",
                    json!({"session": self.session, "window": id, "text": text}),
                )?;
                poll_until(
                    Duration::from_secs(10),
                    Duration::ZERO,
                    "the echo result in tuios",
                    || Ok(has_row(&self.capture(&mut c, &id)?, &want).then_some(())),
                )?;
            }
            times.push(t0.elapsed().as_secs_f64() * 1e3);
            await_prompt(&want, || self.capture(&mut c, &id))?;
        }
        let _ = c.call(
            "close-window",
            json!({"session": self.session, "window": id}),
        );
        Ok((
            times,
            if use_wait {
                "wait-for"
            } else {
                "capture-pane polling"
            },
        ))
    }

    /// Returns (KiB per window, scrollback rows seen in one window).
    pub(crate) fn memory(&self, windows: usize, lines: usize, exe: &str) -> R<(f64, usize)> {
        let mut c = self.conn()?;
        let before = settled_rss_kib(self.pid)?;
        let mut ids = Vec::with_capacity(windows);
        for k in 0..windows {
            let script =
                format!("\"$0\" --gen-lines {k} {lines}; echo GEN-DONE-{k}.; exec sleep 100000");
            ids.push(self.gated_window(
                &mut c,
                &format!("mem-{k}"),
                &script,
                exe,
                MEM_COLS,
                MEM_ROWS,
            )?);
        }
        for id in &ids {
            c.call(
                "send-text",
                json!({"session": self.session, "window": id, "text": "\n"}),
            )?;
        }
        for (k, id) in ids.iter().enumerate() {
            let mark = format!("GEN-DONE-{k}.");
            poll_until(
                Duration::from_secs(300),
                Duration::from_millis(50),
                &mark,
                || Ok(self.capture(&mut c, id)?.contains(&mark).then_some(())),
            )?;
        }
        let after = settled_rss_kib(self.pid)?;
        // Checked after the RSS reading: a big capture allocates in the daemon.
        let recent = c.call(
            "capture-pane",
            json!({"session": self.session, "window": ids[0], "source": "recent"}),
        )?;
        let rows = recent
            .get("content")
            .and_then(Value::as_str)
            .map_or(0, |s| s.lines().count());
        Ok((after.saturating_sub(before) as f64 / windows as f64, rows))
    }
}

impl Tuios {
    /// `wait-for` latency: 500 times, a `fresh` wait for `M-N` is registered, then `N` is sent to
    /// a program that answers `M-N`. Returns (send-text reply to wait-for reply, send-text
    /// request to wait-for reply), in milliseconds.
    pub(crate) fn latency(&self, n: usize) -> R<(Vec<f64>, Vec<f64>)> {
        let mut c = self.conn()?;
        let created = c.call(
            "new-window",
            json!({"session": self.session, "name": "latency",
                "command": ["/bin/sh", "-c", LATENCY_SCRIPT], "focus": false}),
        )?;
        let id = window_id(&created)?;
        let session = self.session.clone();
        let waiters = move |c: &mut Conn| -> R<Option<u64>> {
            Ok(c.call("session-info", json!({"session": session}))?
                .get("waiters")
                .and_then(Value::as_u64))
        };
        if waiters(&mut c)?.is_none() {
            return Err(
                "session-info reports no `waiters`: cannot tell when a wait is registered".into(),
            );
        }
        let mut w = self.conn()?;
        let mut out = Vec::with_capacity(n);
        let mut full = Vec::with_capacity(n);
        for i in 0..n {
            // Untimed: the previous wait is gone and the new one is registered before the input
            // goes in, so a `fresh` wait cannot miss the answer.
            poll_until(
                Duration::from_secs(10),
                Duration::ZERO,
                "the previous waiter to end",
                || Ok((waiters(&mut c)? == Some(0)).then_some(())),
            )?;
            w.send(
                "wait-for",
                json!({"condition": "window-output", "session": self.session, "window": id,
                    "pattern": format!("(?m)^M-{i}[ \\t]*$"), "fresh": true, "timeout": 10000}),
            )?;
            poll_until(
                Duration::from_secs(10),
                Duration::ZERO,
                "the waiter to register",
                || Ok((waiters(&mut c)? == Some(1)).then_some(())),
            )?;
            let t0 = Instant::now();
            c.call(
                "send-text",
                json!({"session": self.session, "window": id, "text": format!("{i}\n")}),
            )?;
            let t1 = Instant::now();
            Conn::result(w.recv()?)?;
            let t2 = Instant::now();
            out.push((t2 - t1).as_secs_f64() * 1e3);
            full.push((t2 - t0).as_secs_f64() * 1e3);
        }
        let _ = c.call(
            "close-window",
            json!({"session": self.session, "window": id}),
        );
        Ok((out, full))
    }

    /// Daemon CPU over `span` with `windows` idle shells: (agent detection on, as by default;
    /// detection switched off for the session).
    pub(crate) fn idle(&self, windows: usize, span: Duration) -> R<(IdleCpu, IdleCpu)> {
        let mut c = self.conn()?;
        let list = |c: &mut Conn| self.window_ids(c);
        // The session's first window counts: `windows` shells in all, as in tmux.
        for k in list(&mut c)?.len()..windows {
            c.call(
                "new-window",
                json!({"session": self.session, "name": format!("idle-{k}"), "focus": false}),
            )?;
        }
        let ids = list(&mut c)?;
        for id in &ids {
            poll_until(
                Duration::from_secs(15),
                POLL,
                "an idle shell's prompt",
                || Ok(self.capture(&mut c, id)?.contains(['$', '#']).then_some(())),
            )?;
        }
        drop(c);
        let on = idle_cpu(self.pid, span)?;
        let mut c = self.conn()?;
        c.call(
            "set-option",
            json!({"session": self.session, "key": "daemon.agent_autodetect", "value": "false"}),
        )?;
        drop(c);
        let off = idle_cpu(self.pid, span)?;
        Ok((on, off))
    }

    /// The ids of the windows in the benchmark's session.
    pub(crate) fn window_ids(&self, c: &mut Conn) -> R<Vec<String>> {
        let r = c.call("list-windows", json!({"session": self.session}))?;
        Ok(r.get("windows")
            .and_then(Value::as_array)
            .map(|ws| {
                ws.iter()
                    .filter_map(|w| w.get("window_id").and_then(Value::as_str))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default())
    }
}

impl Drop for Tuios {
    fn drop(&mut self) {
        stop_child(&mut self.child);
    }
}
