//! Giving freed heap memory back to the system.
//!
//! Packing scrollback frees its 32 KiB blocks in the middle of the heap, where glibc keeps them
//! for reuse: the daemon's resident size would stay at its peak. `malloc_trim` returns those
//! free pages to the kernel; it walks every arena (about a millisecond on a busy daemon), so
//! it runs at most once per interval however many windows pack their scrollback.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Allocations of this size and above get pages of their own (mmap): scrollback's 32 KiB
/// blocks then go back to the system the moment they are freed, instead of leaving holes
/// between the small packed blocks that replace them.
const OWN_PAGES_FROM: i32 = 32 * 1024;

/// Shortest time between two trims.
const TRIM_INTERVAL: Duration = Duration::from_secs(1);

// Process-wide on purpose: the heap they throttle trims of is the process's, whichever actor
// system (or in-process daemon) asks.
static LAST_TRIM_MS: AtomicU64 = AtomicU64::new(0);
/// A trim is scheduled for the end of the current interval.
static TRIM_PENDING: AtomicBool = AtomicBool::new(false);

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Return free heap pages to the system now, or at the end of the interval when a trim ran
/// less than `TRIM_INTERVAL` ago (one trim then covers every window that asked meanwhile).
/// Call it from within an actix system.
pub fn give_back() {
    let interval = TRIM_INTERVAL.as_millis() as u64;
    let now = now_ms();
    let last = LAST_TRIM_MS.load(Ordering::Relaxed);
    let since = now.saturating_sub(last);
    if since >= interval
        && LAST_TRIM_MS
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    {
        trim();
        return;
    }
    if TRIM_PENDING.swap(true, Ordering::AcqRel) {
        return;
    }
    let wait = Duration::from_millis(interval.saturating_sub(since).max(1));
    actix::spawn(async move {
        actix_rt::time::sleep(wait).await;
        TRIM_PENDING.store(false, Ordering::Release);
        LAST_TRIM_MS.store(now_ms(), Ordering::Relaxed);
        trim();
    });
}

/// Sets the allocator up for a long-lived daemon; call once at start.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn tune_allocator() {
    // SAFETY: mallopt only changes glibc's allocation thresholds.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, OWN_PAGES_FROM);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn tune_allocator() {}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim() {
    // SAFETY: malloc_trim takes no pointers; it only releases memory glibc holds free.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() {}
