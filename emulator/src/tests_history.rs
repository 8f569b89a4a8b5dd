//! History past its memory budget: on disk, searched, captured, and dropped by the disk budget.

use std::path::PathBuf;
use std::sync::Arc;

use crate::{DiskBudget, Emulator, HistoryPlan, HistoryWriter, SearchOrder};

/// A fresh directory for one test's history file (removed with the guard).
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let p = std::env::temp_dir().join(format!("tuios-hist-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Dir(p)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn line(i: u64) -> String {
    format!("line {i}{}", "-abcdefgh".repeat((i % 7) as usize))
}

/// An emulator of 80x24 that printed `n` numbered lines with a 64 KiB memory budget.
fn flooded(dir: &Dir, n: u64, budget: &Arc<DiskBudget>, writer: bool) -> (Emulator, u64) {
    let mut e = Emulator::new(80, 24, 10_000_000);
    let plan = HistoryPlan {
        path: dir.0.join("w.hist"),
        budget: budget.clone(),
        writer: writer.then(|| HistoryWriter::start().unwrap()),
    };
    e.set_history_limits(64 * 1024, Some(plan));
    let mut dropped = 0;
    let mut chunk = String::new();
    for i in 0..n {
        chunk.push_str(&line(i));
        chunk.push_str("\r\n");
        if chunk.len() > 4096 {
            e.feed(chunk.as_bytes());
            dropped += e.take_effects().history_dropped;
            chunk.clear();
        }
    }
    e.feed(chunk.as_bytes());
    dropped += e.take_effects().history_dropped;
    (e, dropped)
}

fn all(matches: &str) -> impl FnMut(&str) -> bool + '_ {
    move |t: &str| t.contains(matches)
}

#[test]
fn history_past_the_memory_budget_goes_to_disk_and_reads_back() {
    spill_and_read_back(false);
}

#[test]
fn through_the_writer_thread_too() {
    spill_and_read_back(true);
}

fn spill_and_read_back(writer: bool) {
    let dir = Dir::new(if writer { "spill-writer" } else { "spill" });
    let budget = DiskBudget::new(1 << 30);
    let (e, dropped) = flooded(&dir, 60_000, &budget, writer);
    assert_eq!(dropped, 0);
    let stats = e.history_stats();
    assert!(stats.disk_lines > 40_000, "{stats:?}");
    // With the writer, blocks wait in memory while it is behind (up to twice the budget).
    let most = if writer { 400 } else { 200 };
    assert!(stats.memory_bytes < most * 1024, "{stats:?}");
    if !writer {
        assert_eq!(budget.used(), stats.disk_bytes);
    }
    assert_eq!(stats.first_line, 0);
    // Every line keeps its number, from disk, memory and the screen alike.
    let full = e.capture(true, false);
    let rows: Vec<&str> = full.split('\n').collect();
    for i in [0u64, 1, 12_345, 40_000, 59_999] {
        assert_eq!(rows[i as usize], line(i));
        assert_eq!(e.capture_between(i, i + 1, false), line(i));
    }
    // Line ranges read only what they need and match slicing the whole capture.
    for (s, t) in [
        (1, 3),
        (100, 40_000),
        (59_990, 0),
        (59_999, 60_100),
        (70_000, 0),
    ] {
        assert_eq!(
            e.capture_lines(true, false, s, t),
            protocol::verbs::capture_pane::slice_capture(&full, 0, s, t),
            "{s}..{t}"
        );
    }
    // Search: oldest first, then newest first, paginated.
    let (hits, next) = e.search(&mut |t| t == "line 0", SearchOrder::Oldest, None, 100);
    assert_eq!(hits.len(), 1);
    assert_eq!((hits[0].line, next), (0, None));
    let (hits, _) = e.search(&mut all("line 59999"), SearchOrder::Newest, None, 100);
    assert_eq!(hits[0].line, 59_999);
    let mut from = None;
    let mut seen = Vec::new();
    loop {
        let (hits, next) = e.search(&mut all("line 1234"), SearchOrder::Newest, from, 4);
        seen.extend(hits.iter().map(|h| h.line));
        match next {
            Some(n) => from = Some(n),
            None => break,
        }
    }
    assert_eq!(
        seen,
        [12_349, 12_348, 12_347, 12_346, 12_345, 12_344, 12_343, 12_342, 12_341, 12_340, 1234]
    );
    let path = dir.0.join("w.hist");
    assert!(path.exists());
    drop(e);
    // The writer lets the file go once it has finished the blocks it holds.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while path.exists() && std::time::Instant::now() < deadline {
        std::thread::yield_now();
    }
    assert!(!path.exists());
    assert_eq!(budget.used(), 0);
}

#[test]
fn the_disk_budget_drops_the_oldest_lines_and_keeps_numbers() {
    let dir = Dir::new("budget");
    let budget = DiskBudget::new(64 * 1024);
    let (e, dropped) = flooded(&dir, 60_000, &budget, false);
    assert!(dropped > 0);
    assert!(budget.used() <= 64 * 1024, "{}", budget.used());
    let first = e.history_stats().first_line;
    assert_eq!(first, dropped);
    let (hits, _) = e.search(&mut all("line"), SearchOrder::Oldest, None, 3);
    assert_eq!(hits[0].line, first);
    assert_eq!(hits[0].text, line(first));
    assert_eq!(e.capture_between(0, first + 1, false), line(first));
}

#[test]
fn without_a_file_the_memory_budget_drops_lines() {
    let mut e = Emulator::new(80, 24, 10_000_000);
    e.set_history_limits(64 * 1024, None);
    let mut dropped = 0;
    for chunk in 0..100u64 {
        let text: String = (chunk * 500..(chunk + 1) * 500)
            .map(|i| format!("{}\r\n", line(i)))
            .collect();
        e.feed(text.as_bytes());
        dropped += e.take_effects().history_dropped;
    }
    assert!(dropped > 0);
    assert!(e.store_bytes() < 200 * 1024, "{}", e.store_bytes());
    assert_eq!(e.first_row(), dropped);
    assert_eq!(
        e.capture_between(dropped, dropped + 1, false),
        line(dropped)
    );
}

#[test]
fn blank_lines_do_not_keep_a_block_open() {
    let mut e = Emulator::new(80, 24, 10_000_000);
    e.set_history_limits(64 * 1024, None);
    for _ in 0..200 {
        e.feed(&b"\r\n".repeat(5_000));
    }
    assert!(e.store_bytes() < 200 * 1024, "{}", e.store_bytes());
}
