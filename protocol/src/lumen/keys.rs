//! Structured key events, their encodings for a PTY, and the reserved focus-return chord.
//!
//! `kitty_flags == 0` is the legacy xterm encoding. Any other value follows the kitty keyboard
//! protocol's progressive enhancement flags (1 disambiguate, 2 report event types, 4 report
//! alternate keys, 8 report all keys as escape codes, 16 report associated text).
//!
//! Text carried by an event never brings a control character to the PTY: `KeyEvent::text` is
//! filtered like a bracketed paste, and a `Key::Char` that is itself a control encodes to nothing.

use std::fmt;

/// Kitty flag: report Esc, alt+key, ctrl+key... as `CSI u`.
pub const KITTY_DISAMBIGUATE: u8 = 1;
/// Kitty flag: report repeat and release events.
pub const KITTY_EVENT_TYPES: u8 = 2;
/// Kitty flag: report the shifted key alongside the key.
pub const KITTY_ALTERNATE_KEYS: u8 = 4;
/// Kitty flag: report every key as an escape code, text keys, Enter, Tab and Backspace included.
pub const KITTY_ALL_KEYS: u8 = 8;
/// Kitty flag: embed the text a key produces in its escape code.
pub const KITTY_ASSOCIATED_TEXT: u8 = 16;

const ESC: u8 = 0x1b;

/// A key. `Char` is the key as on the key cap (`Char('a')` also for shift+a); what it types goes
/// in [`KeyEvent::text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    Char(char),
    Enter,
    Tab,
    Backspace,
    Escape,
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    PageUp,
    PageDown,
    Insert,
    Delete,
    /// F1 to F35; other numbers encode to nothing.
    F(u8),
}

/// Modifier keys held with a key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Modifiers {
    pub shift: bool,
    pub alt: bool,
    pub ctrl: bool,
    /// The Windows/Linux logo key, or Cmd on macOS.
    pub super_: bool,
}

impl Modifiers {
    pub const NONE: Modifiers = Modifiers {
        shift: false,
        alt: false,
        ctrl: false,
        super_: false,
    };
    pub const SHIFT: Modifiers = Modifiers {
        shift: true,
        ..Modifiers::NONE
    };
    pub const ALT: Modifiers = Modifiers {
        alt: true,
        ..Modifiers::NONE
    };
    pub const CTRL: Modifiers = Modifiers {
        ctrl: true,
        ..Modifiers::NONE
    };
    pub const SUPER: Modifiers = Modifiers {
        super_: true,
        ..Modifiers::NONE
    };

    /// The kitty/xterm bit field: shift 1, alt 2, ctrl 4, super 8.
    pub fn bits(self) -> u8 {
        u8::from(self.shift)
            | u8::from(self.alt) << 1
            | u8::from(self.ctrl) << 2
            | u8::from(self.super_) << 3
    }

    /// From the bit field of [`Modifiers::bits`]; other bits (hyper, meta, locks) are ignored.
    pub fn from_bits(bits: u8) -> Self {
        Modifiers {
            shift: bits & 1 != 0,
            alt: bits & 2 != 0,
            ctrl: bits & 4 != 0,
            super_: bits & 8 != 0,
        }
    }

    pub fn is_empty(self) -> bool {
        self.bits() == 0
    }
}

impl std::ops::BitOr for Modifiers {
    type Output = Modifiers;
    fn bitor(self, rhs: Modifiers) -> Modifiers {
        Modifiers::from_bits(self.bits() | rhs.bits())
    }
}

/// Press, repeat (auto-repeat while held) or release.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum KeyEventKind {
    #[default]
    Press,
    Repeat,
    Release,
}

/// One key event, as the attach client gets it from its terminal or GUI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyEvent {
    pub key: Key,
    pub modifiers: Modifiers,
    pub kind: KeyEventKind,
    /// The text the key produces (IME commits included), if the source knows it. Controls in it
    /// are removed before it is encoded.
    pub text: Option<String>,
}

impl KeyEvent {
    /// A press with no text.
    pub fn new(key: Key, modifiers: Modifiers) -> Self {
        KeyEvent {
            key,
            modifiers,
            kind: KeyEventKind::Press,
            text: None,
        }
    }

    pub fn with_kind(mut self, kind: KeyEventKind) -> Self {
        self.kind = kind;
        self
    }

    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.text = Some(text.into());
        self
    }
}

#[derive(Clone, Copy)]
struct Flags {
    disambiguate: bool,
    events: bool,
    alternates: bool,
    all_keys: bool,
    text: bool,
}

impl Flags {
    fn new(bits: u8) -> Self {
        Flags {
            disambiguate: bits & KITTY_DISAMBIGUATE != 0,
            events: bits & KITTY_EVENT_TYPES != 0,
            alternates: bits & KITTY_ALTERNATE_KEYS != 0,
            all_keys: bits & KITTY_ALL_KEYS != 0,
            text: bits & KITTY_ASSOCIATED_TEXT != 0,
        }
    }

    /// Keys are reported as `CSI u` rather than their legacy bytes.
    fn enhanced(self) -> bool {
        self.disambiguate || self.all_keys
    }
}

/// The bytes a terminal sends to its PTY for `ev`.
///
/// `app_cursor` is DECCKM (cursor keys send `SS3 A` when unmodified). Legacy mode
/// (`kitty_flags == 0`) sends no release events and treats a repeat as a press; ctrl+letter is
/// its control byte (shift is lost, as in xterm), alt prefixes ESC, modified cursor and function
/// keys are `CSI 1;m X` / `CSI n;m ~`, shift+tab is `CSI Z`. Combinations legacy bytes cannot
/// express (super, ctrl with a key that has no control byte, F13 and up) use `CSI u`, as kitty
/// does. With kitty flags, see the module documentation; releases are only sent with flag 2, and
/// never for Enter, Tab and Backspace unless flag 8 is on too.
pub fn encode_key(ev: &KeyEvent, app_cursor: bool, kitty_flags: u8) -> Vec<u8> {
    let flags = Flags::new(kitty_flags);
    if ev.kind == KeyEventKind::Release && !flags.events {
        return Vec::new();
    }
    let kind = if flags.events {
        ev.kind
    } else {
        KeyEventKind::Press
    };
    match ev.key {
        Key::Char(c) => encode_char(c, ev, kind, flags),
        key => encode_functional(key, ev.modifiers, kind, app_cursor, flags),
    }
}

/// Number and final byte of a functional key's `CSI` form (`kitty` picks kitty's F3).
fn functional_code(key: Key, kitty: bool) -> Option<(u32, u8)> {
    Some(match key {
        Key::Escape => (27, b'u'),
        Key::Enter => (13, b'u'),
        Key::Tab => (9, b'u'),
        Key::Backspace => (127, b'u'),
        Key::Insert => (2, b'~'),
        Key::Delete => (3, b'~'),
        Key::PageUp => (5, b'~'),
        Key::PageDown => (6, b'~'),
        Key::Up => (1, b'A'),
        Key::Down => (1, b'B'),
        Key::Right => (1, b'C'),
        Key::Left => (1, b'D'),
        Key::Home => (1, b'H'),
        Key::End => (1, b'F'),
        Key::F(1) => (1, b'P'),
        Key::F(2) => (1, b'Q'),
        // `CSI 1;m R` is also a cursor position report; kitty moved F3 to `CSI 13 ~`.
        Key::F(3) if kitty => (13, b'~'),
        Key::F(3) => (1, b'R'),
        Key::F(4) => (1, b'S'),
        Key::F(5) => (15, b'~'),
        Key::F(6) => (17, b'~'),
        Key::F(7) => (18, b'~'),
        Key::F(8) => (19, b'~'),
        Key::F(9) => (20, b'~'),
        Key::F(10) => (21, b'~'),
        Key::F(11) => (23, b'~'),
        Key::F(12) => (24, b'~'),
        Key::F(n @ 13..=35) => (57376 + u32::from(n - 13), b'u'),
        Key::F(_) | Key::Char(_) => return None,
    })
}

/// Legacy bytes of Enter, Tab, Backspace and Escape, where there are any.
fn legacy_c0_key(key: Key, mods: Modifiers, disambiguate: bool) -> Option<Vec<u8>> {
    if mods.super_ || (disambiguate && !mods.is_empty()) {
        return None;
    }
    let alt_prefixed = |bytes: &[u8]| {
        let mut out = Vec::with_capacity(bytes.len() + 1);
        if mods.alt {
            out.push(ESC);
        }
        out.extend_from_slice(bytes);
        Some(out)
    };
    match key {
        Key::Enter => alt_prefixed(b"\r"),
        Key::Tab if mods.shift => alt_prefixed(b"\x1b[Z"),
        Key::Tab => alt_prefixed(b"\t"),
        Key::Backspace if mods.ctrl => alt_prefixed(b"\x08"),
        Key::Backspace => alt_prefixed(b"\x7f"),
        Key::Escape if disambiguate => None,
        Key::Escape => alt_prefixed(b"\x1b"),
        _ => None,
    }
}

fn encode_functional(
    key: Key,
    mods: Modifiers,
    kind: KeyEventKind,
    app_cursor: bool,
    flags: Flags,
) -> Vec<u8> {
    if !flags.all_keys {
        if let Some(bytes) = legacy_c0_key(key, mods, flags.disambiguate) {
            match key {
                // Kept legacy so `reset` can still be typed after a program left the flags on;
                // kitty sends no release for them then.
                Key::Enter | Key::Tab | Key::Backspace => {
                    return if kind == KeyEventKind::Release {
                        Vec::new()
                    } else {
                        bytes
                    };
                }
                _ if kind != KeyEventKind::Release => return bytes,
                _ => {}
            }
        }
    }
    let kitty = flags.enhanced() || flags.events;
    let Some((number, final_byte)) = functional_code(key, kitty) else {
        return Vec::new();
    };
    let with_event = flags.events && kind != KeyEventKind::Press;
    if mods.is_empty() && !with_event && !flags.enhanced() && final_byte.is_ascii_uppercase() {
        let is_f1_to_f4 = matches!(final_byte, b'P'..=b'S');
        if is_f1_to_f4 || app_cursor {
            return vec![ESC, b'O', final_byte];
        }
    }
    csi(
        number,
        None,
        mods,
        with_event.then_some(kind),
        "",
        final_byte,
    )
}

/// `CSI number[:shifted] [; mods[:event]] [; text] final`, leaving out what is default.
fn csi(
    number: u32,
    shifted: Option<char>,
    mods: Modifiers,
    event: Option<KeyEventKind>,
    text: &str,
    final_byte: u8,
) -> Vec<u8> {
    use std::fmt::Write;
    let mut s = String::from("\x1b[");
    let second = !mods.is_empty() || event.is_some();
    let third = !text.is_empty();
    if number != 1 || shifted.is_some() || second || third {
        let _ = write!(s, "{number}");
    }
    if let Some(shifted) = shifted {
        let _ = write!(s, ":{}", u32::from(shifted));
    }
    if second || third {
        s.push(';');
    }
    if second {
        let _ = write!(s, "{}", u32::from(mods.bits()) + 1);
        if let Some(kind) = event {
            let n = match kind {
                KeyEventKind::Press => 1,
                KeyEventKind::Repeat => 2,
                KeyEventKind::Release => 3,
            };
            let _ = write!(s, ":{n}");
        }
    }
    if third {
        for (i, c) in text.chars().enumerate() {
            let sep = if i == 0 { ';' } else { ':' };
            let _ = write!(s, "{sep}{}", u32::from(c));
        }
    }
    s.push(char::from(final_byte));
    s.into_bytes()
}

/// The shifted character of a key on a US layout, or the upper case of a letter elsewhere.
fn shifted_char(base: char) -> Option<char> {
    const US: &[(char, char)] = &[
        ('`', '~'),
        ('1', '!'),
        ('2', '@'),
        ('3', '#'),
        ('4', '$'),
        ('5', '%'),
        ('6', '^'),
        ('7', '&'),
        ('8', '*'),
        ('9', '('),
        ('0', ')'),
        ('-', '_'),
        ('=', '+'),
        ('[', '{'),
        (']', '}'),
        ('\\', '|'),
        (';', ':'),
        ('\'', '"'),
        (',', '<'),
        ('.', '>'),
        ('/', '?'),
    ];
    if let Some(&(_, shifted)) = US.iter().find(|(b, _)| *b == base) {
        return Some(shifted);
    }
    let mut upper = base.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) if u != base => Some(u),
        _ => None,
    }
}

/// The key code of a character key: its unshifted (lower-case) form.
fn base_char(c: char) -> char {
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

/// The legacy control byte for ctrl+`base`, as a US keyboard sends it: `None` for keys that have
/// none (they go out as `CSI u`); the key itself for the few that ctrl leaves alone.
fn ctrl_byte(base: char) -> Option<u8> {
    Some(match base {
        'a'..='z' => base as u8 - b'a' + 1,
        ' ' | '2' | '@' => 0,
        '[' | '3' => 0x1b,
        '\\' | '4' => 0x1c,
        ']' | '5' => 0x1d,
        '^' | '6' | '~' => 0x1e,
        '_' | '7' | '/' => 0x1f,
        '8' | '?' => 0x7f,
        '0' | '1' | '9' | '`' | '-' | '=' | ';' | '\'' | ',' | '.' => base as u8,
        _ => return None,
    })
}

/// `text` without controls, as pastes and IME commits must be (kitty: associated text "must not
/// contain control codes").
fn clean_text(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).collect()
}

fn encode_char(c: char, ev: &KeyEvent, kind: KeyEventKind, flags: Flags) -> Vec<u8> {
    if c.is_control() {
        return Vec::new();
    }
    let mods = ev.modifiers;
    let base = base_char(c);
    let typing = !mods.ctrl && !mods.alt && !mods.super_;
    let mut text = ev.text.as_deref().map(clean_text).unwrap_or_default();
    if text.is_empty() && typing {
        text = if mods.shift {
            shifted_char(base).unwrap_or(c)
        } else {
            c
        }
        .to_string();
    }
    if typing && !flags.all_keys && kind != KeyEventKind::Release {
        return text.into_bytes();
    }
    let with_event = flags.events && kind != KeyEventKind::Press;
    let shifted = if flags.alternates && mods.shift {
        shifted_char(base)
    } else {
        None
    };
    let with_text = flags.text && kind != KeyEventKind::Release && !text.is_empty();
    if !with_event && shifted.is_none() && !with_text && !flags.enhanced() && !mods.super_ {
        if mods.ctrl {
            if let Some(byte) = ctrl_byte(base) {
                return if mods.alt {
                    vec![ESC, byte]
                } else {
                    vec![byte]
                };
            }
        } else if mods.alt {
            let mut out = vec![ESC];
            out.extend_from_slice(text_for_alt(c, base, mods, ev).as_bytes());
            return out;
        }
    }
    csi(
        u32::from(base),
        shifted,
        mods,
        with_event.then_some(kind),
        if with_text { &text } else { "" },
        b'u',
    )
}

/// What alt+key types after its ESC: the event's text if it has any, else the (shifted) key.
fn text_for_alt(c: char, base: char, mods: Modifiers, ev: &KeyEvent) -> String {
    let text = ev.text.as_deref().map(clean_text).unwrap_or_default();
    if !text.is_empty() {
        return text;
    }
    if mods.shift {
        shifted_char(base).unwrap_or(c).to_string()
    } else {
        c.to_string()
    }
}

/// A key with its modifiers, as bound or reserved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Chord {
    pub key: Key,
    pub modifiers: Modifiers,
}

impl Chord {
    /// Is `ev` this chord? Any kind matches: a reserved chord swallows its press, its repeats and
    /// its release (a release passed on would reveal the chord to a program that asked for
    /// release events). Character keys compare without case.
    pub fn matches(&self, ev: &KeyEvent) -> bool {
        self.modifiers == ev.modifiers
            && match (self.key, ev.key) {
                (Key::Char(a), Key::Char(b)) => base_char(a) == base_char(b),
                (a, b) => a == b,
            }
    }

    /// If `input` starts with an escape code that reports this chord (kitty `CSI u`, with any
    /// event type, alternate keys, text and Caps/Num Lock bits; or xterm modifyOtherKeys
    /// `CSI 27;m;code~`), its length and kind. For reading a terminal that reports keys that way.
    pub fn match_input(&self, input: &[u8]) -> Option<(usize, KeyEventKind)> {
        let body = input.strip_prefix(b"\x1b[")?;
        let end = body
            .iter()
            .position(|b| !matches!(b, b'0'..=b'9' | b';' | b':'))?;
        let final_byte = body[end];
        let params = std::str::from_utf8(&body[..end]).ok()?;
        let fields: Vec<Vec<&str>> = params.split(';').map(|f| f.split(':').collect()).collect();
        let num = |s: &str| s.parse::<u32>().ok();
        let (code, mods_field, kind) = match final_byte {
            b'u' => {
                let code = num(fields.first()?.first()?)?;
                let mods = fields.get(1).map(|f| f.as_slice()).unwrap_or(&[]);
                let kind = match mods.get(1).copied() {
                    None | Some("1") => KeyEventKind::Press,
                    Some("2") => KeyEventKind::Repeat,
                    Some("3") => KeyEventKind::Release,
                    Some(_) => return None,
                };
                (code, mods.first().copied().unwrap_or("1"), kind)
            }
            b'~' if fields.len() == 3 && fields[0] == ["27"] => (
                num(fields[2].first()?)?,
                fields[1].first().copied()?,
                KeyEventKind::Press,
            ),
            _ => return None,
        };
        let mods = if mods_field.is_empty() {
            1
        } else {
            num(mods_field)?
        };
        // Caps Lock (64) and Num Lock (128) do not change what was pressed.
        let bits = mods.checked_sub(1)? & !(64 | 128);
        if bits > 0xff || Modifiers::from_bits(bits as u8).bits() as u32 != bits {
            return None;
        }
        let expected = match self.key {
            Key::Char(c) => u32::from(base_char(c)),
            key => match functional_code(key, true)? {
                (n, b'u') => n,
                _ => return None,
            },
        };
        (code == expected && Modifiers::from_bits(bits as u8) == self.modifiers)
            .then_some((2 + end + 1, kind))
    }
}

impl fmt::Display for Chord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.modifiers;
        for (on, name) in [
            (m.ctrl, "ctrl"),
            (m.alt, "alt"),
            (m.shift, "shift"),
            (m.super_, "super"),
        ] {
            if on {
                write!(f, "{name}+")?;
            }
        }
        match self.key {
            Key::Char(' ') => f.write_str("space"),
            Key::Char('+') => f.write_str("plus"),
            Key::Char(c) => write!(f, "{c}"),
            Key::F(n) => write!(f, "f{n}"),
            key => f.write_str(
                KEY_NAMES
                    .iter()
                    .find(|(_, k)| *k == key)
                    .map_or("?", |(name, _)| name),
            ),
        }
    }
}

/// Ctrl+Shift+Escape, or Cmd(super)+Shift+Escape on macOS.
pub fn default_focus_return_chord(macos: bool) -> Chord {
    Chord {
        key: Key::Escape,
        modifiers: Modifiers {
            shift: true,
            ctrl: !macos,
            super_: macos,
            alt: false,
        },
    }
}

/// Key names accepted by [`parse_chord`]; the first name of each key is the one it is shown as.
const KEY_NAMES: &[(&str, Key)] = &[
    ("escape", Key::Escape),
    ("esc", Key::Escape),
    ("enter", Key::Enter),
    ("return", Key::Enter),
    ("tab", Key::Tab),
    ("backspace", Key::Backspace),
    ("up", Key::Up),
    ("down", Key::Down),
    ("left", Key::Left),
    ("right", Key::Right),
    ("home", Key::Home),
    ("end", Key::End),
    ("pageup", Key::PageUp),
    ("pgup", Key::PageUp),
    ("pagedown", Key::PageDown),
    ("pgdn", Key::PageDown),
    ("pgdown", Key::PageDown),
    ("insert", Key::Insert),
    ("ins", Key::Insert),
    ("delete", Key::Delete),
    ("del", Key::Delete),
    ("space", Key::Char(' ')),
    ("plus", Key::Char('+')),
];

/// Parse a chord such as `ctrl+shift+escape`: modifiers (`ctrl`/`control`, `shift`,
/// `alt`/`option`/`opt`, `super`/`cmd`/`command`/`win`/`logo`) and one key, joined by `+`, in any
/// case. Keys are the names of [`Key`] (`escape`, `pageup`, `f1`...`f35`, `space`, `plus`) or one
/// printable character.
pub fn parse_chord(s: &str) -> Result<Chord, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("empty chord: expected modifiers and a key, e.g. ctrl+shift+escape".into());
    }
    // A trailing "++" is the plus key.
    let (mods_part, key_part) = if let Some(rest) = s.strip_suffix("++") {
        (rest, "+")
    } else if s == "+" {
        ("", "+")
    } else {
        match s.rsplit_once('+') {
            Some((mods, key)) => (mods, key),
            None => ("", s),
        }
    };
    let mut modifiers = Modifiers::NONE;
    if !mods_part.is_empty() {
        for token in mods_part.split('+') {
            let flag = match token.trim().to_ascii_lowercase().as_str() {
                "ctrl" | "control" => &mut modifiers.ctrl,
                "shift" => &mut modifiers.shift,
                "alt" | "option" | "opt" => &mut modifiers.alt,
                "super" | "cmd" | "command" | "win" | "logo" => &mut modifiers.super_,
                "" => return Err(format!("chord {s:?} has an empty part between '+' signs")),
                other => {
                    return Err(format!(
                        "unknown modifier {other:?} in chord {s:?}: use ctrl, shift, alt or super"
                    ))
                }
            };
            if *flag {
                return Err(format!(
                    "modifier {:?} appears twice in chord {s:?}",
                    token.trim()
                ));
            }
            *flag = true;
        }
    }
    Ok(Chord {
        key: parse_key(key_part.trim()).map_err(|why| format!("{why} in chord {s:?}"))?,
        modifiers,
    })
}

fn parse_key(name: &str) -> Result<Key, String> {
    if name.is_empty() {
        return Err("no key".into());
    }
    let lower = name.to_ascii_lowercase();
    if let Some(&(_, key)) = KEY_NAMES.iter().find(|(n, _)| *n == lower) {
        return Ok(key);
    }
    if let Some(n) = lower
        .strip_prefix('f')
        .and_then(|d| d.parse::<u8>().ok())
        .filter(|n| (1..=35).contains(n))
    {
        if !lower[1..].starts_with('0') {
            return Ok(Key::F(n));
        }
    }
    let mut chars = name.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if !c.is_control() && !c.is_whitespace() => Ok(Key::Char(base_char(c))),
        _ => Err(format!(
            "unknown key {name:?} (escape, enter, tab, backspace, arrows, home, end, pageup, pagedown, insert, delete, f1-f35, space, plus, or one character)"
        )),
    }
}

#[cfg(test)]
mod tests;
