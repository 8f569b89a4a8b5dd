//! Frame introducers, and the byte-incremental scanner that takes Lumen frames out of PTY output.
//!
//! Wire format (DESIGN): `ESC _ lumen;` header `;` payload `ESC \`. The header is comma-separated
//! `k=v` pairs (`v=0,t=<type>,id=<block>`), keys `[a-z]+`, values `[a-z0-9]+`; the payload is
//! base64url without padding. The 8-bit spellings (APC as raw 0x9F or U+009F = `C2 9F`, ST as raw
//! 0x9C or U+009C = `C2 9C`) are recognised so such a frame is swallowed, but a frame spelled with
//! any of them always fails: there is exactly one executable spelling.
//!
//! Inside a frame the scanner follows VT control-string rules, so a bad frame is dropped whole:
//! a byte outside the frame alphabet dooms the frame but is swallowed like the rest of it, up to
//! its terminator; ESC followed by anything but `\` ends the frame and starts a new sequence; CAN
//! and SUB end it too. Unlike a plain APC, a frame never swallows more than [`FRAME_TIMEOUT`] of
//! output.

use std::time::{Duration, Instant};

/// Largest frame, introducer and terminator included. A longer one fails as a whole.
pub const MAX_FRAME_BYTES: usize = 1 << 20;
/// Largest header. A longer one makes the frame fail (and be discarded up to its terminator).
pub const MAX_HEADER_BYTES: usize = 256;
/// A frame whose terminator has not arrived this long after its introducer fails.
pub const FRAME_TIMEOUT: Duration = Duration::from_secs(5);
/// Frame types that only the terminal may originate (input, pointer and block events, focus,
/// resize, grants, replies). Seen on PTY output they are a forged terminal-origin claim.
pub const TERMINAL_ONLY_TYPES: &[&str] = &[
    "focus", "resize", "key", "paste", "pointer", "click", "hover", "scroll", "toggle", "activate",
    "copy", "grant", "reply",
];

const ESC: u8 = 0x1b;
const TAG: &[u8] = b"lumen;";
/// C1 APC as a raw byte, and the second byte of its UTF-8 form `C2 9F`.
const APC_8BIT: u8 = 0x9f;
/// C1 ST as a raw byte, and the second byte of its UTF-8 form `C2 9C`.
const ST_8BIT: u8 = 0x9c;
/// Lead byte of the UTF-8 forms of U+0080..U+00BF, so of every C1 code point.
const C1_LEAD: u8 = 0xc2;

/// Does `bytes` hold a frame introducer: an APC introducer (`ESC _`, raw 0x9F, or `C2 9F`)
/// followed by `lumen;`?
///
/// Conservative, for text about to be written to a PTY (paste, send-text, send-keys):
/// * an APC introducer followed by `lumen` counts even without the `;` (no tag-prefix games);
/// * an APC introducer followed by any prefix of `lumen;`, the empty one included, counts when
///   the input ends there, since the next write could complete it;
/// * any 0x9F byte counts as an 8-bit APC, even inside a UTF-8 sequence.
pub fn contains_frame_introducer(bytes: &[u8]) -> bool {
    bytes.iter().enumerate().any(|(i, &b)| {
        let tag_at = match b {
            ESC if bytes.get(i + 1) == Some(&b'_') => i + 2,
            // Also the second byte of `C2 9F`.
            APC_8BIT => i + 1,
            _ => return false,
        };
        let rest = &bytes[tag_at..];
        rest.starts_with(b"lumen") || TAG.starts_with(rest)
    })
}

/// A complete, valid frame taken out of the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Header pairs in the order they were written; keys are unique.
    pub header: Vec<(String, String)>,
    /// The payload, base64url-decoded.
    pub payload: Vec<u8>,
    /// Where the frame stood in the output: the length `passthrough` of the same
    /// [`ScanOutput`] had when the frame ended.
    pub offset: usize,
}

impl Frame {
    /// The value of header key `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.header
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The frame type (`t`); always present in a valid frame.
    pub fn frame_type(&self) -> &str {
        self.get("t").unwrap_or_default()
    }

    /// The block id (`id`); always present in a valid frame.
    pub fn block_id(&self) -> &str {
        self.get("id").unwrap_or_default()
    }
}

/// Why a frame failed. A failed frame is dropped whole, never rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameFailReason {
    /// It claimed terminal origin (`o=t`) or had a terminal-only type ([`TERMINAL_ONLY_TYPES`]).
    TerminalOrigin,
    /// Bad header or payload, a byte outside the frame alphabet, an 8-bit introducer or
    /// terminator, a header over [`MAX_HEADER_BYTES`].
    Malformed,
    /// Over [`MAX_FRAME_BYTES`].
    TooLarge,
    /// No terminator within [`FRAME_TIMEOUT`], or the output ended inside the frame.
    Unterminated,
}

impl FrameFailReason {
    /// Stable snake_case name, for logs, counters and events.
    pub fn as_str(self) -> &'static str {
        match self {
            FrameFailReason::TerminalOrigin => "terminal_origin",
            FrameFailReason::Malformed => "malformed",
            FrameFailReason::TooLarge => "too_large",
            FrameFailReason::Unterminated => "unterminated",
        }
    }
}

/// A frame that failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameFailure {
    pub reason: FrameFailReason,
    /// Bytes of output dropped with it, introducer (and terminator, if any) included.
    pub bytes: usize,
    /// What was wrong, in a few words, for logs and notices.
    pub detail: &'static str,
    /// The block id, when the header got far enough to name one.
    pub block: Option<String>,
    /// Like [`Frame::offset`]; 0 for failures reported by [`FrameScanner::check_timeout`].
    pub offset: usize,
}

/// What one [`FrameScanner::feed`] produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanOutput {
    /// Bytes for the emulator, in order, with frames removed.
    pub passthrough: Vec<u8>,
    pub frames: Vec<Frame>,
    pub failures: Vec<FrameFailure>,
}

/// Byte-incremental frame scanner for one PTY's output.
///
/// An introducer split across reads at any point is still recognised. The bytes of a possible
/// introducer (at most 8) are held back until the next byte decides; a terminal would not have
/// drawn them yet either (an unfinished escape, APC string or UTF-8 sequence).
/// Bytes that are not part of a frame pass through unchanged and in order, non-Lumen APC strings
/// included. A raw 0x9F or 0x9C that continues a valid UTF-8 sequence (as in U+1F61F, `F0 9F 98
/// 9F`) is part of a character, not a control.
#[derive(Debug, Default)]
pub struct FrameScanner {
    state: ScanState,
    /// A possible introducer, not given to the emulator yet.
    held: Vec<u8>,
    utf8: Utf8Tracker,
}

#[derive(Debug, Default)]
enum ScanState {
    #[default]
    Ground,
    /// ESC held; `_` would make it an APC introducer.
    Esc,
    /// `C2` held; `9F` would make it U+009F (APC).
    C2,
    /// An APC introducer and `matched` bytes of `lumen;` held.
    Tag {
        matched: usize,
        eight_bit: bool,
    },
    Frame(Box<OpenFrame>),
}

#[derive(Debug)]
struct OpenFrame {
    started: Instant,
    /// Bytes consumed so far, introducer included.
    bytes: usize,
    eight_bit: bool,
    header: Vec<u8>,
    payload: Vec<u8>,
    in_payload: bool,
    /// An ESC or `C2` whose meaning depends on the next byte (the first half of a terminator).
    pending: Option<u8>,
    /// Set once the frame is known to fail while its end is still awaited: it is then discarded
    /// up to its terminator, keeping nothing.
    doomed: Option<(FrameFailReason, &'static str)>,
}

/// What one byte did to the frame being read.
enum ByteEffect {
    Consumed,
    End {
        eight_bit_st: bool,
    },
    /// The frame ends before this byte, which is looked at again outside the frame, after the
    /// pending ESC (if `hold_esc`), which begins what follows, is held.
    Abort {
        hold_esc: bool,
        detail: &'static str,
    },
}

impl OpenFrame {
    fn count(&mut self, n: usize) {
        self.bytes += n;
        if self.bytes > MAX_FRAME_BYTES {
            self.doom(FrameFailReason::TooLarge, "frame over 1 MiB");
        }
    }

    fn doom(&mut self, reason: FrameFailReason, detail: &'static str) {
        if self.doomed.is_none() {
            self.doomed = Some((reason, detail));
            // Keep the id for the notice; free the rest at once.
            if !self.in_payload {
                self.header = Vec::new();
            }
            self.payload = Vec::new();
        }
    }

    fn step(&mut self, b: u8) -> ByteEffect {
        if let Some(first) = self.pending.take() {
            match (first, b) {
                (ESC, b'\\') => {
                    self.count(2);
                    return ByteEffect::End {
                        eight_bit_st: false,
                    };
                }
                (C1_LEAD, ST_8BIT) => {
                    self.count(2);
                    return ByteEffect::End { eight_bit_st: true };
                }
                // ESC followed by anything else starts a new sequence, as in any VT parser.
                (ESC, _) => {
                    return ByteEffect::Abort {
                        hold_esc: true,
                        detail: "escape sequence inside the frame",
                    }
                }
                _ => {
                    // C2 is not in the alphabet; what follows it is an ordinary frame byte.
                    self.count(1);
                    self.doom(
                        FrameFailReason::Malformed,
                        "byte outside the frame alphabet",
                    );
                }
            }
        }
        match b {
            ESC | C1_LEAD => {
                self.pending = Some(b);
                ByteEffect::Consumed
            }
            ST_8BIT => {
                self.count(1);
                ByteEffect::End { eight_bit_st: true }
            }
            // CAN and SUB cancel a control string.
            0x18 | 0x1a => ByteEffect::Abort {
                hold_esc: false,
                detail: "control string cancelled (CAN or SUB)",
            },
            b';' if !self.in_payload => {
                self.count(1);
                self.in_payload = true;
                ByteEffect::Consumed
            }
            _ => {
                self.count(1);
                if !in_alphabet(b, self.in_payload) {
                    // Like any APC string, the rest is swallowed up to the terminator.
                    self.doom(
                        FrameFailReason::Malformed,
                        "byte outside the frame alphabet",
                    );
                } else if self.doomed.is_none() {
                    if self.in_payload {
                        self.payload.push(b);
                    } else if self.header.len() < MAX_HEADER_BYTES {
                        self.header.push(b);
                    } else {
                        self.doom(FrameFailReason::Malformed, "header over 256 bytes");
                    }
                }
                ByteEffect::Consumed
            }
        }
    }

    fn failure(
        &self,
        fallback: FrameFailReason,
        detail: &'static str,
        offset: usize,
    ) -> FrameFailure {
        let (reason, detail) = self.doomed.unwrap_or((fallback, detail));
        FrameFailure {
            reason,
            bytes: self.bytes,
            detail,
            block: if self.in_payload {
                header_id(&self.header)
            } else {
                None
            },
            offset,
        }
    }

    /// The frame's terminator arrived: a frame, or why not.
    fn finish(self, eight_bit_st: bool, offset: usize) -> Result<Frame, FrameFailure> {
        let fail = |reason, detail| Err(self.failure(reason, detail, offset));
        if self.doomed.is_some() {
            return fail(FrameFailReason::Malformed, "");
        }
        if self.eight_bit {
            return fail(
                FrameFailReason::Malformed,
                "8-bit APC introducer (never executed)",
            );
        }
        if eight_bit_st {
            return fail(
                FrameFailReason::Malformed,
                "8-bit string terminator (never executed)",
            );
        }
        if !self.in_payload {
            return fail(
                FrameFailReason::Malformed,
                "no ';' between header and payload",
            );
        }
        let header = match parse_header(&self.header) {
            Ok(header) => header,
            Err((reason, detail)) => return fail(reason, detail),
        };
        let Some(payload) = decode_base64url(&self.payload) else {
            return fail(FrameFailReason::Malformed, "payload is not base64url");
        };
        Ok(Frame {
            header,
            payload,
            offset,
        })
    }
}

fn in_alphabet(b: u8, in_payload: bool) -> bool {
    if in_payload {
        b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
    } else {
        b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'=' || b == b','
    }
}

impl FrameScanner {
    pub fn new() -> Self {
        Self::default()
    }

    /// Scan one chunk of output. Checks the timeout first, so bytes that arrive after an open
    /// frame expired are not taken as part of it.
    pub fn feed(&mut self, input: &[u8], now: Instant) -> ScanOutput {
        let mut out = ScanOutput {
            passthrough: Vec::with_capacity(input.len()),
            ..ScanOutput::default()
        };
        if let Some(failure) = self.check_timeout(now) {
            out.failures.push(failure);
        }
        let mut i = 0;
        while i < input.len() {
            // Fast path: plain ASCII in ground state needs no look at all.
            if matches!(self.state, ScanState::Ground) && self.utf8.need == 0 {
                let run = input[i..]
                    .iter()
                    .position(|&b| b >= 0x80 || b == ESC)
                    .unwrap_or(input.len() - i);
                out.passthrough.extend_from_slice(&input[i..i + run]);
                i += run;
                if i == input.len() {
                    break;
                }
            }
            self.byte(input[i], now, &mut out);
            i += 1;
        }
        out
    }

    /// Fail a frame left unterminated for [`FRAME_TIMEOUT`]. Call it periodically while output
    /// is quiet; [`FrameScanner::feed`] calls it itself.
    pub fn check_timeout(&mut self, now: Instant) -> Option<FrameFailure> {
        let expired = matches!(&self.state, ScanState::Frame(f)
            if now.saturating_duration_since(f.started) >= FRAME_TIMEOUT);
        if !expired {
            return None;
        }
        let ScanState::Frame(f) = std::mem::take(&mut self.state) else {
            return None;
        };
        // A pending ESC or C2 may begin whatever comes next, as it would have without the frame.
        if let Some(first) = f.pending {
            self.hold(
                first,
                if first == ESC {
                    ScanState::Esc
                } else {
                    ScanState::C2
                },
            );
        }
        Some(f.failure(
            FrameFailReason::Unterminated,
            "no string terminator within 5 s",
            0,
        ))
    }

    /// The output ended (PTY EOF, child exit): fail an open frame, and release any bytes held as
    /// a possible introducer.
    pub fn finish(&mut self) -> ScanOutput {
        let mut out = ScanOutput::default();
        match std::mem::take(&mut self.state) {
            ScanState::Frame(mut f) => {
                f.bytes += usize::from(f.pending.is_some());
                out.failures.push(f.failure(
                    FrameFailReason::Unterminated,
                    "output ended inside the frame",
                    0,
                ));
            }
            _ => out.passthrough.append(&mut self.held),
        }
        self.held.clear();
        self.utf8 = Utf8Tracker::default();
        out
    }

    /// Is a frame (or a possible introducer) open?
    pub fn is_idle(&self) -> bool {
        matches!(self.state, ScanState::Ground)
    }

    fn byte(&mut self, b: u8, now: Instant, out: &mut ScanOutput) {
        // Each arm consumes `b` (return) or changes state and lets the loop look at `b` again.
        loop {
            match &mut self.state {
                ScanState::Ground => {
                    self.ground(b, out);
                    return;
                }
                ScanState::Esc => {
                    if b == b'_' {
                        self.held.push(b);
                        self.state = ScanState::Tag {
                            matched: 0,
                            eight_bit: false,
                        };
                        return;
                    }
                    self.release(out);
                }
                ScanState::C2 => {
                    if b == APC_8BIT {
                        self.held.push(b);
                        self.state = ScanState::Tag {
                            matched: 0,
                            eight_bit: true,
                        };
                        return;
                    }
                    self.release(out);
                    // The released C2 still leads a UTF-8 sequence.
                    self.utf8.advance(C1_LEAD);
                }
                ScanState::Tag { matched, eight_bit } => {
                    if b != TAG[*matched] {
                        self.release(out);
                        continue;
                    }
                    self.held.push(b);
                    *matched += 1;
                    if *matched == TAG.len() {
                        let frame = OpenFrame {
                            started: now,
                            bytes: self.held.len(),
                            eight_bit: *eight_bit,
                            header: Vec::new(),
                            payload: Vec::new(),
                            in_payload: false,
                            pending: None,
                            doomed: None,
                        };
                        self.held.clear();
                        self.state = ScanState::Frame(Box::new(frame));
                    }
                    return;
                }
                ScanState::Frame(frame) => match frame.step(b) {
                    ByteEffect::Consumed => return,
                    ByteEffect::End { eight_bit_st } => {
                        let ScanState::Frame(frame) = std::mem::take(&mut self.state) else {
                            return;
                        };
                        match frame.finish(eight_bit_st, out.passthrough.len()) {
                            Ok(frame) => out.frames.push(frame),
                            Err(failure) => out.failures.push(failure),
                        }
                        return;
                    }
                    ByteEffect::Abort { hold_esc, detail } => {
                        out.failures.push(frame.failure(
                            FrameFailReason::Malformed,
                            detail,
                            out.passthrough.len(),
                        ));
                        self.state = ScanState::Ground;
                        if hold_esc {
                            self.hold(ESC, ScanState::Esc);
                        }
                    }
                },
            }
        }
    }

    fn ground(&mut self, b: u8, out: &mut ScanOutput) {
        if !self.utf8.continues(b) {
            match b {
                ESC => return self.hold(b, ScanState::Esc),
                C1_LEAD => return self.hold(b, ScanState::C2),
                APC_8BIT => {
                    return self.hold(
                        b,
                        ScanState::Tag {
                            matched: 0,
                            eight_bit: true,
                        },
                    )
                }
                _ => {}
            }
        }
        self.utf8.advance(b);
        out.passthrough.push(b);
    }

    fn hold(&mut self, b: u8, next: ScanState) {
        self.utf8 = Utf8Tracker::default();
        self.held.clear();
        self.held.push(b);
        self.state = next;
    }

    /// The held bytes are not an introducer after all: they go to the emulator.
    fn release(&mut self, out: &mut ScanOutput) {
        out.passthrough.append(&mut self.held);
        self.utf8 = Utf8Tracker::default();
        self.state = ScanState::Ground;
    }
}

/// Where the output stands in UTF-8 terms, as a strict decoder sees it, so that 0x9F and 0x9C
/// inside a character are not taken for C1 controls.
#[derive(Debug, Default, Clone, Copy)]
struct Utf8Tracker {
    /// Continuation bytes still expected.
    need: u8,
    /// Range the next continuation byte must fall in (narrower after E0, ED, F0, F4).
    lo: u8,
    hi: u8,
}

impl Utf8Tracker {
    fn continues(&self, b: u8) -> bool {
        self.need > 0 && (self.lo..=self.hi).contains(&b)
    }

    fn advance(&mut self, b: u8) {
        if self.continues(b) {
            *self = Utf8Tracker {
                need: self.need - 1,
                lo: 0x80,
                hi: 0xbf,
            };
            return;
        }
        let (need, lo, hi) = match b {
            0xc2..=0xdf => (1, 0x80, 0xbf),
            0xe0 => (2, 0xa0, 0xbf),
            0xed => (2, 0x80, 0x9f),
            0xe1..=0xef => (2, 0x80, 0xbf),
            0xf0 => (3, 0x90, 0xbf),
            0xf1..=0xf3 => (3, 0x80, 0xbf),
            0xf4 => (3, 0x80, 0x8f),
            _ => (0, 0x80, 0xbf),
        };
        *self = Utf8Tracker { need, lo, hi };
    }
}

type Invalid = (FrameFailReason, &'static str);

fn parse_header(header: &[u8]) -> Result<Vec<(String, String)>, Invalid> {
    let malformed = |detail| Err((FrameFailReason::Malformed, detail));
    // The alphabet check already made it ASCII.
    let Ok(text) = std::str::from_utf8(header) else {
        return malformed("header is not ASCII");
    };
    if text.is_empty() {
        return malformed("empty header");
    }
    let mut pairs: Vec<(String, String)> = Vec::new();
    for item in text.split(',') {
        let Some((key, value)) = item.split_once('=') else {
            return malformed("header item without '='");
        };
        if key.is_empty() || !key.bytes().all(|c| c.is_ascii_lowercase()) {
            return malformed("header key is not lower-case letters");
        }
        if value.is_empty()
            || !value
                .bytes()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        {
            return malformed("header value is not letters and digits");
        }
        if pairs.iter().any(|(k, _)| k == key) {
            return malformed("repeated header key");
        }
        pairs.push((key.to_owned(), value.to_owned()));
    }
    let get = |key: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    // A claim of terminal authority is the failure worth naming, whatever else is wrong.
    match get("o") {
        Some("t") => {
            return Err((
                FrameFailReason::TerminalOrigin,
                "claims terminal origin (o=t)",
            ))
        }
        Some(_) => return malformed("unknown origin value"),
        None => {}
    }
    if get("t").is_some_and(|t| TERMINAL_ONLY_TYPES.contains(&t)) {
        return Err((FrameFailReason::TerminalOrigin, "terminal-only frame type"));
    }
    match get("v") {
        Some("0") => {}
        Some(_) => return malformed("unsupported version (only v=0)"),
        None => return malformed("no version (v=0)"),
    }
    if get("t").is_none() {
        return malformed("no type (t=)");
    }
    if get("id").is_none() {
        return malformed("no block id (id=)");
    }
    Ok(pairs)
}

/// The `id` of a (possibly invalid) header, for naming the block in a failure notice.
fn header_id(header: &[u8]) -> Option<String> {
    header
        .split(|&b| b == b',')
        .find_map(|item| item.strip_prefix(b"id="))
        .filter(|v| !v.is_empty() && v.len() <= 64)
        .map(|v| String::from_utf8_lossy(v).into_owned())
}

/// Strict base64url (RFC 4648 section 5) without padding: the canonical form only.
fn decode_base64url(input: &[u8]) -> Option<Vec<u8>> {
    fn value(c: u8) -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        }))
    }
    if input.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(input.len() / 4 * 3 + 2);
    for chunk in input.chunks(4) {
        let mut acc = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            acc |= value(c)? << (18 - 6 * i);
        }
        let bytes = acc.to_be_bytes();
        let n = chunk.len() - 1;
        out.extend_from_slice(&bytes[1..=n]);
        // A short last group must leave its unused bits zero.
        if bytes[n + 1..].iter().any(|&b| b != 0) {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests;
