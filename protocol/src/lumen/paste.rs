//! The paste pipeline (DESIGN order), decided on the whole paste before one byte is written:
//! (1) scan the raw bytes for a frame introducer, 7- or 8-bit: reject; (2) decode UTF-8 strictly,
//! invalid bytes becoming U+FFFD; (3) bracketed paste on: remove ESC, every C0 but TAB/LF/CR, DEL
//! and every C1 in one pass, then wrap; (4) otherwise a paste with a line break or any other
//! control is held for a confirmation in chrome.
//!
//! Controls are filtered as code points after decoding, never as bytes: dropping `01` from
//! `C2 01 9B` at the byte level would build `C2 9B`, which is U+009B (CSI). And since no ESC and
//! no C1 survives, no end marker (`ESC [201~`, `U+009B 201~`) can survive or be rebuilt.

use std::borrow::Cow;

use super::frame::contains_frame_introducer;

/// What bracketed paste puts before the pasted text.
pub const BRACKETED_PASTE_START: &[u8] = b"\x1b[200~";
/// What bracketed paste puts after the pasted text.
pub const BRACKETED_PASTE_END: &[u8] = b"\x1b[201~";

const INTRODUCER_REASON: &str =
    "the paste holds a Lumen frame introducer (ESC _ lumen; or an 8-bit form of it), so nothing was pasted";
const HIDDEN_INTRODUCER_REASON: &str =
    "the paste holds a Lumen frame introducer broken up by control characters, so nothing was pasted";

/// What to do with a paste.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PasteDecision {
    /// Write these bytes to the PTY, as one write.
    Send(Vec<u8>),
    /// Ask first: show [`HeldPaste::preview`] in chrome and offer paste ([`HeldPaste::stripped`]),
    /// paste as one line ([`HeldPaste::one_line`]), keep controls ([`HeldPaste::keep_controls`])
    /// and cancel.
    Hold(HeldPaste),
    /// Write nothing; show the reason as a chrome notice.
    Reject(String),
}

/// A paste held for confirmation (no bracketed paste, and line breaks or controls in it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldPaste {
    /// The decoded paste, controls and all. Never draw it as it is: draw `preview`.
    pub text: String,
    /// The whole text with every control, line break, C1, backslash and invisible or bidi
    /// character written as a visible escape; holds no control character itself.
    pub preview: String,
    /// Runs of CR/LF between text become one space (runs at the start or end are dropped); other
    /// controls removed.
    pub one_line: Vec<u8>,
    /// The text with C0 controls and DEL kept, as the spec allows when the user asks; C1 controls
    /// are still removed (keeping them is not a choice the spec offers).
    pub keep_controls: Vec<u8>,
    /// The "paste" choice: every control but TAB, LF and CR removed; line breaks kept as they are.
    pub stripped: Vec<u8>,
    /// Whether it holds controls other than TAB, LF and CR (so `keep_controls` differs from
    /// `stripped`).
    pub has_controls: bool,
    /// Whether the raw paste was not valid UTF-8 (each bad sequence is a U+FFFD in `text`).
    pub invalid_utf8: bool,
}

/// C0 but TAB/LF/CR, DEL and C1: what a paste never carries unless the user keeps it.
fn is_removed_control(c: char) -> bool {
    (c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || ('\u{7f}'..='\u{9f}').contains(&c)
}

fn is_line_break(c: char) -> bool {
    c == '\n' || c == '\r'
}

/// Decide what to do with `raw`, a whole paste, for a window that has bracketed paste
/// (DECSET 2004) on or off.
pub fn decide_paste(raw: &[u8], bracketed: bool) -> PasteDecision {
    if contains_frame_introducer(raw) {
        return PasteDecision::Reject(INTRODUCER_REASON.to_owned());
    }
    let decoded = String::from_utf8_lossy(raw);
    let invalid_utf8 = matches!(decoded, Cow::Owned(_));
    let text: &str = &decoded;
    // A receiving parser may skip controls inside an escape sequence, and "keep controls" writes
    // ESC: so an introducer spelled with controls between its bytes is refused too.
    let without_controls: String = text
        .chars()
        .filter(|&c| c == '\x1b' || !c.is_control())
        .collect();
    if contains_frame_introducer(without_controls.as_bytes()) {
        return PasteDecision::Reject(HIDDEN_INTRODUCER_REASON.to_owned());
    }
    if bracketed {
        let inner = sanitize_bracketed(text);
        let mut out = Vec::with_capacity(
            BRACKETED_PASTE_START.len() + inner.len() + BRACKETED_PASTE_END.len(),
        );
        out.extend_from_slice(BRACKETED_PASTE_START);
        out.extend_from_slice(inner.as_bytes());
        out.extend_from_slice(BRACKETED_PASTE_END);
        return PasteDecision::Send(out);
    }
    let has_controls = text.chars().any(is_removed_control);
    if !has_controls && !invalid_utf8 && !text.chars().any(is_line_break) {
        return PasteDecision::Send(raw.to_vec());
    }
    let keep_controls: String = text
        .chars()
        .filter(|c| !('\u{80}'..='\u{9f}').contains(c))
        .collect();
    if contains_frame_introducer(keep_controls.as_bytes()) {
        return PasteDecision::Reject(HIDDEN_INTRODUCER_REASON.to_owned());
    }
    PasteDecision::Hold(HeldPaste {
        text: text.to_owned(),
        preview: visible_controls(text),
        one_line: one_line(text).into_bytes(),
        keep_controls: keep_controls.into_bytes(),
        stripped: sanitize_bracketed(text).into_bytes(),
        has_controls,
        invalid_utf8,
    })
}

/// Step 3 without the wrapper: remove ESC, every C0 but TAB/LF/CR, DEL and every C1
/// (U+0080..U+009F), in one pass.
pub fn sanitize_bracketed(text: &str) -> String {
    text.chars().filter(|&c| !is_removed_control(c)).collect()
}

fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if is_line_break(c) {
            space = !out.is_empty();
        } else if !is_removed_control(c) {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    out
}

/// Characters that draw nothing, or reorder what is drawn around them: they could hide or
/// disguise text in a confirmation (Trojan Source style), so previews and link confirmations
/// show them as escapes.
pub(super) fn is_invisible(c: char) -> bool {
    matches!(
        c as u32,
        0xad | 0x34f
            | 0x61c
            | 0x115f
            | 0x1160
            | 0x17b4
            | 0x17b5
            | 0x180b..=0x180f
            | 0x200b..=0x200f
            | 0x2028..=0x202e
            | 0x2060..=0x206f
            | 0x3164
            | 0xfe00..=0xfe0f
            | 0xfeff
            | 0xffa0
            | 0xfff9..=0xfffb
            | 0x1d173..=0x1d17a
            | 0xe0000..=0xe007f
            | 0xe0100..=0xe01ef
    )
}

/// `text` for a confirmation: holds no control character, and every control, C1, backslash and
/// invisible or bidi character is written as an escape, so nothing is hidden and the form is
/// unambiguous (`\t` `\n` `\r`, `\xNN` for other C0 and DEL, `\u{NN}` for C1 and invisibles,
/// `\\` for a backslash).
pub fn visible_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_visible(&mut out, c);
    }
    out
}

fn push_visible(out: &mut String, c: char) {
    use std::fmt::Write;
    match c {
        '\\' => out.push_str("\\\\"),
        '\t' => out.push_str("\\t"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        c if c < ' ' || c == '\x7f' => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c if c.is_control() || is_invisible(c) => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
        c => out.push(c),
    }
}

/// [`visible_controls`] cut into lines for display: each line ends with the visible form of the
/// line break that ended it (CR LF counts as one break). No empty line follows a final break.
pub fn visible_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        push_visible(&mut line, c);
        if c == '\r' && chars.peek() == Some(&'\n') {
            push_visible(&mut line, '\n');
            chars.next();
        }
        if is_line_break(c) {
            lines.push(std::mem::take(&mut line));
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests;
