//! Every process a window started, setsid'd daemons included, for `close-window` and
//! `kill-session` with `tree`. The daemon is a child subreaper (set at start), so a process
//! whose parent exits is re-parented to the daemon instead of init: a window's descendants are
//! then either below its program (ppid links) or children of the daemon that carry the
//! window's `TUIOS_WINDOW_ID` in their environment (a daemonised server whose parent left).
//! Everything here reads /proc and blocks: call it off the actors' threads.
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use rustix::process::Signal;

/// What one /proc/PID/stat says that matters here.
#[derive(Debug, Clone, Copy)]
pub struct ProcStat {
    pub pid: i32,
    pub ppid: i32,
    pub sid: i32,
    pub start: u64,
    pub zombie: bool,
}

/// /proc/PID/stat, parsed after the name (which may hold spaces and parentheses).
pub fn stat(pid: i32) -> Option<ProcStat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest: Vec<&str> = text[text.rfind(')')? + 1..].split_whitespace().collect();
    // state ppid pgrp session ...; starttime is the 20th field after the name.
    Some(ProcStat {
        pid,
        zombie: *rest.first()? == "Z",
        ppid: rest.get(1)?.parse().ok()?,
        sid: rest.get(3)?.parse().ok()?,
        start: rest.get(19)?.parse().ok()?,
    })
}

/// Every process /proc shows now.
pub fn all() -> Vec<ProcStat> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(stat)
        .collect()
}

/// Whether `pid`'s environment says it was started in window `window_id`.
fn from_window(pid: i32, window_id: &str) -> bool {
    let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    let want = format!("TUIOS_WINDOW_ID={window_id}");
    env.split(|&b| b == 0).any(|v| v == want.as_bytes())
}

/// The live processes of window `window_id`, each with its start time (a pid checked later
/// against it is never a reused one): `program` (when it still runs) and everything below it,
/// and every orphan re-parented to the daemon that came from the window, with what is below it.
pub fn window_tree(program: Option<i32>, window_id: &str) -> Vec<(i32, u64)> {
    let me = rustix::process::getpid().as_raw_nonzero().get();
    let procs: Vec<ProcStat> = all().into_iter().filter(|p| !p.zombie).collect();
    let mut children: HashMap<i32, Vec<usize>> = HashMap::new();
    for (i, p) in procs.iter().enumerate() {
        children.entry(p.ppid).or_default().push(i);
    }
    let mut roots: Vec<usize> = Vec::new();
    if let Some(program) = program {
        roots.extend(procs.iter().position(|p| p.pid == program));
    }
    roots.extend(
        procs
            .iter()
            .enumerate()
            .filter(|(_, p)| p.ppid == me && Some(p.pid) != program)
            .filter(|(_, p)| from_window(p.pid, window_id))
            .map(|(i, _)| i),
    );
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    while let Some(i) = roots.pop() {
        if !seen.insert(i) {
            continue;
        }
        out.push((procs[i].pid, procs[i].start));
        if let Some(kids) = children.get(&procs[i].pid) {
            roots.extend(kids.iter().copied());
        }
    }
    out
}

/// Whether `(pid, start)` is still that process and has not ended (a zombie has).
fn alive(pid: i32, start: u64) -> bool {
    stat(pid).is_some_and(|s| s.start == start && !s.zombie)
}

fn signal(pid: i32, sig: Signal) -> bool {
    rustix::process::Pid::from_raw(pid)
        .is_some_and(|p| rustix::process::kill_process(p, sig).is_ok())
}

/// SIGHUP and SIGTERM every target, SIGKILL what is still there after `grace`, and wait
/// (briefly) for the kills to land. Returns how many of them ended. Blocks up to `grace`
/// plus a second.
pub fn end_all(targets: Vec<(i32, u64)>, grace: Duration) -> usize {
    let live: Vec<(i32, u64)> = targets
        .into_iter()
        .filter(|&(p, start)| alive(p, start))
        .collect();
    for &(p, _) in &live {
        signal(p, Signal::HUP);
        signal(p, Signal::TERM);
    }
    let deadline = Instant::now() + grace;
    let still = |live: &[(i32, u64)]| live.iter().any(|&(p, s)| alive(p, s));
    while still(&live) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    for &(p, start) in &live {
        if alive(p, start) {
            signal(p, Signal::KILL);
        }
    }
    let deadline = Instant::now() + Duration::from_secs(1);
    while still(&live) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    live.iter().filter(|&&(p, s)| !alive(p, s)).count()
}

/// The daemon's children that have ended and that it did not start itself: orphans of
/// windows re-parented to it as the subreaper. The daemon's own children share its session
/// (window programs do not, but they are reaped by the Supervisor, which filters them out).
pub fn zombie_orphans() -> Vec<i32> {
    let me = rustix::process::getpid().as_raw_nonzero().get();
    // From /proc, not getsid(2): in a container whose session leader sits outside our PID
    // namespace the session reads as 0, which rustix's getsid refuses (it asserts a pid > 0).
    let Some(my_sid) = stat(me).map(|s| s.sid) else {
        return Vec::new();
    };
    all()
        .into_iter()
        .filter(|p| p.ppid == me && p.zombie && p.sid != my_sid)
        .map(|p| p.pid)
        .collect()
}
