//! Throughput and memory of the emulator against alacritty_terminal alone.
//!
//! cargo run --release -p tuios-emulator --example emubench [-- --mem-only | --speed-only | --flood]
//!
//! `--flood` alone measures the daemon's worst profiled case: plain base64 text in 120-column
//! lines, soft-wrapped on an 80x24 screen; `--flood-profile [MB]` runs only the emulator on
//! it, once, for profilers.
//!
//! Each memory figure is measured in a fresh child process, so resident-size deltas are not
//! flattered by memory the allocator kept from earlier work.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use alacritty_terminal::event::VoidListener;
use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::term::{Config, Term};
use alacritty_terminal::vte::ansi::{Processor, StdSyncHandler};
use tuios_emulator::Emulator;

/// Counts live heap bytes, which (unlike RSS) memory freed earlier cannot hide.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live_bytes() -> usize {
    LIVE.load(Ordering::Relaxed)
}

const INPUT_BYTES: usize = 64 << 20;
const CHUNK: usize = 4096;
const RUNS: usize = 3;

struct Size(usize, usize);

impl Dimensions for Size {
    fn total_lines(&self) -> usize {
        self.1
    }
    fn screen_lines(&self) -> usize {
        self.1
    }
    fn columns(&self) -> usize {
        self.0
    }
}

/// Deterministic pseudo-random numbers (PCG-style LCG).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const WORDS: &[&str] = &[
    "request",
    "handled",
    "cache",
    "miss",
    "upstream",
    "latency",
    "retry",
    "connection",
    "accepted",
    "worker",
    "queue",
    "flushed",
    "session",
    "token",
    "refresh",
    "timeout",
    "the",
    "of",
    "and",
    "to",
    "with",
    "from",
    "ok",
    "sync",
    "index",
    "build",
    "deploy",
];
const CJK: &[&str] = &[
    "漢字",
    "テスト",
    "終了",
    "接続",
    "処理中",
    "완료",
    "数据库",
    "错误",
];
const BOX: &[&str] = &["─", "│", "┌", "┐", "└", "┘", "├", "┤", "═", "║"];

/// Columns a string shows: CSI sequences excluded, CJK counted double.
fn visible_width(s: &str) -> usize {
    let mut n = 0;
    let mut in_csi = false;
    for c in s.chars() {
        match (in_csi, c) {
            (false, '\x1b') => in_csi = true,
            (false, c) if c >= '\u{1100}' && !BOX.iter().any(|b| b.starts_with(c)) => n += 2,
            (false, _) => n += 1,
            (true, c) if c.is_ascii_alphabetic() => in_csi = false,
            _ => {}
        }
    }
    n
}

/// One coloured log line of about `width` visible columns (no line ending).
fn log_line(rng: &mut Rng, i: usize, width: usize) -> String {
    let level = match rng.below(10) {
        0 => "\x1b[1;31mERROR\x1b[0m",
        1 | 2 => "\x1b[33mWARN \x1b[0m",
        3 => "\x1b[2mDEBUG\x1b[0m",
        _ => "\x1b[32mINFO \x1b[0m",
    };
    let mut s = format!(
        "\x1b[90m2026-12-02T{:02}:{:02}:{:02}.{:03}Z\x1b[0m {level} \x1b[36m[svc-{}]\x1b[0m ",
        i / 3600 % 24,
        i / 60 % 60,
        i % 60,
        rng.below(1000),
        rng.below(9)
    );
    let mut visible = visible_width(&s);
    loop {
        let word = match rng.below(14) {
            0 => format!(
                "\x1b[38;5;{}mid={}\x1b[39m",
                16 + rng.below(216),
                rng.below(100_000)
            ),
            1 => format!(
                "\x1b[38;2;{};{};{}m{}\x1b[0m",
                rng.below(256),
                rng.below(256),
                rng.below(256),
                rng.pick(WORDS)
            ),
            2 => format!("\x1b[1m{}\x1b[22m", rng.pick(WORDS)),
            3 => rng.pick(CJK).to_string(),
            4 => format!("status=\x1b[32m{}\x1b[0m", 200 + rng.below(4)),
            _ => rng.pick(WORDS).to_string(),
        };
        let w = visible_width(&word);
        if visible + w > width {
            // Fill the rest so the line ends exactly at `width`.
            s.extend(std::iter::repeat_n('.', width.saturating_sub(visible)));
            break;
        }
        visible += w;
        s.push_str(&word);
        if visible < width {
            s.push(' ');
            visible += 1;
        }
    }
    s
}

/// ~64 MiB of mixed terminal output: 55% scrolling coloured logs, 10% long soft-wrapped
/// lines, 20% full-screen redraws in the alternate screen, 10% shell prompts with titles and
/// line editing, 5% scroll regions with insert/delete line and character.
fn generate(cols: usize, rows: usize) -> Vec<u8> {
    let mut rng = Rng(42);
    let mut out = String::with_capacity(INPUT_BYTES + 65536);
    let mut i = 0usize;
    while out.len() < INPUT_BYTES {
        i += 1;
        match rng.below(20) {
            0..=10 => {
                for _ in 0..20 {
                    let width = 30 + rng.below(cols as u64 - 30) as usize;
                    out.push_str(&log_line(&mut rng, i, width));
                    out.push_str("\r\n");
                }
            }
            11 | 12 => {
                let len = 150 + rng.below(600) as usize;
                let mut n = 0;
                while n < len {
                    let w = rng.pick(WORDS);
                    if rng.below(8) == 0 {
                        out.push_str("\x1b[35m");
                        out.push_str(w);
                        out.push_str("\x1b[0m ");
                    } else {
                        out.push_str(w);
                        out.push(' ');
                    }
                    n += w.len() + 1;
                }
                out.push_str("\r\n");
            }
            13..=16 => {
                out.push_str("\x1b[?1049h\x1b[?25l");
                for _frame in 0..3 {
                    out.push_str("\x1b[H\x1b[2J");
                    for r in 1..=rows {
                        out.push_str(&format!("\x1b[{r};1H\x1b[48;5;{}m", 232 + rng.below(24)));
                        let mut n = 0;
                        while n + 12 < cols {
                            match rng.below(5) {
                                0 => {
                                    let s = rng.pick(CJK);
                                    out.push_str(s);
                                    n += 2 * s.chars().count();
                                }
                                1 => {
                                    out.push_str(rng.pick(BOX));
                                    n += 1;
                                }
                                2 => {
                                    out.push_str(&format!("\x1b[3{}m", rng.below(8)));
                                }
                                _ => {
                                    let w = rng.pick(WORDS);
                                    out.push_str(w);
                                    out.push(' ');
                                    n += w.len() + 1;
                                }
                            }
                        }
                        out.push_str("\x1b[0m\x1b[K");
                    }
                }
                out.push_str("\x1b[?25h\x1b[?1049l");
            }
            17 | 18 => {
                out.push_str(&format!(
                    "\x1b]0;user@host: ~/src/project-{}\x07",
                    rng.below(50)
                ));
                out.push_str("\x1b[?2004h\x1b[1;32muser@host\x1b[0m:\x1b[1;34m~/src\x1b[0m$ ");
                out.push_str("git sttaus\x08\x08\x08\x08\x1b[Ktatus\x1b[3D\x1b[3C");
                out.push_str("\x1b[?2004l\r\n");
                for _ in 0..3 {
                    out.push_str(&format!(
                        "\t\x1b[31mmodified:   src/file{}.rs\x1b[m\r\n",
                        rng.below(100)
                    ));
                }
            }
            _ => {
                let top = 2 + rng.below(5);
                let bottom = top + 5 + rng.below(rows as u64 - top - 6);
                out.push_str(&format!("\x1b[{top};{bottom}r\x1b[{top};1H"));
                for _ in 0..10 {
                    out.push_str(&format!(
                        "\x1b[{}L{}\x1b[{}M\x1b[2@x\x1b[3P",
                        1 + rng.below(3),
                        rng.pick(WORDS),
                        1 + rng.below(2)
                    ));
                    out.push_str("line in region\r\n");
                }
                out.push_str(&format!("\x1b[r\x1b[{rows};1H"));
            }
        }
    }
    out.into_bytes()
}

/// ~`bytes` of base64-looking text in 120-column lines (as `base64 -w120` prints them).
fn base64_flood(bytes: usize) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut rng = Rng(99);
    let mut out = Vec::with_capacity(bytes + 256);
    while out.len() < bytes {
        for _ in 0..120 {
            out.push(ALPHABET[rng.below(64) as usize]);
        }
        out.extend_from_slice(b"\r\n");
    }
    out
}

fn bench_flood() {
    let data = base64_flood(40_000_000);
    let (cols, rows) = (80, 24);
    let mut alacritty = Vec::new();
    let mut ours = Vec::new();
    for _ in 0..RUNS {
        let start = Instant::now();
        let config = Config {
            scrolling_history: 10_000,
            ..Config::default()
        };
        let mut term = Term::new(config, &Size(cols, rows), VoidListener);
        let mut parser: Processor<StdSyncHandler> = Processor::new();
        for chunk in data.chunks(CHUNK) {
            parser.advance(&mut term, chunk);
        }
        alacritty.push(mb(data.len()) / start.elapsed().as_secs_f64());

        let start = Instant::now();
        let mut emu = Emulator::new(cols as u16, rows as u16, 10_000);
        for chunk in data.chunks(CHUNK) {
            emu.feed(chunk);
            std::hint::black_box(emu.take_effects());
        }
        ours.push(mb(data.len()) / start.elapsed().as_secs_f64());
        assert_eq!(emu.scrollback_len(), 10_000);
    }
    println!(
        "flood: {:.1} MB base64 in 120-col lines, {cols}x{rows}, {CHUNK}-byte chunks",
        mb(data.len())
    );
    println!(
        "  alacritty alone: median {:.1} MB/s; tuios Emulator: median {:.1} MB/s; ratio {:.2}",
        median(alacritty.clone()),
        median(ours.clone()),
        median(alacritty) / median(ours)
    );
}

/// One pass of the emulator alone over the flood, for profilers (`perf record`,
/// `valgrind --tool=cachegrind`): `--flood-profile [MB]`.
fn flood_profile(megabytes: usize) {
    let data = base64_flood(megabytes * 1_000_000);
    let start = Instant::now();
    let mut emu = Emulator::new(80, 24, 10_000);
    for chunk in data.chunks(CHUNK) {
        emu.feed(chunk);
        std::hint::black_box(emu.take_effects());
    }
    println!(
        "flood profile: {:.1} MB in {:.2} s",
        mb(data.len()),
        start.elapsed().as_secs_f64()
    );
}

fn rss_bytes() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn bench_speed(cols: usize, rows: usize) {
    let data = generate(cols, rows);
    println!(
        "\nthroughput: {:.1} MB input ({} MiB), {cols}x{rows}, {CHUNK}-byte chunks, {RUNS} runs each \
         (MB = 10^6 bytes)",
        mb(data.len()),
        data.len() >> 20
    );
    let mut alacritty = Vec::new();
    let mut ours = Vec::new();
    let mut check = (String::new(), String::new());
    for _ in 0..RUNS {
        let start = Instant::now();
        let config = Config {
            scrolling_history: 10_000,
            ..Config::default()
        };
        let mut term = Term::new(config, &Size(cols, rows), VoidListener);
        let mut parser: Processor<StdSyncHandler> = Processor::new();
        for chunk in data.chunks(CHUNK) {
            parser.advance(&mut term, chunk);
        }
        alacritty.push(mb(data.len()) / start.elapsed().as_secs_f64());
        let grid = term.grid();
        let last = &grid[alacritty_terminal::index::Line(rows as i32 - 2)];
        check.0 = last[..]
            .iter()
            .map(|c| c.c)
            .collect::<String>()
            .trim_end()
            .to_string();

        let start = Instant::now();
        let mut emu = Emulator::new(cols as u16, rows as u16, 10_000);
        for chunk in data.chunks(CHUNK) {
            emu.feed(chunk);
            std::hint::black_box(emu.take_effects());
        }
        ours.push(mb(data.len()) / start.elapsed().as_secs_f64());
        let screen = emu.capture(false, false);
        check.1 = screen.split('\n').nth(rows - 2).unwrap_or("").to_string();
        assert_eq!(emu.scrollback_len(), 10_000);
    }
    let fmt = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.1}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    println!(
        "  alacritty alone, 10k history: {} MB/s  (median {:.1})",
        fmt(&alacritty),
        median(alacritty.clone())
    );
    println!(
        "  tuios Emulator, 10k store:    {} MB/s  (median {:.1})",
        fmt(&ours),
        median(ours.clone())
    );
    println!(
        "  ratio alacritty/ours (medians): {:.2}; row {} identical in both: {}",
        median(alacritty) / median(ours),
        rows - 2,
        check.0.replace(' ', "") == check.1.replace(' ', "")
    );
}

const WINDOWS: usize = 50;
const ALACRITTY_WINDOWS: usize = 5;
const LINES: usize = 10_000;
const MEM_COLS: usize = 120;
const MEM_ROWS: usize = 40;

fn memory_input() -> Vec<u8> {
    let mut rng = Rng(7);
    let mut data = Vec::new();
    for i in 0..LINES + MEM_ROWS {
        data.extend_from_slice(log_line(&mut rng, i, MEM_COLS).as_bytes());
        data.extend_from_slice(b"\r\n");
    }
    data
}

/// Runs in a child process: RSS growth per emulator holding 10,000 lines.
fn memory_ours() {
    let data = memory_input();
    let before = rss_bytes();
    let live_before = live_bytes();
    let mut emus = Vec::with_capacity(WINDOWS);
    for _ in 0..WINDOWS {
        let mut emu = Emulator::new(MEM_COLS as u16, MEM_ROWS as u16, LINES);
        for chunk in data.chunks(CHUNK) {
            emu.feed(chunk);
        }
        assert_eq!(emu.scrollback_len(), LINES);
        emus.push(emu);
    }
    let after = rss_bytes();
    let live_after = live_bytes();
    let store: usize = emus.iter().map(Emulator::store_bytes).sum::<usize>() / WINDOWS;
    let capture = emus[0].capture(true, false);
    let rows: Vec<&str> = capture.split('\n').collect();
    let wide = rows.iter().filter(|r| visible_width(r) >= MEM_COLS).count();
    let text: usize = rows.iter().map(|r| r.len()).sum::<usize>() / rows.len();
    println!(
        "memory: {WINDOWS} emulators {MEM_COLS}x{MEM_ROWS}, each fed {} coloured log lines \
         ({:.1} MB) in {CHUNK}-byte chunks",
        LINES + MEM_ROWS,
        mb(data.len())
    );
    println!(
        "  capture: {} rows, {wide} of them {} columns wide, {text} text bytes per row",
        rows.len(),
        MEM_COLS
    );
    println!("  store_bytes per emulator:        {:.2} MB", mb(store));
    let packed: usize = emus
        .iter_mut()
        .map(|e| {
            e.compact_scrollback();
            e.store_bytes()
        })
        .sum::<usize>()
        / WINDOWS;
    println!("  store_bytes packed:              {:.2} MB", mb(packed));
    println!(
        "  RSS delta per emulator:          {:.2} MB",
        mb((after - before) / WINDOWS)
    );
    println!(
        "  live heap per emulator:          {:.2} MB (of which 2.10 MB is vte's synchronized-update \
         buffer, reserved but never touched)",
        mb((live_after - live_before) / WINDOWS)
    );

    // Taller screens (primary, then inside the alternate screen) and back, with output after
    // each: alacritty would grow its grids by 1,000 rows here if they were not rebuilt.
    let tail = &data[data.len() - 40_000..];
    for emu in &mut emus {
        emu.resize(MEM_COLS as u16, 60);
        emu.feed(tail);
        emu.feed(b"\x1b[?1049hfull screen app\x1b[H");
        emu.resize(MEM_COLS as u16, 80);
        emu.feed(b"\x1b[?1049l");
        emu.feed(tail);
        emu.resize(MEM_COLS as u16, MEM_ROWS as u16);
        emu.feed(tail);
    }
    let resized = rss_bytes();
    println!(
        "  after resizes to 120x60, 120x80 in alt screen, back to 120x40, per emulator: \
         RSS delta {:.2} MB, live heap {:.2} MB",
        mb((resized - before) / WINDOWS),
        mb((live_bytes() - live_before) / WINDOWS)
    );
}

/// Runs in a child process: the same for alacritty alone with a 10,000-line history.
fn memory_alacritty() {
    let data = memory_input();
    let before = rss_bytes();
    let live_before = live_bytes();
    let mut terms = Vec::new();
    for _ in 0..ALACRITTY_WINDOWS {
        let config = Config {
            scrolling_history: LINES,
            ..Config::default()
        };
        let mut term = Term::new(config, &Size(MEM_COLS, MEM_ROWS), VoidListener);
        let mut parser: Processor<StdSyncHandler> = Processor::new();
        for chunk in data.chunks(CHUNK) {
            parser.advance(&mut term, chunk);
        }
        terms.push(term);
    }
    let after = rss_bytes();
    println!(
        "  alacritty alone, 10k history:    {:.2} MB RSS, {:.2} MB live heap per window \
         ({ALACRITTY_WINDOWS} windows)",
        mb(after.saturating_sub(before) / ALACRITTY_WINDOWS),
        mb((live_bytes() - live_before) / ALACRITTY_WINDOWS)
    );
}

fn child(arg: &str) {
    let exe = std::env::current_exe().expect("own path");
    let status = std::process::Command::new(exe)
        .arg(arg)
        .status()
        .expect("run child");
    assert!(status.success(), "{arg} failed");
}

fn main() {
    match std::env::args().nth(1).as_deref() {
        Some("--mem-ours") => memory_ours(),
        Some("--mem-alacritty") => memory_alacritty(),
        Some("--speed-only") => {
            bench_speed(80, 24);
            bench_speed(120, 40);
        }
        Some("--flood") => bench_flood(),
        Some("--flood-profile") => flood_profile(
            std::env::args()
                .nth(2)
                .and_then(|n| n.parse().ok())
                .unwrap_or(40),
        ),
        Some("--mem-only") => {
            child("--mem-ours");
            child("--mem-alacritty");
        }
        _ => {
            child("--mem-ours");
            child("--mem-alacritty");
            bench_speed(80, 24);
            bench_speed(120, 40);
            bench_flood();
        }
    }
}
