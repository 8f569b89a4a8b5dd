//! Report: the figures of a run and the table printed from them.

use super::attached::{AttachedFigures, SEATS};
use super::measure::{median, percentile};
use super::R;

type Stat = Option<R<f64>>;
type Samples = Option<R<Vec<f64>>>;

/// Everything one bench run measured.
#[derive(Default)]
pub(crate) struct RunFigures {
    // Each array is [bare, tuios, tmux]; None: not measured in this run.
    pub(crate) tp: [Stat; 3],         // seconds, median
    pub(crate) rt: [Samples; 3],      // milliseconds, all samples
    pub(crate) mem: [Stat; 3],        // KiB per window
    pub(crate) lat_out: [Samples; 3], // ms, program output (send-text reply) to wait-for reply
    pub(crate) lat_req: [Samples; 3], // ms, send-text request to wait-for reply
    pub(crate) idle_on: [Stat; 3],    // ms of CPU; tuios with agent detection on
    pub(crate) idle_off: [Stat; 3],   // ms of CPU; tuios with agent detection off
    pub(crate) att: AttachedFigures,
    /// (g) ms from a key written to the PTY of the shell (bare), the tuios client or the tmux
    /// client until it comes back in what they draw.
    pub(crate) keys: [Samples; 3],
    /// (h) seconds to create the windows, and server RSS in KiB with all of them; for
    /// `scale_windows` windows.
    pub(crate) scale_secs: [Stat; 3],
    pub(crate) scale_rss: [Stat; 3],
    pub(crate) scale_windows: usize,
    /// (i) ms from spawning the server until its first answer, one sample per start.
    pub(crate) start: [Samples; 3],
    /// (i) ms of wall time of one `list-sessions` CLI process (bare: `true`).
    pub(crate) cli: [Samples; 3],
    pub(crate) notes: Vec<String>,
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

pub(crate) fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}x", a / b),
        _ => "n/a".into(),
    }
}

pub(crate) fn verdict(v: Option<f64>, pass: impl Fn(f64) -> bool) -> String {
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

pub(crate) fn print_table(f: &RunFigures, flood_bytes: u64) {
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
