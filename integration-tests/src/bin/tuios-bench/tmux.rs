//! tmux: a server of the benchmark's own, driven through its CLI, and phases (a) to (e) on it.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::measure::{idle_cpu, settled_rss_kib, IdleCpu};
use super::pty::LATENCY_SCRIPT;
use super::util::{await_prompt, has_row, poll_until};
use super::{ctx, DONE_MARK, FLOOD_COLS, FLOOD_ROWS, MEM_COLS, MEM_ROWS, POLL, R};

pub(crate) struct Tmux {
    pub(crate) name: String,
    env: Vec<(String, String)>,
}

impl Tmux {
    /// A handle on a server that does not run yet (its first command starts it). Dropping it
    /// kills the server, if one runs by then.
    pub(crate) fn unstarted(dir: &Path, tag: &str) -> R<Tmux> {
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

    pub(crate) fn start(dir: &Path, tag: &str) -> R<Tmux> {
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

    pub(crate) fn run(&self, args: &[&str]) -> R<String> {
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

    pub(crate) fn server_pid(&self) -> R<u32> {
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

    pub(crate) fn capture(&self, pane: &str) -> R<String> {
        self.run(&["capture-pane", "-p", "-t", pane])
    }

    pub(crate) fn throughput(&self, file: &Path) -> R<f64> {
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

    pub(crate) fn roundtrip(&self, n: usize) -> R<Vec<f64>> {
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

    pub(crate) fn memory(&self, windows: usize, lines: usize, exe: &str) -> R<(f64, usize)> {
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
    pub(crate) fn latency(&self, n: usize) -> R<(Vec<f64>, Vec<f64>)> {
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
    pub(crate) fn idle(&self, windows: usize, span: Duration) -> R<IdleCpu> {
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

    pub(crate) fn send_keys(&self, pane: &str, keys: &[&str]) -> R<()> {
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
    pub(crate) fn session_pane(
        &self,
        name: &str,
        cols: u16,
        rows: u16,
        command: &str,
    ) -> R<(String, u32)> {
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

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}
