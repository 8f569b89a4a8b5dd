//! tuios-bench: the real `tuios` daemon, tmux and a bare PTY reader, measured side by side in
//! one run. See bench/README.md for what each figure means and how to run it.
//!
//! Knobs (environment): TUIOS_BIN (daemon binary; default: `tuios` beside this executable),
//! TUIOS_BENCH_SYSTEMS (comma list of bare,tuios,tmux), TUIOS_BENCH_MIB (flood size, 64),
//! TUIOS_BENCH_RUNS (throughput repeats, 3), TUIOS_BENCH_ROUNDTRIPS (200),
//! TUIOS_BENCH_WINDOWS (50), TUIOS_BENCH_LINES (10000).
//!
//! The binary doubles as the line generator for the memory phase (`--gen-lines W N`), so the
//! windows need nothing but /bin/sh.

use std::ffi::CStr;
use std::fmt::Display;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, ErrorKind, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

type R<T> = Result<T, String>;

fn ctx<E: Display>(what: &str) -> impl FnOnce(E) -> String + '_ {
    move |e| format!("{what}: {e}")
}

const DONE_MARK: &str = "DONE-MARK";
const FLOOD_COLS: u16 = 80;
const FLOOD_ROWS: u16 = 24;
const MEM_COLS: u16 = 120;
const MEM_ROWS: u16 = 24;
/// Interval for completion polls in the throughput and memory phases: fine enough for
/// multi-second measurements, coarse enough that the poller does not steal a core.
const POLL: Duration = Duration::from_millis(10);

// ---------------------------------------------------------------------------------------------
// Configuration

struct Config {
    bin: PathBuf,
    bare: bool,
    tuios: bool,
    tmux: bool,
    mib: usize,
    runs: usize,
    roundtrips: usize,
    windows: usize,
    lines: usize,
}

fn env_num(name: &str, default: usize) -> R<usize> {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("{name}={v:?} is not a positive integer")),
        Err(_) => Ok(default),
    }
}

impl Config {
    fn from_env() -> R<Config> {
        let exe = std::env::current_exe().map_err(ctx("locating this executable"))?;
        let bin = match std::env::var_os("TUIOS_BIN") {
            Some(p) => PathBuf::from(p),
            None => exe.with_file_name("tuios"),
        };
        let systems =
            std::env::var("TUIOS_BENCH_SYSTEMS").unwrap_or_else(|_| "bare,tuios,tmux".into());
        let mut cfg = Config {
            bin,
            bare: false,
            tuios: false,
            tmux: false,
            mib: env_num("TUIOS_BENCH_MIB", 64)?,
            runs: env_num("TUIOS_BENCH_RUNS", 3)?,
            roundtrips: env_num("TUIOS_BENCH_ROUNDTRIPS", 200)?,
            windows: env_num("TUIOS_BENCH_WINDOWS", 50)?,
            lines: env_num("TUIOS_BENCH_LINES", 10_000)?,
        };
        for s in systems.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match s {
                "bare" => cfg.bare = true,
                "tuios" => cfg.tuios = true,
                "tmux" => cfg.tmux = true,
                other => {
                    return Err(format!(
                        "TUIOS_BENCH_SYSTEMS: unknown system {other:?} (bare, tuios, tmux)"
                    ))
                }
            }
        }
        Ok(cfg)
    }
}

// ---------------------------------------------------------------------------------------------
// Deterministic content

/// xorshift64*: deterministic, dependency-free, good enough to vary text.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

const WORDS: &[&str] = &[
    "request", "handler", "session", "window", "buffer", "flush", "commit", "socket", "timeout",
    "retry", "worker", "queue", "render", "parse", "token", "cache", "miss", "hit", "index",
    "shard", "lease", "epoch", "frame", "scroll", "cursor", "resize", "signal", "child", "exit",
    "status", "pending", "ready", "closed", "opened", "bytes", "latency", "upstream", "config",
];
const CJK: &[&str] = &[
    "日本語",
    "テスト",
    "処理完了",
    "中文字符",
    "数据库",
    "错误信息",
    "한국어",
    "연결됨",
    "漢字",
    "端末",
    "画面更新",
    "日志",
    "スクロール",
    "状態",
];
const LEVELS: &[(&str, u8)] = &[
    ("TRACE", 90),
    ("DEBUG", 34),
    ("INFO ", 32),
    ("WARN ", 33),
    ("ERROR", 31),
];

fn push_words(rng: &mut Rng, out: &mut Vec<u8>, n: usize) {
    for i in 0..n {
        if i > 0 {
            out.push(b' ');
        }
        out.extend_from_slice(rng.pick(WORDS).as_bytes());
    }
}

/// One line of the flood: mostly coloured log lines, some long wrapping lines, some CJK, some
/// 256-colour and true-colour tables.
fn flood_line(rng: &mut Rng, n: u64, out: &mut Vec<u8>) {
    let kind = rng.below(100);
    match kind {
        0..=79 => {
            let (level, colour) = *rng.pick(LEVELS);
            let words = 4 + rng.below(10) as usize;
            let _ = write!(
                out,
                "\x1b[2m2024-05-17T{:02}:{:02}:{:02}.{:03}Z\x1b[0m \x1b[1;{colour}m{level}\x1b[0m \x1b[36mtuios::{}\x1b[0m: ",
                (n / 3_600_000) % 24,
                (n / 60_000) % 60,
                (n / 1000) % 60,
                n % 1000,
                rng.pick(WORDS)
            );
            push_words(rng, out, words);
            let _ = writeln!(
                out,
                " id={} \x1b[33m{}ms\x1b[0m",
                rng.below(1_000_000),
                rng.below(5000)
            );
        }
        80..=87 => {
            // Long lines wrap several times at 80 columns.
            let words = 40 + rng.below(400) as usize;
            for i in 0..words {
                if i % 17 == 0 {
                    let _ = write!(out, "\x1b[{}m", 31 + rng.below(7));
                }
                out.extend_from_slice(rng.pick(WORDS).as_bytes());
                out.push(b' ');
            }
            out.extend_from_slice(b"\x1b[0m\n");
        }
        88..=95 => {
            let parts = 3 + rng.below(8);
            for _ in 0..parts {
                let _ = write!(out, "\x1b[{}m{}\x1b[0m ", 91 + rng.below(6), rng.pick(CJK));
                out.extend_from_slice(rng.pick(WORDS).as_bytes());
                out.push(b' ');
            }
            out.push(b'\n');
        }
        _ => {
            for _ in 0..6 {
                let _ = write!(
                    out,
                    "\x1b[38;5;{}m\x1b[48;2;{};{};{}m\x1b[{}m {:>8} \x1b[0m|",
                    rng.below(256),
                    rng.below(64),
                    rng.below(64),
                    rng.below(64),
                    *rng.pick(&[1u8, 3, 4, 7, 22]),
                    rng.below(100_000_000)
                );
            }
            out.push(b'\n');
        }
    }
}

/// Writes the flood file (at least `bytes` long, ending on a line boundary). Returns its size.
fn write_flood(path: &Path, bytes: usize) -> R<u64> {
    let file = File::create(path).map_err(ctx("creating the flood file"))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut rng = Rng::new(64);
    let mut line = Vec::with_capacity(4096);
    let mut total = 0usize;
    let mut n = 0u64;
    while total < bytes {
        line.clear();
        flood_line(&mut rng, n, &mut line);
        w.write_all(&line).map_err(ctx("writing the flood file"))?;
        total += line.len();
        n += 1;
    }
    w.flush().map_err(ctx("writing the flood file"))?;
    Ok(total as u64)
}

/// `--gen-lines W N`: N lines of exactly 120 visible columns with SGR colours, distinct per
/// window W and per line, on stdout.
fn gen_lines(window: u64, lines: u64) -> R<()> {
    let stdout = std::io::stdout();
    let mut w = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut plain = Vec::with_capacity(256);
    for i in 0..lines {
        let mut rng = Rng::new(window * 1_000_003 + i);
        // "WW:IIIII " is 9 columns; 111 more make 120.
        let body = usize::from(MEM_COLS) - 9;
        plain.clear();
        while plain.len() < body {
            plain.extend_from_slice(rng.pick(WORDS).as_bytes());
            let _ = write!(plain, " {} ", rng.below(10_000));
        }
        plain.truncate(body);
        let a = 5 + rng.below(40) as usize;
        let b = a + 10 + rng.below(50) as usize;
        let _ = write!(
            w,
            "\x1b[38;5;{}m{:02}:{:05}\x1b[0m ",
            16 + (window * 7 + i) % 216,
            window % 100,
            i % 100_000
        );
        let _ = w.write_all(&plain[..a]);
        let _ = write!(w, "\x1b[1;32m");
        let _ = w.write_all(&plain[a..b]);
        let _ = write!(w, "\x1b[0;{}m", 31 + rng.below(7));
        let _ = w.write_all(&plain[b..]);
        w.write_all(b"\x1b[0m\n").map_err(ctx("writing lines"))?;
    }
    w.flush().map_err(ctx("writing lines"))
}

// ---------------------------------------------------------------------------------------------
// Small helpers

fn poll_until<T>(
    limit: Duration,
    interval: Duration,
    what: &str,
    mut f: impl FnMut() -> R<Option<T>>,
) -> R<T> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = f()? {
            return Ok(v);
        }
        if Instant::now() >= deadline {
            return Err(format!("timed out after {:?} waiting for {what}", limit));
        }
        if !interval.is_zero() {
            std::thread::sleep(interval);
        }
    }
}

fn rss_kib(pid: u32) -> R<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(ctx("reading /proc status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("no VmRSS for pid {pid}"))
}

/// RSS once it has stopped moving (allocators and lazy work settle shortly after output ends).
fn settled_rss_kib(pid: u32) -> R<u64> {
    let mut last = rss_kib(pid)?;
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(250));
        let now = rss_kib(pid)?;
        if now.abs_diff(last) * 200 <= last {
            return Ok(now);
        }
        last = now;
    }
    Ok(last)
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

fn percentile(v: &[f64], p: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    if s.is_empty() {
        return f64::NAN;
    }
    let idx = ((s.len() - 1) as f64 * p).round() as usize;
    s[idx]
}

/// Whether one row of a plain capture is exactly `needle` (rows come with trailing blanks trimmed,
/// but be lenient).
fn has_row(content: &str, needle: &str) -> bool {
    content.lines().any(|l| l.trim_end() == needle)
}

/// Whether the shell printed its next prompt after the row `result`. Rounds wait for this
/// (untimed) so a command is never typed while the previous prompt is still being printed,
/// which would put the prompt in front of the result on the same row.
fn prompt_after(content: &str, result: &str) -> bool {
    let mut rows = content.lines().map(str::trim_end);
    rows.any(|r| r == result) && rows.any(|r| r == "$" || r == "#")
}

/// Untimed pause between rounds: polls `capture` until the prompt follows `result`.
fn await_prompt(result: &str, mut capture: impl FnMut() -> R<String>) -> R<()> {
    poll_until(
        Duration::from_secs(10),
        Duration::from_millis(1),
        "the prompt after a round trip",
        || Ok(prompt_after(&capture()?, result).then_some(())),
    )
}

fn stop_child(child: &mut Child) {
    if let Ok(Some(_)) = child.try_wait() {
        return;
    }
    let pid = child.id() as libc::pid_t;
    // SAFETY: plain kill(2) on the pid of a child we spawned and have not reaped yet.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

// ---------------------------------------------------------------------------------------------
// Bare PTY

struct Pty {
    master: File,
    slave: Option<File>,
}

fn open_pty(cols: u16, rows: u16) -> R<Pty> {
    // SAFETY: libc PTY calls on a descriptor we own; ptsname_r writes into our buffer.
    unsafe {
        let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(format!("posix_openpt: {}", std::io::Error::last_os_error()));
        }
        let master = File::from(OwnedFd::from_raw_fd(fd));
        if libc::grantpt(fd) != 0 || libc::unlockpt(fd) != 0 {
            return Err(format!(
                "grantpt/unlockpt: {}",
                std::io::Error::last_os_error()
            ));
        }
        let mut name = [0 as libc::c_char; 128];
        if libc::ptsname_r(fd, name.as_mut_ptr(), name.len()) != 0 {
            return Err(format!("ptsname_r: {}", std::io::Error::last_os_error()));
        }
        let sfd = libc::open(
            name.as_ptr(),
            libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC,
        );
        if sfd < 0 {
            let path = CStr::from_ptr(name.as_ptr()).to_string_lossy().into_owned();
            return Err(format!("open {path}: {}", std::io::Error::last_os_error()));
        }
        let slave = File::from(OwnedFd::from_raw_fd(sfd));
        let ws = libc::winsize {
            ws_row: rows,
            ws_col: cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        if libc::ioctl(fd, libc::TIOCSWINSZ, &ws) != 0 {
            return Err(format!("TIOCSWINSZ: {}", std::io::Error::last_os_error()));
        }
        Ok(Pty {
            master,
            slave: Some(slave),
        })
    }
}

impl Pty {
    /// Starts `argv` on the slave as a session leader with the PTY as its controlling terminal,
    /// then drops our slave so the end of output shows as EIO.
    fn spawn(&mut self, argv: &[&str], env: &[(&str, &str)]) -> R<Child> {
        let slave = self.slave.take().ok_or("PTY slave already used")?;
        let io = |f: &File| f.try_clone().map(Stdio::from).map_err(ctx("dup slave"));
        let mut cmd = Command::new(argv[0]);
        cmd.args(&argv[1..])
            .stdin(io(&slave)?)
            .stdout(io(&slave)?)
            .stderr(io(&slave)?);
        cmd.env_remove("ENV").envs(env.iter().copied());
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().map_err(ctx("spawning on the PTY"))?;
        drop(slave);
        Ok(child)
    }

    /// Waits up to `limit` for the master to become readable.
    fn readable(&self, limit: Duration) -> R<bool> {
        let mut pfd = libc::pollfd {
            fd: self.master.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = limit.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: one pollfd on a descriptor we own.
        let n = unsafe { libc::poll(&mut pfd, 1, ms) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == ErrorKind::Interrupted {
                return Ok(false);
            }
            return Err(format!("poll: {e}"));
        }
        Ok(n > 0)
    }

    /// Reads into `acc` until `done(acc)` or the deadline.
    fn read_until(
        &mut self,
        acc: &mut Vec<u8>,
        limit: Duration,
        what: &str,
        done: impl Fn(&[u8]) -> bool,
    ) -> R<()> {
        let deadline = Instant::now() + limit;
        let mut buf = [0u8; 65536];
        while !done(acc) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                let tail =
                    String::from_utf8_lossy(&acc[acc.len().saturating_sub(200)..]).into_owned();
                return Err(format!(
                    "bare PTY: timed out waiting for {what}; last output: {tail:?}"
                ));
            }
            if !self.readable(left)? {
                continue;
            }
            match self.master.read(&mut buf) {
                Ok(0) => return Err(format!("bare PTY: end of output before {what}")),
                Ok(n) => acc.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("bare PTY read: {e}")),
            }
        }
        Ok(())
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// The physical limit: `cat FILE` on a PTY drained in 64 KiB reads until EIO.
fn bare_throughput(file: &Path, size: u64) -> R<f64> {
    let mut pty = open_pty(FLOOD_COLS, FLOOD_ROWS)?;
    let t0 = Instant::now();
    let mut child = pty.spawn(&["cat", &file.to_string_lossy()], &[])?;
    let mut buf = vec![0u8; 65536];
    let mut total = 0u64;
    loop {
        match pty.master.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => total += n as u64,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            // EIO: every slave descriptor is closed, i.e. cat exited and all output was read.
            Err(e) if e.raw_os_error() == Some(libc::EIO) => break,
            Err(e) => return Err(format!("bare PTY read: {e}")),
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    let status = child.wait().map_err(ctx("waiting for cat"))?;
    if !status.success() {
        return Err(format!("cat exited with {status}"));
    }
    // ONLCR only adds bytes, so anything short of the file size means lost output.
    if total < size {
        return Err(format!("read {total} bytes of a {size}-byte file"));
    }
    Ok(secs)
}

/// Round trip on a bare PTY: write the command line, read until the shell printed the result.
fn bare_roundtrip(n: usize, home: &Path) -> R<Vec<f64>> {
    let mut pty = open_pty(FLOOD_COLS, FLOOD_ROWS)?;
    let home = home.to_string_lossy();
    let mut child = pty.spawn(
        &["/bin/sh", "-i"],
        &[("PS1", "$ "), ("HOME", &home), ("TERM", "xterm-256color")],
    )?;
    let result = (|| {
        let mut acc = Vec::new();
        pty.read_until(&mut acc, Duration::from_secs(10), "the first prompt", |a| {
            contains(a, b"$ ")
        })?;
        let mut times = Vec::with_capacity(n);
        for i in 0..n {
            acc.clear();
            let want = format!("\n{}\r\n", i + 1000).into_bytes();
            let t0 = Instant::now();
            pty.master
                .write_all(format!("echo $(({i}+1000))\n").as_bytes())
                .map_err(ctx("writing to the PTY"))?;
            pty.read_until(&mut acc, Duration::from_secs(10), "the echo result", |a| {
                contains(a, &want)
            })?;
            times.push(t0.elapsed().as_secs_f64() * 1e3);
            let prompt = format!("\n{}\r\n$ ", i + 1000).into_bytes();
            pty.read_until(&mut acc, Duration::from_secs(10), "the next prompt", |a| {
                contains(a, &prompt)
            })?;
        }
        Ok(times)
    })();
    stop_child(&mut child);
    result
}

// ---------------------------------------------------------------------------------------------
// tuios

struct Conn {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    next_id: u64,
}

impl Conn {
    fn open(sock: &Path) -> R<Conn> {
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

    fn call(&mut self, verb: &str, params: Value) -> R<Value> {
        self.send(verb, params)?;
        Conn::result(self.recv()?)
    }
}

struct Tuios {
    child: Child,
    sock: PathBuf,
    env: Vec<(String, String)>,
    bin: PathBuf,
    log: PathBuf,
    pid: u32,
    session: String,
}

impl Tuios {
    fn start(bin: &Path, dir: &Path, tag: &str) -> R<Tuios> {
        if !bin.is_file() {
            return Err(format!(
                "no tuios binary at {} (build it: cargo build --release -p tuios-client, or set TUIOS_BIN)",
                bin.display()
            ));
        }
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
            ("SHELL".into(), "/bin/sh".into()),
            ("TUIOS_LOG".into(), "warn".into()),
            ("LC_ALL".into(), "C.UTF-8".into()),
            ("PS1".into(), "$ ".into()),
        ];
        let child = Command::new(bin)
            .arg("daemon")
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("ENV")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(File::create(&log).map_err(ctx("creating the daemon log"))?)
            .spawn()
            .map_err(ctx("starting tuios daemon"))?;
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

    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    fn cli(&self, args: &[&str]) -> R<std::process::Output> {
        Command::new(&self.bin)
            .args(args)
            .env_remove("XDG_RUNTIME_DIR")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .output()
            .map_err(ctx("running the tuios CLI"))
    }

    fn conn(&self) -> R<Conn> {
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

    fn capture(&self, c: &mut Conn, window: &str) -> R<String> {
        let r = c.call(
            "capture-pane",
            json!({"session": self.session, "window": window, "source": "visible"}),
        )?;
        Ok(r.get("content")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string())
    }

    fn throughput(&self, file: &Path, run: usize) -> R<f64> {
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

    fn roundtrip(&self, n: usize) -> R<(Vec<f64>, &'static str)> {
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
    fn memory(&self, windows: usize, lines: usize, exe: &str) -> R<(f64, usize)> {
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

impl Drop for Tuios {
    fn drop(&mut self) {
        stop_child(&mut self.child);
    }
}

// ---------------------------------------------------------------------------------------------
// tmux

struct Tmux {
    name: String,
    env: Vec<(String, String)>,
}

impl Tmux {
    fn start(dir: &Path, tag: &str) -> R<Tmux> {
        let home = dir.join(format!("home-tmux-{tag}"));
        std::fs::create_dir_all(&home).map_err(ctx("creating the tmux home"))?;
        let t = Tmux {
            name: format!("tuiosbench-{}-{tag}", std::process::id()),
            env: vec![
                ("SHELL".into(), "/bin/sh".into()),
                ("HOME".into(), home.to_string_lossy().into_owned()),
                ("PS1".into(), "$ ".into()),
                ("LC_ALL".into(), "C.UTF-8".into()),
            ],
        };
        // Options before any measured window exists; history-limit applies to panes made later.
        t.run(&[
            "new-session",
            "-d",
            "-s",
            "base",
            "-x",
            "80",
            "-y",
            "24",
            ";",
            "set",
            "-g",
            "status",
            "off",
            ";",
            "set",
            "-g",
            "remain-on-exit",
            "on",
            ";",
            "set",
            "-g",
            "history-limit",
            "10000",
            ";",
            "set",
            "-g",
            "default-shell",
            "/bin/sh",
            ";",
            "set",
            "-g",
            "default-terminal",
            "screen-256color",
        ])?;
        Ok(t)
    }

    fn run(&self, args: &[&str]) -> R<String> {
        let out = Command::new("tmux")
            .args(["-L", &self.name, "-f", "/dev/null"])
            .args(args)
            .env_remove("TMUX")
            .env_remove("ENV")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .output()
            .map_err(ctx("running tmux"))?;
        if !out.status.success() {
            return Err(format!(
                "tmux {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn server_pid(&self) -> R<u32> {
        let s = self.run(&["display", "-p", "-t", "base", "#{pid}"])?;
        s.trim()
            .parse()
            .map_err(|_| format!("tmux server pid {s:?}"))
    }

    /// The tmux twin of `Tuios::gated_window`; returns the pane id.
    fn gated_window(
        &self,
        session: &str,
        script: &str,
        arg0: &str,
        cols: u16,
        rows: u16,
    ) -> R<String> {
        let target = format!("{session}:");
        let full = format!("read x; {script}");
        let pane = self.run(&[
            "new-window",
            "-d",
            "-t",
            &target,
            "-P",
            "-F",
            "#{pane_id}",
            "/bin/sh",
            "-c",
            &full,
            arg0,
        ])?;
        let pane = pane.trim().to_string();
        self.run(&[
            "resize-window",
            "-t",
            &pane,
            "-x",
            &cols.to_string(),
            "-y",
            &rows.to_string(),
        ])?;
        let size = self.run(&["display", "-p", "-t", &pane, "#{pane_width}x#{pane_height}"])?;
        if size.trim() != format!("{cols}x{rows}") {
            return Err(format!(
                "tmux pane is {} instead of {cols}x{rows}",
                size.trim()
            ));
        }
        Ok(pane)
    }

    fn capture(&self, pane: &str) -> R<String> {
        self.run(&["capture-pane", "-p", "-t", pane])
    }

    fn throughput(&self, file: &Path) -> R<f64> {
        // The shell outlives cat: tmux 3.3 stops reading a pane whose program has exited and
        // drops what is still queued in the PTY (seen here: the last few KiB of a flood and the
        // marker went missing), so an exiting program would never show its marker.
        let pane = self.gated_window(
            "base",
            &format!("cat \"$0\"; printf '\\n{DONE_MARK}\\n'; exec sleep 100000"),
            &file.to_string_lossy(),
            FLOOD_COLS,
            FLOOD_ROWS,
        )?;
        self.run(&["send-keys", "-t", &pane, "Enter"])?;
        let t0 = Instant::now();
        poll_until(
            Duration::from_secs(300),
            POLL,
            "DONE-MARK in the tmux pane",
            || Ok(self.capture(&pane)?.contains(DONE_MARK).then_some(())),
        )?;
        let secs = t0.elapsed().as_secs_f64();
        let _ = self.run(&["kill-window", "-t", &pane]);
        Ok(secs)
    }

    fn roundtrip(&self, n: usize) -> R<Vec<f64>> {
        let pane = self.run(&[
            "new-window",
            "-d",
            "-t",
            "base:",
            "-P",
            "-F",
            "#{pane_id}",
            "/bin/sh",
            "-i",
        ])?;
        let pane = pane.trim().to_string();
        self.run(&["resize-window", "-t", &pane, "-x", "80", "-y", "24"])?;
        poll_until(
            Duration::from_secs(15),
            POLL,
            "the tmux shell prompt",
            || Ok(self.capture(&pane)?.contains(['$', '#']).then_some(())),
        )?;
        let mut times = Vec::with_capacity(n);
        for i in 0..n {
            let want = (i + 1000).to_string();
            let text = format!("echo $(({i}+1000))");
            let t0 = Instant::now();
            self.run(&["send-keys", "-t", &pane, &text, "Enter"])?;
            poll_until(
                Duration::from_secs(10),
                Duration::ZERO,
                "the echo result in tmux",
                || Ok(has_row(&self.capture(&pane)?, &want).then_some(())),
            )?;
            times.push(t0.elapsed().as_secs_f64() * 1e3);
            await_prompt(&want, || self.capture(&pane))?;
        }
        let _ = self.run(&["kill-window", "-t", &pane]);
        Ok(times)
    }

    fn memory(&self, windows: usize, lines: usize, exe: &str) -> R<(f64, usize)> {
        self.run(&["new-session", "-d", "-s", "mem", "-x", "120", "-y", "24"])?;
        let pid = self.server_pid()?;
        let before = settled_rss_kib(pid)?;
        let mut panes = Vec::with_capacity(windows);
        for k in 0..windows {
            let script =
                format!("\"$0\" --gen-lines {k} {lines}; echo GEN-DONE-{k}.; exec sleep 100000");
            panes.push(self.gated_window("mem", &script, exe, MEM_COLS, MEM_ROWS)?);
        }
        for p in &panes {
            self.run(&["send-keys", "-t", p, "Enter"])?;
        }
        for (k, p) in panes.iter().enumerate() {
            let mark = format!("GEN-DONE-{k}.");
            poll_until(
                Duration::from_secs(300),
                Duration::from_millis(50),
                &mark,
                || Ok(self.capture(p)?.contains(&mark).then_some(())),
            )?;
        }
        let after = settled_rss_kib(pid)?;
        let hist = self.run(&["display", "-p", "-t", &panes[0], "#{history_size}"])?;
        let rows = hist.trim().parse::<usize>().unwrap_or(0);
        Ok((after.saturating_sub(before) as f64 / windows as f64, rows))
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

// ---------------------------------------------------------------------------------------------
// Report

#[derive(Default)]
struct Figures {
    tp: [Option<R<f64>>; 3],      // seconds, median; [bare, tuios, tmux]
    rt: [Option<R<Vec<f64>>>; 3], // milliseconds, all samples
    mem: [Option<R<f64>>; 3],     // KiB per window
    notes: Vec<String>,
}

fn cell(v: &Option<R<f64>>, fmt: impl Fn(f64) -> String) -> String {
    match v {
        None => "skipped".into(),
        Some(Ok(x)) => fmt(*x),
        Some(Err(_)) => "failed".into(),
    }
}

fn ok(v: &Option<R<f64>>) -> Option<f64> {
    match v {
        Some(Ok(x)) => Some(*x),
        _ => None,
    }
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}x", a / b),
        _ => "n/a".into(),
    }
}

fn verdict(v: Option<f64>, pass: impl Fn(f64) -> bool) -> String {
    match v {
        None => "unmeasured".into(),
        Some(x) if pass(x) => "yes".into(),
        Some(_) => "NO".into(),
    }
}

fn print_table(f: &Figures, flood_bytes: u64) {
    let mb = flood_bytes as f64 / 1e6;
    let tp: Vec<Option<R<f64>>> = f.tp.to_vec();
    let rt_stat = |p: Option<f64>| -> Vec<Option<R<f64>>> {
        f.rt.iter()
            .map(|x| {
                x.as_ref().map(|r| match r {
                    Ok(v) => Ok(p.map_or_else(|| median(v), |p| percentile(v, p))),
                    Err(e) => Err(e.clone()),
                })
            })
            .collect()
    };
    let rt_med = rt_stat(None);
    let rt_p90 = rt_stat(Some(0.9));
    let mem: Vec<Option<R<f64>>> = f.mem.to_vec();

    let secs = |x: f64| format!("{x:.2} s ({:.1} MB/s)", mb / x);
    let ms = |x: f64| format!("{x:.3} ms");
    let mbw = |x: f64| format!("{:.2} MB", x * 1024.0 / 1e6);
    let tp_ratio = ok(&tp[1]).zip(ok(&tp[0])).map(|(a, b)| a / b);

    let mut rows: Vec<[String; 8]> = vec![[
        "metric".into(),
        "bare".into(),
        "tuios".into(),
        "tmux".into(),
        "tuios/bare".into(),
        "tmux/bare".into(),
        "target".into(),
        "met?".into(),
    ]];
    rows.push([
        format!("(a) throughput, {mb:.0} MB, median"),
        cell(&tp[0], secs),
        cell(&tp[1], secs),
        cell(&tp[2], secs),
        ratio(ok(&tp[1]), ok(&tp[0])),
        ratio(ok(&tp[2]), ok(&tp[0])),
        "tuios/bare <= 1.5x".into(),
        verdict(tp_ratio, |r| r <= 1.5),
    ]);
    rows.push([
        "(b) round trip, median".into(),
        cell(&rt_med[0], ms),
        cell(&rt_med[1], ms),
        cell(&rt_med[2], ms),
        ratio(ok(&rt_med[1]), ok(&rt_med[0])),
        ratio(ok(&rt_med[2]), ok(&rt_med[0])),
        "tuios <= 1 ms".into(),
        verdict(ok(&rt_med[1]), |x| x <= 1.0),
    ]);
    rows.push([
        "(b) round trip, p90".into(),
        cell(&rt_p90[0], ms),
        cell(&rt_p90[1], ms),
        cell(&rt_p90[2], ms),
        ratio(ok(&rt_p90[1]), ok(&rt_p90[0])),
        ratio(ok(&rt_p90[2]), ok(&rt_p90[0])),
        "-".into(),
        "-".into(),
    ]);
    rows.push([
        "(c) memory per window (RSS)".into(),
        "n/a".into(),
        cell(&mem[1], mbw),
        cell(&mem[2], mbw),
        "n/a".into(),
        "n/a".into(),
        "tuios <= 2.5 MB".into(),
        verdict(ok(&mem[1]).map(|k| k * 1024.0 / 1e6), |x| x <= 2.5),
    ]);
    let mut widths = [0usize; 8];
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    for (i, r) in rows.iter().enumerate() {
        let line: Vec<String> = r
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        println!("{}", line.join(" | ").trim_end());
        if i == 0 {
            let sep: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            println!("{}", sep.join("-|-"));
        }
    }
    println!();
    println!(
        "MB = 10^6 bytes. Throughput: time from releasing the program until its end marker is in"
    );
    println!("the emulator (bare: until EIO). Memory: (RSS after - RSS before) / windows.");
    for n in &f.notes {
        println!("note: {n}");
    }
    let errors: Vec<String> = [
        ("throughput", &tp),
        ("round trip", &rt_med),
        ("memory", &mem),
    ]
    .iter()
    .flat_map(|(m, v)| {
        v.iter()
            .zip(["bare", "tuios", "tmux"])
            .filter_map(move |(x, s)| match x {
                Some(Err(e)) => Some(format!("{m} / {s}: {e}")),
                _ => None,
            })
    })
    .collect();
    for e in errors {
        println!("FAILED {e}");
    }
}

// ---------------------------------------------------------------------------------------------
// Main

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn log(msg: impl Display) {
    eprintln!("[bench] {msg}");
}

fn run(cfg: &Config) -> R<()> {
    let started = Instant::now();
    let exe = std::env::current_exe().map_err(ctx("locating this executable"))?;
    let exe = exe.to_string_lossy().into_owned();
    let dir = TempDir(std::env::temp_dir().join(format!("tuios-bench-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).map_err(ctx("creating the temp dir"))?;
    let file = dir.0.join("flood.txt");
    log(format_args!("generating {} MiB of coloured text", cfg.mib));
    let flood_bytes = write_flood(&file, cfg.mib << 20)?;

    let mut f = Figures::default();
    if cfg.tmux {
        let v = Command::new("tmux")
            .arg("-V")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
        f.notes.push(format!(
            "tmux: {}",
            v.unwrap_or_else(|e| format!("not runnable ({e})"))
        ));
    }
    if cfg.tuios {
        f.notes.push(format!("tuios: {}", cfg.bin.display()));
    }

    // Phases (a) and (b) share one daemon and one tmux server; (c) gets fresh ones so memory
    // freed by earlier phases cannot be reused and hide the growth.
    let tuios = if cfg.tuios {
        Some(Tuios::start(&cfg.bin, &dir.0, "a"))
    } else {
        None
    };
    let tmux = if cfg.tmux {
        Some(Tmux::start(&dir.0, "a"))
    } else {
        None
    };
    if let Some(Err(e)) = &tuios {
        f.tp[1] = Some(Err(e.clone()));
        f.rt[1] = Some(Err(e.clone()));
    }
    if let Some(Err(e)) = &tmux {
        f.tp[2] = Some(Err(e.clone()));
        f.rt[2] = Some(Err(e.clone()));
    }
    let tuios = tuios.and_then(Result::ok);
    let tmux = tmux.and_then(Result::ok);

    let mut samples: [Vec<f64>; 3] = Default::default();
    let mut failed: [Option<String>; 3] = Default::default();
    for run in 0..cfg.runs {
        // Interleaved so drift on the machine hits all three alike.
        if cfg.bare && failed[0].is_none() {
            log(format_args!("(a) throughput run {} bare", run + 1));
            match bare_throughput(&file, flood_bytes) {
                Ok(s) => samples[0].push(s),
                Err(e) => failed[0] = Some(e),
            }
        }
        if let Some(t) = tuios.as_ref().filter(|_| failed[1].is_none()) {
            log(format_args!("(a) throughput run {} tuios", run + 1));
            match t.throughput(&file, run) {
                Ok(s) => samples[1].push(s),
                Err(e) => failed[1] = Some(format!("{e}\n{}", t.log_tail())),
            }
        }
        if let Some(t) = tmux.as_ref().filter(|_| failed[2].is_none()) {
            log(format_args!("(a) throughput run {} tmux", run + 1));
            match t.throughput(&file) {
                Ok(s) => samples[2].push(s),
                Err(e) => failed[2] = Some(e),
            }
        }
    }
    for i in 0..3 {
        if let Some(e) = failed[i].take() {
            f.tp[i] = Some(Err(e));
        } else if !samples[i].is_empty() {
            f.notes.push(format!(
                "throughput runs {}: {}",
                ["bare", "tuios", "tmux"][i],
                samples[i]
                    .iter()
                    .map(|s| format!("{s:.2}s"))
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
            f.tp[i] = Some(Ok(median(&samples[i])));
        }
    }

    if cfg.bare {
        log("(b) round trip bare");
        f.rt[0] = Some(bare_roundtrip(cfg.roundtrips, &dir.0));
    }
    if let Some(t) = &tuios {
        log("(b) round trip tuios");
        f.rt[1] = Some(t.roundtrip(cfg.roundtrips).map(|(v, how)| {
            f.notes.push(format!("tuios round trip waits with {how}"));
            v
        }));
    }
    if let Some(t) = &tmux {
        log("(b) round trip tmux");
        f.rt[2] = Some(t.roundtrip(cfg.roundtrips));
    }
    drop(tuios);
    drop(tmux);

    if cfg.tuios {
        log(format_args!(
            "(c) memory tuios: {} windows x {} lines",
            cfg.windows, cfg.lines
        ));
        let r = Tuios::start(&cfg.bin, &dir.0, "c").and_then(|t| {
            t.memory(cfg.windows, cfg.lines, &exe)
                .map_err(|e| format!("{e}\n{}", t.log_tail()))
        });
        f.mem[1] = Some(r.map(|(kib, rows)| {
            f.notes.push(format!(
                "tuios scrollback+screen rows in one memory window: {rows}"
            ));
            kib
        }));
    }
    if cfg.tmux {
        log(format_args!(
            "(c) memory tmux: {} windows x {} lines",
            cfg.windows, cfg.lines
        ));
        let r = Tmux::start(&dir.0, "c").and_then(|t| t.memory(cfg.windows, cfg.lines, &exe));
        f.mem[2] = Some(r.map(|(kib, rows)| {
            f.notes
                .push(format!("tmux history rows in one memory window: {rows}"));
            kib
        }));
    }
    f.notes.push(format!(
        "{} throughput runs, {} round trips, {} windows x {} lines; total {:.0} s",
        cfg.runs,
        cfg.roundtrips,
        cfg.windows,
        cfg.lines,
        started.elapsed().as_secs_f64()
    ));
    print_table(&f, flood_bytes);
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--gen-lines") {
        let num = |i: usize| args.get(i).and_then(|s| s.parse::<u64>().ok());
        let (Some(w), Some(n)) = (num(2), num(3)) else {
            eprintln!("usage: tuios-bench --gen-lines WINDOW LINES");
            std::process::exit(2);
        };
        if let Err(e) = gen_lines(w, n) {
            eprintln!("tuios-bench: {e}");
            std::process::exit(1);
        }
        return;
    }
    if args.len() > 1 {
        eprintln!("usage: tuios-bench  (configure with TUIOS_BIN and TUIOS_BENCH_* variables; see bench/README.md)");
        std::process::exit(2);
    }
    let result = Config::from_env().and_then(|cfg| run(&cfg));
    if let Err(e) = result {
        eprintln!("tuios-bench: {e}");
        std::process::exit(1);
    }
}
