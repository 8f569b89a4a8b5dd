//! Caps OSC strings before they reach the parser.
//!
//! vte (with the `std` feature alacritty enables) collects an OSC string in a `Vec` with no
//! limit until its terminator: a program printing an endless `ESC ]` grew the daemon by
//! hundreds of MB. DCS, APC, PM and SOS strings are not a concern: vte passes DCS bytes one
//! by one to a handler that drops them and skips the others without storing anything.
//!
//! The guard finds where the parser enters an OSC string and holds the string back until its
//! terminator: a string that ends within `MAX_OSC_BYTES` is fed whole (the parser sees
//! exactly the original bytes); a longer one is dropped whole, up to and including its
//! terminator, and the parser is told `ESC \` instead, which ends the escape sequence it was
//! in without doing anything. A cut-off OSC is never dispatched: a truncated hyperlink or
//! title could say something the program never said.

/// Longest OSC string (bytes after `ESC ]`, terminator excluded) the emulator accepts; longer
/// ones are dropped whole. xterm's default limit is in the same range; the OSCs tuios acts
/// on (titles, colours, OSC 8 links, whose URLs browsers cap near 64 KiB) fit easily.
pub const MAX_OSC_BYTES: usize = 64 * 1024;

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum OscState {
    /// Outside any OSC string.
    #[default]
    Ground,
    /// In an OSC string, holding it back (in `held`, starting with its `]`).
    Holding,
    /// In an OSC string that went over the cap: its bytes are thrown away.
    Dropping,
}

#[derive(Debug, Default)]
pub(crate) struct OscGuard {
    mode: OscState,
    held: Vec<u8>,
    /// Whether the bytes fed so far leave the parser in its escape state (an `ESC`, maybe
    /// followed by bytes that keep it there): a `]` first in the next chunk starts an OSC.
    esc: bool,
}

/// Bytes that leave vte's escape state as it is (C0 controls are executed in passing; a
/// further ESC restarts it; DEL and 8-bit bytes are ignored). `ESC` itself is excluded.
#[inline]
fn keeps_escape(b: u8) -> bool {
    matches!(b, 0x00..=0x17 | 0x19 | 0x1c..=0x1f | 0x7f..=0xff)
}

/// Whether `bytes` leave the parser in its escape state, given whether it was before them.
fn ends_in_escape(bytes: &[u8], before: bool) -> bool {
    match bytes.iter().rposition(|&b| !keeps_escape(b)) {
        Some(i) => bytes[i] == 0x1b,
        None => before,
    }
}

/// Index of the `]` that starts an OSC string in `bytes`, if any.
fn osc_start(bytes: &[u8], esc_before: bool) -> Option<usize> {
    // `]` is rare in ordinary output (rarer than ESC, which every SGR has), so it is the
    // cheap thing to search for; each hit then looks back over bytes that keep the escape
    // state for the ESC that began it.
    memchr::memchr_iter(b']', bytes).find(|&i| ends_in_escape(&bytes[..i], esc_before))
}

impl OscGuard {
    /// Passes `bytes` on to `feed`, in order, minus the bytes of OSC strings over the cap;
    /// an OSC string is passed on only once its terminator has arrived.
    #[inline]
    pub fn feed(&mut self, bytes: &[u8], mut feed: impl FnMut(&[u8])) {
        if self.mode == OscState::Ground && memchr::memchr(b']', bytes).is_none() {
            // The usual case: no OSC can start here.
            feed(bytes);
            self.esc = ends_in_escape(bytes, self.esc);
            return;
        }
        self.feed_slow(bytes, &mut feed);
    }

    #[cold]
    fn feed_slow(&mut self, bytes: &[u8], feed: &mut dyn FnMut(&[u8])) {
        let mut rest = bytes;
        while !rest.is_empty() {
            match self.mode {
                OscState::Ground => match osc_start(rest, self.esc) {
                    None => {
                        feed(rest);
                        self.esc = ends_in_escape(rest, self.esc);
                        return;
                    }
                    Some(i) => {
                        feed(&rest[..i]);
                        self.held.clear();
                        self.held.push(b']');
                        self.mode = OscState::Holding;
                        self.esc = false;
                        rest = &rest[i + 1..];
                    }
                },
                OscState::Holding | OscState::Dropping => {
                    // The bytes that end an OSC string in vte.
                    let end = rest
                        .iter()
                        .position(|&b| matches!(b, 0x07 | 0x18 | 0x1a | 0x1b));
                    let body = &rest[..end.unwrap_or(rest.len())];
                    if self.mode == OscState::Holding {
                        if self.held.len() - 1 + body.len() > MAX_OSC_BYTES {
                            tracing::debug!(
                                limit = MAX_OSC_BYTES,
                                "dropping an OSC string longer than the limit"
                            );
                            self.held = Vec::new();
                            self.mode = OscState::Dropping;
                            // ST: ends the escape sequence the parser is in, doing nothing.
                            feed(b"\\");
                        } else {
                            self.held.extend_from_slice(body);
                        }
                    }
                    let Some(end) = end else {
                        return;
                    };
                    if self.mode == OscState::Holding {
                        feed(&self.held);
                        // The terminator goes through the ground path: the parser ends
                        // the string on it, then handles it.
                        rest = &rest[end..];
                    } else if rest[end] == 0x07 {
                        // The BEL of a dropped string is part of it, not a bell.
                        rest = &rest[end + 1..];
                    } else {
                        rest = &rest[end..];
                    }
                    if self.held.capacity() > 4096 {
                        // Do not keep a long string's buffer for the window's lifetime.
                        self.held = Vec::new();
                    }
                    self.held.clear();
                    self.mode = OscState::Ground;
                    self.esc = false;
                }
            }
        }
    }

    /// Heap bytes held (at most `MAX_OSC_BYTES` and a little).
    #[cfg(test)]
    pub fn held_capacity(&self) -> usize {
        self.held.capacity()
    }
}
