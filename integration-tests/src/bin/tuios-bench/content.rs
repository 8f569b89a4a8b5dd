//! Deterministic content: the flood file and the lines of the memory phase (`--gen-lines`).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use super::{ctx, MEM_COLS, R};

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
pub(crate) fn write_flood(path: &Path, bytes: usize) -> R<u64> {
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
pub(crate) fn gen_lines(window: u64, lines: u64) -> R<()> {
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
