//! Lumen v0 input rules (`spec/lumen-input.txt`, DESIGN "Lumen input rules"), as pure functions.
//!
//! * [`contains_frame_introducer`] and [`FrameScanner`]: frames on PTY output are found byte by
//!   byte, removed before the emulator sees them, and either handed over or failed; never rendered.
//! * [`decide_paste`]: the paste pipeline, decided on the whole paste before one byte is written.
//! * [`link_allowed`], [`escape_url_for_display`]: OSC 8 link activation policy and the
//!   escaped URL a confirmation shows.
//! * [`encode_key`], [`Chord`]: structured key events, their legacy and kitty encodings, and the
//!   reserved focus-return chord.
//!
//! No I/O and no clock of its own: callers pass `Instant`s in, so every rule is unit-testable.

mod frame;
mod keys;
mod links;
mod paste;

pub use frame::{
    contains_frame_introducer, Frame, FrameFailReason, FrameFailure, FrameScanner, ScanOutput,
    FRAME_TIMEOUT, MAX_FRAME_BYTES, MAX_HEADER_BYTES, TERMINAL_ONLY_TYPES,
};
pub use keys::{
    default_focus_return_chord, encode_key, parse_chord, Chord, Key, KeyEvent, KeyEventKind,
    Modifiers, KITTY_ALL_KEYS, KITTY_ALTERNATE_KEYS, KITTY_ASSOCIATED_TEXT, KITTY_DISAMBIGUATE,
    KITTY_EVENT_TYPES,
};
pub use links::{escape_url_for_display, link_allowed, link_scheme};
pub use paste::{
    decide_paste, sanitize_bracketed, visible_controls, visible_lines, HeldPaste, PasteDecision,
    BRACKETED_PASTE_END, BRACKETED_PASTE_START,
};

/// A small seeded generator for the property-style tests: deterministic, no dependency.
#[cfg(test)]
pub(crate) struct TestRng(u64);

#[cfg(test)]
impl TestRng {
    pub(crate) fn new(seed: u64) -> Self {
        TestRng(seed)
    }

    /// splitmix64.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), close enough for tests.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}
