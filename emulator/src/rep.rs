//! REP (`CSI n b`) as xterm has it: it repeats the preceding graphic character only when the
//! action just before it printed that character. Any other control in between, a REP
//! included, makes xterm forget it (vttest 11.7: `+`, REP 1, REP 10 draws two `+`); tmux
//! does the same. vte keeps its last printed character for good and repeats it on every REP,
//! so this guard finds each REP in the bytes and tells the handler whether to honour it.
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

enum Scan {
    No,
    /// The bytes end before telling.
    Partial,
    /// A REP of this many bytes.
    Rep(usize),
}

/// Whether `s`, which starts with ESC, starts with `ESC [ <digits, ; or :> b`. vte reads
/// that as REP only: private markers and intermediates are other sequences.
fn scan(s: &[u8]) -> Scan {
    match s.get(1) {
        None => return Scan::Partial,
        Some(b'[') => {}
        Some(_) => return Scan::No,
    }
    let params = s[2..]
        .iter()
        .take_while(|b| b.is_ascii_digit() || matches!(b, b';' | b':'))
        .count();
    match s.get(2 + params) {
        Some(b'b') => Scan::Rep(3 + params),
        Some(_) => Scan::No,
        None if s.len() <= MAX_HELD => Scan::Partial,
        None => Scan::No,
    }
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
        let mut done = 0;
        for i in memchr::memchr_iter(0x1b, buf) {
            match scan(&buf[i..]) {
                Scan::No => {}
                Scan::Partial => {
                    self.text(&buf[done..i], feed);
                    self.held.extend_from_slice(&buf[i..]);
                    return;
                }
                Scan::Rep(len) => {
                    self.text(&buf[done..i], feed);
                    let honoured = self.printed;
                    feed(&buf[i..i + len], Part::Rep { honoured });
                    self.printed = false;
                    done = i + len;
                }
            }
        }
        self.text(&buf[done..], feed);
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
