//! The last differences vttest and the tmux/xterm differential found: REP after a control,
//! `?1048` around `?1047`, and columns shrunk then grown back.

use super::*;

fn fed(cols: u16, rows: u16, bytes: &[u8]) -> Emulator {
    let mut e = Emulator::new(cols, rows, 10_000);
    e.feed(bytes);
    e
}

#[test]
fn rep_after_any_control_is_ignored() {
    // vttest 11.7's row: `+`, REP 1 (two `+`), REP 10 (ignored: a control precedes).
    let e = fed(20, 1, b"+\x1b[1b\x1b[10b");
    assert_eq!(e.capture(false, false), "++");
    // SGR or CR in between also forget the character (xterm, tmux).
    let e = fed(10, 1, b"x\x1b[31m\x1b[2b");
    assert_eq!(e.capture(false, false), "x");
    let e = fed(10, 1, b"x\r\x1b[2b");
    assert_eq!(e.capture(false, false), "x");
    // A REP right after a character still repeats it, wide ones included.
    let e = fed(10, 1, "a\u{5b57}\x1b[2b".as_bytes());
    assert_eq!(e.capture(false, false), "a\u{5b57}\u{5b57}\u{5b57}");
}

#[test]
fn rep_split_across_feeds() {
    // The REP, or the character before it, may arrive in another read.
    let mut e = Emulator::new(20, 1, 100);
    for part in [
        &b"a\x1b"[..],
        b"[",
        b"2",
        b"bc",
        b"\x1b[1",
        b"b\x1b[",
        b"3b",
    ] {
        e.feed(part);
    }
    assert_eq!(e.capture(false, false), "aaacc");
    let mut e = Emulator::new(20, 1, 100);
    let bytes = "\u{5b57}\x1b[1b".as_bytes();
    for b in bytes {
        e.feed(std::slice::from_ref(b));
    }
    assert_eq!(e.capture(false, false), "\u{5b57}\u{5b57}");
}

#[test]
fn only_esc_bracket_parameters_b_is_a_rep() {
    // A `b` in text or after an SGR, and `b` with a private marker or an intermediate, are
    // no REPs; `CSI b` and `CSI 2;5 b` are (the first parameter counts).
    let e = fed(20, 1, b"ab\x1b[1mb\x1b[?2bc\x1b[2 bd\x1b[2;5bx\x1b[b");
    assert_eq!(e.capture(false, false), "abbcdddxx");
    // Parameters too long to hold across reads: the REP is still found within one read.
    let long = format!("y\x1b[{}1b", "0".repeat(40));
    assert_eq!(fed(20, 1, long.as_bytes()).capture(false, false), "yy");
}

#[test]
fn an_ignored_rep_still_ends_an_osc_string() {
    // The ESC of a REP ends the title string before it; the REP itself does nothing.
    let e = fed(10, 1, b"\x1b]2;t\x1b[2bX");
    assert_eq!(e.title(), Some("t"));
    assert_eq!(e.capture(false, false), "X");
}

#[test]
fn mode_1048_saves_and_restores_the_cursor_around_1047() {
    // vttest 11.8.7: DECSC at 7;5, `?1048h` at 9;7, the alternate screen's own DECSC at
    // 15;7, then back: DECRC and `?1048l` land on 9;7.
    let e = fed(
        20,
        20,
        b"\x1b[7;5H\x1b7\x1b[9;7H\x1b[?1048h\x1b[?1047h\x1b#8\x1b[15;7H\x1b7\x1b[18;1H\
          \x1b[?1047l\x1b8\x1b[?1048l",
    );
    assert_eq!(e.cursor(), (6, 8));
    let e = fed(10, 5, b"\x1b[2;3H\x1b[?1048h\x1b[5;5H\x1b[?1048l");
    assert_eq!(e.cursor(), (2, 1));
}

#[test]
fn columns_shrunk_and_grown_back_keep_every_row() {
    // 24 rows of 60 characters at 80 columns: at 40 each takes two rows, so half of them
    // go to the scrollback; back at 80 they must all be on screen again, as tmux shows.
    let mut bytes = Vec::new();
    for i in 0..24 {
        if i > 0 {
            bytes.extend_from_slice(b"\r\n");
        }
        bytes.extend_from_slice(format!("{i:02}{}", "x".repeat(58)).as_bytes());
    }
    let mut e = fed(80, 24, &bytes);
    let before = e.capture(false, false);
    let cursor = e.cursor();
    e.resize(40, 24);
    e.resize(80, 24);
    assert_eq!(e.capture(false, false), before);
    assert_eq!(e.cursor(), cursor);
    assert_eq!(e.scrollback_len(), 0);
    // With more history than the screen, the older rows stay in the scrollback.
    let mut e = fed(80, 24, &bytes);
    e.feed(b"\r\nlast");
    let before = e.capture(true, false);
    e.resize(40, 24);
    e.resize(80, 24);
    assert_eq!(e.capture(true, false), before);
}
