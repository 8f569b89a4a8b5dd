//! Bytes for a window's PTY: keys encoded for the modes its program enabled (application cursor
//! keys, the kitty keyboard protocol) and mouse reports (SGR or the legacy X10 form). Pure.
//!
//! Never produced here: focus-in/out reports and in-band resize reports (see DESIGN.md, Lumen).

use protocol::attach::WindowModes;
use termwiz::input::{KeyCode, Modifiers};

const ESC: u8 = 0x1b;

/// The xterm modifier parameter: 1 + shift + 2*alt + 4*ctrl + 8*super.
fn mod_param(mods: Modifiers) -> u8 {
    let mut m = 1;
    if mods.contains(Modifiers::SHIFT) {
        m += 1;
    }
    if mods.contains(Modifiers::ALT) {
        m += 2;
    }
    if mods.contains(Modifiers::CTRL) {
        m += 4;
    }
    if mods.contains(Modifiers::SUPER) {
        m += 8;
    }
    m
}

/// Only the modifiers that change an encoding (left/right variants folded away).
pub fn normalize_mods(mods: Modifiers) -> Modifiers {
    let mut out = Modifiers::NONE;
    if mods.intersects(Modifiers::SHIFT | Modifiers::LEFT_SHIFT | Modifiers::RIGHT_SHIFT) {
        out |= Modifiers::SHIFT;
    }
    if mods.intersects(Modifiers::ALT | Modifiers::LEFT_ALT | Modifiers::RIGHT_ALT) {
        out |= Modifiers::ALT;
    }
    if mods.intersects(Modifiers::CTRL | Modifiers::LEFT_CTRL | Modifiers::RIGHT_CTRL) {
        out |= Modifiers::CTRL;
    }
    if mods.contains(Modifiers::SUPER) {
        out |= Modifiers::SUPER;
    }
    out
}

/// Kitty keyboard protocol flags the encoder honours.
const KITTY_DISAMBIGUATE: u8 = 1;
const KITTY_ALL_AS_ESCAPES: u8 = 8;

/// The bytes a terminal would send for this key to a program with these modes; empty for keys
/// that send nothing (bare modifiers, media keys).
pub fn encode_key(key: KeyCode, mods: Modifiers, modes: &WindowModes) -> Vec<u8> {
    let mods = normalize_mods(mods);
    let key = match key {
        KeyCode::ApplicationUpArrow => KeyCode::UpArrow,
        KeyCode::ApplicationDownArrow => KeyCode::DownArrow,
        KeyCode::ApplicationLeftArrow => KeyCode::LeftArrow,
        KeyCode::ApplicationRightArrow => KeyCode::RightArrow,
        KeyCode::KeyPadHome => KeyCode::Home,
        KeyCode::KeyPadEnd => KeyCode::End,
        KeyCode::KeyPadPageUp => KeyCode::PageUp,
        KeyCode::KeyPadPageDown => KeyCode::PageDown,
        KeyCode::Numpad0 => KeyCode::Char('0'),
        KeyCode::Numpad1 => KeyCode::Char('1'),
        KeyCode::Numpad2 => KeyCode::Char('2'),
        KeyCode::Numpad3 => KeyCode::Char('3'),
        KeyCode::Numpad4 => KeyCode::Char('4'),
        KeyCode::Numpad5 => KeyCode::Char('5'),
        KeyCode::Numpad6 => KeyCode::Char('6'),
        KeyCode::Numpad7 => KeyCode::Char('7'),
        KeyCode::Numpad8 => KeyCode::Char('8'),
        KeyCode::Numpad9 => KeyCode::Char('9'),
        KeyCode::Multiply => KeyCode::Char('*'),
        KeyCode::Add => KeyCode::Char('+'),
        KeyCode::Subtract => KeyCode::Char('-'),
        KeyCode::Decimal => KeyCode::Char('.'),
        KeyCode::Divide => KeyCode::Char('/'),
        // Some terminals report ESC as a control character in CSI u form.
        KeyCode::Char('\x1b') => KeyCode::Escape,
        KeyCode::Char('\r') | KeyCode::Char('\n') => KeyCode::Enter,
        KeyCode::Char('\t') => KeyCode::Tab,
        KeyCode::Char('\x7f') => KeyCode::Backspace,
        other => other,
    };
    if modes.kitty_flags & (KITTY_DISAMBIGUATE | KITTY_ALL_AS_ESCAPES) != 0 {
        if let Some(bytes) = kitty(key, mods, modes) {
            return bytes;
        }
    }
    legacy(key, mods, modes)
}

/// Kitty's CSI u forms; None where the legacy bytes are also kitty's.
fn kitty(key: KeyCode, mods: Modifiers, modes: &WindowModes) -> Option<Vec<u8>> {
    let all = modes.kitty_flags & KITTY_ALL_AS_ESCAPES != 0;
    let csi_u = |code: u32, mods: Modifiers| -> Vec<u8> {
        let m = mod_param(mods);
        if m == 1 {
            format!("\x1b[{code}u").into_bytes()
        } else {
            format!("\x1b[{code};{m}u").into_bytes()
        }
    };
    match key {
        KeyCode::Escape => Some(csi_u(27, mods)),
        KeyCode::Enter | KeyCode::Tab | KeyCode::Backspace => {
            let code = match key {
                KeyCode::Enter => 13,
                KeyCode::Tab => 9,
                _ => 127,
            };
            (all || !mods.is_empty()).then(|| csi_u(code, mods))
        }
        KeyCode::Char(c) => {
            let shift_only = mods.is_empty() || mods == Modifiers::SHIFT;
            if shift_only && !all {
                // Plain text stays text.
                return None;
            }
            // The key's unshifted code; the shift state travels in the modifiers.
            let base = if c.is_ascii_uppercase() {
                c.to_ascii_lowercase()
            } else {
                c
            };
            let mods = if c.is_ascii_uppercase() {
                mods | Modifiers::SHIFT
            } else {
                mods
            };
            Some(csi_u(base as u32, mods))
        }
        KeyCode::Function(n @ 1..=4) if !mods.is_empty() => {
            // F3 takes the ~ form: CSI 1;m R would read as a cursor position report.
            let m = mod_param(mods);
            Some(match n {
                1 => format!("\x1b[1;{m}P").into_bytes(),
                2 => format!("\x1b[1;{m}Q").into_bytes(),
                3 => format!("\x1b[13;{m}~").into_bytes(),
                _ => format!("\x1b[1;{m}S").into_bytes(),
            })
        }
        _ => None,
    }
}

fn legacy(key: KeyCode, mods: Modifiers, modes: &WindowModes) -> Vec<u8> {
    let alt = mods.contains(Modifiers::ALT);
    let ctrl = mods.contains(Modifiers::CTRL);
    let shift = mods.contains(Modifiers::SHIFT);
    let with_alt = |mut bytes: Vec<u8>| {
        if alt {
            bytes.insert(0, ESC);
        }
        bytes
    };
    let csi_letter = |letter: char, app: bool| -> Vec<u8> {
        let m = mod_param(mods);
        if m > 1 {
            format!("\x1b[1;{m}{letter}").into_bytes()
        } else if app {
            format!("\x1bO{letter}").into_bytes()
        } else {
            format!("\x1b[{letter}").into_bytes()
        }
    };
    let csi_tilde = |n: u8| -> Vec<u8> {
        let m = mod_param(mods);
        if m > 1 {
            format!("\x1b[{n};{m}~").into_bytes()
        } else {
            format!("\x1b[{n}~").into_bytes()
        }
    };
    match key {
        KeyCode::Char(c) => {
            if ctrl {
                if let Some(b) = ctrl_byte(c) {
                    return with_alt(vec![b]);
                }
            }
            let c = if shift && c.is_ascii_lowercase() {
                c.to_ascii_uppercase()
            } else {
                c
            };
            let mut buf = [0u8; 4];
            with_alt(c.encode_utf8(&mut buf).as_bytes().to_vec())
        }
        KeyCode::Enter => with_alt(vec![if ctrl { b'\n' } else { b'\r' }]),
        KeyCode::Tab if shift => b"\x1b[Z".to_vec(),
        KeyCode::Tab => with_alt(vec![b'\t']),
        KeyCode::Backspace => with_alt(vec![if ctrl { 0x08 } else { 0x7f }]),
        KeyCode::Escape => with_alt(vec![ESC]),
        KeyCode::UpArrow => csi_letter('A', modes.app_cursor),
        KeyCode::DownArrow => csi_letter('B', modes.app_cursor),
        KeyCode::RightArrow => csi_letter('C', modes.app_cursor),
        KeyCode::LeftArrow => csi_letter('D', modes.app_cursor),
        KeyCode::Home => csi_letter('H', modes.app_cursor),
        KeyCode::End => csi_letter('F', modes.app_cursor),
        KeyCode::Insert => csi_tilde(2),
        KeyCode::Delete => csi_tilde(3),
        KeyCode::PageUp => csi_tilde(5),
        KeyCode::PageDown => csi_tilde(6),
        KeyCode::Function(n @ 1..=4) => {
            let letter = (b'P' + (n - 1)) as char;
            let m = mod_param(mods);
            if m > 1 {
                format!("\x1b[1;{m}{letter}").into_bytes()
            } else {
                format!("\x1bO{letter}").into_bytes()
            }
        }
        KeyCode::Function(n @ 5..=12) => {
            const CODES: [u8; 8] = [15, 17, 18, 19, 20, 21, 23, 24];
            csi_tilde(CODES[usize::from(n - 5)])
        }
        _ => Vec::new(),
    }
}

/// The C0 byte Ctrl gives a character, as terminals map it.
pub fn ctrl_byte(c: char) -> Option<u8> {
    Some(match c {
        'a'..='z' => c as u8 & 0x1f,
        'A'..='Z' => c as u8 & 0x1f,
        ' ' | '@' | '2' => 0x00,
        '[' | '3' => 0x1b,
        '\\' | '4' => 0x1c,
        ']' | '5' => 0x1d,
        '^' | '6' => 0x1e,
        '_' | '-' | '7' | '/' => 0x1f,
        '?' | '8' => 0x7f,
        _ => return None,
    })
}

/// A mouse action to report to a program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MouseAction {
    Press(u8),
    Release(u8),
    /// Motion with this button held.
    Drag(u8),
    WheelUp,
    WheelDown,
}

/// A mouse report for a program that enabled mouse reporting; `col`/`row` are 0-based inside
/// the window's content. SGR (mode 1006) when the program asked for it, else the X10 form,
/// whose coordinates stop at 222.
pub fn encode_mouse(
    action: MouseAction,
    col: u16,
    row: u16,
    mods: Modifiers,
    sgr: bool,
) -> Vec<u8> {
    let mods = normalize_mods(mods);
    let mut code: u16 = match action {
        MouseAction::Press(b) | MouseAction::Release(b) => u16::from(b),
        MouseAction::Drag(b) => 32 + u16::from(b),
        MouseAction::WheelUp => 64,
        MouseAction::WheelDown => 65,
    };
    if mods.contains(Modifiers::SHIFT) {
        code += 4;
    }
    if mods.contains(Modifiers::ALT) {
        code += 8;
    }
    if mods.contains(Modifiers::CTRL) {
        code += 16;
    }
    let (x, y) = (u32::from(col) + 1, u32::from(row) + 1);
    if sgr {
        let end = if matches!(action, MouseAction::Release(_)) {
            'm'
        } else {
            'M'
        };
        return format!("\x1b[<{code};{x};{y}{end}").into_bytes();
    }
    if matches!(action, MouseAction::Release(_)) {
        // X10 cannot say which button went up.
        code = (code & !3) | 3;
    }
    let clamp = |v: u32| (v.min(222) + 32) as u8;
    vec![
        ESC,
        b'[',
        b'M',
        (code + 32).min(255) as u8,
        clamp(x),
        clamp(y),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modes() -> WindowModes {
        WindowModes::default()
    }

    fn enc(key: KeyCode, mods: Modifiers) -> Vec<u8> {
        encode_key(key, mods, &modes())
    }

    #[test]
    fn legacy_keys() {
        assert_eq!(enc(KeyCode::Char('a'), Modifiers::NONE), b"a");
        assert_eq!(enc(KeyCode::Char('é'), Modifiers::NONE), "é".as_bytes());
        assert_eq!(enc(KeyCode::Char('a'), Modifiers::SHIFT), b"A");
        assert_eq!(enc(KeyCode::Char('c'), Modifiers::CTRL), b"\x03");
        assert_eq!(enc(KeyCode::Char(' '), Modifiers::CTRL), b"\x00");
        assert_eq!(enc(KeyCode::Char('x'), Modifiers::ALT), b"\x1bx");
        assert_eq!(
            enc(KeyCode::Char('c'), Modifiers::CTRL | Modifiers::ALT),
            b"\x1b\x03"
        );
        assert_eq!(enc(KeyCode::Enter, Modifiers::NONE), b"\r");
        assert_eq!(enc(KeyCode::Enter, Modifiers::ALT), b"\x1b\r");
        assert_eq!(enc(KeyCode::Tab, Modifiers::NONE), b"\t");
        assert_eq!(enc(KeyCode::Tab, Modifiers::SHIFT), b"\x1b[Z");
        assert_eq!(enc(KeyCode::Backspace, Modifiers::NONE), b"\x7f");
        assert_eq!(enc(KeyCode::Backspace, Modifiers::CTRL), b"\x08");
        assert_eq!(enc(KeyCode::Backspace, Modifiers::ALT), b"\x1b\x7f");
        assert_eq!(enc(KeyCode::Escape, Modifiers::NONE), b"\x1b");
        assert_eq!(enc(KeyCode::UpArrow, Modifiers::NONE), b"\x1b[A");
        assert_eq!(enc(KeyCode::LeftArrow, Modifiers::CTRL), b"\x1b[1;5D");
        assert_eq!(enc(KeyCode::Home, Modifiers::SHIFT), b"\x1b[1;2H");
        assert_eq!(enc(KeyCode::End, Modifiers::NONE), b"\x1b[F");
        assert_eq!(enc(KeyCode::Delete, Modifiers::NONE), b"\x1b[3~");
        assert_eq!(enc(KeyCode::PageUp, Modifiers::CTRL), b"\x1b[5;5~");
        assert_eq!(enc(KeyCode::Function(1), Modifiers::NONE), b"\x1bOP");
        assert_eq!(enc(KeyCode::Function(2), Modifiers::SHIFT), b"\x1b[1;2Q");
        assert_eq!(enc(KeyCode::Function(5), Modifiers::NONE), b"\x1b[15~");
        assert_eq!(enc(KeyCode::Function(12), Modifiers::NONE), b"\x1b[24~");
        assert_eq!(enc(KeyCode::Shift, Modifiers::SHIFT), b"");
        // Left/right modifier variants count as the plain modifier.
        assert_eq!(enc(KeyCode::Char('c'), Modifiers::LEFT_CTRL), b"\x03");
    }

    #[test]
    fn application_cursor_keys_use_ss3() {
        let m = WindowModes {
            app_cursor: true,
            ..modes()
        };
        assert_eq!(encode_key(KeyCode::UpArrow, Modifiers::NONE, &m), b"\x1bOA");
        assert_eq!(
            encode_key(KeyCode::DownArrow, Modifiers::NONE, &m),
            b"\x1bOB"
        );
        assert_eq!(encode_key(KeyCode::Home, Modifiers::NONE, &m), b"\x1bOH");
        // Modified arrows keep the CSI form.
        assert_eq!(
            encode_key(KeyCode::UpArrow, Modifiers::CTRL, &m),
            b"\x1b[1;5A"
        );
        // The terminal's own SS3 arrows come back as plain arrows.
        assert_eq!(
            encode_key(KeyCode::ApplicationUpArrow, Modifiers::NONE, &modes()),
            b"\x1b[A"
        );
    }

    #[test]
    fn kitty_disambiguate() {
        let m = WindowModes {
            kitty_flags: 1,
            ..modes()
        };
        let k = |key, mods| encode_key(key, mods, &m);
        assert_eq!(k(KeyCode::Escape, Modifiers::NONE), b"\x1b[27u");
        assert_eq!(k(KeyCode::Char('c'), Modifiers::CTRL), b"\x1b[99;5u");
        assert_eq!(k(KeyCode::Char('x'), Modifiers::ALT), b"\x1b[120;3u");
        assert_eq!(
            k(KeyCode::Char('i'), Modifiers::CTRL | Modifiers::SHIFT),
            b"\x1b[105;6u"
        );
        assert_eq!(k(KeyCode::Enter, Modifiers::CTRL), b"\x1b[13;5u");
        assert_eq!(k(KeyCode::Tab, Modifiers::SHIFT), b"\x1b[9;2u");
        // Plain text, Enter, Tab and Backspace keep their legacy bytes.
        assert_eq!(k(KeyCode::Char('a'), Modifiers::NONE), b"a");
        assert_eq!(k(KeyCode::Char('A'), Modifiers::SHIFT), b"A");
        assert_eq!(k(KeyCode::Enter, Modifiers::NONE), b"\r");
        assert_eq!(k(KeyCode::Backspace, Modifiers::NONE), b"\x7f");
        assert_eq!(k(KeyCode::UpArrow, Modifiers::NONE), b"\x1b[A");
        assert_eq!(k(KeyCode::Function(3), Modifiers::CTRL), b"\x1b[13;5~");
    }

    #[test]
    fn kitty_all_keys_as_escapes() {
        let m = WindowModes {
            kitty_flags: 1 | 8,
            ..modes()
        };
        let k = |key, mods| encode_key(key, mods, &m);
        assert_eq!(k(KeyCode::Char('a'), Modifiers::NONE), b"\x1b[97u");
        assert_eq!(k(KeyCode::Char('A'), Modifiers::SHIFT), b"\x1b[97;2u");
        assert_eq!(k(KeyCode::Enter, Modifiers::NONE), b"\x1b[13u");
    }

    #[test]
    fn mouse_reports() {
        assert_eq!(
            encode_mouse(MouseAction::Press(0), 4, 2, Modifiers::NONE, true),
            b"\x1b[<0;5;3M"
        );
        assert_eq!(
            encode_mouse(MouseAction::Release(0), 4, 2, Modifiers::NONE, true),
            b"\x1b[<0;5;3m"
        );
        assert_eq!(
            encode_mouse(MouseAction::WheelUp, 0, 0, Modifiers::NONE, true),
            b"\x1b[<64;1;1M"
        );
        assert_eq!(
            encode_mouse(MouseAction::Drag(0), 1, 1, Modifiers::CTRL, true),
            b"\x1b[<48;2;2M"
        );
        assert_eq!(
            encode_mouse(MouseAction::Press(0), 4, 2, Modifiers::NONE, false),
            vec![0x1b, b'[', b'M', 32, 37, 35]
        );
        assert_eq!(
            encode_mouse(MouseAction::Release(2), 4, 2, Modifiers::NONE, false),
            vec![0x1b, b'[', b'M', 35, 37, 35]
        );
        assert_eq!(
            encode_mouse(MouseAction::WheelDown, 500, 500, Modifiers::NONE, false),
            vec![0x1b, b'[', b'M', 97, 254, 254]
        );
    }
}
