//! Attached client, phase (f): a flood drawn and keystroke echo, each seen in a tmux pane.

use std::path::Path;
use std::time::{Duration, Instant};

use super::config::BenchConfig;
use super::measure::{cpu_ms, cpu_quiet, median};
use super::tmux::Tmux;
use super::tuios::Tuios;
use super::util::{poll_until, sh_quote};
use super::{log, POLL, R};

pub(crate) const ATT_COLS: u16 = 120;
pub(crate) const ATT_ROWS: u16 = 40;
/// Typed (untimed) in front of each timed key, so that key's echo can be told apart on screen.
const KEY_PREFIX: &str = "@@";
pub(crate) const SEATS: [&str; 3] = [
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
pub(crate) struct AttachedFigures {
    pub(crate) drawn: [Option<R<f64>>; 3],
    pub(crate) idle: [Option<R<f64>>; 3],
    pub(crate) keys: [Option<R<Vec<f64>>>; 3],
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
pub(crate) fn attached(
    cfg: &BenchConfig,
    file: &Path,
    dir: &Path,
    notes: &mut Vec<String>,
) -> AttachedFigures {
    let mut att = AttachedFigures::default();
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
