use super::*;
use crate::lumen::TestRng;

const NONE: Modifiers = Modifiers::NONE;
const SHIFT: Modifiers = Modifiers::SHIFT;
const ALT: Modifiers = Modifiers::ALT;
const CTRL: Modifiers = Modifiers::CTRL;
const SUPER: Modifiers = Modifiers::SUPER;

fn enc(key: Key, mods: Modifiers, flags: u8) -> Vec<u8> {
    encode_key(&KeyEvent::new(key, mods), false, flags)
}

fn enc_kind(key: Key, mods: Modifiers, kind: KeyEventKind, flags: u8) -> Vec<u8> {
    encode_key(&KeyEvent::new(key, mods).with_kind(kind), false, flags)
}

fn s(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap()
}

#[test]
fn modifiers_bits() {
    assert_eq!(NONE.bits(), 0);
    assert_eq!((CTRL | SHIFT).bits(), 5);
    assert_eq!((SHIFT | ALT | CTRL | SUPER).bits(), 15);
    for bits in 0..16 {
        assert_eq!(Modifiers::from_bits(bits).bits(), bits);
    }
    assert!(NONE.is_empty() && !ALT.is_empty());
}

#[test]
fn legacy_characters() {
    assert_eq!(enc(Key::Char('a'), NONE, 0), b"a");
    assert_eq!(enc(Key::Char('a'), SHIFT, 0), b"A");
    assert_eq!(enc(Key::Char('4'), SHIFT, 0), b"$");
    assert_eq!(enc(Key::Char('\u{e9}'), SHIFT, 0), "\u{c9}".as_bytes());
    assert_eq!(enc(Key::Char('a'), CTRL, 0), [0x01]);
    assert_eq!(enc(Key::Char('C'), CTRL, 0), [0x03]);
    // Shift is lost in ctrl+shift+letter, as in xterm.
    assert_eq!(enc(Key::Char('c'), CTRL | SHIFT, 0), [0x03]);
    assert_eq!(enc(Key::Char(' '), CTRL, 0), [0x00]);
    assert_eq!(enc(Key::Char('['), CTRL, 0), [0x1b]);
    assert_eq!(enc(Key::Char('/'), CTRL, 0), [0x1f]);
    assert_eq!(enc(Key::Char('1'), CTRL, 0), b"1");
    assert_eq!(enc(Key::Char('x'), ALT, 0), b"\x1bx");
    assert_eq!(enc(Key::Char('x'), ALT | SHIFT, 0), b"\x1bX");
    assert_eq!(enc(Key::Char('x'), ALT | CTRL, 0), b"\x1b\x18");
    assert_eq!(enc(Key::Char(' '), ALT, 0), b"\x1b ");
    // What legacy bytes cannot say goes out as CSI u.
    assert_eq!(s(enc(Key::Char('\u{e9}'), CTRL, 0)), "\x1b[233;5u");
    assert_eq!(s(enc(Key::Char('c'), SUPER, 0)), "\x1b[99;9u");
    // Text from the event wins, controls removed.
    let ev = KeyEvent::new(Key::Char('a'), NONE).with_text("\u{e5}\x1b[201~\u{9b}");
    assert_eq!(encode_key(&ev, false, 0), "\u{e5}[201~".as_bytes());
    let ev = KeyEvent::new(Key::Char('a'), ALT).with_text("\u{e5}");
    assert_eq!(encode_key(&ev, false, 0), "\x1b\u{e5}".as_bytes());
    // A key that is itself a control types nothing.
    for c in ['\x1b', '\x03', '\x7f', '\u{9b}', '\u{9f}'] {
        assert!(enc(Key::Char(c), NONE, 0).is_empty(), "{c:?}");
        assert!(enc(Key::Char(c), NONE, 31).is_empty(), "{c:?}");
    }
}

#[test]
fn legacy_c0_keys() {
    let table: &[(Key, Modifiers, &[u8])] = &[
        (Key::Enter, NONE, b"\r"),
        (Key::Enter, CTRL, b"\r"),
        (Key::Enter, ALT, b"\x1b\r"),
        (Key::Tab, NONE, b"\t"),
        (Key::Tab, SHIFT, b"\x1b[Z"),
        (Key::Tab, CTRL | SHIFT, b"\x1b[Z"),
        (Key::Tab, ALT, b"\x1b\t"),
        (Key::Tab, ALT | SHIFT, b"\x1b\x1b[Z"),
        (Key::Backspace, NONE, b"\x7f"),
        (Key::Backspace, CTRL, b"\x08"),
        (Key::Backspace, ALT, b"\x1b\x7f"),
        (Key::Backspace, ALT | CTRL, b"\x1b\x08"),
        (Key::Escape, NONE, b"\x1b"),
        (Key::Escape, CTRL | SHIFT, b"\x1b"),
        (Key::Escape, ALT, b"\x1b\x1b"),
    ];
    for (key, mods, bytes) in table {
        assert_eq!(enc(*key, *mods, 0), *bytes, "{key:?} {mods:?}");
    }
    assert_eq!(s(enc(Key::Escape, SUPER | SHIFT, 0)), "\x1b[27;10u");
}

#[test]
fn legacy_cursor_and_function_keys() {
    assert_eq!(enc(Key::Up, NONE, 0), b"\x1b[A");
    assert_eq!(
        encode_key(&KeyEvent::new(Key::Up, NONE), true, 0),
        b"\x1bOA"
    );
    assert_eq!(
        encode_key(&KeyEvent::new(Key::End, NONE), true, 0),
        b"\x1bOF"
    );
    // Modified keys ignore cursor-key mode.
    assert_eq!(
        encode_key(&KeyEvent::new(Key::Left, CTRL), true, 0),
        b"\x1b[1;5D"
    );
    assert_eq!(enc(Key::Right, SHIFT | ALT, 0), b"\x1b[1;4C");
    assert_eq!(enc(Key::Home, NONE, 0), b"\x1b[H");
    assert_eq!(enc(Key::Delete, NONE, 0), b"\x1b[3~");
    assert_eq!(enc(Key::PageUp, CTRL, 0), b"\x1b[5;5~");
    assert_eq!(enc(Key::Insert, NONE, 0), b"\x1b[2~");
    assert_eq!(enc(Key::PageDown, NONE, 0), b"\x1b[6~");
    let f: &[(u8, &str)] = &[
        (1, "\x1bOP"),
        (2, "\x1bOQ"),
        (3, "\x1bOR"),
        (4, "\x1bOS"),
        (5, "\x1b[15~"),
        (6, "\x1b[17~"),
        (7, "\x1b[18~"),
        (8, "\x1b[19~"),
        (9, "\x1b[20~"),
        (10, "\x1b[21~"),
        (11, "\x1b[23~"),
        (12, "\x1b[24~"),
        (13, "\x1b[57376u"),
        (35, "\x1b[57398u"),
    ];
    for (n, bytes) in f {
        assert_eq!(s(enc(Key::F(*n), NONE, 0)), *bytes, "F{n}");
    }
    assert_eq!(s(enc(Key::F(1), SHIFT, 0)), "\x1b[1;2P");
    assert_eq!(s(enc(Key::F(5), CTRL, 0)), "\x1b[15;5~");
    assert!(enc(Key::F(0), NONE, 0).is_empty());
    assert!(enc(Key::F(36), NONE, 0).is_empty());
}

#[test]
fn legacy_mode_has_no_releases_and_repeats_are_presses() {
    for key in [Key::Char('a'), Key::Enter, Key::Escape, Key::Up, Key::F(5)] {
        assert!(enc_kind(key, CTRL, KeyEventKind::Release, 0).is_empty());
        assert_eq!(
            enc_kind(key, CTRL, KeyEventKind::Repeat, 0),
            enc(key, CTRL, 0)
        );
    }
    // Releases need flag 2 in kitty mode as well.
    assert!(enc_kind(Key::Escape, NONE, KeyEventKind::Release, 1).is_empty());
}

#[test]
fn kitty_disambiguate() {
    let f = KITTY_DISAMBIGUATE;
    assert_eq!(s(enc(Key::Escape, NONE, f)), "\x1b[27u");
    assert_eq!(s(enc(Key::Escape, CTRL | SHIFT, f)), "\x1b[27;6u");
    assert_eq!(s(enc(Key::Escape, SUPER | SHIFT, f)), "\x1b[27;10u");
    assert_eq!(s(enc(Key::Char('c'), CTRL, f)), "\x1b[99;5u");
    assert_eq!(s(enc(Key::Char('a'), ALT, f)), "\x1b[97;3u");
    assert_eq!(s(enc(Key::Char('i'), CTRL | SHIFT, f)), "\x1b[105;6u");
    assert_eq!(s(enc(Key::Char('a'), NONE, f)), "a");
    assert_eq!(s(enc(Key::Char('a'), SHIFT, f)), "A");
    // Enter, Tab and Backspace stay legacy while unmodified.
    assert_eq!(enc(Key::Enter, NONE, f), b"\r");
    assert_eq!(enc(Key::Tab, NONE, f), b"\t");
    assert_eq!(enc(Key::Backspace, NONE, f), b"\x7f");
    assert_eq!(s(enc(Key::Enter, CTRL, f)), "\x1b[13;5u");
    assert_eq!(s(enc(Key::Tab, SHIFT, f)), "\x1b[9;2u");
    assert_eq!(s(enc(Key::Backspace, ALT, f)), "\x1b[127;3u");
    // Cursor keys are CSI, even in cursor-key mode.
    assert_eq!(
        encode_key(&KeyEvent::new(Key::Up, NONE), true, f),
        b"\x1b[A"
    );
    assert_eq!(s(enc(Key::Up, SHIFT, f)), "\x1b[1;2A");
    assert_eq!(s(enc(Key::F(1), NONE, f)), "\x1b[P");
    assert_eq!(s(enc(Key::F(3), NONE, f)), "\x1b[13~");
    assert_eq!(s(enc(Key::F(3), CTRL, f)), "\x1b[13;5~");
    assert_eq!(s(enc(Key::Delete, NONE, f)), "\x1b[3~");
}

#[test]
fn kitty_event_types() {
    let f = KITTY_DISAMBIGUATE | KITTY_EVENT_TYPES;
    use KeyEventKind::{Press, Release, Repeat};
    assert_eq!(s(enc_kind(Key::Escape, NONE, Release, f)), "\x1b[27;1:3u");
    assert_eq!(
        s(enc_kind(Key::Escape, CTRL | SHIFT, Press, f)),
        "\x1b[27;6u"
    );
    assert_eq!(
        s(enc_kind(Key::Escape, CTRL | SHIFT, Repeat, f)),
        "\x1b[27;6:2u"
    );
    assert_eq!(
        s(enc_kind(Key::Escape, CTRL | SHIFT, Release, f)),
        "\x1b[27;6:3u"
    );
    assert_eq!(s(enc_kind(Key::Char('a'), CTRL, Repeat, f)), "\x1b[97;5:2u");
    // Text keys: presses and repeats are text, releases are reported.
    assert_eq!(s(enc_kind(Key::Char('a'), NONE, Repeat, f)), "a");
    assert_eq!(
        s(enc_kind(Key::Char('a'), NONE, Release, f)),
        "\x1b[97;1:3u"
    );
    // Enter, Tab and Backspace: no release without flag 8.
    assert!(enc_kind(Key::Enter, NONE, Release, f).is_empty());
    assert_eq!(enc_kind(Key::Enter, NONE, Repeat, f), b"\r");
    assert_eq!(s(enc_kind(Key::Up, NONE, Release, f)), "\x1b[1;1:3A");
    assert_eq!(s(enc_kind(Key::PageUp, ALT, Repeat, f)), "\x1b[5;3:2~");
    // Event types without disambiguate: presses keep their legacy bytes.
    let f = KITTY_EVENT_TYPES;
    assert_eq!(enc_kind(Key::Escape, NONE, Press, f), b"\x1b");
    assert_eq!(s(enc_kind(Key::Escape, NONE, Release, f)), "\x1b[27;1:3u");
    assert_eq!(enc_kind(Key::Char('c'), CTRL, Press, f), [0x03]);
    assert_eq!(
        s(enc_kind(Key::Char('c'), CTRL, Release, f)),
        "\x1b[99;5:3u"
    );
}

#[test]
fn kitty_all_keys_alternates_and_text() {
    let all = KITTY_DISAMBIGUATE | KITTY_ALL_KEYS;
    assert_eq!(s(enc(Key::Char('a'), NONE, all)), "\x1b[97u");
    assert_eq!(s(enc(Key::Char('a'), SHIFT, all)), "\x1b[97;2u");
    assert_eq!(s(enc(Key::Char('A'), SHIFT, all)), "\x1b[97;2u");
    assert_eq!(s(enc(Key::Enter, NONE, all)), "\x1b[13u");
    assert_eq!(s(enc(Key::Tab, NONE, all)), "\x1b[9u");
    assert_eq!(s(enc(Key::Backspace, NONE, all)), "\x1b[127u");
    let f = all | KITTY_EVENT_TYPES;
    assert_eq!(
        s(enc_kind(Key::Enter, NONE, KeyEventKind::Release, f)),
        "\x1b[13;1:3u"
    );
    let f = all | KITTY_ASSOCIATED_TEXT;
    assert_eq!(s(enc(Key::Char('a'), SHIFT, f)), "\x1b[97;2;65u");
    assert_eq!(s(enc(Key::Char('a'), NONE, f)), "\x1b[97;;97u");
    let ev = KeyEvent::new(Key::Char('a'), ALT).with_text("\u{e5}");
    assert_eq!(s(encode_key(&ev, false, f)), "\x1b[97;3;229u");
    // Controls never reach the text field.
    let ev = KeyEvent::new(Key::Char('a'), NONE).with_text("\x1b\u{9b}b");
    assert_eq!(s(encode_key(&ev, false, f)), "\x1b[97;;98u");
    let f = all | KITTY_ALTERNATE_KEYS;
    assert_eq!(s(enc(Key::Char('a'), SHIFT, f)), "\x1b[97:65;2u");
    assert_eq!(s(enc(Key::Char('4'), SHIFT | CTRL, f)), "\x1b[52:36;6u");
    assert_eq!(s(enc(Key::Char('a'), CTRL, f)), "\x1b[97;5u");
}

/// Whatever the text of an event, encoding a typed key writes no control character.
#[test]
fn property_typed_text_carries_no_controls() {
    let mut rng = TestRng::new(11);
    let chars = [
        'a', '\x1b', '\u{9b}', '\x03', '\n', '\u{e9}', '\x7f', '\u{9f}', '[', '~',
    ];
    for _ in 0..3000 {
        let text: String = (0..rng.below(8)).map(|_| *rng.pick(&chars)).collect();
        let mods = Modifiers {
            shift: rng.below(2) == 0,
            ..Modifiers::NONE
        };
        let flags = *rng.pick(&[0u8, 1, 3, 5]);
        let ev =
            KeyEvent::new(Key::Char(*rng.pick(&['a', 'z', '1'])), mods).with_text(text.clone());
        let out = encode_key(&ev, false, flags);
        let out = String::from_utf8(out).expect("UTF-8");
        assert!(!out.chars().any(char::is_control), "{text:?} -> {out:?}");
    }
}

#[test]
fn focus_return_chord() {
    let linux = default_focus_return_chord(false);
    assert_eq!(
        linux,
        Chord {
            key: Key::Escape,
            modifiers: CTRL | SHIFT
        }
    );
    let mac = default_focus_return_chord(true);
    assert_eq!(mac.modifiers, SUPER | SHIFT);
    assert_eq!(linux.to_string(), "ctrl+shift+escape");
    assert_eq!(mac.to_string(), "shift+super+escape");
    assert_eq!(parse_chord("ctrl+shift+escape"), Ok(linux));
    assert_eq!(parse_chord(" Ctrl+Shift+Esc "), Ok(linux));
    assert_eq!(parse_chord("shift+control+ESCAPE"), Ok(linux));
    assert_eq!(parse_chord("cmd+shift+escape"), Ok(mac));
    assert_eq!(parse_chord("super+shift+escape"), Ok(mac));

    for kind in [
        KeyEventKind::Press,
        KeyEventKind::Repeat,
        KeyEventKind::Release,
    ] {
        assert!(linux.matches(&KeyEvent::new(Key::Escape, CTRL | SHIFT).with_kind(kind)));
    }
    assert!(!linux.matches(&KeyEvent::new(Key::Escape, CTRL)));
    assert!(!linux.matches(&KeyEvent::new(Key::Escape, CTRL | SHIFT | ALT)));
    assert!(!linux.matches(&KeyEvent::new(Key::Enter, CTRL | SHIFT)));
}

#[test]
fn chord_parsing() {
    let ok: &[(&str, Key, Modifiers)] = &[
        ("ctrl+a", Key::Char('a'), CTRL),
        ("Ctrl+A", Key::Char('a'), CTRL),
        ("alt+F12", Key::F(12), ALT),
        ("option+f35", Key::F(35), ALT),
        ("ctrl+alt+pageup", Key::PageUp, CTRL | ALT),
        ("ctrl+space", Key::Char(' '), CTRL),
        ("ctrl++", Key::Char('+'), CTRL),
        ("ctrl+plus", Key::Char('+'), CTRL),
        ("+", Key::Char('+'), NONE),
        ("f", Key::Char('f'), NONE),
        ("ctrl+]", Key::Char(']'), CTRL),
        ("win+del", Key::Delete, SUPER),
    ];
    for (text, key, mods) in ok {
        let chord = parse_chord(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(
            chord,
            Chord {
                key: *key,
                modifiers: *mods
            },
            "{text}"
        );
        assert_eq!(parse_chord(&chord.to_string()), Ok(chord), "{text}");
    }
    for bad in [
        "",
        "ctrl+",
        "ctrl+shift",
        "ctrl+ctrl+a",
        "hyper+a",
        "ctrl++shift+a",
        "ctrl+f0",
        "ctrl+f36",
        "ctrl+f01",
        "ctrl+nope",
        "ctrl+\u{1b}",
    ] {
        assert!(parse_chord(bad).is_err(), "{bad:?}");
    }
    assert!(parse_chord("meta+x")
        .unwrap_err()
        .contains("unknown modifier"));
}

#[test]
fn chord_in_terminal_input() {
    let linux = default_focus_return_chord(false);
    let hits: &[(&[u8], KeyEventKind)] = &[
        (b"\x1b[27;6u", KeyEventKind::Press),
        (b"\x1b[27;6:1u", KeyEventKind::Press),
        (b"\x1b[27;6:2u", KeyEventKind::Repeat),
        (b"\x1b[27;6:3u", KeyEventKind::Release),
        (b"\x1b[27;70u", KeyEventKind::Press),
        (b"\x1b[27;134u", KeyEventKind::Press),
        (b"\x1b[27;198:3u", KeyEventKind::Release),
        (b"\x1b[27;6;27~", KeyEventKind::Press),
    ];
    for (input, kind) in hits {
        assert_eq!(
            linux.match_input(input),
            Some((input.len(), *kind)),
            "{input:?}"
        );
        let mut longer = input.to_vec();
        longer.extend(b"rest");
        assert_eq!(linux.match_input(&longer), Some((input.len(), *kind)));
    }
    for miss in [
        &b"\x1b"[..],
        b"\x1b[27u",
        b"\x1b[27;5u",
        b"\x1b[27;7u",
        b"\x1b[27;22u",
        b"\x1b[27;6",
        b"\x1b[13;6u",
        b"\x1b[27;6:4u",
        b"\x1b[1;6A",
        b"x\x1b[27;6u",
    ] {
        assert_eq!(linux.match_input(miss), None, "{miss:?}");
    }
    let mac = default_focus_return_chord(true);
    assert_eq!(
        mac.match_input(b"\x1b[27;10u"),
        Some((8, KeyEventKind::Press))
    );
    assert_eq!(mac.match_input(b"\x1b[27;6u"), None);
    let ctrl_a = parse_chord("ctrl+a").unwrap();
    assert_eq!(
        ctrl_a.match_input(b"\x1b[97:65;5u"),
        Some((10, KeyEventKind::Press))
    );
    assert_eq!(
        ctrl_a.match_input(b"\x1b[97;5;97u"),
        Some((10, KeyEventKind::Press))
    );
    // Our own encoder's output for the chord is recognised, in every kitty mode.
    for flags in [1u8, 3, 9, 11, 31] {
        for kind in [
            KeyEventKind::Press,
            KeyEventKind::Repeat,
            KeyEventKind::Release,
        ] {
            let bytes = enc_kind(Key::Escape, CTRL | SHIFT, kind, flags);
            if bytes.is_empty() {
                continue;
            }
            let expected = if flags & KITTY_EVENT_TYPES != 0 {
                kind
            } else {
                KeyEventKind::Press
            };
            assert_eq!(
                linux.match_input(&bytes),
                Some((bytes.len(), expected)),
                "{flags} {kind:?}"
            );
        }
    }
}
