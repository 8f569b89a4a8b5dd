//! REP (`CSI n b`) as xterm has it: it repeats the preceding graphic character only when the
//! action just before it printed that character. Any other control in between, a REP
//! included, makes xterm forget it (vttest 11.7: `+`, REP 1, REP 10 draws two `+`); tmux
//! does the same. vte keeps its last printed character for good and repeats it on every REP,
//! so this guard finds each REP in the bytes and says whether to honour it; one it must
//! not is replaced (see `Emulator::feed`).
//!
//! Whether the last action printed is read off the handler: the bytes before a REP are fed
//! in two parts, the last character alone, and the handler's count of printed characters
//! says whether that character printed. No second parser is needed.

use std::mem;

/// What a part of the bytes is, for the handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// Anything but a REP.
    Text,
    /// One REP sequence; `honoured` when the action before it printed a character.
    Rep { honoured: bool },
}

/// Longest partial REP (`ESC [` and parameters) held back at the end of a chunk. Longer
/// ones go through untouched (vte honours them): no program writes such a REP.
const MAX_HELD: usize = 32;

#[derive(Debug, Default)]
pub(crate) struct RepGuard {
    /// The start of what may be a REP, cut off by the end of the last chunk.
    held: Vec<u8>,
    /// Whether the last character fed printed (and nothing came after it).
    printed: bool,
}

/// Bytes vte takes as a CSI's parameters.
fn is_param(b: u8) -> bool {
    b.is_ascii_digit() || b == b';' || b == b':'
}

/// Where the REP whose final `b` is `buf[end]` starts, if `ESC [ <parameters>` precedes it.
/// vte reads only that as REP: private markers and intermediates make other sequences.
fn rep_start(buf: &[u8], end: usize) -> Option<usize> {
    let params = buf[..end]
        .iter()
        .rev()
        .take_while(|&&b| is_param(b))
        .count();
    let open = end - params;
    (open >= 2 && buf[open - 1] == b'[' && buf[open - 2] == 0x1b).then(|| open - 2)
}

/// Where a REP cut off by the end of `buf` would start: a trailing `ESC`, or `ESC [` and
/// parameters, `MAX_HELD` bytes at most.
fn partial_start(buf: &[u8]) -> Option<usize> {
    let n = buf.len();
    if buf.last() == Some(&0x1b) {
        return Some(n - 1);
    }
    let params = buf
        .iter()
        .rev()
        .take(MAX_HELD - 2)
        .take_while(|&&b| is_param(b))
        .count();
    let open = n - params;
    (open >= 2 && buf[open - 1] == b'[' && buf[open - 2] == 0x1b).then(|| open - 2)
}

/// Where the last (UTF-8) character of `bytes` starts.
fn last_char_start(bytes: &[u8]) -> usize {
    let mut i = bytes.len() - 1;
    while i > 0 && bytes.len() - i < 4 && (0x80..0xc0).contains(&bytes[i]) {
        i -= 1;
    }
    i
}

impl RepGuard {
    /// Passes `bytes` on to `feed`, in order, cut at each REP. `feed` returns the handler's
    /// count of printed characters after feeding its part.
    #[inline]
    pub fn feed(&mut self, bytes: &[u8], feed: &mut dyn FnMut(&[u8], Part) -> u64) {
        if self.held.is_empty() {
            self.feed_all(bytes, feed);
        } else {
            let mut joined = mem::take(&mut self.held);
            joined.extend_from_slice(bytes);
            self.feed_all(&joined, feed);
        }
    }

    fn feed_all(&mut self, buf: &[u8], feed: &mut dyn FnMut(&[u8], Part) -> u64) {
        // Without an ESC no REP can be here: plain text costs one `memchr`.
        let Some(first) = memchr::memchr(0x1b, buf) else {
            self.text(buf, feed);
            return;
        };
        // Each REP is found by its final `b` and checked backwards: in coloured output `b`
        // is far rarer than ESC, so this skips the SGRs instead of looking at each one.
        let mut done = 0;
        for end in memchr::memchr_iter(b'b', &buf[first..]).map(|i| first + i) {
            if let Some(start) = rep_start(buf, end) {
                self.text(&buf[done..start], feed);
                let honoured = self.printed;
                feed(&buf[start..=end], Part::Rep { honoured });
                self.printed = false;
                done = end + 1;
            }
        }
        let rest = &buf[done..];
        match partial_start(rest) {
            Some(cut) => {
                self.text(&rest[..cut], feed);
                self.held.extend_from_slice(&rest[cut..]);
            }
            None => self.text(rest, feed),
        }
    }

    /// Feeds bytes with no REP in them, noting whether their last character printed.
    fn text(&mut self, bytes: &[u8], feed: &mut dyn FnMut(&[u8], Part) -> u64) {
        if bytes.is_empty() {
            return;
        }
        let last = last_char_start(bytes);
        let before = feed(&bytes[..last], Part::Text);
        self.printed = feed(&bytes[last..], Part::Text) != before;
    }
}
