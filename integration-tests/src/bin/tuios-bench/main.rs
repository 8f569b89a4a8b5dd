//! tuios-bench: the real `tuios` daemon, tmux and a bare PTY reader, measured side by side in
//! one run. See bench/README.md for what each figure means and how to run it.
//!
//! Knobs (environment): TUIOS_BIN (daemon binary; default: `tuios` beside this executable),
//! TUIOS_BENCH_SYSTEMS (comma list of bare,tuios,tmux), TUIOS_BENCH_PHASES (comma list of
//! throughput,roundtrip,memory,latency,idle,attached,keys,scale,startup), TUIOS_BENCH_MIB (flood
//! size, 64),
//! TUIOS_BENCH_RUNS (throughput repeats, 3), TUIOS_BENCH_ROUNDTRIPS (200),
//! TUIOS_BENCH_WINDOWS (50), TUIOS_BENCH_LINES (10000), TUIOS_BENCH_LATENCY (500),
//! TUIOS_BENCH_IDLE_WINDOWS (50), TUIOS_BENCH_IDLE_SECS (10), TUIOS_BENCH_ATTACH_RUNS (3),
//! TUIOS_BENCH_KEYS (50), TUIOS_BENCH_SCALE_WINDOWS (1000), TUIOS_BENCH_STARTS (10),
//! TUIOS_BENCH_CLI_RUNS (50).
//!
//! The binary doubles as the line generator for the memory phase (`--gen-lines W N`), so the
//! windows need nothing but /bin/sh.

use std::ffi::CStr;
use std::fmt::Display;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, ErrorKind, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod neighbour;

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
    phases: Phases,
    latency: usize,
    idle_windows: usize,
    idle_secs: usize,
    attach_runs: usize,
    keys: usize,
    scale_windows: usize,
    starts: usize,
    cli_runs: usize,
    neighbour: neighbour::Knobs,
}

/// Which parts of the benchmark run (TUIOS_BENCH_PHASES).
#[derive(Clone, Copy)]
struct Phases {
    throughput: bool,
    roundtrip: bool,
    memory: bool,
    latency: bool,
    idle: bool,
    attached: bool,
    keys: bool,
    scale: bool,
    startup: bool,
    neighbour: bool,
}

impl Phases {
    const ALL: &'static str =
        "throughput,roundtrip,memory,latency,idle,attached,keys,scale,startup,neighbour";

    fn parse(list: &str) -> R<Phases> {
        let mut p = Phases {
            throughput: false,
            roundtrip: false,
            memory: false,
            latency: false,
            idle: false,
            attached: false,
            keys: false,
            scale: false,
            startup: false,
            neighbour: false,
        };
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let flag = match name {
                "throughput" => &mut p.throughput,
                "roundtrip" => &mut p.roundtrip,
                "memory" => &mut p.memory,
                "latency" => &mut p.latency,
                "idle" => &mut p.idle,
                "attached" => &mut p.attached,
                "keys" => &mut p.keys,
                "scale" => &mut p.scale,
                "startup" => &mut p.startup,
                "neighbour" => &mut p.neighbour,
                other => {
                    return Err(format!(
                        "TUIOS_BENCH_PHASES: unknown phase {other:?} ({})",
                        Phases::ALL
                    ))
                }
            };
            *flag = true;
        }
        Ok(p)
    }
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
            phases: Phases::parse(
                &std::env::var("TUIOS_BENCH_PHASES").unwrap_or_else(|_| Phases::ALL.into()),
            )?,
            latency: env_num("TUIOS_BENCH_LATENCY", 500)?,
            idle_windows: env_num("TUIOS_BENCH_IDLE_WINDOWS", 50)?,
            idle_secs: env_num("TUIOS_BENCH_IDLE_SECS", 10)?,
            attach_runs: env_num("TUIOS_BENCH_ATTACH_RUNS", 3)?,
            keys: env_num("TUIOS_BENCH_KEYS", 50)?,
            scale_windows: env_num("TUIOS_BENCH_SCALE_WINDOWS", 1000)?,
            starts: env_num("TUIOS_BENCH_STARTS", 10)?,
            cli_runs: env_num("TUIOS_BENCH_CLI_RUNS", 50)?,
            neighbour: neighbour::Knobs {
                keys: env_num("TUIOS_BENCH_NEIGHBOUR_KEYS", 100)?,
                rounds: env_num("TUIOS_BENCH_NEIGHBOUR_ROUNDS", 5)?,
                mib: env_num("TUIOS_BENCH_NEIGHBOUR_MIB", 16)?,
            },
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
/// Stable means within 0.5% for [`RSS_STABLE`]: longer than the delayed work after output
/// (tuios packs scrollback 2 s after output and gives freed pages back at most once a second),
/// so a pause between two steps of it is not taken for the end.
fn settled_rss_kib(pid: u32) -> R<u64> {
    const RSS_STABLE: Duration = Duration::from_secs(4);
    let mut base = rss_kib(pid)?;
    let mut since = Instant::now();
    let deadline = since + Duration::from_secs(30);
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(250));
        let now = rss_kib(pid)?;
        if now.abs_diff(base) * 200 > base {
            base = now;
            since = Instant::now();
        } else if since.elapsed() >= RSS_STABLE {
            return Ok(now);
        }
    }
    rss_kib(pid)
}

/// utime + stime of a process (all its threads, live and exited), in milliseconds. The kernel
/// counts in clock ticks, so the resolution is 1000 / CLK_TCK ms (10 ms on most systems).
fn cpu_ms(pid: u32) -> R<f64> {
    let stat =
        std::fs::read_to_string(format!("/proc/{pid}/stat")).map_err(ctx("reading /proc stat"))?;
    // The command name may hold spaces and parentheses; the fields after its last `)` are plain.
    let rest = stat
        .rsplit_once(')')
        .map(|(_, r)| r)
        .ok_or_else(|| format!("unexpected /proc/{pid}/stat"))?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let num = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<u64>().ok())
            .ok_or_else(|| format!("unexpected /proc/{pid}/stat"))
    };
    // utime and stime are fields 14 and 15 of proc(5); `rest` starts at field 3.
    let ticks = num(11)? + num(12)?;
    // SAFETY: sysconf has no memory preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let hz = if hz > 0 { hz as f64 } else { 100.0 };
    Ok(ticks as f64 * 1000.0 / hz)
}

/// Time on CPU of every live thread of `pid`, in nanoseconds (schedstat), keyed by thread id.
/// Exact, unlike `cpu_ms`, but a thread that exits takes its time with it.
fn thread_cpu_ns(pid: u32) -> R<Vec<(u32, u64)>> {
    let dir = std::fs::read_dir(format!("/proc/{pid}/task")).map_err(ctx("reading /proc task"))?;
    let mut out = Vec::new();
    for entry in dir.flatten() {
        let Some(tid) = entry
            .file_name()
            .to_str()
            .and_then(|t| t.parse::<u32>().ok())
        else {
            continue;
        };
        // A thread can end between the listing and the read: it just drops out.
        let Ok(text) = std::fs::read_to_string(entry.path().join("schedstat")) else {
            continue;
        };
        if let Some(ns) = text
            .split_whitespace()
            .next()
            .and_then(|v| v.parse::<u64>().ok())
        {
            out.push((tid, ns));
        }
    }
    if out.is_empty() {
        return Err(format!("no schedstat for pid {pid}"));
    }
    out.sort_unstable();
    Ok(out)
}

/// Waits until `pid` has used no CPU time for `quiet`; returns when its CPU time last moved
/// (`since` when it did not move at all after it). Thread schedstat (nanoseconds) is used
/// when the kernel has it: clock ticks would hide a process that works a few ms at a time.
fn cpu_quiet(pid: u32, since: Instant, quiet: Duration, limit: Duration) -> R<Instant> {
    let sample = || -> R<Vec<(u32, u64)>> {
        match thread_cpu_ns(pid) {
            Ok(v) => Ok(v),
            Err(_) => Ok(vec![(0, (cpu_ms(pid)? * 1e6) as u64)]),
        }
    };
    let deadline = Instant::now() + limit;
    let mut last = sample()?;
    let mut moved = since;
    let mut checked = Instant::now();
    loop {
        std::thread::sleep(POLL);
        let now = sample()?;
        let at = Instant::now();
        if now != last {
            last = now;
            // The time moved somewhere between the two readings.
            moved = checked + (at - checked) / 2;
        } else if at.duration_since(moved) >= quiet {
            return Ok(moved);
        }
        checked = at;
        if at >= deadline {
            return Err(format!(
                "pid {pid} was still using CPU after {limit:?} (no {quiet:?} without)"
            ));
        }
    }
}

/// CPU time used over a span with nothing asked of the process: utime+stime in ms, and the
/// threads' schedstat in ms (None without schedstat), which misses what threads that ended
/// during the span used (`ended` counts them).
struct IdleCpu {
    ms: f64,
    exact_ms: Option<f64>,
    ended: usize,
}

/// Measures `pid` over `span`, once work left over from setting up has stopped.
fn idle_cpu(pid: u32, span: Duration) -> R<IdleCpu> {
    // A periodic timer never lets this settle; the span then simply starts after the limit.
    // Quiet means longer than tuios's one-second save debounce (and the checks that follow a
    // change), so the save caused by setting up is not counted as idle.
    let _ = cpu_quiet(
        pid,
        Instant::now(),
        Duration::from_millis(1500),
        Duration::from_secs(10),
    );
    let threads0 = thread_cpu_ns(pid).ok();
    let before = cpu_ms(pid)?;
    std::thread::sleep(span);
    let ms = cpu_ms(pid)? - before;
    let threads1 = thread_cpu_ns(pid).ok();
    let (mut exact_ms, mut ended) = (None, 0);
    if let (Some(a), Some(b)) = (threads0, threads1) {
        let at_start = |tid: u32| a.iter().find(|t| t.0 == tid).map_or(0, |t| t.1);
        // A thread that started during the span used all its time in it.
        let ns: u64 = b.iter().map(|t| t.1.saturating_sub(at_start(t.0))).sum();
        exact_ms = Some(ns as f64 / 1e6);
        ended = a.iter().filter(|t| !b.iter().any(|u| u.0 == t.0)).count();
    }
    Ok(IdleCpu {
        ms,
        exact_ms,
        ended,
    })
}

/// Single quotes for /bin/sh.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn window_id(created: &Value) -> R<String> {
    created
        .get("window_id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("new-window result without window_id: {created}"))
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

/// The program of the latency phase: answers each input line N with a line `M-N`.
const LATENCY_SCRIPT: &str = "while read n; do echo M-$n; done";

/// The bare floor of the latency phase: write `N` plus newline to the PTY, read until `M-N`.
fn bare_latency(n: usize) -> R<Vec<f64>> {
    let mut pty = open_pty(FLOOD_COLS, FLOOD_ROWS)?;
    let mut child = pty.spawn(&["/bin/sh", "-c", LATENCY_SCRIPT], &[])?;
    let result = (|| {
        let mut acc = Vec::new();
        let mut times = Vec::with_capacity(n);
        for i in 0..n {
            acc.clear();
            let want = format!("\nM-{i}\r\n").into_bytes();
            let t0 = Instant::now();
            pty.master
                .write_all(format!("{i}\n").as_bytes())
                .map_err(ctx("writing to the PTY"))?;
            pty.read_until(&mut acc, Duration::from_secs(10), "the marker", |a| {
                contains(a, &want)
            })?;
            times.push(t0.elapsed().as_secs_f64() * 1e3);
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

type Env = Vec<(String, String)>;

/// Where a daemon tagged `tag` lives under `dir`: (socket, log, environment). The home is fresh
/// and private to the benchmark, so no saved session or user config reaches the daemon.
fn daemon_env(dir: &Path, tag: &str) -> R<(PathBuf, PathBuf, Env)> {
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
fn spawn_daemon(bin: &Path, env: &[(String, String)], log: &Path) -> R<Child> {
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
    fn start(bin: &Path, dir: &Path, tag: &str) -> R<Tuios> {
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

impl Tuios {
    /// `wait-for` latency: 500 times, a `fresh` wait for `M-N` is registered, then `N` is sent to
    /// a program that answers `M-N`. Returns (send-text reply to wait-for reply, send-text
    /// request to wait-for reply), in milliseconds.
    fn latency(&self, n: usize) -> R<(Vec<f64>, Vec<f64>)> {
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
    fn idle(&self, windows: usize, span: Duration) -> R<(IdleCpu, IdleCpu)> {
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
}

/// What phase (h) found on one side: creation time, and the server's RSS before and after.
struct Scale {
    secs: f64,
    before_kib: u64,
    after_kib: u64,
    /// Windows created inside the clock (the session's first window exists before it starts).
    created: usize,
    /// Milliseconds per created window, in creation order (tmux: its batch's time / batch size).
    per_window_ms: Vec<f64>,
}

/// Milliseconds of each of `n` runs of `run` (each checked: a failed run ends the phase). The
/// check's own time is counted; it only looks at output already in hand.
fn timed_runs(n: usize, mut run: impl FnMut() -> R<()>) -> R<Vec<f64>> {
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let t0 = Instant::now();
        run()?;
        times.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    Ok(times)
}

impl Scale {
    /// The figures once `count` windows exist (checked against `windows`): `what` names the
    /// server in the error, `pid` is the process whose settled RSS is read.
    #[allow(clippy::too_many_arguments)]
    fn finish(
        what: &str,
        pid: u32,
        t0: Instant,
        before_kib: u64,
        have: usize,
        windows: usize,
        count: usize,
        per_window_ms: Vec<f64>,
    ) -> R<Scale> {
        let secs = t0.elapsed().as_secs_f64();
        if count != windows.max(have) {
            return Err(format!("{what} holds {count} windows instead of {windows}"));
        }
        let after_kib = settled_rss_kib(pid)?;
        Ok(Scale {
            secs,
            before_kib,
            after_kib,
            created: windows.saturating_sub(have),
            per_window_ms,
        })
    }

    /// Mean ms per window over the first and the last tenth of the creations: whether creating
    /// a window gets dearer as windows pile up.
    fn tenths(&self) -> (f64, f64) {
        let v = &self.per_window_ms;
        let k = (v.len() / 10).max(1).min(v.len());
        let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len().max(1) as f64;
        (mean(&v[..k]), mean(&v[v.len() - k..]))
    }
}

impl Tuios {
    /// The ids of the windows in the benchmark's session.
    fn window_ids(&self, c: &mut Conn) -> R<Vec<String>> {
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

    /// (h) `new-window` on one connection, one request after the other, until the session holds
    /// `windows` idle shells; then the daemon's settled RSS.
    fn scale(&self, windows: usize) -> R<Scale> {
        let mut c = self.conn()?;
        let before_kib = settled_rss_kib(self.pid)?;
        let have = self.window_ids(&mut c)?.len();
        let mut per_window_ms = Vec::with_capacity(windows.saturating_sub(have));
        let t0 = Instant::now();
        let mut last = t0;
        for _ in have..windows {
            c.call(
                "new-window",
                json!({"session": self.session, "focus": false}),
            )?;
            let now = Instant::now();
            per_window_ms.push((now - last).as_secs_f64() * 1e3);
            last = now;
        }
        let count = self.window_ids(&mut c)?.len();
        Scale::finish(
            "the session",
            self.pid,
            t0,
            before_kib,
            have,
            windows,
            count,
            per_window_ms,
        )
    }

    /// (i) Wall time of `tuios list-sessions` processes, one after the other, in milliseconds.
    fn cli_runs(&self, n: usize) -> R<Vec<f64>> {
        timed_runs(n, || {
            let out = self.cli(&["list-sessions"])?;
            if !out.status.success() || !String::from_utf8_lossy(&out.stdout).contains("bench") {
                return Err(format!(
                    "tuios list-sessions failed or did not list the session ({}): {}{}",
                    out.status,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            Ok(())
        })
    }
}

/// (i) Milliseconds from spawning `tuios daemon` on a socket path of its own until its answer to
/// `list-sessions`, connects polled every millisecond. The daemon is stopped afterwards.
fn tuios_cold_start(bin: &Path, dir: &Path, tag: &str) -> R<f64> {
    let (sock, log, env) = daemon_env(dir, tag)?;
    let t0 = Instant::now();
    let mut child = spawn_daemon(bin, &env, &log)?;
    let answered = poll_until(
        Duration::from_secs(15),
        Duration::from_millis(1),
        "the daemon's first answer",
        || {
            if let Ok(Some(st)) = child.try_wait() {
                return Err(format!("tuios daemon exited early ({st})"));
            }
            // Refused or missing until the daemon listens; once it accepts, it must answer.
            match Conn::open(&sock) {
                Ok(mut c) => c.call("list-sessions", json!({})).map(Some),
                Err(_) => Ok(None),
            }
        },
    );
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    stop_child(&mut child);
    answered.map_err(|e| {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        format!("{e}; log:\n{}", text.trim_end())
    })?;
    Ok(ms)
}

/// (i) The floor for a CLI's wall time: spawning `true` and waiting for it, in milliseconds.
fn bare_cli_runs(n: usize) -> R<Vec<f64>> {
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let t0 = Instant::now();
        let st = Command::new("true")
            .stdin(Stdio::null())
            .output()
            .map_err(ctx("running true"))?;
        times.push(t0.elapsed().as_secs_f64() * 1e3);
        if !st.status.success() {
            return Err(format!("true exited with {}", st.status));
        }
    }
    Ok(times)
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
    /// A handle on a server that does not run yet (its first command starts it). Dropping it
    /// kills the server, if one runs by then.
    fn unstarted(dir: &Path, tag: &str) -> R<Tmux> {
        let home = dir.join(format!("home-tmux-{tag}"));
        std::fs::create_dir_all(&home).map_err(ctx("creating the tmux home"))?;
        Ok(Tmux {
            name: format!("tuiosbench-{}-{tag}", std::process::id()),
            env: vec![
                ("SHELL".into(), "/bin/sh".into()),
                ("HOME".into(), home.to_string_lossy().into_owned()),
                ("PS1".into(), "$ ".into()),
                ("LC_ALL".into(), "C.UTF-8".into()),
            ],
        })
    }

    fn start(dir: &Path, tag: &str) -> R<Tmux> {
        let t = Tmux::unstarted(dir, tag)?;
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

    /// A new detached window in `session` running `argv`; returns its pane id.
    fn new_pane(&self, session: &str, argv: &[&str]) -> R<String> {
        let target = format!("{session}:");
        let mut args = vec!["new-window", "-d", "-t", &target, "-P", "-F", "#{pane_id}"];
        args.extend_from_slice(argv);
        Ok(self.run(&args)?.trim().to_string())
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
        let full = format!("read x; {script}");
        let pane = self.new_pane(session, &["/bin/sh", "-c", &full, arg0])?;
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
        let pane = self.new_pane("base", &["/bin/sh", "-i"])?;
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

impl Tmux {
    /// The tmux twin of `Tuios::latency`: `send-keys N Enter`, then `capture-pane` back to back
    /// until the row `M-N` shows. Returns (send-keys done to row seen, send-keys start to row
    /// seen), in milliseconds.
    fn latency(&self, n: usize) -> R<(Vec<f64>, Vec<f64>)> {
        let pane = self.new_pane("base", &["/bin/sh", "-c", LATENCY_SCRIPT])?;
        let mut out = Vec::with_capacity(n);
        let mut full = Vec::with_capacity(n);
        for i in 0..n {
            let want = format!("M-{i}");
            let t0 = Instant::now();
            self.run(&["send-keys", "-t", &pane, &i.to_string(), "Enter"])?;
            let t1 = Instant::now();
            poll_until(
                Duration::from_secs(10),
                Duration::ZERO,
                "the marker in tmux",
                || Ok(has_row(&self.capture(&pane)?, &want).then_some(())),
            )?;
            let t2 = Instant::now();
            out.push((t2 - t1).as_secs_f64() * 1e3);
            full.push((t2 - t0).as_secs_f64() * 1e3);
        }
        let _ = self.run(&["kill-window", "-t", &pane]);
        Ok((out, full))
    }

    /// Server CPU over `span` with `windows` idle shells (the `base` window counts).
    fn idle(&self, windows: usize, span: Duration) -> R<IdleCpu> {
        let mut panes = vec![self.run(&["display", "-p", "-t", "base", "#{pane_id}"])?];
        for _ in 1..windows {
            panes.push(self.run(&["new-window", "-d", "-t", "base:", "-P", "-F", "#{pane_id}"])?);
        }
        for p in &panes {
            poll_until(
                Duration::from_secs(15),
                POLL,
                "an idle tmux shell's prompt",
                || Ok(self.capture(p.trim())?.contains(['$', '#']).then_some(())),
            )?;
        }
        idle_cpu(self.server_pid()?, span)
    }

    fn send_keys(&self, pane: &str, keys: &[&str]) -> R<()> {
        let mut args = vec!["send-keys", "-t", pane];
        args.extend_from_slice(keys);
        self.run(&args).map(drop)
    }

    fn pane_size(&self, pane: &str) -> R<String> {
        Ok(self
            .run(&["display", "-p", "-t", pane, "#{pane_width}x#{pane_height}"])?
            .trim()
            .to_string())
    }

    /// A session of its own, `cols` x `rows`, running `command` (default shell when empty).
    /// Returns (pane id, pid of the pane's program).
    fn session_pane(&self, name: &str, cols: u16, rows: u16, command: &str) -> R<(String, u32)> {
        let (c, r) = (cols.to_string(), rows.to_string());
        let mut args = vec![
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            &c,
            "-y",
            &r,
            "-P",
            "-F",
            "#{pane_id} #{pane_pid}",
        ];
        if !command.is_empty() {
            args.push(command);
        }
        let out = self.run(&args)?;
        let (pane, pid) = out
            .trim()
            .split_once(' ')
            .ok_or_else(|| format!("tmux new-session printed {out:?}"))?;
        let pid = pid.parse().map_err(|_| format!("tmux pane pid {pid:?}"))?;
        self.run(&["resize-window", "-t", pane, "-x", &c, "-y", &r])?;
        let size = self.pane_size(pane)?;
        if size != format!("{cols}x{rows}") {
            return Err(format!("tmux pane is {size} instead of {cols}x{rows}"));
        }
        Ok((pane.to_string(), pid))
    }
}

/// tmux commands per client invocation in phase (h).
const TMUX_BATCH: usize = 50;

impl Tmux {
    fn window_count(&self) -> R<usize> {
        Ok(self
            .run(&["list-windows", "-a", "-F", "#{window_id}"])?
            .lines()
            .count())
    }

    /// (h) `new-window -d` in batches of TMUX_BATCH per tmux invocation until the server holds
    /// `windows` idle shells (the `base` window counts); then the server's settled RSS.
    fn scale(&self, windows: usize) -> R<Scale> {
        let pid = self.server_pid()?;
        let before_kib = settled_rss_kib(pid)?;
        let have = self.window_count()?;
        let mut left = windows.saturating_sub(have);
        let mut per_window_ms = Vec::with_capacity(left);
        let t0 = Instant::now();
        let mut last = t0;
        while left > 0 {
            let batch = left.min(TMUX_BATCH);
            let mut args = Vec::with_capacity(batch * 5);
            for i in 0..batch {
                if i > 0 {
                    args.push(";");
                }
                args.extend_from_slice(&["new-window", "-d", "-t", "base:"]);
            }
            self.run(&args)?;
            let now = Instant::now();
            let ms = (now - last).as_secs_f64() * 1e3 / batch as f64;
            per_window_ms.extend(std::iter::repeat_n(ms, batch));
            last = now;
            left -= batch;
        }
        let count = self.window_count()?;
        // remain-on-exit keeps a pane whose shell could not start: count those as failures.
        let dead = self
            .run(&["list-panes", "-a", "-F", "#{pane_dead}"])?
            .lines()
            .filter(|l| l.trim() == "1")
            .count();
        if dead > 0 {
            return Err(format!("{dead} tmux panes have no live shell"));
        }
        Scale::finish(
            "the tmux server",
            pid,
            t0,
            before_kib,
            have,
            windows,
            count,
            per_window_ms,
        )
    }

    /// (i) Wall time of `tmux list-sessions` processes, one after the other, in milliseconds.
    fn cli_runs(&self, n: usize) -> R<Vec<f64>> {
        timed_runs(n, || {
            let out = self.run(&["list-sessions"])?;
            if !out.contains("base") {
                return Err(format!(
                    "tmux list-sessions did not list the session: {out}"
                ));
            }
            Ok(())
        })
    }
}

/// (i) Milliseconds for one `tmux -L <fresh> -f /dev/null start-server ; list-sessions`: the
/// client starts the server, which answers the client's command. With no session the server
/// exits by itself (exit-empty); the drop makes sure.
fn tmux_cold_start(dir: &Path, tag: &str) -> R<f64> {
    let t = Tmux::unstarted(dir, tag)?;
    let t0 = Instant::now();
    t.run(&["start-server", ";", "list-sessions"])?;
    Ok(t0.elapsed().as_secs_f64() * 1e3)
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

// ---------------------------------------------------------------------------------------------
// Attached client

const ATT_COLS: u16 = 120;
const ATT_ROWS: u16 = 40;
/// Typed (untimed) in front of each timed key, so that key's echo can be told apart on screen.
const KEY_PREFIX: &str = "@@";
const SEATS: [&str; 3] = [
    "tuios client in tmux",
    "plain tmux pane",
    "tmux client in tmux",
];

/// What a user looks at and types into: a tmux pane showing the tuios client, a plain tmux
/// pane, or a tmux client attached to another tmux server.
struct Seat<'a> {
    name: &'static str,
    tmux: &'a Tmux,
    pane: String,
    /// The process whose CPU going quiet means "idle again": the client, or for the plain pane
    /// the tmux server.
    watch: (&'static str, u32),
    /// A process whose CPU during a flood goes into the notes (the daemon, the inner server).
    other: Option<(&'static str, u32)>,
}

struct FloodRun {
    drawn: f64,
    idle: f64,
    watch_cpu: f64,
    other_cpu: Option<f64>,
}

impl Seat<'_> {
    fn wait_screen(
        &self,
        limit: Duration,
        interval: Duration,
        what: &str,
        pred: impl Fn(&str) -> bool,
    ) -> R<()> {
        let mut last = String::new();
        poll_until(limit, interval, what, || {
            last = self.tmux.capture(&self.pane)?;
            Ok(pred(&last).then_some(()))
        })
        .map_err(|e| format!("{}: {e}; screen:\n{last}", self.name))
    }

    fn keys(&self, keys: &[&str]) -> R<()> {
        self.tmux.send_keys(&self.pane, keys)
    }

    /// Waits for the shell's prompt, and for `also` on the screen.
    fn ready(&self, also: impl Fn(&str) -> bool) -> R<()> {
        // Rows come with trailing blanks trimmed, and dash may ignore PS1 for root.
        self.wait_screen(Duration::from_secs(20), POLL, "the shell prompt", |s| {
            s.contains(['$', '#']) && also(s)
        })
    }

    /// Types the command line (untimed, until it shows), then times Enter until the end marker
    /// is drawn, and until the watched process has used no CPU for 200 ms.
    fn flood(&self, file: &Path, run: usize) -> R<FloodRun> {
        let typed = format!("echo END-$((1000+{run}))-MARK");
        let mark = format!("END-{}-MARK", 1000 + run);
        let line = format!("cat {}; {typed}", sh_quote(&file.to_string_lossy()));
        self.keys(&["-l", &line])?;
        self.wait_screen(Duration::from_secs(20), POLL, "the typed command", |s| {
            s.contains(&typed)
        })?;
        let watch0 = cpu_ms(self.watch.1)?;
        let other0 = self.other.map(|(_, p)| cpu_ms(p)).transpose()?;
        let t0 = Instant::now();
        self.keys(&["Enter"])?;
        self.wait_screen(Duration::from_secs(300), POLL, &mark, |s| s.contains(&mark))?;
        let drawn = t0.elapsed().as_secs_f64();
        let quiet = cpu_quiet(
            self.watch.1,
            Instant::now(),
            Duration::from_millis(200),
            Duration::from_secs(120),
        )?;
        let other_cpu = match (self.other, other0) {
            (Some((_, p)), Some(before)) => Some(cpu_ms(p)? - before),
            _ => None,
        };
        Ok(FloodRun {
            drawn,
            idle: quiet.duration_since(t0).as_secs_f64().max(drawn),
            watch_cpu: cpu_ms(self.watch.1)? - watch0,
            other_cpu,
        })
    }

    /// Keystroke to echo, `n` times, with `cat` reading the terminal: the PTY echoes the key,
    /// and the clock stops when `capture-pane` of the seat shows it.
    fn keystrokes(&self, n: usize) -> R<Vec<f64>> {
        self.keys(&["-l", "exec cat"])?;
        self.wait_screen(Duration::from_secs(10), POLL, "the typed `exec cat`", |s| {
            s.contains("exec cat")
        })?;
        self.keys(&["Enter"])?;
        const KEYS: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
        let mut times = Vec::with_capacity(n);
        for i in 0..n {
            self.keys(&["-l", KEY_PREFIX])?;
            self.wait_screen(
                Duration::from_secs(10),
                Duration::from_millis(1),
                "the key prefix",
                |s| s.contains(KEY_PREFIX),
            )?;
            let key = char::from(KEYS[i % KEYS.len()]).to_string();
            let want = format!("{KEY_PREFIX}{key}");
            let t0 = Instant::now();
            self.keys(&["-l", &key])?;
            self.wait_screen(
                Duration::from_secs(10),
                Duration::ZERO,
                "the echoed key",
                |s| s.contains(&want),
            )?;
            times.push(t0.elapsed().as_secs_f64() * 1e3);
            // ^U is the PTY's own line kill: the echo is erased and the next round starts clean.
            self.keys(&["C-u"])?;
            self.wait_screen(
                Duration::from_secs(10),
                Duration::from_millis(1),
                "the erased line",
                |s| !s.contains(KEY_PREFIX),
            )?;
        }
        Ok(times)
    }
}

/// Figures of the attached phase, indexed like `SEATS`.
#[derive(Default)]
struct Attached {
    drawn: [Option<R<f64>>; 3],
    idle: [Option<R<f64>>; 3],
    keys: [Option<R<Vec<f64>>>; 3],
}

/// The dock's mode word: the last non-blank row of the client's screen ends with it.
fn dock_mode(screen: &str, mode: &str) -> bool {
    screen
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.trim_end().ends_with(mode))
}

/// Issue 5: a client attached, 64 MiB drawn and keystroke echo, in a tuios client, a plain tmux
/// pane and a tmux client, each shown in a 120x40 tmux pane.
fn attached(cfg: &Config, file: &Path, dir: &Path, notes: &mut Vec<String>) -> Attached {
    let mut att = Attached::default();
    // Each seat with what holds it up; a seat that cannot be set up fails its cells.
    let tuios = cfg.tuios.then(|| Tuios::start(&cfg.bin, dir, "f"));
    let outer = (cfg.tuios || cfg.tmux).then(|| Tmux::start(dir, "outer"));
    let plain = cfg.tmux.then(|| Tmux::start(dir, "plain"));
    let inner = cfg.tmux.then(|| Tmux::start(dir, "inner"));
    let mut seats: [Option<R<Seat>>; 3] = [None, None, None];

    if let Some(t) = &tuios {
        seats[0] = Some((|| {
            let t = t.as_ref().map_err(Clone::clone)?;
            let outer = outer.as_ref().ok_or("no outer tmux")?.as_ref()?;
            let home = t
                .env
                .iter()
                .find(|(k, _)| k == "HOME")
                .map(|(_, v)| v.clone())
                .unwrap_or_default();
            let mut cmd = String::from("exec env");
            for (k, v) in &t.env {
                cmd.push_str(&format!(" {k}={}", sh_quote(v)));
            }
            cmd.push_str(&format!(
                " XDG_STATE_HOME={} {} attach {}",
                sh_quote(&format!("{home}/.state")),
                sh_quote(&t.bin.to_string_lossy()),
                t.session
            ));
            let (pane, pid) = outer.session_pane("client", ATT_COLS, ATT_ROWS, &cmd)?;
            let seat = Seat {
                name: SEATS[0],
                tmux: outer,
                pane,
                watch: ("client", pid),
                other: Some(("daemon", t.pid)),
            };
            // The client starts in terminal mode: keys go to the window.
            seat.ready(|s| dock_mode(s, "TERM"))?;
            Ok(seat)
        })());
    }
    if let (Some(plain), Some(outer), Some(inner)) = (&plain, &outer, &inner) {
        seats[1] = Some((|| {
            let plain = plain.as_ref()?;
            let (pane, _) = plain.session_pane("plain", ATT_COLS, ATT_ROWS, "")?;
            let seat = Seat {
                name: SEATS[1],
                tmux: plain,
                pane,
                watch: ("server", plain.server_pid()?),
                other: None,
            };
            seat.ready(|_| true)?;
            Ok(seat)
        })());
        seats[2] = Some((|| {
            let inner = inner.as_ref()?;
            let outer = outer.as_ref()?;
            inner.session_pane("inner", ATT_COLS, ATT_ROWS, "")?;
            // The outer pane's TMUX would make the inner client refuse to nest.
            let cmd = format!(
                "exec env -u TMUX tmux -L {} -f /dev/null attach -t inner",
                sh_quote(&inner.name)
            );
            let (pane, pid) = outer.session_pane("nested", ATT_COLS, ATT_ROWS, &cmd)?;
            let seat = Seat {
                name: SEATS[2],
                tmux: outer,
                pane,
                watch: ("client", pid),
                other: Some(("inner server", inner.server_pid()?)),
            };
            seat.ready(|_| true)?;
            Ok(seat)
        })());
    }

    let mut runs: [Vec<FloodRun>; 3] = Default::default();
    let mut failed: [Option<String>; 3] = Default::default();
    for run in 0..cfg.attach_runs {
        for (i, seat) in seats.iter().enumerate() {
            let Some(Ok(seat)) = seat else { continue };
            if failed[i].is_some() {
                continue;
            }
            log(format_args!(
                "(f) attached flood run {} {}",
                run + 1,
                seat.name
            ));
            match seat.flood(file, run) {
                Ok(r) => runs[i].push(r),
                Err(e) => failed[i] = Some(e),
            }
        }
    }
    for (i, seat) in seats.iter().enumerate() {
        match seat {
            None => {}
            Some(Err(e)) => {
                att.drawn[i] = Some(Err(e.clone()));
                att.idle[i] = Some(Err(e.clone()));
                att.keys[i] = Some(Err(e.clone()));
            }
            Some(Ok(seat)) => {
                if let Some(e) = failed[i].take() {
                    att.drawn[i] = Some(Err(e.clone()));
                    att.idle[i] = Some(Err(e));
                } else {
                    let r = &runs[i];
                    let col = |f: fn(&FloodRun) -> f64| r.iter().map(f).collect::<Vec<f64>>();
                    att.drawn[i] = Some(Ok(median(&col(|x| x.drawn))));
                    att.idle[i] = Some(Ok(median(&col(|x| x.idle))));
                    let mut note = format!(
                        "attached flood, {}: drawn {} s, idle again {} s; {} CPU median {:.0} ms",
                        seat.name,
                        col(|x| x.drawn)
                            .iter()
                            .map(|v| format!("{v:.2}"))
                            .collect::<Vec<_>>()
                            .join(" "),
                        col(|x| x.idle)
                            .iter()
                            .map(|v| format!("{v:.2}"))
                            .collect::<Vec<_>>()
                            .join(" "),
                        seat.watch.0,
                        median(&col(|x| x.watch_cpu)),
                    );
                    if let Some((what, _)) = seat.other {
                        let other: Vec<f64> = r.iter().filter_map(|x| x.other_cpu).collect();
                        note.push_str(&format!(", {what} CPU median {:.0} ms", median(&other)));
                    }
                    notes.push(note);
                }
                log(format_args!("(f) keystroke echo {}", seat.name));
                att.keys[i] = Some(seat.keystrokes(cfg.keys));
            }
        }
    }
    if let Some(Ok(t)) = &tuios {
        for cell in [&mut att.drawn[0], &mut att.idle[0]] {
            if let Some(Err(e)) = cell {
                e.push_str(&format!("\n{}", t.log_tail()));
            }
        }
    }
    att
}

// ---------------------------------------------------------------------------------------------
// Keystroke echo on a PTY of our own

/// How long the output must be quiet before the next key (and so the idle time before each).
const KEY_IDLE: Duration = Duration::from_millis(30);

/// Reads and drops what arrives until the output has been quiet for [`KEY_IDLE`].
fn drain_pty(pty: &mut Pty) -> R<()> {
    let mut buf = [0u8; 65536];
    while pty.readable(KEY_IDLE)? {
        match pty.master.read(&mut buf) {
            Ok(0) => return Err("the program on the PTY ended".into()),
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("PTY read: {e}")),
        }
    }
    Ok(())
}

/// Types `n` letters into whatever runs on `pty` (a shell echoing them, directly or through a
/// client), timing each from the write until the letter is in the output. Every 40 keys ^U
/// clears the line.
fn time_keys(pty: &mut Pty, n: usize) -> R<Vec<f64>> {
    const KEYS: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
    let mut times = Vec::with_capacity(n);
    let mut acc = Vec::new();
    for i in 0..n {
        drain_pty(pty)?;
        let key = KEYS[i % KEYS.len()];
        acc.clear();
        let t0 = Instant::now();
        pty.master
            .write_all(&[key])
            .map_err(ctx("writing a key to the PTY"))?;
        pty.read_until(&mut acc, Duration::from_secs(10), "the echoed key", |a| {
            a.contains(&key)
        })?;
        times.push(t0.elapsed().as_secs_f64() * 1e3);
        if i % 40 == 39 {
            pty.master.write_all(&[0x15]).map_err(ctx("writing ^U"))?;
        }
    }
    Ok(times)
}

/// Medians of `n` one-byte round trips between this thread and an echoing thread over a Unix
/// socket pair: (back to back, after [`KEY_IDLE`] of idle). What a cold wake-up costs on this
/// machine, for reading the (g) figures: on a VM it can be several times the warm one.
fn wake_round_trips(n: usize) -> R<(f64, f64)> {
    let (mut near, mut far) = UnixStream::pair().map_err(ctx("a socket pair"))?;
    let echo = std::thread::spawn(move || {
        let mut b = [0u8; 1];
        while matches!(far.read(&mut b), Ok(1)) {
            if far.write_all(&b).is_err() {
                break;
            }
        }
    });
    let mut trip = |idle: Option<Duration>| -> R<Vec<f64>> {
        let mut times = Vec::with_capacity(n);
        let mut b = [0u8; 1];
        for _ in 0..n {
            if let Some(d) = idle {
                std::thread::sleep(d);
            }
            let t0 = Instant::now();
            near.write_all(b"x")
                .map_err(ctx("writing to the echo thread"))?;
            near.read_exact(&mut b)
                .map_err(ctx("reading from the echo thread"))?;
            times.push(t0.elapsed().as_secs_f64() * 1e3);
        }
        Ok(times)
    };
    let warm = trip(None).map(|t| median(&t));
    let cold = trip(Some(KEY_IDLE)).map(|t| median(&t));
    drop(near);
    let _ = echo.join();
    Ok((warm?, cold?))
}

/// The floor: /bin/sh on a bare PTY, the kernel echoing.
fn bare_keys(n: usize) -> R<Vec<f64>> {
    let mut pty = open_pty(ATT_COLS, ATT_ROWS)?;
    let mut child = pty.spawn(&["/bin/sh"], &[("PS1", "$ "), ("TERM", "xterm-256color")])?;
    let mut acc = Vec::new();
    let r = pty
        .read_until(&mut acc, Duration::from_secs(10), "the prompt", |a| {
            contains(a, b"$ ")
        })
        .and_then(|()| time_keys(&mut pty, n));
    stop_child(&mut child);
    r
}

/// A tmux client (its own server) on a PTY of ours, a shell in its window.
fn tmux_keys(dir: &Path, n: usize) -> R<Vec<f64>> {
    let name = format!("tuiosbench-{}-keys", std::process::id());
    let mut pty = open_pty(ATT_COLS, ATT_ROWS)?;
    let conf = dir.join("keys-tmux.conf");
    std::fs::write(&conf, "set -g status off\n").map_err(ctx("writing tmux.conf"))?;
    let conf = conf.to_string_lossy().into_owned();
    let mut child = pty.spawn(
        &["tmux", "-L", &name, "-f", &conf, "new-session", "/bin/sh"],
        &[("PS1", "$ "), ("TERM", "xterm-256color"), ("TMUX", "")],
    )?;
    let mut acc = Vec::new();
    // dash ignores PS1 for root.
    let r = pty
        .read_until(&mut acc, Duration::from_secs(10), "the prompt", |a| {
            contains(a, b"$ ") || contains(a, b"# ")
        })
        .and_then(|()| time_keys(&mut pty, n));
    let _ = Command::new("tmux")
        .args(["-L", &name, "kill-server"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    stop_child(&mut child);
    r
}

impl Tuios {
    /// `tuios attach` on a PTY of ours, switched to terminal mode, a shell in its window.
    fn keys(&self, n: usize) -> R<Vec<f64>> {
        let mut pty = open_pty(ATT_COLS, ATT_ROWS)?;
        let bin = self.bin.to_string_lossy().into_owned();
        let mut env: Vec<(&str, &str)> = self
            .env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        env.push(("TERM", "xterm-256color"));
        let mut child = pty.spawn(&[&bin, "attach", &self.session], &env)?;
        let mut acc = Vec::new();
        let r = (|| {
            // The dock names the mode: terminal at the start; window management in older builds.
            pty.read_until(
                &mut acc,
                Duration::from_secs(10),
                "the client's dock",
                |a| contains(a, b"WM") || contains(a, b"TERM"),
            )?;
            if !contains(&acc, b"TERM") {
                pty.master.write_all(b"i").map_err(ctx("writing i"))?;
                pty.read_until(&mut acc, Duration::from_secs(10), "terminal mode", |a| {
                    contains(a, b"TERM")
                })?;
            }
            time_keys(&mut pty, n)
        })();
        stop_child(&mut child);
        r
    }
}

// ---------------------------------------------------------------------------------------------
// Report

type Stat = Option<R<f64>>;
type Samples = Option<R<Vec<f64>>>;

#[derive(Default)]
struct Figures {
    // Each array is [bare, tuios, tmux]; None: not measured in this run.
    tp: [Stat; 3],         // seconds, median
    rt: [Samples; 3],      // milliseconds, all samples
    mem: [Stat; 3],        // KiB per window
    lat_out: [Samples; 3], // ms, program output (send-text reply) to wait-for reply
    lat_req: [Samples; 3], // ms, send-text request to wait-for reply
    idle_on: [Stat; 3],    // ms of CPU; tuios with agent detection on
    idle_off: [Stat; 3],   // ms of CPU; tuios with agent detection off
    att: Attached,
    /// (g) ms from a key written to the PTY of the shell (bare), the tuios client or the tmux
    /// client until it comes back in what they draw.
    keys: [Samples; 3],
    /// (h) seconds to create the windows, and server RSS in KiB with all of them; for
    /// `scale_windows` windows.
    scale_secs: [Stat; 3],
    scale_rss: [Stat; 3],
    scale_windows: usize,
    /// (i) ms from spawning the server until its first answer, one sample per start.
    start: [Samples; 3],
    /// (i) ms of wall time of one `list-sessions` CLI process (bare: `true`).
    cli: [Samples; 3],
    notes: Vec<String>,
}

/// Does not apply to this column.
const NA: Stat = Some(Err(String::new()));

fn ok(v: &Stat) -> Option<f64> {
    match v {
        Some(Ok(x)) => Some(*x),
        _ => None,
    }
}

fn stat(v: &Samples, f: impl Fn(&[f64]) -> f64) -> Stat {
    v.as_ref()
        .map(|r| r.as_ref().map(|s| f(s)).map_err(Clone::clone))
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

const COLUMNS: [&str; 9] = [
    "metric",
    "bare",
    "tuios",
    "tmux",
    "tuios/bare",
    "tmux/bare",
    "tuios/tmux",
    "target",
    "met?",
];

#[derive(Default)]
struct Table {
    rows: Vec<[String; 9]>,
    /// (column, error): every failure once, with the first metric it failed.
    failures: Vec<(String, String, String)>,
}

impl Table {
    /// One row; `met` gets the three figures and says whether the target was met (None: the
    /// row has no target).
    fn add(
        &mut self,
        metric: &str,
        vals: [&Stat; 3],
        fmt: &dyn Fn(f64) -> String,
        target: &str,
        met: Option<&dyn Fn([Option<f64>; 3]) -> String>,
    ) {
        let v = vals.map(ok);
        let mut cells = Vec::with_capacity(3);
        for (col, x) in ["bare", "tuios", "tmux"].iter().zip(vals) {
            cells.push(match x {
                None => "skipped".to_string(),
                Some(Ok(x)) => fmt(*x),
                Some(Err(e)) if e.is_empty() => "n/a".to_string(),
                Some(Err(e)) => {
                    if !self.failures.iter().any(|(c, f, _)| c == col && f == e) {
                        self.failures
                            .push((col.to_string(), e.clone(), metric.to_string()));
                    }
                    "failed".to_string()
                }
            });
        }
        let [bare, tuios, tmux]: [String; 3] = cells.try_into().unwrap_or_default();
        self.rows.push([
            metric.to_string(),
            bare,
            tuios,
            tmux,
            ratio(v[1], v[0]),
            ratio(v[2], v[0]),
            ratio(v[1], v[2]),
            target.to_string(),
            met.map_or_else(|| "-".to_string(), |f| f(v)),
        ]);
    }

    fn print(&self) {
        let header = COLUMNS.map(str::to_string);
        let all: Vec<&[String; 9]> = std::iter::once(&header).chain(&self.rows).collect();
        let mut widths = [0usize; 9];
        for r in &all {
            for (w, c) in widths.iter_mut().zip(r.iter()) {
                *w = (*w).max(c.chars().count());
            }
        }
        for (i, r) in all.iter().enumerate() {
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
    }
}

fn print_table(f: &Figures, flood_bytes: u64) {
    let mb = flood_bytes as f64 / 1e6;
    let med = |v: &[Samples; 3]| v.each_ref().map(|x| stat(x, median));
    let pct = |v: &[Samples; 3], p: f64| v.each_ref().map(|x| stat(x, |s| percentile(s, p)));
    let secs_mb = |x: f64| format!("{x:.2} s ({:.1} MB/s)", mb / x);
    let secs = |x: f64| format!("{x:.2} s");
    let ms3 = |x: f64| format!("{x:.3} ms");
    let ms1 = |x: f64| format!("{x:.1} ms");
    let cpu = |x: f64| format!("{x:.0} ms");
    let mbw = |x: f64| format!("{:.2} MB", x * 1024.0 / 1e6);
    let mut t = Table::default();

    let [b, u, m] = &f.tp;
    t.add(
        &format!("(a) throughput, {mb:.0} MB, median"),
        [b, u, m],
        &secs_mb,
        "tuios/bare <= 1.5x",
        Some(&|v| verdict(v[1].zip(v[0]).map(|(a, b)| a / b), |r| r <= 1.5)),
    );
    let [b, u, m] = med(&f.rt);
    t.add(
        "(b) round trip, median",
        [&b, &u, &m],
        &ms3,
        "tuios <= 1 ms",
        Some(&|v| verdict(v[1], |x| x <= 1.0)),
    );
    let [b, u, m] = pct(&f.rt, 0.9);
    t.add("(b) round trip, p90", [&b, &u, &m], &ms3, "-", None);
    let [_, u, m] = &f.mem;
    t.add(
        "(c) memory per window (RSS)",
        [&NA, u, m],
        &mbw,
        "tuios <= 2.5 MB",
        Some(&|v| verdict(v[1].map(|k| k * 1024.0 / 1e6), |x| x <= 2.5)),
    );
    let [_, u, m] = med(&f.lat_out);
    t.add(
        "(d) output to wait-for reply, median",
        [&NA, &u, &m],
        &ms3,
        "-",
        None,
    );
    let [_, u, m] = pct(&f.lat_out, 0.99);
    t.add(
        "(d) output to wait-for reply, p99",
        [&NA, &u, &m],
        &ms3,
        "-",
        None,
    );
    let [b, u, m] = med(&f.lat_req);
    t.add(
        "(d) input sent to wait-for reply, median",
        [&b, &u, &m],
        &ms3,
        "-",
        None,
    );
    let [_, u, m] = &f.idle_on;
    t.add(
        "(e) idle CPU, agent detection on (default)",
        [&NA, u, m],
        &cpu,
        "-",
        None,
    );
    let [_, u, m] = &f.idle_off;
    t.add(
        "(e) idle CPU, agent detection off",
        [&NA, u, m],
        &cpu,
        "near 0: tuios <= 20 ms",
        Some(&|v| verdict(v[1], |x| x <= 20.0)),
    );
    let a = &f.att;
    for (tmux, label) in [(1, "plain pane"), (2, "client in tmux")] {
        t.add(
            &format!("(f) attached, {mb:.0} MB drawn (tmux: {label})"),
            [&NA, &a.drawn[0], &a.drawn[tmux]],
            &secs,
            "-",
            None,
        );
    }
    for (tmux, label) in [(1, "plain pane"), (2, "client in tmux")] {
        t.add(
            &format!("(f) attached, idle again (tmux: {label})"),
            [&NA, &a.idle[0], &a.idle[tmux]],
            &secs,
            "-",
            None,
        );
    }
    let keys = a.keys.each_ref().map(|x| stat(x, median));
    for (tmux, label) in [(1, "plain pane"), (2, "client in tmux")] {
        t.add(
            &format!("(f) keystroke to echo, median (tmux: {label})"),
            [&NA, &keys[0], &keys[tmux]],
            &ms1,
            "-",
            None,
        );
    }
    let kp50 = med(&f.keys);
    t.add(
        "(g) keystroke to drawn echo, own PTY, p50",
        kp50.each_ref(),
        &ms3,
        "tuios < tmux",
        Some(&|v| verdict(v[1].zip(v[2]).map(|(a, b)| a - b), |d| d < 0.0)),
    );
    let kp99 = pct(&f.keys, 0.99);
    t.add(
        "(g) keystroke to drawn echo, own PTY, p99",
        kp99.each_ref(),
        &ms3,
        "tuios < tmux",
        Some(&|v| verdict(v[1].zip(v[2]).map(|(a, b)| a - b), |d| d < 0.0)),
    );
    let n = f.scale_windows;
    let [_, u, m] = &f.scale_secs;
    t.add(
        &format!("(h) {n} idle windows, creation time"),
        [&NA, u, m],
        &secs,
        "tuios <= 5 s",
        Some(&|v| verdict(v[1], |x| x <= 5.0)),
    );
    let [_, u, m] = &f.scale_rss;
    t.add(
        &format!("(h) {n} idle windows, server RSS"),
        [&NA, u, m],
        &|k| format!("{:.1} MB", k * 1024.0 / 1e6),
        "tuios <= 1 GB",
        Some(&|v| verdict(v[1].map(|k| k * 1024.0 / 1e9), |x| x <= 1.0)),
    );
    let [_, u, m] = med(&f.start);
    t.add(
        "(i) cold start to first answer, median",
        [&NA, &u, &m],
        &ms3,
        "tuios <= 20 ms",
        Some(&|v| verdict(v[1], |x| x <= 20.0)),
    );
    let [b, u, m] = med(&f.cli);
    t.add(
        "(i) list-sessions CLI wall time, median",
        [&b, &u, &m],
        &ms3,
        "tuios <= 5 ms",
        Some(&|v| verdict(v[1], |x| x <= 5.0)),
    );
    t.print();

    println!();
    println!(
        "MB = 10^6 bytes. Throughput: time from releasing the program until its end marker is in"
    );
    println!("the emulator (bare: until EIO). Memory: (RSS after - RSS before) / windows.");
    println!(
        "(d) output: from the send-text reply (tmux: send-keys exit) to the wait-for reply (tmux:"
    );
    println!("the capture showing it). (e) utime+stime of the daemon / tmux server over the span.");
    println!("(f) tuios/tmux compares the tuios client with the tmux variant named in the row.");
    println!(
        "(g) the client (bare: /bin/sh) on a PTY of the benchmark's own; the clock runs from the"
    );
    println!("key written to that PTY until the key is in what the client draws.");
    if f.scale_secs.iter().any(Option::is_some) || f.start.iter().any(Option::is_some) {
        println!(
            "(h) from the first window request to the last answer; RSS of the daemon / tmux server"
        );
        println!(
            "once settled. (i) cold start: from spawning the server until it answered (tmux: one"
        );
        println!("`start-server ; list-sessions` client); CLI: one whole process (bare: `true`).");
    }
    for (i, name) in SEATS.iter().enumerate() {
        if let Some(Ok(v)) = &a.keys[i] {
            println!(
                "note: keystroke to echo, {name}: median {:.1} ms, p90 {:.1} ms, max {:.1} ms",
                median(v),
                percentile(v, 0.9),
                percentile(v, 1.0)
            );
        }
    }
    for n in &f.notes {
        println!("note: {n}");
    }
    for (col, e, metric) in &t.failures {
        println!("FAILED {metric} / {col}: {e}");
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

fn exact(c: &IdleCpu) -> String {
    match (c.exact_ms, c.ended) {
        (None, _) => "n/a".to_string(),
        (Some(ms), 0) => format!("{ms:.2} ms"),
        (Some(ms), n) => format!("at least {ms:.2} ms ({n} threads ended during the span)"),
    }
}

fn run(cfg: &Config) -> R<()> {
    let started = Instant::now();
    let ph = cfg.phases;
    let exe = std::env::current_exe().map_err(ctx("locating this executable"))?;
    let exe = exe.to_string_lossy().into_owned();
    let dir = TempDir(std::env::temp_dir().join(format!("tuios-bench-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).map_err(ctx("creating the temp dir"))?;
    // The client refuses a socket whose directory others can reach.
    std::fs::set_permissions(&dir.0, std::fs::Permissions::from_mode(0o700))
        .map_err(ctx("making the temp dir private"))?;
    let file = dir.0.join("flood.txt");
    let mut flood_bytes = (cfg.mib as u64) << 20;
    if ph.throughput || ph.attached {
        log(format_args!("generating {} MiB of coloured text", cfg.mib));
        flood_bytes = write_flood(&file, cfg.mib << 20)?;
    }

    let mut f = Figures::default();
    if cfg.tmux || (cfg.tuios && ph.attached) {
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

    // Phases (a), (b) and (d) share one daemon and one tmux server; (c), (e) and (f) get fresh
    // ones so that memory, windows or scrollback left by earlier phases cannot skew them.
    let shared = ph.throughput || ph.roundtrip || ph.latency;
    let tuios = (shared && cfg.tuios).then(|| Tuios::start(&cfg.bin, &dir.0, "a"));
    let tmux = (shared && cfg.tmux).then(|| Tmux::start(&dir.0, "a"));
    if let Some(Err(e)) = &tuios {
        f.tp[1] = Some(Err(e.clone()));
        for v in [&mut f.rt[1], &mut f.lat_out[1], &mut f.lat_req[1]] {
            *v = Some(Err(e.clone()));
        }
    }
    if let Some(Err(e)) = &tmux {
        f.tp[2] = Some(Err(e.clone()));
        for v in [&mut f.rt[2], &mut f.lat_out[2], &mut f.lat_req[2]] {
            *v = Some(Err(e.clone()));
        }
    }
    let tuios = tuios.and_then(Result::ok);
    let tmux = tmux.and_then(Result::ok);

    if ph.throughput {
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
    }

    if ph.roundtrip {
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
    }

    if ph.latency {
        if cfg.bare {
            log(format_args!("(d) latency bare: {} answers", cfg.latency));
            f.lat_req[0] = Some(bare_latency(cfg.latency));
        }
        if let Some(t) = &tuios {
            log(format_args!(
                "(d) wait-for latency tuios: {} waits",
                cfg.latency
            ));
            let r = t
                .latency(cfg.latency)
                .map_err(|e| format!("{e}\n{}", t.log_tail()));
            f.lat_out[1] = Some(r.as_ref().map(|x| x.0.clone()).map_err(Clone::clone));
            f.lat_req[1] = Some(r.map(|x| x.1));
        }
        if let Some(t) = &tmux {
            log(format_args!("(d) latency tmux: {} captures", cfg.latency));
            let r = t.latency(cfg.latency);
            f.lat_out[2] = Some(r.as_ref().map(|x| x.0.clone()).map_err(Clone::clone));
            f.lat_req[2] = Some(r.map(|x| x.1));
        }
    }
    drop(tuios);
    drop(tmux);

    if ph.memory && cfg.tuios {
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
    if ph.memory && cfg.tmux {
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

    let span = Duration::from_secs(cfg.idle_secs as u64);
    if ph.idle && cfg.tuios {
        log(format_args!(
            "(e) idle CPU tuios: {} shells, {} s with agent detection on, {} s off",
            cfg.idle_windows, cfg.idle_secs, cfg.idle_secs
        ));
        let r = Tuios::start(&cfg.bin, &dir.0, "e").and_then(|t| {
            t.idle(cfg.idle_windows, span)
                .map_err(|e| format!("{e}\n{}", t.log_tail()))
        });
        if let Ok((on, off)) = &r {
            f.notes.push(format!(
                "idle CPU tuios from thread schedstat: detection on {}, off {}",
                exact(on),
                exact(off)
            ));
        }
        f.idle_on[1] = Some(r.as_ref().map(|x| x.0.ms).map_err(Clone::clone));
        f.idle_off[1] = Some(r.map(|x| x.1.ms));
    }
    if ph.idle && cfg.tmux {
        log(format_args!(
            "(e) idle CPU tmux: {} shells, {} s",
            cfg.idle_windows, cfg.idle_secs
        ));
        let r = Tmux::start(&dir.0, "e").and_then(|t| t.idle(cfg.idle_windows, span));
        if let Ok(c) = &r {
            f.notes.push(format!(
                "idle CPU tmux server from thread schedstat: {}",
                exact(c)
            ));
        }
        let r = r.map(|c| c.ms);
        f.idle_on[2] = Some(r.clone());
        f.idle_off[2] = Some(r);
    }

    if ph.attached && (cfg.tuios || cfg.tmux) {
        f.att = attached(cfg, &file, &dir.0, &mut f.notes);
    }

    if ph.keys {
        match wake_round_trips(50) {
            Ok((warm, cold)) => f.notes.push(format!(
                "(g) this machine: a round trip between two threads over a socket pair takes \
                 {warm:.3} ms back to back and {cold:.3} ms after {} ms idle (medians of 50)",
                KEY_IDLE.as_millis()
            )),
            Err(e) => f
                .notes
                .push(format!("(g) thread wake-up calibration failed: {e}")),
        }
        if cfg.bare {
            log(format_args!("(g) keystroke echo, bare PTY"));
            f.keys[0] = Some(bare_keys(cfg.keys));
        }
        if cfg.tuios {
            log(format_args!("(g) keystroke echo, tuios client"));
            f.keys[1] = Some(Tuios::start(&cfg.bin, &dir.0, "g").and_then(|t| t.keys(cfg.keys)));
        }
        if cfg.tmux {
            log(format_args!("(g) keystroke echo, tmux client"));
            f.keys[2] = Some(tmux_keys(&dir.0, cfg.keys));
        }
    }

    f.scale_windows = cfg.scale_windows;
    if ph.scale {
        // One system at a time: each holds `scale_windows` PTYs and shells, and is torn down
        // (daemon stopped, tmux server killed) before the next starts.
        let n = cfg.scale_windows;
        let per_window = |s: &Scale| {
            let (first, last) = s.tenths();
            format!(
                "{:.2} MB per window (total / {n}); {:.2} MB per window added ((after - {:.1} MB before) / {}); \
                 creation {first:.2} ms per window over the first tenth, {last:.2} ms over the last",
                s.after_kib as f64 * 1024.0 / 1e6 / n as f64,
                s.after_kib.saturating_sub(s.before_kib) as f64 * 1024.0
                    / 1e6
                    / s.created.max(1) as f64,
                s.before_kib as f64 * 1024.0 / 1e6,
                s.created
            )
        };
        if cfg.tuios {
            log(format_args!("(h) {n} idle windows, tuios"));
            let r = Tuios::start(&cfg.bin, &dir.0, "h")
                .and_then(|t| t.scale(n).map_err(|e| format!("{e}\n{}", t.log_tail())));
            if let Ok(s) = &r {
                f.notes.push(format!(
                    "(h) tuios: {} new-window requests on one connection, one after the other; {}",
                    s.created,
                    per_window(s)
                ));
            }
            f.scale_secs[1] = Some(r.as_ref().map(|s| s.secs).map_err(Clone::clone));
            f.scale_rss[1] = Some(r.map(|s| s.after_kib as f64));
        }
        if cfg.tmux {
            log(format_args!("(h) {n} idle windows, tmux"));
            let r = Tmux::start(&dir.0, "h").and_then(|t| t.scale(n));
            if let Ok(s) = &r {
                f.notes.push(format!(
                    "(h) tmux: {} `new-window -d` commands, {TMUX_BATCH} per tmux invocation \
                     (joined with `;`) so that starting the client does not dominate; {}",
                    s.created,
                    per_window(s)
                ));
            }
            f.scale_secs[2] = Some(r.as_ref().map(|s| s.secs).map_err(Clone::clone));
            f.scale_rss[2] = Some(r.map(|s| s.after_kib as f64));
        }
    }

    if ph.startup {
        let mut starts: [Vec<f64>; 3] = Default::default();
        let mut failed: [Option<String>; 3] = Default::default();
        for k in 0..cfg.starts {
            // Interleaved so drift on the machine hits both alike.
            if cfg.tuios && failed[1].is_none() {
                log(format_args!("(i) cold start {} tuios", k + 1));
                match tuios_cold_start(&cfg.bin, &dir.0, &format!("i{k}")) {
                    Ok(ms) => starts[1].push(ms),
                    Err(e) => failed[1] = Some(e),
                }
            }
            if cfg.tmux && failed[2].is_none() {
                log(format_args!("(i) cold start {} tmux", k + 1));
                match tmux_cold_start(&dir.0, &format!("i{k}")) {
                    Ok(ms) => starts[2].push(ms),
                    Err(e) => failed[2] = Some(e),
                }
            }
        }
        for i in 1..3 {
            if let Some(e) = failed[i].take() {
                f.start[i] = Some(Err(e));
            } else if !starts[i].is_empty() {
                f.start[i] = Some(Ok(std::mem::take(&mut starts[i])));
            }
        }
        log(format_args!(
            "(i) list-sessions CLI, {} runs each",
            cfg.cli_runs
        ));
        if cfg.bare {
            f.cli[0] = Some(bare_cli_runs(cfg.cli_runs));
        }
        if cfg.tuios {
            f.cli[1] =
                Some(Tuios::start(&cfg.bin, &dir.0, "i").and_then(|t| t.cli_runs(cfg.cli_runs)));
        }
        if cfg.tmux {
            f.cli[2] = Some(Tmux::start(&dir.0, "i").and_then(|t| t.cli_runs(cfg.cli_runs)));
        }
        for (i, name) in ["bare `true`", "tuios", "tmux"].iter().enumerate() {
            for (what, v) in [
                ("cold start", &f.start[i]),
                ("list-sessions CLI", &f.cli[i]),
            ] {
                if let Some(Ok(v)) = v {
                    f.notes.push(format!(
                        "(i) {what}, {name}: {} runs, min {:.3} ms, p90 {:.3} ms, max {:.3} ms",
                        v.len(),
                        percentile(v, 0.0),
                        percentile(v, 0.9),
                        percentile(v, 1.0)
                    ));
                }
            }
        }
    }

    // (j) last: its floods would skew whatever ran beside them.
    let mut neighbours = <(neighbour::Samples, neighbour::Samples)>::default();
    if ph.neighbour {
        if cfg.tuios {
            log("(j) typing next to a flood, tuios client");
            neighbours.0 = neighbour::tuios(&cfg.bin, &dir.0, &cfg.neighbour);
        }
        if cfg.tmux {
            log("(j) typing next to a flood, tmux client");
            neighbours.1 = neighbour::tmux(&dir.0, &cfg.neighbour);
        }
    }

    let mut what = Vec::new();
    if ph.throughput {
        what.push(format!("{} throughput runs", cfg.runs));
    }
    if ph.roundtrip {
        what.push(format!("{} round trips", cfg.roundtrips));
    }
    if ph.memory {
        what.push(format!("{} windows x {} lines", cfg.windows, cfg.lines));
    }
    if ph.latency {
        what.push(format!("{} waits", cfg.latency));
    }
    if ph.idle {
        what.push(format!(
            "{} idle shells for {} s",
            cfg.idle_windows, cfg.idle_secs
        ));
    }
    if ph.attached {
        what.push(format!(
            "{} attached floods and {} keys",
            cfg.attach_runs, cfg.keys
        ));
    }
    if ph.scale {
        what.push(format!("{} idle windows", cfg.scale_windows));
    }
    if ph.startup {
        what.push(format!(
            "{} cold starts and {} CLI runs",
            cfg.starts, cfg.cli_runs
        ));
    }
    f.notes.push(format!(
        "{}; total {:.0} s",
        what.join(", "),
        started.elapsed().as_secs_f64()
    ));
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    f.notes.push(format!(
        "load average at the end (1, 5, 15 min): {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    ));
    print_table(&f, flood_bytes);
    if ph.neighbour {
        neighbour::print(&neighbours.0, &neighbours.1, &cfg.neighbour);
    }
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
