//! Heap held by an emulator, counted by a global allocator. A separate test binary with a
//! single test, so nothing else allocates while it measures.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use tuios_emulator::Emulator;

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

fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

fn lines(n: usize, width: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        let text = format!("\x1b[32mline\x1b[m {i} ");
        out.extend_from_slice(text.as_bytes());
        out.extend(std::iter::repeat_n(b'x', width - 6 - i.to_string().len()));
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// The parser reserves a 2 MiB buffer for synchronized updates that it never touches
/// here; count it apart so the limits below are about grids and scrollback.
const PARSER_RESERVE: usize = 2 << 20;

#[test]
fn grids_never_take_alacrittys_thousand_row_step() {
    let data = lines(10_040, 120);
    let before = live();
    let mut e = Emulator::new(120, 40, 10_000);
    for chunk in data.chunks(4096) {
        e.feed(chunk);
    }
    let filled = live() - before - PARSER_RESERVE;
    // A 1,000-row step alone would be 1000 * 120 * 24 bytes = 2.9 MB.
    assert!(filled < 2_300_000, "10k lines take {filled} bytes");
    assert!(e.store_bytes() < 2_000_000, "store {}", e.store_bytes());

    // Taller screens (primary, then inside the alternate screen) and back, with output after
    // each: alacritty would grow its grids by 1,000 rows here if they were not rebuilt.
    let more = lines(300, 120);
    e.resize(120, 60);
    e.feed(&more);
    e.feed(b"\x1b[?1049h\x1b[Hfull screen");
    e.resize(120, 80);
    e.feed(b"\x1b[?1049l");
    e.feed(&more);
    e.resize(120, 40);
    e.feed(&more);
    let resized = live() - before - PARSER_RESERVE;
    assert!(
        resized < filled + 300_000,
        "after resizes: {resized} bytes, before: {filled} bytes"
    );
    let all = e.capture(true, false);
    assert!(
        all.contains("line 299 x"),
        "the last lines are in the capture"
    );
}
