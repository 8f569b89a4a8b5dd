//! Key tokens of `send-keys` turned into the bytes a terminal would send, for writing straight to a
//! window's PTY.
//!
//! Tokens are separated by spaces or commas. Named keys match whatever their case; every other
//! token keeps its case (`Hello` types `Hello`, `alt+X` sends ESC `X`). A token that looks like a
//! key combination but cannot be encoded is an error naming it, never silently typed.

use std::fmt;

use crate::closest::closest_match;
use crate::error::{Hint, VerbError};

/// A token that cannot be sent.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyError {
    /// The offending token (or the whole `keys` string when there were no tokens).
    pub token: String,
    pub message: String,
    /// The key name the token was probably meant to be.
    pub suggestion: Option<String>,
}

impl KeyError {
    fn new(token: &str, message: impl Into<String>) -> Self {
        KeyError {
            token: token.to_owned(),
            message: message.into(),
            suggestion: None,
        }
    }

    /// The error send-keys returns for it: `invalid_params` naming `keys`.
    pub fn to_verb_error(&self) -> VerbError {
        VerbError::invalid_params("keys", self.message.clone()).with_hint(
            Hint::new().param("keys").verb("list-verbs").command("tuios list-verbs send-keys")
                .did_you_mean(self.suggestion.clone())
                .detail(
                "Key names are Enter, Tab, Escape, Space, Backspace, Delete, Insert, Up, Down, Left, Right, Home, End, PageUp, PageDown, F1-F12 and shift+tab, plus ctrl+<letter> and alt+<key>; tmux's names work too (C-c, M-x, S-Up, BSpace, BTab, DC, IC, NPage, PPage). Use literal (send-keys -l), or send-text, to send text as it is.",
            ),
        )
    }
}

/// Key names as they are written in docs and suggested in errors: ours, then tmux's.
pub const KEY_NAMES: &[&str] = &[
    "Enter",
    "Return",
    "Space",
    "Tab",
    "Escape",
    "Esc",
    "Backspace",
    "Delete",
    "Del",
    "Insert",
    "Up",
    "Down",
    "Left",
    "Right",
    "Home",
    "End",
    "PageUp",
    "PageDown",
    "PgUp",
    "PgDown",
    "F1",
    "F2",
    "F3",
    "F4",
    "F5",
    "F6",
    "F7",
    "F8",
    "F9",
    "F10",
    "F11",
    "F12",
    "BSpace",
    "BTab",
    "DC",
    "IC",
    "NPage",
    "PPage",
    "PgDn",
];

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for KeyError {}

/// Terminal modes that change what a key sends, as the window's emulator reports them.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct KeyModes {
    /// DECCKM (`CSI ? 1 h`): unmodified cursor keys and Home/End send `SS3 x` instead of
    /// `CSI x`, as xterm does; less, vim and readline-based programs expect it once set.
    pub app_cursor: bool,
}

/// Bytes of a named key, given the token in lower case.
fn named(lower: &str, modes: KeyModes) -> Option<&'static [u8]> {
    if modes.app_cursor {
        let ss3: &'static [u8] = match lower {
            "up" => b"\x1bOA",
            "down" => b"\x1bOB",
            "right" => b"\x1bOC",
            "left" => b"\x1bOD",
            "home" => b"\x1bOH",
            "end" => b"\x1bOF",
            _ => b"",
        };
        if !ss3.is_empty() {
            return Some(ss3);
        }
    }
    Some(match lower {
        "enter" | "return" => b"\r",
        "space" => b" ",
        "tab" => b"\t",
        "shift+tab" => b"\x1b[Z",
        "escape" | "esc" => b"\x1b",
        "backspace" => b"\x7f",
        "delete" | "del" => b"\x1b[3~",
        "up" => b"\x1b[A",
        "down" => b"\x1b[B",
        "right" => b"\x1b[C",
        "left" => b"\x1b[D",
        "home" => b"\x1b[H",
        "end" => b"\x1b[F",
        "pageup" | "pgup" | "ppage" => b"\x1b[5~",
        "pagedown" | "pgdown" | "pgdn" | "npage" => b"\x1b[6~",
        "bspace" => b"\x7f",
        "btab" => b"\x1b[Z",
        "insert" => b"\x1b[2~",
        "f1" => b"\x1bOP",
        "f2" => b"\x1bOQ",
        "f3" => b"\x1bOR",
        "f4" => b"\x1bOS",
        "f5" => b"\x1b[15~",
        "f6" => b"\x1b[17~",
        "f7" => b"\x1b[18~",
        "f8" => b"\x1b[19~",
        "f9" => b"\x1b[20~",
        "f10" => b"\x1b[21~",
        "f11" => b"\x1b[23~",
        "f12" => b"\x1b[24~",
        _ => return None,
    })
}

/// `rest` after a case-insensitive ASCII `prefix`, if `s` starts with it.
fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// The control byte for `ctrl+<rest>`: a letter (either case), `@`/space (NUL), `[ \ ] ^ _`, `?`
/// (DEL), as a terminal sends them.
fn ctrl_byte(token: &str, rest: &str) -> Result<u8, KeyError> {
    if rest.eq_ignore_ascii_case("space") {
        return Ok(0x00);
    }
    let byte = match rest.as_bytes() {
        [b] => *b,
        _ => 0xff,
    };
    match byte.to_ascii_lowercase() {
        c @ b'a'..=b'z' => Ok(c & 0x1f),
        b'@' => Ok(0x00),
        b'[' => Ok(0x1b),
        b'\\' => Ok(0x1c),
        b']' => Ok(0x1d),
        b'^' => Ok(0x1e),
        b'_' => Ok(0x1f),
        b'?' => Ok(0x7f),
        _ => Err(KeyError::new(
            token,
            format!(
                "unsupported ctrl combination {token:?}: ctrl+ takes one letter, space, or one of @ [ \\ ] ^ _ ?"
            ),
        )),
    }
}

fn token_bytes(token: &str, modes: KeyModes, out: &mut Vec<u8>) -> Result<(), KeyError> {
    // Case-sensitive on purpose: a lower-case "prefix" is an ordinary word to type.
    if token == "PREFIX" || token == "$PREFIX" {
        return Err(KeyError::new(
            token,
            format!("{token} is the window manager's leader key, which means nothing without an attached client; attach one, or send the key it stands for (e.g. ctrl+b)"),
        ));
    }
    let lower = token.to_ascii_lowercase();
    if let Some(bytes) = named(&lower, modes).or_else(|| tmux_exact(token)) {
        out.extend_from_slice(bytes);
        return Ok(());
    }
    if let Some(rest) = strip_prefix_ci(token, "ctrl+") {
        out.push(ctrl_byte(token, rest)?);
        return Ok(());
    }
    if let Some(rest) = strip_prefix_ci(token, "alt+") {
        if rest.is_empty() {
            return Err(KeyError::new(
                token,
                format!("unsupported alt combination {token:?}: alt+ needs a key after it"),
            ));
        }
        out.push(0x1b);
        if let Some(bytes) = named(&rest.to_ascii_lowercase(), modes) {
            out.extend_from_slice(bytes);
        } else if let Some(ctrl_rest) = strip_prefix_ci(rest, "ctrl+") {
            out.push(ctrl_byte(token, ctrl_rest)?);
        } else {
            out.extend_from_slice(rest.as_bytes());
        }
        return Ok(());
    }
    if let Some(bytes) = tmux_modified(token, modes)? {
        out.extend_from_slice(&bytes);
        return Ok(());
    }
    if let Some(e) = looks_like_a_key(token) {
        return Err(e);
    }
    out.extend_from_slice(token.as_bytes());
    Ok(())
}

/// tmux's names that are also ordinary words or letters in lower case (`dc` is a calculator),
/// so only their exact spelling is a key.
fn tmux_exact(token: &str) -> Option<&'static [u8]> {
    Some(match token {
        "DC" => b"\x1b[3~",
        "IC" => b"\x1b[2~",
        _ => return None,
    })
}

/// tmux's modifier prefixes, as tmux writes them: `C-` (ctrl), `M-` (meta, alt), `S-` (shift),
/// in any order and combination (`C-M-x`). `None` when the token has no such prefix.
fn tmux_modified(token: &str, modes: KeyModes) -> Result<Option<Vec<u8>>, KeyError> {
    let (mut ctrl, mut alt, mut shift) = (false, false, false);
    let mut rest = token;
    loop {
        let flag = match rest.get(..2) {
            Some("C-") => &mut ctrl,
            Some("M-") => &mut alt,
            Some("S-") => &mut shift,
            _ => break,
        };
        // `C-` alone, or `M--`, leaves a last character to be the key itself.
        if rest.len() == 2 {
            break;
        }
        *flag = true;
        rest = &rest[2..];
    }
    if !(ctrl || alt || shift) {
        return Ok(None);
    }
    let bad = |why: &str| {
        let mut e = KeyError::new(
            token,
            format!("{token:?} is not a key tmux or tuios knows: {why}"),
        );
        e.suggestion = closest_match(rest, KEY_NAMES.iter().copied());
        e
    };
    let mut out = Vec::new();
    let base = named(&rest.to_ascii_lowercase(), KeyModes::default()).or_else(|| tmux_exact(rest));
    match base {
        // A single character: ctrl makes it a control byte, shift an upper-case letter.
        None if rest.chars().count() == 1 => {
            if alt {
                out.push(0x1b);
            }
            let c = rest.as_bytes();
            if ctrl {
                out.push(ctrl_byte(token, rest)?);
            } else if shift {
                out.extend_from_slice(rest.to_uppercase().as_bytes());
            } else {
                out.extend_from_slice(c);
            }
        }
        None => {
            return Err(bad(&format!(
                "{rest:?} after the modifier is not a key name or one character"
            )))
        }
        Some(bytes) => {
            let lower = rest.to_ascii_lowercase();
            if shift && !ctrl && matches!(lower.as_str(), "tab" | "btab") {
                if alt {
                    out.push(0x1b);
                }
                out.extend_from_slice(b"\x1b[Z");
            } else if ctrl && !shift && lower == "space" {
                if alt {
                    out.push(0x1b);
                }
                out.push(0);
            } else if !(ctrl || shift) {
                // Meta alone prefixes ESC, as alt+ does.
                out.push(0x1b);
                out.extend_from_slice(
                    named(&lower, modes)
                        .or_else(|| tmux_exact(rest))
                        .unwrap_or(bytes),
                );
            } else {
                // xterm's modified keys: CSI 1;m X for cursor keys, Home, End and F1-F4,
                // CSI n;m ~ for the others, m = 1 + shift + 2*alt + 4*ctrl.
                let m = 1 + u8::from(shift) + 2 * u8::from(alt) + 4 * u8::from(ctrl);
                match xterm_modified(bytes, m) {
                    Some(seq) => out.extend_from_slice(&seq),
                    None => {
                        // The key is right; only the combination is not sendable.
                        let mut e = bad(&format!("{rest} cannot be combined with ctrl or shift"));
                        e.suggestion = None;
                        return Err(e);
                    }
                }
            }
        }
    }
    Ok(Some(out))
}

/// The modified form of an unmodified key's CSI/SS3 sequence, if the key has one.
fn xterm_modified(plain: &[u8], m: u8) -> Option<Vec<u8>> {
    let body = plain
        .strip_prefix(b"\x1b[")
        .or_else(|| plain.strip_prefix(b"\x1bO"))?;
    let mut out = b"\x1b[".to_vec();
    match body {
        [final_byte] if final_byte.is_ascii_uppercase() => {
            out.extend_from_slice(format!("1;{m}").as_bytes());
            out.push(*final_byte);
        }
        [digits @ .., b'~'] if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) => {
            out.extend_from_slice(digits);
            out.extend_from_slice(format!(";{m}~").as_bytes());
        }
        _ => return None,
    }
    Some(out)
}

/// A token that is not a key but is written like one: a capitalised word within a typo or two
/// of a key name (`Entr`, `Escpae`, `PgaeUp`), or `F` and a number past F12. Typing it as text
/// would be a silent surprise, so it is refused with the name it was probably meant to be.
/// Lower-case words are always text (`entr` is a program).
fn looks_like_a_key(token: &str) -> Option<KeyError> {
    let first = token.chars().next()?;
    if !first.is_ascii_uppercase() || !token.is_ascii() {
        return None;
    }
    let function_key =
        token.len() > 1 && first == 'F' && token[1..].bytes().all(|b| b.is_ascii_digit());
    let suggestion = closest_match(token, KEY_NAMES.iter().copied());
    if !function_key && suggestion.is_none() {
        return None;
    }
    let mut e = KeyError::new(
        token,
        match &suggestion {
            Some(s) => format!("{token:?} is not a key name (did you mean {s}?); send it with literal (send-keys -l) to type it as text"),
            None => format!("{token:?} is not a key: function keys are F1 to F12; send it with literal (send-keys -l) to type it as text"),
        },
    );
    e.suggestion = suggestion;
    Some(e)
}

/// Translates a `send-keys` string into bytes for a PTY.
///
/// With `literal` or `raw` the string is sent unchanged (without a renderer there are no key
/// events to split it into, so both mean "as written"). Otherwise commas count as spaces, the
/// string is split on whitespace and each token is translated; a string with no tokens is an
/// error.
pub fn keys_to_bytes(keys: &str, literal: bool, raw: bool) -> Result<Vec<u8>, KeyError> {
    keys_to_bytes_in(keys, literal, raw, KeyModes::default())
}

/// `keys_to_bytes` for a window in `modes` (application cursor keys change what the cursor
/// keys send).
pub fn keys_to_bytes_in(
    keys: &str,
    literal: bool,
    raw: bool,
    modes: KeyModes,
) -> Result<Vec<u8>, KeyError> {
    if literal || raw {
        return Ok(keys.as_bytes().to_vec());
    }
    let mut out = Vec::with_capacity(keys.len());
    let mut any = false;
    for token in keys
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
    {
        any = true;
        token_bytes(token, modes, &mut out)?;
    }
    if !any {
        return Err(KeyError::new(
            keys,
            "no keys to send: keys holds only spaces and commas",
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn k(keys: &str) -> Vec<u8> {
        keys_to_bytes(keys, false, false).unwrap_or_else(|e| panic!("{keys}: {e}"))
    }

    #[test]
    fn application_cursor_keys_send_ss3() {
        let app = KeyModes { app_cursor: true };
        let k = |keys| keys_to_bytes_in(keys, false, false, app).unwrap();
        assert_eq!(k("Up Down Right Left"), b"\x1bOA\x1bOB\x1bOC\x1bOD");
        assert_eq!(k("Home,End"), b"\x1bOH\x1bOF");
        // Keys DECCKM does not cover are unchanged.
        assert_eq!(k("PageUp Enter"), b"\x1b[5~\r");
        assert_eq!(k("alt+Up"), b"\x1b\x1bOA");
        // Literal text is never translated.
        assert_eq!(
            keys_to_bytes_in("Up", true, false, app).unwrap(),
            b"Up".to_vec()
        );
        assert_eq!(
            keys_to_bytes_in("Up", false, false, KeyModes::default()).unwrap(),
            b"\x1b[A"
        );
    }

    #[test]
    fn reference_table() {
        assert_eq!(
            keys_to_bytes("a,b Enter", true, false).unwrap(),
            b"a,b Enter"
        );
        assert_eq!(
            keys_to_bytes("a,b Enter", false, true).unwrap(),
            b"a,b Enter"
        );
        assert_eq!(keys_to_bytes("", true, false).unwrap(), b"");
        assert_eq!(k("Enter"), b"\r");
        assert_eq!(k("h i Enter"), b"hi\r");
        assert_eq!(k("Escape,Tab"), b"\x1b\t");
        assert_eq!(k("ctrl+c"), [0x03]);
        assert_eq!(k("alt+x"), b"\x1bx");
        assert_eq!(k("Up"), b"\x1b[A");
        for bad in ["PREFIX", "$PREFIX", "ctrl+shift", "", "  , ,", "ctrl+1"] {
            assert!(keys_to_bytes(bad, false, false).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn named_keys() {
        let table: &[(&str, &[u8])] = &[
            ("enter", b"\r"),
            ("RETURN", b"\r"),
            ("space", b" "),
            ("tab", b"\t"),
            ("esc", b"\x1b"),
            ("backspace", b"\x7f"),
            ("Delete", b"\x1b[3~"),
            ("del", b"\x1b[3~"),
            ("down", b"\x1b[B"),
            ("right", b"\x1b[C"),
            ("LEFT", b"\x1b[D"),
            ("home", b"\x1b[H"),
            ("end", b"\x1b[F"),
            ("PageUp", b"\x1b[5~"),
            ("pgup", b"\x1b[5~"),
            ("pagedown", b"\x1b[6~"),
            ("PgDown", b"\x1b[6~"),
            ("insert", b"\x1b[2~"),
            ("F1", b"\x1bOP"),
            ("f2", b"\x1bOQ"),
            ("f3", b"\x1bOR"),
            ("f4", b"\x1bOS"),
            ("f5", b"\x1b[15~"),
            ("f6", b"\x1b[17~"),
            ("f7", b"\x1b[18~"),
            ("f8", b"\x1b[19~"),
            ("f9", b"\x1b[20~"),
            ("f10", b"\x1b[21~"),
            ("f11", b"\x1b[23~"),
            ("F12", b"\x1b[24~"),
            ("shift+tab", b"\x1b[Z"),
            ("Shift+Tab", b"\x1b[Z"),
        ];
        for (token, bytes) in table {
            assert_eq!(k(token), *bytes, "{token}");
        }
    }

    #[test]
    fn ctrl_and_alt() {
        assert_eq!(k("ctrl+a"), [0x01]);
        assert_eq!(k("ctrl+z"), [0x1a]);
        assert_eq!(k("Ctrl+C"), [0x03]);
        assert_eq!(k("ctrl+@"), [0x00]);
        assert_eq!(k("ctrl+space"), [0x00]);
        assert_eq!(k("ctrl+["), [0x1b]);
        assert_eq!(k("ctrl+\\"), [0x1c]);
        assert_eq!(k("ctrl+]"), [0x1d]);
        assert_eq!(k("ctrl+^"), [0x1e]);
        assert_eq!(k("ctrl+_"), [0x1f]);
        assert_eq!(k("ctrl+?"), [0x7f]);
        assert_eq!(k("ctrl+b,n"), b"\x02n");
        assert_eq!(k("alt+enter"), b"\x1b\r");
        assert_eq!(k("ALT+Up"), b"\x1b\x1b[A");
        assert_eq!(k("alt+X"), b"\x1bX");
        assert_eq!(k("alt+ctrl+x"), b"\x1b\x18");
        assert_eq!(k("alt+word"), b"\x1bword");
        for bad in [
            "ctrl+1",
            "ctrl+shift",
            "ctrl+alt+x",
            "ctrl+enter",
            "ctrl+",
            "ctrl+é",
            "alt+",
            "alt+ctrl+1",
        ] {
            let err = keys_to_bytes(&format!("a {bad} b"), false, false).unwrap_err();
            assert_eq!(err.token, bad);
            assert!(err.message.contains(bad), "{}", err.message);
        }
    }

    #[test]
    fn case_is_kept_and_unknown_tokens_are_typed() {
        assert_eq!(k("Hello"), b"Hello");
        assert_eq!(k("Hello World"), b"HelloWorld");
        assert_eq!(k("prefix"), b"prefix");
        assert_eq!(k("f13"), b"f13");
        assert_eq!(k("ls,Enter"), b"ls\r");
        assert_eq!(k("héllo"), "héllo".as_bytes());
        assert_eq!(k("A"), b"A");
    }

    #[test]
    fn tmux_key_names() {
        let table: &[(&str, &[u8])] = &[
            ("C-c", b"\x03"),
            ("C-C", b"\x03"),
            ("M-x", b"\x1bx"),
            ("C-M-x", b"\x1b\x18"),
            ("M-C-x", b"\x1b\x18"),
            ("S-a", b"A"),
            ("C-Space", b"\x00"),
            ("M-Enter", b"\x1b\r"),
            ("M--", b"\x1b-"),
            ("BSpace", b"\x7f"),
            ("BTab", b"\x1b[Z"),
            ("S-Tab", b"\x1b[Z"),
            ("DC", b"\x1b[3~"),
            ("IC", b"\x1b[2~"),
            ("NPage", b"\x1b[6~"),
            ("PPage", b"\x1b[5~"),
            ("PgDn", b"\x1b[6~"),
            ("S-Up", b"\x1b[1;2A"),
            ("C-Left", b"\x1b[1;5D"),
            ("C-S-Right", b"\x1b[1;6C"),
            ("M-Up", b"\x1b\x1b[A"),
            ("C-Home", b"\x1b[1;5H"),
            ("S-F1", b"\x1b[1;2P"),
            ("C-F5", b"\x1b[15;5~"),
            ("S-PPage", b"\x1b[5;2~"),
            ("C-DC", b"\x1b[3;5~"),
        ];
        for (token, bytes) in table {
            assert_eq!(k(token), *bytes, "{token}");
        }
        // The tmux spelling of a send-keys line.
        assert_eq!(k("ls Enter C-c"), b"ls\r\x03");
        // Lower-case dc and ic are words (the calculator), not keys.
        assert_eq!(k("dc"), b"dc");
        assert_eq!(k("C-"), b"C-");
    }

    #[test]
    fn a_token_written_like_a_key_is_refused_with_a_suggestion() {
        for (bad, meant) in [
            ("Entr", Some("Enter")),
            ("Escpae", Some("Escape")),
            ("PgaeUp", Some("PageUp")),
            ("Bspac", Some("BSpace")),
            ("F13", Some("F1")),
            ("F99", Some("F9")),
            ("C-Entr", Some("Enter")),
            ("C-Enter", None),
            ("S-Space", None),
            ("M-word", None),
            ("C-1", None),
        ] {
            let err = keys_to_bytes(&format!("ls {bad}"), false, false).unwrap_err();
            assert_eq!(err.token, bad);
            assert_eq!(err.suggestion.as_deref(), meant, "{bad}: {}", err.message);
            let verr = err.to_verb_error();
            assert_eq!(verr.code, ErrorCode::InvalidParams);
            assert_eq!(verr.hint.did_you_mean.as_deref(), meant, "{bad}");
        }
        // Words that are not near a key name, and lower-case words, are text.
        for text in [
            "Hello",
            "World",
            "README",
            "Makefile",
            "A",
            "entr",
            "tab-width",
            "OK",
        ] {
            assert_eq!(k(text), text.as_bytes(), "{text}");
        }
        // Literal sends it all as written, key names included.
        assert_eq!(keys_to_bytes("Entr C-c", true, false).unwrap(), b"Entr C-c");
    }

    #[test]
    fn errors_become_invalid_params() {
        let err = keys_to_bytes("PREFIX d", false, false).unwrap_err();
        assert_eq!(err.token, "PREFIX");
        let verr = err.to_verb_error();
        assert_eq!(verr.code, ErrorCode::InvalidParams);
        assert_eq!(verr.hint.param.as_deref(), Some("keys"));
        let err = keys_to_bytes(" , ", false, false).unwrap_err();
        assert_eq!(err.token, " , ");
    }
}
