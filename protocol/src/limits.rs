//! Every limit on what a peer can make the daemon hold, in one place.
//!
//! A peer is anything that reaches the daemon: a JSON or binary client on the socket, or a
//! program printing into a window. Each limit is sized so that the worst a single peer can do
//! costs a bounded, modest amount of memory, while staying well above what any real terminal,
//! script or program needs. Where a client can hit a limit it is refused with `invalid_params`
//! naming the limit and the value sent; where a program hits one (it cannot get an error back),
//! the excess is dropped and the window keeps working.
//!
//! The `check_*` helpers are pure: the JSON validator ([`crate::registry::validate`]) and the
//! binary decoder ([`crate::binary::ClientMessage::decode`]) call them, and so can any handler
//! that receives a value some other way.

use std::time::Duration;

use crate::error::{ErrorCode, Hint, VerbError};

/// Widest terminal a session or window may have, in columns.
///
/// The emulator keeps a grid of 24-byte cells and a second one for the alternate screen, so a
/// 1000x1000 window costs about 48 MB at most; 65535x65535 would be about 200 GB. 1000 columns
/// is an 8K display (7680 px) at an 8-pixel-wide font, wider than any terminal in real use.
pub const MAX_COLS: u16 = 1000;
/// Tallest terminal a session or window may have, in rows (see [`MAX_COLS`] for the budget).
/// 1000 rows is more than an 8K display (4320 px) holds at a 5-pixel-tall font.
pub const MAX_ROWS: u16 = 1000;

/// Most scrollback lines a window keeps. Alacritty caps its own scrollback at the same number;
/// at [`MAX_COLS`] columns it bounds a window's history to some hundreds of MB in the worst
/// case, and to a few MB for ordinary output.
pub const MAX_SCROLLBACK_LINES: usize = 100_000;

/// Longest OSC, DCS, APC, PM or SOS string a program can send, in bytes (introducer and
/// terminator not counted). Bytes beyond it are dropped and the string is still terminated, so
/// the window keeps working. 1 MiB is tmux's input buffer limit, leaves room for an OSC 52
/// clipboard copy of a large selection, and matches the Lumen frame cap.
pub const MAX_ESCAPE_STRING_BYTES: usize = 1 << 20;

/// Longest window title a program can set (OSC 0/2), in bytes; longer ones are cut at a
/// character boundary. 4 KiB is PATH_MAX, the longest thing shells put in titles (the working
/// directory), and keeps a session's state message small with many windows.
pub const MAX_TITLE_BYTES: usize = 4096;
/// Longest window or workspace name, or session display name, a client can set, in bytes.
/// Same reasoning as [`MAX_TITLE_BYTES`]: a name stands in for a title.
pub const MAX_NAME_BYTES: usize = 4096;
/// Longest agent-state message (`set-agent-state`), in bytes: a line of status, shown in chrome.
pub const MAX_MESSAGE_BYTES: usize = 4096;
/// Longest layout an attached client can share with the session, in bytes. The layout goes to
/// every client in each session-state message; 256 KiB describes thousands of panes.
pub const MAX_LAYOUT_BYTES: usize = 256 * 1024;
/// Most scrollback rows one copy-mode request may ask for. The answer must fit in one frame:
/// 2000 rows of [`MAX_COLS`] styled cells stay under [`crate::binary::MAX_FRAME_LEN`].
pub const MAX_SCROLLBACK_PAGE_ROWS: u32 = 2000;

/// Longest JSON request line, in bytes (the same as [`crate::MAX_LINE_BYTES`]): room for a
/// multi-megabyte `send-text`.
pub const MAX_REQUEST_LINE_BYTES: usize = crate::MAX_LINE_BYTES;
/// Largest binary frame of any type ([`crate::binary::MAX_FRAME_LEN`] is this): the same bound as
/// a JSON request line, [`crate::MAX_LINE_BYTES`].
pub const MAX_FRAME_BYTES: usize = crate::MAX_LINE_BYTES;
/// Largest frame of the session-level client messages (`Hello`, `NewSession`, `ListSessions`,
/// `KillSession`, `KillServer`) and of any type this build does not know. Their payloads are a
/// few short strings and integers; 64 KiB is ample and keeps a peer that has not said Hello
/// from making the daemon buffer more.
pub const MAX_CONTROL_FRAME_BYTES: usize = 64 * 1024;
/// Largest frame of an attached client's operation (`ClientOp`): it may carry a paste, which
/// may be as large as a `send-text`.
pub const MAX_CLIENT_OP_FRAME_BYTES: usize = MAX_FRAME_BYTES;
/// How much room the frame decoder reserves ahead of the bytes that have arrived. A declared
/// length is only a promise; the buffer grows as the body actually comes in.
pub const FRAME_RESERVE_STEP: usize = 64 * 1024;

/// How long a binary peer has, from connecting, to send a complete `Hello`. Ten seconds is far
/// more than a local client needs and ends connections that never speak.
pub const BINARY_HELLO_DEADLINE: Duration = Duration::from_secs(10);
/// How long a binary frame may stay half-received, from its first byte. A local peer sends a
/// whole frame in well under a second even at [`MAX_FRAME_BYTES`]; one that stops mid-frame is
/// disconnected rather than held forever.
pub const PARTIAL_FRAME_DEADLINE: Duration = Duration::from_secs(10);

/// Descriptors the daemon keeps for itself whatever its clients do: the listener, the lock, the
/// log, each arbiter's reactor, and short-lived ones (spawn pipes, session saves, /proc reads).
pub const RESERVED_FDS: u64 = 128;
/// Windows the descriptor budget keeps room for: the daemon is built for 1,000.
pub const PLANNED_WINDOWS: u64 = 1_000;
/// Descriptors one window holds at most: the PTY master, the reader's and the writer's dups, the
/// input's direct-write dup, and the dup registered while a write waits for room.
pub const FDS_PER_WINDOW: u64 = 5;
/// Descriptors one connection holds at most: a binary one has its socket, a writer dup, and a
/// dup registered while a write waits for room (a JSON one has just its socket).
pub const FDS_PER_CONNECTION: u64 = 3;
/// Connections served even when the descriptor limit leaves no room for them after the planned
/// windows (a small limit then runs out of windows first, which the acceptor survives).
pub const MIN_CONNECTIONS: usize = 64;
/// Connections served at most, whatever the limit: each costs some memory (buffers, an actor).
pub const MAX_CONNECTIONS_CEILING: usize = 16_384;

/// Most client connections (JSON and binary together) served at once under the descriptor limit
/// `nofile` (the soft RLIMIT_NOFILE the daemon runs with). New ones beyond it are told why and
/// closed:
/// `clamp((nofile - RESERVED_FDS - PLANNED_WINDOWS * FDS_PER_WINDOW) / FDS_PER_CONNECTION,
/// MIN_CONNECTIONS, MAX_CONNECTIONS_CEILING)`.
pub fn connection_cap(nofile: u64) -> usize {
    let spare = nofile.saturating_sub(RESERVED_FDS + PLANNED_WINDOWS * FDS_PER_WINDOW);
    let cap = usize::try_from(spare / FDS_PER_CONNECTION).unwrap_or(usize::MAX);
    cap.clamp(MIN_CONNECTIONS, MAX_CONNECTIONS_CEILING)
}

/// Largest frame a client may send with the given message type (the daemon's side).
pub fn client_frame_cap(kind: u8) -> usize {
    use crate::binary::kind;
    match kind {
        kind::CLIENT_OP => MAX_CLIENT_OP_FRAME_BYTES,
        _ => MAX_CONTROL_FRAME_BYTES,
    }
}

fn over_limit(param: &str, message: String, detail: String) -> VerbError {
    VerbError::new(ErrorCode::InvalidParams, message)
        .with_hint(Hint::new().param(param).detail(detail))
}

fn check_dimension(param: &str, value: i64, max: u16, unit: &str) -> Result<u16, VerbError> {
    if value < 1 || value > i64::from(max) {
        return Err(over_limit(
            param,
            format!("{param} {value} is outside 1..={max} {unit}"),
            format!(
                "Terminal sizes are limited to 1..={MAX_COLS} columns and 1..={MAX_ROWS} rows (MAX_COLS, MAX_ROWS), which bounds what one window can cost the daemon."
            ),
        ));
    }
    Ok(value as u16)
}

/// A column count: `1..=MAX_COLS`, refused naming `param` otherwise.
pub fn check_cols(param: &str, value: i64) -> Result<u16, VerbError> {
    check_dimension(param, value, MAX_COLS, "columns")
}

/// A row count: `1..=MAX_ROWS`, refused naming `param` otherwise.
pub fn check_rows(param: &str, value: i64) -> Result<u16, VerbError> {
    check_dimension(param, value, MAX_ROWS, "rows")
}

/// A terminal size given as `width` x `height` (the names `resize`, `NewSession`, `Attach` and
/// `Resize` use).
pub fn check_size(cols: i64, rows: i64) -> Result<(u16, u16), VerbError> {
    Ok((check_cols("width", cols)?, check_rows("height", rows)?))
}

/// A binary size where 0 means "not known" (a client without a terminal size): `0` or
/// `1..=max`. The daemon then uses its minimum for a zero.
pub fn check_binary_size(
    width_param: &str,
    width: u16,
    height_param: &str,
    height: u16,
) -> Result<(), VerbError> {
    if width != 0 {
        check_cols(width_param, i64::from(width))?;
    }
    if height != 0 {
        check_rows(height_param, i64::from(height))?;
    }
    Ok(())
}

/// A string of at most `max` bytes, refused naming `param` and the limit's `name` otherwise.
pub fn check_len(param: &str, value: &str, max: usize, name: &str) -> Result<(), VerbError> {
    if value.len() > max {
        return Err(over_limit(
            param,
            format!(
                "{param} is {} bytes long; the limit is {max} bytes ({name})",
                value.len()
            ),
            "Shorten the value.".to_owned(),
        ));
    }
    Ok(())
}

/// A window or workspace name, or a session display name: at most [`MAX_NAME_BYTES`].
pub fn check_name(param: &str, value: &str) -> Result<(), VerbError> {
    check_len(param, value, MAX_NAME_BYTES, "MAX_NAME_BYTES")
}

/// A scrollback length in lines: `0..=MAX_SCROLLBACK_LINES`.
pub fn check_scrollback_lines(param: &str, value: i64) -> Result<usize, VerbError> {
    if value < 0 || value > MAX_SCROLLBACK_LINES as i64 {
        return Err(over_limit(
            param,
            format!("{param} {value} is outside 0..={MAX_SCROLLBACK_LINES} lines"),
            format!("Scrollback is limited to {MAX_SCROLLBACK_LINES} lines per window (MAX_SCROLLBACK_LINES), as in alacritty."),
        ));
    }
    Ok(value as usize)
}

/// The row count of one copy-mode scrollback request: at most [`MAX_SCROLLBACK_PAGE_ROWS`].
pub fn check_scrollback_page(param: &str, count: u32) -> Result<(), VerbError> {
    if count > MAX_SCROLLBACK_PAGE_ROWS {
        return Err(over_limit(
            param,
            format!("{param} {count} is over the limit of {MAX_SCROLLBACK_PAGE_ROWS} rows per request (MAX_SCROLLBACK_PAGE_ROWS)"),
            "Ask for the rows in several requests.".to_owned(),
        ));
    }
    Ok(())
}

/// The longest prefix of `s` that is at most `max` bytes and ends on a character boundary.
pub fn truncate_utf8(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// A title a program set, cut to [`MAX_TITLE_BYTES`]. Programs cannot be told about a limit, so
/// the excess is dropped.
pub fn clip_title(title: &str) -> &str {
    truncate_utf8(title, MAX_TITLE_BYTES)
}

/// Cuts over-long OSC, DCS, APC, PM and SOS strings out of a program's output before it reaches
/// the emulator, so no string can grow past [`MAX_ESCAPE_STRING_BYTES`]. Everything else passes
/// through unchanged, and the state carries across calls, so output may be split anywhere.
///
/// A string ends as the emulator ends it: ST (`ESC \`), BEL (OSC only, but harmless for the
/// others), CAN or SUB, or ESC followed by anything (which starts a new sequence).
#[derive(Debug, Default, Clone)]
pub struct EscapeStringCap {
    state: CapState,
    /// Bytes of the current string's body passed on so far.
    len: usize,
    cap: Option<usize>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum CapState {
    #[default]
    Ground,
    /// After an ESC outside a string.
    Escape,
    /// Inside a string body.
    String,
    /// After an ESC inside a string: `\` ends it, anything else ends it and starts a sequence.
    StringEscape,
}

impl EscapeStringCap {
    pub fn new() -> Self {
        EscapeStringCap::default()
    }

    /// With a cap other than [`MAX_ESCAPE_STRING_BYTES`] (tests).
    pub fn with_cap(cap: usize) -> Self {
        EscapeStringCap {
            cap: Some(cap),
            ..EscapeStringCap::default()
        }
    }

    /// True while inside a string whose excess is being dropped.
    pub fn is_dropping(&self) -> bool {
        self.state == CapState::String && self.len >= self.cap()
    }

    fn cap(&self) -> usize {
        self.cap.unwrap_or(MAX_ESCAPE_STRING_BYTES)
    }

    /// Appends `input`, less the bytes over the cap, to `out`.
    pub fn filter(&mut self, input: &[u8], out: &mut Vec<u8>) {
        out.reserve(input.len());
        for &b in input {
            match self.state {
                CapState::Ground => {
                    if b == 0x1b {
                        self.state = CapState::Escape;
                    }
                    out.push(b);
                }
                CapState::Escape => {
                    // ] OSC, P DCS, _ APC, ^ PM, X SOS.
                    self.state = match b {
                        b']' | b'P' | b'_' | b'^' | b'X' => {
                            self.len = 0;
                            CapState::String
                        }
                        0x1b => CapState::Escape,
                        _ => CapState::Ground,
                    };
                    out.push(b);
                }
                CapState::String => match b {
                    0x1b => {
                        self.state = CapState::StringEscape;
                        out.push(b);
                    }
                    0x07 | 0x18 | 0x1a => {
                        self.state = CapState::Ground;
                        out.push(b);
                    }
                    _ => {
                        if self.len < self.cap() {
                            self.len += 1;
                            out.push(b);
                        }
                    }
                },
                CapState::StringEscape => {
                    out.push(b);
                    self.state = match b {
                        b']' | b'P' | b'_' | b'^' | b'X' => {
                            self.len = 0;
                            CapState::String
                        }
                        0x1b => CapState::Escape,
                        _ => CapState::Ground,
                    };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_cap_leaves_room_for_the_planned_windows() {
        // The old default soft limit has no room after 1,000 windows: the floor applies.
        assert_eq!(connection_cap(1024), MIN_CONNECTIONS);
        assert_eq!(connection_cap(0), MIN_CONNECTIONS);
        // (20,000 - 128 - 5,000) / 3
        assert_eq!(connection_cap(20_000), 4_957);
        // systemd's default hard limit is far past the ceiling.
        assert_eq!(connection_cap(524_288), MAX_CONNECTIONS_CEILING);
        assert_eq!(connection_cap(u64::MAX), MAX_CONNECTIONS_CEILING);
    }

    #[test]
    fn sizes() {
        assert_eq!(check_size(80, 24).unwrap(), (80, 24));
        assert_eq!(
            check_size(MAX_COLS as i64, MAX_ROWS as i64).unwrap(),
            (MAX_COLS, MAX_ROWS)
        );
        for (w, h, param) in [
            (0, 24, "width"),
            (-1, 24, "width"),
            (65535, 24, "width"),
            (1001, 24, "width"),
            (80, 0, "height"),
            (80, 65535, "height"),
        ] {
            let err = check_size(w, h).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidParams);
            assert_eq!(err.hint.param.as_deref(), Some(param));
            let bad = if param == "width" { w } else { h };
            assert!(err.message.contains(&bad.to_string()), "{}", err.message);
            assert!(err.message.contains("1000"), "{}", err.message);
        }
        assert!(check_binary_size("width", 0, "height", 0).is_ok());
        assert!(check_binary_size("cols", 1000, "rows", 1).is_ok());
        let err = check_binary_size("cols", 1001, "rows", 1).unwrap_err();
        assert_eq!(err.hint.param.as_deref(), Some("cols"));
    }

    #[test]
    fn lengths() {
        assert!(check_name("name", &"n".repeat(MAX_NAME_BYTES)).is_ok());
        let err = check_name("name", &"n".repeat(MAX_NAME_BYTES + 1)).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParams);
        assert!(err.message.contains("4097") && err.message.contains("MAX_NAME_BYTES"));
        assert!(check_scrollback_lines("value", 100_000).is_ok());
        assert!(check_scrollback_lines("value", 100_001).is_err());
        assert!(check_scrollback_lines("value", -1).is_err());
        assert!(check_scrollback_page("count", 500).is_ok());
        assert!(check_scrollback_page("count", u32::MAX).is_err());
    }

    #[test]
    fn titles_are_cut_on_char_boundaries() {
        let t = "é".repeat(MAX_TITLE_BYTES);
        let c = clip_title(&t);
        assert!(c.len() <= MAX_TITLE_BYTES && c.len() >= MAX_TITLE_BYTES - 1);
        assert!(c.chars().all(|ch| ch == 'é'));
        assert_eq!(clip_title("short"), "short");
        assert_eq!(truncate_utf8("aé", 2), "a");
    }

    #[test]
    fn frame_caps_by_type() {
        use crate::binary::kind;
        assert_eq!(client_frame_cap(kind::HELLO), MAX_CONTROL_FRAME_BYTES);
        assert_eq!(client_frame_cap(kind::CLIENT_OP), MAX_CLIENT_OP_FRAME_BYTES);
        assert_eq!(client_frame_cap(250), MAX_CONTROL_FRAME_BYTES);
    }

    fn capped(cap: usize, chunks: &[&[u8]]) -> Vec<u8> {
        let mut f = EscapeStringCap::with_cap(cap);
        let mut out = Vec::new();
        for c in chunks {
            f.filter(c, &mut out);
        }
        out
    }

    #[test]
    fn escape_strings_are_capped() {
        // Plain text and short strings pass unchanged.
        let plain: &[u8] = b"hello\x1b[31mred\x1b]2;title\x07 after\x1b]8;;u\x1b\\x";
        assert_eq!(capped(16, &[plain]), plain);
        // A long title is cut, and still terminated, so what follows is text again.
        assert_eq!(
            capped(4, &[b"\x1b]2;abcdefgh\x07tail"]),
            b"\x1b]2;ab\x07tail"
        );
        // Split anywhere: the same result.
        assert_eq!(
            capped(4, &[b"\x1b", b"]2;abc", b"defgh\x1b", b"\\tail"]),
            b"\x1b]2;ab\x1b\\tail"
        );
        // DCS and APC too; CAN ends a string.
        assert_eq!(capped(2, &[b"\x1bPabcdef\x1b\\"]), b"\x1bPab\x1b\\");
        assert_eq!(capped(2, &[b"\x1b_abcdef\x18z"]), b"\x1b_ab\x18z");
        // An unterminated string never grows the output past the cap.
        let mut f = EscapeStringCap::with_cap(10);
        let mut out = Vec::new();
        f.filter(b"\x1b]0;", &mut out);
        for _ in 0..1000 {
            f.filter(&[b'x'; 100], &mut out);
        }
        // ESC ] and ten bytes of body ("0;" counts as body).
        assert_eq!(out.len(), 2 + 10);
        assert!(f.is_dropping());
        // ESC followed by another introducer starts a fresh string with its own budget.
        assert_eq!(
            capped(2, &[b"\x1b]abcd\x1b]efgh\x07"]),
            b"\x1b]ab\x1b]ef\x07"
        );
    }
}
