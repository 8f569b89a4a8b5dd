//! Screen rows as clients get them: runs, styles, links, wide characters, window modes.

use super::*;
use protocol::attach::{attr, Color as C, Row, Run, Style};

fn run(text: &str, fg: C, bg: C, attrs: u16) -> Run {
    Run {
        text: text.into(),
        style: Style { fg, bg, attrs },
        link: None,
    }
}

fn linked(mut r: Run, uri: &str) -> Run {
    r.link = Some(uri.into());
    r
}

fn plain(text: &str) -> Run {
    run(text, C::Default, C::Default, 0)
}

fn texts(rows: &[Row]) -> Vec<String> {
    rows.iter()
        .map(|r| r.runs.iter().map(|run| run.text.as_str()).collect())
        .collect()
}

#[test]
fn colours_and_attributes() {
    let e = fed(
        40,
        2,
        b"\x1b[31ma\x1b[91mb\x1b[38;5;200mc\x1b[38;2;1;2;3;44md\x1b[m\
          \x1b[1;2;3me\x1b[0;4;7;8;9mf\x1b[0;4:2mg\x1b[4:3mh\x1b[4:4mi\x1b[39;49;m \x1b[7m \x1b[m",
    );
    assert_eq!(
        e.screen_row(0).runs,
        vec![
            run("a", C::Indexed(1), C::Default, 0),
            run("b", C::Indexed(9), C::Default, 0),
            run("c", C::Indexed(200), C::Default, 0),
            run("d", C::Rgb(1, 2, 3), C::Indexed(4), 0),
            run(
                "e",
                C::Default,
                C::Default,
                attr::BOLD | attr::DIM | attr::ITALIC
            ),
            run(
                "f",
                C::Default,
                C::Default,
                attr::UNDERLINE | attr::INVERSE | attr::HIDDEN | attr::STRIKE
            ),
            run("g", C::Default, C::Default, attr::DOUBLE_UNDERLINE),
            run("h", C::Default, C::Default, attr::CURLY_UNDERLINE),
            // Dotted underline has no protocol bit: a plain underline.
            run("i", C::Default, C::Default, attr::UNDERLINE),
            plain(" "),
            // A visible (inverse) blank is kept, the default blanks after it are not.
            run(" ", C::Default, C::Default, attr::INVERSE),
        ]
    );
    assert_eq!(e.screen_row(1), Row::default());
    assert_eq!(e.screen_row(2), Row::default());
}

#[test]
fn adjacent_cells_of_one_style_merge() {
    // The same style set twice, and a hyperlink change (ignored), still make one run.
    let e = fed(
        40,
        1,
        b"\x1b[32mab\x1b[32mcd\x1b]8;;http://x\x1b\\ef\x1b]8;;\x1b\\\x1b[m gh   ",
    );
    assert_eq!(
        e.screen_row(0).runs,
        vec![
            run("abcd", C::Indexed(2), C::Default, 0),
            linked(run("ef", C::Indexed(2), C::Default, 0), "http://x"),
            plain(" gh")
        ]
    );
    // A blank row with only default blanks has no runs at all.
    let e = fed(10, 2, b"\x1b[2;1H    ");
    assert!(e.screen_row(1).runs.is_empty());
    // Trailing blanks with a background colour are visible and kept.
    let e = fed(10, 1, b"x\x1b[41m  \x1b[m");
    assert_eq!(
        e.screen_row(0).runs,
        vec![plain("x"), run("  ", C::Default, C::Indexed(1), 0)]
    );
}

#[test]
fn hyperlinks_split_runs_and_carry_the_uri() {
    let e = fed(
        40,
        2,
        "a\x1b]8;;https://example.com/\u{202E}evil\x1b\\link\x1b]8;id=2;mailto:x@y\x07m\x1b]8;;\x1b\\b\r\n\x1b]8;;https://t/\x1b\\   \x1b]8;;\x1b\\"
            .as_bytes(),
    );
    assert_eq!(
        e.screen_row(0).runs,
        vec![
            plain("a"),
            linked(plain("link"), "https://example.com/\u{202E}evil"),
            linked(plain("m"), "mailto:x@y"),
            plain("b"),
        ]
    );
    // Linked blanks are not trailing blanks: they stay clickable.
    assert_eq!(
        e.screen_row(1).runs,
        vec![linked(plain("   "), "https://t/")]
    );
    let (_, rows) = e.rows_range(0, 1);
    assert_eq!(
        rows[0].runs[1].link.as_deref(),
        Some("https://example.com/\u{202E}evil")
    );
}

#[test]
fn wide_chars_appear_once() {
    let e = fed(10, 1, "a字b\u{301}".as_bytes());
    assert_eq!(e.screen_row(0).runs, vec![plain("a字b\u{301}")]);
    let e = fed(10, 1, "\x1b[31m日本\x1b[m".as_bytes());
    assert_eq!(
        e.screen_row(0).runs,
        vec![run("日本", C::Indexed(1), C::Default, 0)]
    );
}

#[test]
fn scrollback_rows_keep_styles() {
    let mut e = emu(20, 2);
    e.feed("\x1b[1;31mred\x1b[m 字 \x1b[45m \x1b[m\r\n\r\n\r\n".as_bytes());
    assert_eq!(e.first_row(), 0);
    let (first, rows) = e.rows_range(0, 1);
    assert_eq!(first, 0);
    assert_eq!(
        rows[0].runs,
        vec![
            run("red", C::Indexed(1), C::Default, attr::BOLD),
            plain(" 字 "),
            run(" ", C::Default, C::Indexed(5), 0),
        ]
    );
}

#[test]
fn rows_range_spans_store_and_screen() {
    let mut e = Emulator::new(20, 3, 5);
    for i in 0..10 {
        e.feed(format!("line{i}\r\n").as_bytes());
    }
    // 8 rows pushed (line0..line7), the ring keeps line3..line7; screen: line8, line9, "".
    assert_eq!(e.rows_pushed(), 8);
    assert_eq!(e.first_row(), 3);
    let (first, rows) = e.rows_range(0, 100);
    assert_eq!(first, 3);
    let want: Vec<String> = (3..10)
        .map(|i| format!("line{i}"))
        .chain([String::new()])
        .collect();
    assert_eq!(texts(&rows), want);
    // A window across the store/screen boundary.
    let (first, rows) = e.rows_range(6, 4);
    assert_eq!(first, 6);
    assert_eq!(texts(&rows), ["line6", "line7", "line8", "line9"]);
    // Partly dropped: only the kept rows come back.
    let (first, rows) = e.rows_range(1, 4);
    assert_eq!(first, 3);
    assert_eq!(texts(&rows), ["line3", "line4"]);
    // Wholly dropped, empty and past the end.
    assert_eq!(e.rows_range(0, 3), (3, vec![]));
    assert_eq!(e.rows_range(5, 0), (5, vec![]));
    assert_eq!(e.rows_range(11, 5), (11, vec![]));
    // Visible rows match screen_row.
    let (_, rows) = e.rows_range(8, 3);
    assert_eq!(rows, (0..3).map(|r| e.screen_row(r)).collect::<Vec<_>>());
    // ED 3 drops the scrollback: only the screen remains.
    e.feed(b"\x1b[3J");
    assert_eq!(e.first_row(), 8);
    assert_eq!(texts(&e.rows_range(0, 20).1), ["line8", "line9", ""]);
}

#[test]
fn rows_range_without_scrollback() {
    let mut e = Emulator::new(10, 2, 0);
    e.feed(b"a\r\nb\r\nc");
    assert_eq!(e.first_row(), e.rows_pushed());
    assert_eq!(texts(&e.rows_range(0, 10).1), ["b", "c"]);
}

#[test]
fn window_modes_follow_the_program() {
    let mut e = emu(10, 2);
    assert_eq!(e.window_modes(), protocol::attach::WindowModes::default());
    e.feed(b"\x1b[?1h\x1b[?2004h\x1b[?1000h\x1b[?1006h\x1b[?1049h\x1b[>5u");
    let m = e.window_modes();
    assert!(m.app_cursor && m.bracketed_paste && m.mouse && m.sgr_mouse && m.alt_screen);
    assert_eq!(m.kitty_flags, 5);
    e.feed(b"\x1b[<u\x1b[?1049l\x1b[?1006l\x1b[?1000l\x1b[?2004l\x1b[?1l");
    assert_eq!(e.window_modes(), protocol::attach::WindowModes::default());
    for set in [&b"\x1b[?1002h"[..], b"\x1b[?1003h"] {
        let mut e = emu(10, 2);
        e.feed(set);
        assert!(e.window_modes().mouse);
    }
}
