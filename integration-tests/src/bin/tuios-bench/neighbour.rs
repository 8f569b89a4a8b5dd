//! (j) Typing next to a flood: a client on a PTY of the bench's own, `cat` reading the focused
//! window, and a second window of the same session running `yes`. Measured for the tuios
//! client and a tmux client side by side:
//! - keystroke -> echo drawn with nothing else running (idle),
//! - the same while the neighbour floods beside it (tuios: same workspace, tiled; tmux: a split
//!   pane),
//! - the same while the neighbour floods where nothing of it is drawn (tuios: another workspace;
//!   tmux: another window),
//! - the flooding window's own throughput alone and while keys are typed next to it.
//!
//! A key counts as echoed when its character is in what the client wrote to its terminal.
//! Every timed key is a Greek letter: the flood prints digits, and no escape sequence or chrome
//! holds one, so the letter can only be the echo. The flood records its own speed: it writes
//! `MIB` MiB per round and appends each round's nanoseconds to a file.
use std::io::{ErrorKind, Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::config::NeighbourKnobs;
use super::report::{ratio, verdict};
use super::{ctx, median, open_pty, percentile, sh_quote, stop_child, Pty, Tmux, Tuios, R};

/// The client's terminal.
const COLS: u16 = 160;
const ROWS: u16 = 45;
/// Greek small letters, final sigma left out: 24 distinct echoes, then ^U clears the line.
const LETTERS: &str = "αβγδεζηθικλμνξοπρστυφχψω";

/// One system's samples, milliseconds per key and seconds per flood round.
#[derive(Default)]
pub struct NeighbourSamples {
    pub idle: Option<R<Vec<f64>>>,
    pub visible: Option<R<Vec<f64>>>,
    pub hidden: Option<R<Vec<f64>>>,
    pub alone: Option<R<Vec<f64>>>,
    pub typing: Option<R<Vec<f64>>>,
}

/// What the client drew, read as it comes; the letters are looked for in it.
struct Screen {
    pty: Pty,
    buf: Vec<u8>,
    /// The last bytes the client wrote, for error messages.
    tail: Vec<u8>,
    marks: Option<std::fs::File>,
}

/// How much of the client's output an error shows.
const TAIL: usize = 400;

impl Screen {
    fn new(pty: Pty) -> Screen {
        Screen {
            pty,
            buf: vec![0; 1 << 16],
            tail: Vec::new(),
            marks: std::env::var_os("TUIOS_BENCH_TRACE_MARKS").and_then(|_| {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open("/sys/kernel/tracing/trace_marker")
                    .ok()
            }),
        }
    }
}

impl Screen {
    /// Reads whatever the client wrote for `span`, dropping it.
    fn pump(&mut self, span: Duration) -> R<()> {
        let until = Instant::now() + span;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            if self.pty.readable(left)? {
                self.read_some()?;
            }
        }
    }

    fn read_some(&mut self) -> R<usize> {
        match self.pty.master.read(&mut self.buf) {
            Ok(0) => Err("the client's terminal closed".into()),
            Ok(n) => {
                self.tail.extend_from_slice(&self.buf[..n]);
                let cut = self.tail.len().saturating_sub(TAIL);
                self.tail.drain(..cut);
                Ok(n)
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => Ok(0),
            Err(e) => Err(format!("reading the client's terminal: {e}")),
        }
    }

    /// Reads until `needle` was written (possibly split across reads), or `limit`.
    fn until(&mut self, needle: &[u8], limit: Duration, what: &str) -> R<()> {
        let deadline = Instant::now() + limit;
        // The end of the previous read, so a needle split between two reads is found.
        let mut carry: Vec<u8> = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                let tail = String::from_utf8_lossy(&self.tail);
                return Err(format!(
                    "timed out after {limit:?} waiting for {what}; the client last wrote {tail:?}"
                ));
            }
            if !self.pty.readable(left)? {
                continue;
            }
            let n = self.read_some()?;
            carry.extend_from_slice(&self.buf[..n]);
            if carry.windows(needle.len()).any(|w| w == needle) {
                return Ok(());
            }
            let keep = needle.len().saturating_sub(1).min(carry.len());
            carry.drain(..carry.len() - keep);
        }
    }

    /// With TUIOS_BENCH_TRACE_MARKS set, a line in the kernel's trace buffer (trace_marker), so a
    /// kernel trace of scheduler events (`/sys/kernel/tracing`) shows where each key was typed
    /// and where its echo was seen.
    fn mark(&mut self, what: &str) {
        if let Some(f) = &mut self.marks {
            let _ = f.write_all(what.as_bytes());
        }
    }

    fn write(&mut self, bytes: &[u8]) -> R<()> {
        self.pty
            .master
            .write_all(bytes)
            .map_err(ctx("typing into the client"))
    }

    /// Types `n` letters, each after a pause of 20-36 ms during which the output is read, and
    /// times each until its echo is drawn. `more` says whether to go on after `n` keys (a
    /// flood round still running). ^U clears the line after every 24 letters.
    fn type_keys(&mut self, n: usize, mut more: impl FnMut() -> R<bool>) -> R<Vec<f64>> {
        let letters: Vec<char> = LETTERS.chars().collect();
        let mut times = Vec::with_capacity(n);
        let mut i = 0usize;
        while i < n || more()? {
            // Varied so the keys do not lock onto the frame clock.
            self.pump(Duration::from_millis(20 + (i as u64 * 7) % 17))?;
            let mut key = [0u8; 4];
            let key = letters[i % letters.len()].encode_utf8(&mut key).as_bytes();
            self.mark(&format!("key {i} typed"));
            let t0 = Instant::now();
            self.write(key)?;
            self.until(key, Duration::from_secs(10), "the echoed key")?;
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            self.mark(&format!("key {i} echoed after {ms:.2} ms"));
            times.push(ms);
            i += 1;
            if i.is_multiple_of(letters.len()) {
                self.write(&[0x15])?;
            }
        }
        Ok(times)
    }
}

/// The flood: `yes` through `head -c`, each round's nanoseconds appended to the file in $0.
fn flood_script(mib: usize) -> String {
    format!(
        "while :; do s=$(date +%s%N); yes 0123456789 | head -c {}; e=$(date +%s%N); \
         echo $((e-s)) >> \"$0\"; done",
        mib << 20
    )
}

/// Seconds of each finished flood round so far.
fn rounds(file: &Path) -> Vec<f64> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse::<f64>().ok())
        .map(|ns| ns / 1e9)
        .collect()
}

/// The four measurements on a client already showing `cat`, given how to start the flood
/// beside it and how to take it out of sight.
fn measure(
    screen: &mut Screen,
    k: &NeighbourKnobs,
    record: &Path,
    start_flood: &mut dyn FnMut() -> R<()>,
    hide_flood: &mut dyn FnMut() -> R<()>,
    out: &mut NeighbourSamples,
) {
    out.idle = Some(screen.type_keys(k.keys, || Ok(false)));
    let r = (|| -> R<(Vec<f64>, Vec<f64>, Vec<f64>)> {
        start_flood()?;
        // Untimed: the first round may include the window's start.
        let wait = |screen: &mut Screen, n: usize| -> R<()> {
            let deadline = Instant::now() + Duration::from_secs(600);
            while rounds(record).len() < n {
                if Instant::now() > deadline {
                    return Err("the flood's rounds stopped coming".into());
                }
                screen.pump(Duration::from_millis(10))?;
            }
            Ok(())
        };
        wait(screen, 1)?;
        let before = rounds(record).len();
        wait(screen, before + k.rounds)?;
        let alone = rounds(record)[before..before + k.rounds].to_vec();
        // Typing goes on until `rounds` whole rounds ran while keys were typed.
        let first = rounds(record).len() + 1;
        let keys = screen.type_keys(k.keys, || Ok(rounds(record).len() < first + k.rounds))?;
        let typing = rounds(record)[first..first + k.rounds].to_vec();
        Ok((alone, typing, keys))
    })();
    match r {
        Ok((alone, typing, keys)) => {
            out.alone = Some(Ok(alone));
            out.typing = Some(Ok(typing));
            out.visible = Some(Ok(keys));
        }
        Err(e) => {
            for v in [&mut out.alone, &mut out.typing, &mut out.visible] {
                *v = Some(Err(e.clone()));
            }
        }
    }
    out.hidden = Some(hide_flood().and_then(|()| {
        // Whatever was on its way for the flood's last frames is drawn first.
        screen.pump(Duration::from_millis(200))?;
        screen.type_keys(k.keys, || Ok(false))
    }));
}

fn fail_all(out: &mut NeighbourSamples, e: String) {
    for v in [
        &mut out.idle,
        &mut out.visible,
        &mut out.hidden,
        &mut out.alone,
        &mut out.typing,
    ] {
        *v = Some(Err(e.clone()));
    }
}

pub fn tuios(bin: &Path, dir: &Path, k: &NeighbourKnobs) -> NeighbourSamples {
    let mut out = NeighbourSamples::default();
    let r = (|| -> R<()> {
        let t = Tuios::start(bin, dir, "j")?;
        let mut c = t.conn()?;
        let listed = c.call("list-windows", json!({"session": t.session}))?;
        let cat = listed
            .get("windows")
            .and_then(Value::as_array)
            .and_then(|w| w.first())
            .and_then(|w| w.get("window_id"))
            .and_then(Value::as_str)
            .ok_or_else(|| format!("no window in the new session: {listed}"))?
            .to_string();
        c.call(
            "send-text",
            json!({"session": t.session, "window": cat, "text": "exec cat\n"}),
        )?;
        c.call(
            "wait-for",
            json!({"session": t.session, "window": cat, "condition": "window-output",
                   "pattern": "exec cat", "timeout": 10000}),
        )?;
        let mut pty = open_pty(COLS, ROWS)?;
        let bin_s = t.bin.to_string_lossy().into_owned();
        let mut env: Vec<(&str, &str)> = t
            .env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        env.push(("TERM", "xterm-256color"));
        let mut child = pty.spawn(&[&bin_s, "attach", &t.session], &env)?;
        let mut screen = Screen::new(pty);
        let r = (|| -> R<()> {
            screen.until(b"TERM", Duration::from_secs(10), "the client's dock")?;
            let record = dir.join("neighbour-tuios.rounds");
            let flood = std::cell::RefCell::new(None::<String>);
            let session = t.session.clone();
            let script = flood_script(k.mib);
            let rec = record.to_string_lossy().into_owned();
            let mut c2 = t.conn()?;
            measure(
                &mut screen,
                k,
                &record,
                &mut || {
                    let created = c.call(
                        "new-window",
                        json!({"session": session, "name": "flood", "focus": false,
                               "command": ["/bin/sh", "-c", script, rec]}),
                    )?;
                    *flood.borrow_mut() = Some(super::window_id(&created)?);
                    Ok(())
                },
                &mut || {
                    let id = flood.borrow().clone().ok_or("no flood window")?;
                    c2.call(
                        "move-window",
                        json!({"session": session, "window": id, "workspace": 2}),
                    )?;
                    Ok(())
                },
                &mut out,
            );
            // A key that never showed: say whether the daemon's screen of the window has it.
            for v in [&mut out.idle, &mut out.visible, &mut out.hidden] {
                if let Some(Err(e)) = v {
                    let screen = t.conn().and_then(|mut c3| t.capture(&mut c3, &cat));
                    e.push_str(&format!("\nthe daemon's screen of the window: {screen:?}"));
                }
            }
            Ok(())
        })();
        stop_child(&mut child);
        r.map_err(|e| format!("{e}\n{}", t.log_tail()))
    })();
    if let Err(e) = r {
        fail_all(&mut out, e);
    }
    out
}

pub fn tmux(dir: &Path, k: &NeighbourKnobs) -> NeighbourSamples {
    let mut out = NeighbourSamples::default();
    let r = (|| -> R<()> {
        // Dropping it kills the server the client below starts.
        let tmux = Tmux::unstarted(dir, "j")?;
        let conf = dir.join("neighbour-tmux.conf");
        std::fs::write(&conf, "set -g status off\n").map_err(ctx("writing tmux.conf"))?;
        let conf = conf.to_string_lossy().into_owned();
        let mut pty = open_pty(COLS, ROWS)?;
        let mut child = pty.spawn(
            &[
                "tmux",
                "-L",
                &tmux.name,
                "-f",
                &conf,
                "new-session",
                "-s",
                "j",
                "/bin/sh",
                "-c",
                "echo READY; exec cat",
            ],
            &[
                ("TERM", "xterm-256color"),
                ("TMUX", ""),
                ("LC_ALL", "C.UTF-8"),
                ("SHELL", "/bin/sh"),
            ],
        )?;
        let mut screen = Screen::new(pty);
        let r = (|| -> R<()> {
            screen.until(b"READY", Duration::from_secs(10), "tmux's first screen")?;
            let record = dir.join("neighbour-tmux.rounds");
            let script = flood_script(k.mib);
            let rec = record.to_string_lossy().into_owned();
            let flood = std::cell::RefCell::new(String::new());
            measure(
                &mut screen,
                k,
                &record,
                &mut || {
                    let cmd = format!("exec /bin/sh -c {} {}", sh_quote(&script), sh_quote(&rec));
                    *flood.borrow_mut() = tmux
                        .run(&[
                            "split-window",
                            "-h",
                            "-d",
                            "-t",
                            "j:",
                            "-P",
                            "-F",
                            "#{pane_id}",
                            &cmd,
                        ])?
                        .trim()
                        .to_string();
                    Ok(())
                },
                &mut || {
                    tmux.run(&["break-pane", "-d", "-s", &flood.borrow()])
                        .map(drop)
                },
                &mut out,
            );
            Ok(())
        })();
        drop(tmux);
        stop_child(&mut child);
        r
    })();
    if let Err(e) = r {
        fail_all(&mut out, e);
    }
    out
}

/// The phase's table: p50 and p99 per situation, tuios against tmux, with the goals.
pub fn print(tuios: &NeighbourSamples, tmux: &NeighbourSamples, k: &NeighbourKnobs) {
    let pct = |s: &Option<R<Vec<f64>>>, p: f64| match s {
        Some(Ok(v)) if !v.is_empty() => Some(percentile(v, p)),
        _ => None,
    };
    let med = |s: &Option<R<Vec<f64>>>| match s {
        Some(Ok(v)) if !v.is_empty() => Some(median(v)),
        _ => None,
    };
    let cell = |v: Option<f64>, s: &Option<R<Vec<f64>>>| match (v, s) {
        (Some(x), _) => format!("{x:.2}"),
        (None, None) => "skipped".into(),
        (None, Some(_)) => "failed".into(),
    };
    // tuios over the other figure, for the goals' verdicts.
    let over = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| a / b);
    println!();
    println!(
        "(j) typing next to a flood: keystroke -> echo drawn, {} keys each, {COLS}x{ROWS} client \
         on a PTY of the bench's own, `cat` typed into, `yes 0123456789` beside it",
        k.keys
    );
    println!(
        "{:<40} | {:>10} | {:>10} | {:>10} | {:>10} | {:>9} | {:>9} | goal",
        "situation", "tuios p50", "tuios p99", "tmux p50", "tmux p99", "p50 ratio", "p99 ratio"
    );
    println!("{}", "-".repeat(140));
    let idle99 = pct(&tuios.idle, 0.99);
    type TableRow<'a> = (
        &'a str,
        &'a Option<R<Vec<f64>>>,
        &'a Option<R<Vec<f64>>>,
        String,
    );
    let rows: [TableRow; 3] = [
        (
            "idle (no flood)",
            &tuios.idle,
            &tmux.idle,
            "no regression".into(),
        ),
        (
            "neighbour flooding, visible",
            &tuios.visible,
            &tmux.visible,
            format!(
                "p99 below tmux: {}; p50 at or below: {}",
                verdict(
                    over(pct(&tuios.visible, 0.99), pct(&tmux.visible, 0.99)),
                    |r| r < 1.0
                ),
                verdict(
                    over(pct(&tuios.visible, 0.5), pct(&tmux.visible, 0.5)),
                    |r| r <= 1.0
                ),
            ),
        ),
        (
            "neighbour flooding, not drawn",
            &tuios.hidden,
            &tmux.hidden,
            format!(
                "p99 within 1.5x of idle p99: {}",
                verdict(over(pct(&tuios.hidden, 0.99), idle99), |r| r <= 1.5)
            ),
        ),
    ];
    for (what, a, b, goal) in rows {
        let (a50, a99, b50, b99) = (pct(a, 0.5), pct(a, 0.99), pct(b, 0.5), pct(b, 0.99));
        println!(
            "{:<40} | {:>10} | {:>10} | {:>10} | {:>10} | {:>9} | {:>9} | {goal}",
            format!("{what}, ms"),
            cell(a50, a),
            cell(a99, a),
            cell(b50, b),
            cell(b99, b),
            ratio(a50, b50),
            ratio(a99, b99),
        );
    }
    let mbs = |s: &Option<R<Vec<f64>>>| med(s).map(|secs| (k.mib << 20) as f64 / 1e6 / secs);
    let (ta, tt, ma, mt) = (
        mbs(&tuios.alone),
        mbs(&tuios.typing),
        mbs(&tmux.alone),
        mbs(&tmux.typing),
    );
    let mb = |v: Option<f64>, s: &Option<R<Vec<f64>>>| match v {
        Some(x) => format!("{x:.1}"),
        None => cell(None, s),
    };
    let goal = format!(
        "typing within 10% of alone: {} ({})",
        verdict(over(tt, ta), |r| r >= 0.9),
        ratio(tt, ta)
    );
    println!(
        "{:<40} | {:>10} | {:>10} | {:>10} | {:>10} | {:>9} | {:>9} | {goal}",
        format!("flood MB/s, median of {} rounds of {} MiB", k.rounds, k.mib),
        format!("{} alone", mb(ta, &tuios.alone)),
        format!("{} typing", mb(tt, &tuios.typing)),
        format!("{} alone", mb(ma, &tmux.alone)),
        format!("{} typing", mb(mt, &tmux.typing)),
        ratio(ta, ma),
        ratio(tt, mt),
    );
    for (sys, s) in [("tuios", tuios), ("tmux", tmux)] {
        for (what, v) in [
            ("idle", &s.idle),
            ("visible flood", &s.visible),
            ("hidden flood", &s.hidden),
        ] {
            match v {
                Some(Ok(v)) => println!(
                    "(j) {sys} {what}: {} keys, min {:.2} p90 {:.2} max {:.2} ms",
                    v.len(),
                    percentile(v, 0.0),
                    percentile(v, 0.9),
                    percentile(v, 1.0)
                ),
                Some(Err(e)) => println!("(j) {sys} {what}: FAILED: {e}"),
                None => {}
            }
        }
        for (what, v) in [("alone", &s.alone), ("typing", &s.typing)] {
            if let Some(Ok(v)) = v {
                let rates: Vec<String> = v
                    .iter()
                    .map(|secs| format!("{:.1}", (k.mib << 20) as f64 / 1e6 / secs))
                    .collect();
                println!("(j) {sys} flood rounds {what}, MB/s: {}", rates.join(" "));
            }
        }
    }
}
