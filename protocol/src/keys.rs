//! Key tokens of `send-keys` turned into the bytes a terminal would send, for writing straight to a
//! window's PTY.
//!
//! Tokens are separated by spaces or commas. Named keys match whatever their case; every other
//! token keeps its case (`Hello` types `Hello`, `alt+X` sends ESC `X`). A token that looks like a
//! key combination but cannot be encoded is an error naming it, never silently typed.

use std::fmt;

use crate::error::{Hint, VerbError};

/// A token that cannot be sent.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyError {
    /// The offending token (or the whole `keys` string when there were no tokens).
    pub token: String,
    pub message: String,
}

impl KeyError {
    fn new(token: &str, message: impl Into<String>) -> Self {
        KeyError {
            token: token.to_owned(),
            message: message.into(),
        }
    }

    /// The error send-keys returns for it: `invalid_params` naming `keys`.
    pub fn to_verb_error(&self) -> VerbError {
        VerbError::invalid_params("keys", self.message.clone()).with_hint(
            Hint::new().param("keys").verb("list-verbs").command("tuios list-verbs send-keys").detail(
                "Key names are Enter, Tab, Escape, Space, Backspace, Delete, Insert, Up, Down, Left, Right, Home, End, PageUp, PageDown, F1-F12 and shift+tab, plus ctrl+<letter> and alt+<key>. Use literal, or send-text, to send text as it is.",
            ),
        )
    }
}

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
        "pageup" | "pgup" => b"\x1b[5~",
        "pagedown" | "pgdown" => b"\x1b[6~",
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
    if let Some(bytes) = named(&lower, modes) {
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
    out.extend_from_slice(token.as_bytes());
    Ok(())
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
