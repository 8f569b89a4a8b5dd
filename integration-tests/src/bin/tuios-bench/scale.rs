//! Phases (h) and (i) for tuios and tmux: many idle windows, cold starts and CLI wall time.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use super::measure::settled_rss_kib;
use super::tmux::Tmux;
use super::tuios::{daemon_env, spawn_daemon, Conn, Tuios};
use super::util::{poll_until, stop_child};
use super::{ctx, R};

/// What phase (h) found on one side: creation time, and the server's RSS before and after.
pub(crate) struct Scale {
    pub(crate) secs: f64,
    pub(crate) before_kib: u64,
    pub(crate) after_kib: u64,
    /// Windows created inside the clock (the session's first window exists before it starts).
    pub(crate) created: usize,
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
    pub(crate) fn tenths(&self) -> (f64, f64) {
        let v = &self.per_window_ms;
        let k = (v.len() / 10).max(1).min(v.len());
        let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len().max(1) as f64;
        (mean(&v[..k]), mean(&v[v.len() - k..]))
    }
}

impl Tuios {
    /// (h) `new-window` on one connection, one request after the other, until the session holds
    /// `windows` idle shells; then the daemon's settled RSS.
    pub(crate) fn scale(&self, windows: usize) -> R<Scale> {
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
    pub(crate) fn cli_runs(&self, n: usize) -> R<Vec<f64>> {
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
pub(crate) fn tuios_cold_start(bin: &Path, dir: &Path, tag: &str) -> R<f64> {
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
pub(crate) fn bare_cli_runs(n: usize) -> R<Vec<f64>> {
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

/// tmux commands per client invocation in phase (h).
pub(crate) const TMUX_BATCH: usize = 50;

impl Tmux {
    fn window_count(&self) -> R<usize> {
        Ok(self
            .run(&["list-windows", "-a", "-F", "#{window_id}"])?
            .lines()
            .count())
    }

    /// (h) `new-window -d` in batches of TMUX_BATCH per tmux invocation until the server holds
    /// `windows` idle shells (the `base` window counts); then the server's settled RSS.
    pub(crate) fn scale(&self, windows: usize) -> R<Scale> {
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
    pub(crate) fn cli_runs(&self, n: usize) -> R<Vec<f64>> {
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
pub(crate) fn tmux_cold_start(dir: &Path, tag: &str) -> R<f64> {
    let t = Tmux::unstarted(dir, tag)?;
    let t0 = Instant::now();
    t.run(&["start-server", ";", "list-sessions"])?;
    Ok(t0.elapsed().as_secs_f64() * 1e3)
}
