//! tuios-bench: the real `tuios` daemon, tmux and a bare PTY reader, measured side by side in
//! one run. See bench/README.md for what each figure means and how to run it.
//!
//! Knobs (environment): TUIOS_BIN (daemon binary; default: `tuios` beside this executable),
//! TUIOS_BENCH_SYSTEMS (comma list of bare,tuios,tmux), TUIOS_BENCH_PHASES (comma list of
//! throughput,roundtrip,memory,latency,idle,attached,keys,scale,startup,neighbour),
//! TUIOS_BENCH_MIB (flood size, 64),
//! TUIOS_BENCH_RUNS (throughput repeats, 3), TUIOS_BENCH_ROUNDTRIPS (200),
//! TUIOS_BENCH_WINDOWS (50), TUIOS_BENCH_LINES (10000), TUIOS_BENCH_LATENCY (500),
//! TUIOS_BENCH_IDLE_WINDOWS (50), TUIOS_BENCH_IDLE_SECS (10), TUIOS_BENCH_ATTACH_RUNS (3),
//! TUIOS_BENCH_KEYS (50), TUIOS_BENCH_SCALE_WINDOWS (1000), TUIOS_BENCH_STARTS (10),
//! TUIOS_BENCH_CLI_RUNS (50), TUIOS_BENCH_NEIGHBOUR_KEYS (100), TUIOS_BENCH_NEIGHBOUR_ROUNDS
//! (5), TUIOS_BENCH_NEIGHBOUR_MIB (16), TUIOS_BENCH_TRACE_MARKS (unset).
//!
//! The binary doubles as the line generator for the memory phase (`--gen-lines W N`), so the
//! windows need nothing but /bin/sh.

use std::fmt::Display;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

mod attached;
mod config;
mod content;
mod keys;
mod measure;
mod neighbour;
mod pty;
mod report;
mod scale;
mod tmux;
mod tuios;
mod util;

// Flat names for run() and main(), and for neighbour.rs, which takes its helpers from `super`.
use attached::attached;
use config::BenchConfig;
use content::{gen_lines, write_flood};
use keys::{bare_keys, tmux_keys, wake_round_trips, KEY_IDLE};
use measure::{median, percentile, IdleCpu};
use pty::{bare_latency, bare_roundtrip, bare_throughput, open_pty, Pty};
use report::{print_table, RunFigures};
use scale::{bare_cli_runs, tmux_cold_start, tuios_cold_start, Scale, TMUX_BATCH};
use tmux::Tmux;
use tuios::Tuios;
use util::{sh_quote, stop_child, window_id};

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

fn run(cfg: &BenchConfig) -> R<()> {
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

    let mut f = RunFigures::default();
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
    let mut neighbours = <(neighbour::NeighbourSamples, neighbour::NeighbourSamples)>::default();
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
    let result = BenchConfig::from_env().and_then(|cfg| run(&cfg));
    if let Err(e) = result {
        eprintln!("tuios-bench: {e}");
        std::process::exit(1);
    }
}
