//! Readings of a process (RSS, CPU time) and statistics over samples.

use std::time::{Duration, Instant};

use super::{ctx, POLL, R};

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
pub(crate) fn settled_rss_kib(pid: u32) -> R<u64> {
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
pub(crate) fn cpu_ms(pid: u32) -> R<f64> {
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
pub(crate) fn cpu_quiet(pid: u32, since: Instant, quiet: Duration, limit: Duration) -> R<Instant> {
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
pub(crate) struct IdleCpu {
    pub(crate) ms: f64,
    pub(crate) exact_ms: Option<f64>,
    pub(crate) ended: usize,
}

/// Measures `pid` over `span`, once work left over from setting up has stopped.
pub(crate) fn idle_cpu(pid: u32, span: Duration) -> R<IdleCpu> {
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

pub(crate) fn median(v: &[f64]) -> f64 {
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

pub(crate) fn percentile(v: &[f64], p: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    if s.is_empty() {
        return f64::NAN;
    }
    let idx = ((s.len() - 1) as f64 * p).round() as usize;
    s[idx]
}
