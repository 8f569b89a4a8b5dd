use super::*;
use crate::lumen::TestRng;

fn bracketed(raw: &[u8]) -> Vec<u8> {
    match decide_paste(raw, true) {
        PasteDecision::Send(bytes) => bytes,
        other => panic!("{raw:?}: expected send, got {other:?}"),
    }
}

/// The text between the markers, after checking there is exactly one wrapper.
fn inner(sent: &[u8]) -> &[u8] {
    let body = sent
        .strip_prefix(BRACKETED_PASTE_START)
        .and_then(|s| s.strip_suffix(BRACKETED_PASTE_END))
        .unwrap_or_else(|| panic!("not wrapped: {sent:?}"));
    assert!(!body.contains(&0x1b), "ESC inside the brackets: {sent:?}");
    body
}

fn held(raw: &[u8]) -> HeldPaste {
    match decide_paste(raw, false) {
        PasteDecision::Hold(h) => h,
        other => panic!("{raw:?}: expected hold, got {other:?}"),
    }
}

fn assert_safe_inner(body: &[u8]) {
    let text = std::str::from_utf8(body).expect("sanitized output is UTF-8");
    for c in text.chars() {
        assert!(
            c >= ' ' || matches!(c, '\t' | '\n' | '\r'),
            "C0 {c:?} in {text:?}"
        );
        assert!(
            !('\u{7f}'..='\u{9f}').contains(&c),
            "DEL/C1 {c:?} in {text:?}"
        );
    }
    assert!(!body.windows(6).any(|w| w == b"\x1b[201~"));
    assert!(!text.contains("\u{9b}201~"));
    assert!(!contains_frame_introducer(body));
}

#[test]
fn introducers_are_rejected_in_both_modes() {
    for raw in [
        &b"echo hi\x1b_lumen;v=0,t=focus,id=1;AA\x1b\\"[..],
        b"\xc2\x9flumen;v=0",
        b"\x9flumen;",
        b"text then \x1b_lum",
        b"\x1b_lumen",
    ] {
        for mode in [true, false] {
            match decide_paste(raw, mode) {
                PasteDecision::Reject(reason) => assert!(reason.contains("introducer")),
                other => panic!("{raw:?} bracketed={mode}: {other:?}"),
            }
        }
    }
}

/// An introducer with controls between its bytes: a lenient parser might skip them, and "keep
/// controls" would write the ESC, so it is refused too.
#[test]
fn introducers_hidden_by_controls_are_rejected() {
    for raw in [
        &b"\x1b\x00_lumen;"[..],
        b"\x1b_lu\x7fmen;",
        b"\x1b_\xc2\x85lumen;",
        b"\x1b\r\n_lumen;",
        b"\x1b\xc2\x9c_lumen;",
    ] {
        for mode in [true, false] {
            assert!(
                matches!(decide_paste(raw, mode), PasteDecision::Reject(_)),
                "{raw:?} bracketed={mode}"
            );
        }
    }
}

#[test]
fn bracketed_paste_is_sanitized_and_wrapped() {
    assert_eq!(bracketed(b"ls -la\n"), b"\x1b[200~ls -la\n\x1b[201~");
    assert_eq!(bracketed(b""), b"\x1b[200~\x1b[201~");
    assert_eq!(inner(&bracketed(b"a\tb\r\nc")), b"a\tb\r\nc");
    // ^C, ^Z, ^\, ^U, ^W, ^V, NUL, BEL, BS, DEL: all removed (tty line discipline escapes).
    assert_eq!(
        inner(&bracketed(
            b"a\x03b\x1ac\x1cd\x15e\x17f\x16g\x00h\x07i\x08j\x7fk"
        )),
        b"abcdefghijk"
    );
}

/// The real end-marker bypasses: split, nested, rebuilt after stripping, 8-bit.
#[test]
fn end_marker_bypasses() {
    let cases: &[(&[u8], &[u8])] = &[
        (b"echo ok\x1b[201~rm -rf ~\n", b"echo ok[201~rm -rf ~\n"),
        // kitty 2018: one replacement pass leaves a marker behind.
        (b"x\x1b\x1b[201~[201~y", b"x[201~[201~y"),
        (b"\x1b[201\x1b[201~~ab", b"[201[201~~ab"),
        // WezTerm #7784.
        (
            b"echo foo; echo malicious command\x1b\x1b[201~[201~\n",
            b"echo foo; echo malicious command[201~[201~\n",
        ),
        // 8-bit CSI as UTF-8 (U+009B) and as a raw byte (invalid UTF-8).
        (b"\xc2\x9b201~id\n", b"201~id\n"),
        (b"\x9b201~id\n", "\u{fffd}201~id\n".as_bytes()),
        // The begin marker too.
        (b"\x1b[200~x", b"[200~x"),
        // Removing a control between C2 and 9B must not build U+009B.
        (b"\xc2\x01\x9b201~", "\u{fffd}\u{fffd}201~".as_bytes()),
        // ^C inside the paste.
        (b"sleep 1\x03; id\n", b"sleep 1; id\n"),
    ];
    for (raw, expected) in cases {
        let sent = bracketed(raw);
        assert_eq!(inner(&sent), *expected, "{raw:?}");
        assert_safe_inner(inner(&sent));
    }
}

/// Each read of a paste sanitized on its own: a marker split across them cannot form.
#[test]
fn split_end_marker_across_chunks() {
    let first = bracketed(b"echo a\x1b[20");
    let second = bracketed(b"1~; id\n");
    let mut joined = inner(&first).to_vec();
    joined.extend_from_slice(inner(&second));
    assert!(!joined.windows(6).any(|w| w == b"\x1b[201~"));
    assert_eq!(joined, b"echo a[201~; id\n");
}

#[test]
fn c1_controls_are_removed_as_utf8_and_raw_bytes_become_replacement() {
    for cp in 0x80u32..=0x9f {
        let c = char::from_u32(cp).unwrap();
        let raw = format!("a{c}b");
        assert_eq!(inner(&bracketed(raw.as_bytes())), b"ab", "U+{cp:04X}");
        let mut raw = b"a".to_vec();
        raw.push(cp as u8);
        raw.push(b'b');
        assert_eq!(
            inner(&bracketed(&raw)),
            "a\u{fffd}b".as_bytes(),
            "raw {cp:#x}"
        );
    }
    assert_eq!(inner(&bracketed(b"a\xc2\x9fb")), b"ab");
}

/// Invalid UTF-8 that a lax decoder would turn into a control: overlong ESC, overlong CSI,
/// surrogates. Each maximal bad sequence becomes U+FFFD, never ESC.
#[test]
fn invalid_utf8_never_decodes_to_a_control() {
    let cases: &[(&[u8], &str)] = &[
        (b"\xc0\x9b[201~", "\u{fffd}\u{fffd}[201~"),
        (b"\xe0\x80\x9b[201~", "\u{fffd}\u{fffd}\u{fffd}[201~"),
        (b"\xf0\x80\x80\x9b", "\u{fffd}\u{fffd}\u{fffd}\u{fffd}"),
        (b"\xc1\x9b", "\u{fffd}\u{fffd}"),
        (b"\xc0\x80", "\u{fffd}\u{fffd}"),
        (b"\xed\xa0\x80", "\u{fffd}\u{fffd}\u{fffd}"),
        (b"\xc2", "\u{fffd}"),
        (b"\xff\xfe", "\u{fffd}\u{fffd}"),
    ];
    for (raw, expected) in cases {
        assert_eq!(inner(&bracketed(raw)), expected.as_bytes(), "{raw:?}");
        let h = held(raw);
        assert!(h.invalid_utf8);
        assert_eq!(h.text, *expected);
        assert!(!h.keep_controls.contains(&0x1b));
    }
}

#[test]
fn plain_pastes_without_brackets_are_sent_as_they_are() {
    for raw in [
        &b"ls -la"[..],
        b"",
        b"tab\tseparated",
        "caf\u{e9} \u{1F600}".as_bytes(),
    ] {
        assert_eq!(decide_paste(raw, false), PasteDecision::Send(raw.to_vec()));
    }
}

#[test]
fn line_breaks_without_brackets_are_held() {
    let h = held(b"echo one\r\necho two\n");
    assert!(!h.has_controls);
    assert!(!h.invalid_utf8);
    assert_eq!(h.text, "echo one\r\necho two\n");
    assert_eq!(h.preview, "echo one\\r\\necho two\\n");
    assert_eq!(h.one_line, b"echo one echo two");
    assert_eq!(h.stripped, b"echo one\r\necho two\n");
    assert_eq!(h.keep_controls, b"echo one\r\necho two\n");
    assert_eq!(held(b"a\rb").one_line, b"a b");
    assert_eq!(held(b"\n\na\n\n\nb\r\n").one_line, b"a b");
    assert_eq!(held(b"a \n b").one_line, b"a   b");
}

#[test]
fn other_controls_without_brackets_are_held() {
    let h = held(b"vim\x1b:!id\x0d");
    assert!(h.has_controls);
    assert_eq!(h.preview, "vim\\x1b:!id\\r");
    assert_eq!(h.stripped, b"vim:!id\r");
    assert_eq!(h.keep_controls, b"vim\x1b:!id\r");
    assert_eq!(h.one_line, b"vim:!id");

    let h = held(b"a\x7fb");
    assert!(h.has_controls);
    assert_eq!(h.stripped, b"ab");
    assert_eq!(h.keep_controls, b"a\x7fb");

    // C1 is held too, and even "keep controls" does not keep it.
    let h = held("a\u{9b}31mb".as_bytes());
    assert!(h.has_controls);
    assert_eq!(h.preview, "a\\u{9b}31mb");
    assert_eq!(h.keep_controls, b"a31mb");
    assert_eq!(h.stripped, b"a31mb");
}

#[test]
fn preview_shows_everything_and_holds_no_control() {
    let text =
        "a\\b\t\u{0}\u{7}\u{1b}[1m\u{7f}\u{85}\u{202e}evil\u{200b}\u{feff}\u{e0041}\u{fffd}\u{e9}";
    let preview = visible_controls(text);
    assert_eq!(
        preview,
        "a\\\\b\\t\\x00\\x07\\x1b[1m\\x7f\\u{85}\\u{202e}evil\\u{200b}\\u{feff}\\u{e0041}\u{fffd}\u{e9}"
    );
    assert!(!preview.chars().any(char::is_control));
    assert_eq!(
        visible_lines("one\r\ntwo\rthree\nfour"),
        ["one\\r\\n", "two\\r", "three\\n", "four"]
    );
    assert_eq!(visible_lines("x\n"), ["x\\n"]);
    assert!(visible_lines("").is_empty());
}

#[test]
fn sanitize_bracketed_alone() {
    assert_eq!(
        sanitize_bracketed("a\u{1b}[201~b\u{9b}c\td\n"),
        "a[201~bc\td\n"
    );
}

/// Thousands of random pastes: the bracketed output is always exactly one wrapper around text
/// with no ESC, no C0 but TAB/LF/CR, no DEL, no C1 and no end marker; the held variants are
/// consistent; nothing we would write holds an introducer.
#[test]
fn property_sanitized_pastes_are_safe() {
    let pieces: &[&[u8]] = &[
        b"\x1b",
        b"[",
        b"201~",
        b"200~",
        b"\xc2",
        b"\x9b",
        b"\x9c",
        b"\x9f",
        b"\x80",
        b"\xc0",
        b"\xe0",
        b"\xed",
        b"\xf0",
        b"\xff",
        b"\x00",
        b"\x03",
        b"\x7f",
        b"\r",
        b"\n",
        b"\t",
        b"a",
        b" ",
        b"_",
        b"lumen;",
        b"lu",
        b"\\",
        "\u{e9}".as_bytes(),
        "\u{202e}".as_bytes(),
    ];
    let mut rng = TestRng::new(0xb4ac_e7ed);
    for round in 0..6000 {
        let mut raw = Vec::new();
        if round % 2 == 0 {
            for _ in 0..rng.below(30) {
                let piece = pieces[rng.below(pieces.len())];
                raw.extend_from_slice(piece);
            }
        } else {
            raw.extend((0..rng.below(60)).map(|_| rng.next_u64() as u8));
        }
        for mode in [true, false] {
            match decide_paste(&raw, mode) {
                PasteDecision::Reject(_) => assert!(
                    contains_frame_introducer(&raw)
                        || String::from_utf8_lossy(&raw).contains("lum")
                        || raw.windows(2).any(|w| w[0] == 0x1b),
                    "{raw:?}"
                ),
                PasteDecision::Send(sent) => {
                    if mode {
                        assert_eq!(sent.iter().filter(|&&b| b == 0x1b).count(), 2);
                        assert_safe_inner(inner(&sent));
                    } else {
                        assert_eq!(sent, raw);
                        let text = std::str::from_utf8(&sent).expect("sent as is only when valid");
                        assert!(!text.chars().any(|c| c.is_control() && c != '\t'));
                    }
                }
                PasteDecision::Hold(h) => {
                    assert!(!mode);
                    assert_safe_inner(&h.stripped);
                    assert_safe_inner(&h.one_line);
                    assert!(!h.one_line.contains(&b'\n') && !h.one_line.contains(&b'\r'));
                    assert!(!contains_frame_introducer(&h.keep_controls));
                    assert!(!h.preview.chars().any(char::is_control));
                    assert_eq!(
                        h.has_controls,
                        h.keep_controls != h.stripped
                            || h.text.chars().any(|c| ('\u{80}'..='\u{9f}').contains(&c))
                    );
                }
            }
        }
    }
}
