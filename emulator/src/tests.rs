use super::*;

fn emu(cols: u16, rows: u16) -> Emulator {
    Emulator::new(cols, rows, 10_000)
}

fn fed(cols: u16, rows: u16, bytes: &[u8]) -> Emulator {
    let mut e = emu(cols, rows);
    e.feed(bytes);
    e
}

fn lines(s: &str) -> Vec<&str> {
    s.split('\n').collect()
}

#[test]
fn emulator_is_send() {
    fn assert_send<T: Send>() {}
    assert_send::<Emulator>();
}

#[test]
fn plain_capture_of_simple_text() {
    let e = fed(20, 4, b"hello\r\nworld  \r\n");
    assert_eq!(e.capture(false, false), "hello\nworld\n\n");
    assert_eq!(e.cursor(), (0, 2));
    assert_eq!((e.cols(), e.rows()), (20, 4));
}

#[test]
fn cursor_movement_and_overwrites() {
    let e = fed(10, 3, b"abcdef\x1b[1;3HXY\x1b[3;5Hz\x1b[2D\x08q");
    assert_eq!(e.capture(false, false), "abXYef\n\n  q z");
    assert_eq!(e.cursor(), (3, 2));
    // Erase in line and insert/delete characters.
    let e = fed(
        10,
        1,
        b"0123456789\x1b[1;4H\x1b[2P\x1b[1;2H\x1b[1@\x1b[1;9H\x1b[K",
    );
    assert_eq!(e.capture(false, false), "0 1256789"[..8].to_string());
}

#[test]
fn wide_chars_skip_spacer_cells() {
    let e = fed(10, 2, "a字b\r\n日本語".as_bytes());
    assert_eq!(e.capture(false, false), "a字b\n日本語");
    assert_eq!(e.cursor(), (6, 1));
    let styled = e.capture(false, true);
    // Full width: 'a' + wide + 'b' + 6 blanks = 10 columns in 9 chars.
    assert_eq!(lines(&styled)[0], "a字b      ");
    // A wide char that does not fit in the last column wraps; the row is kept intact in
    // the scrollback too.
    let mut e = emu(5, 2);
    e.feed("abcd字\r\n\r\n".as_bytes());
    assert_eq!(e.capture(true, false), "abcd\n字\n\n");
}

#[test]
fn colours_in_styled_capture_only() {
    let e = fed(20, 2, b"\x1b[31mred\x1b[0m \x1b[1;44mbold\x1b[m");
    let plain = e.capture(false, false);
    assert_eq!(plain, "red bold\n");
    assert!(!plain.contains('\x1b'));
    let styled = e.capture(false, true);
    let first = lines(&styled)[0];
    assert_eq!(
        first,
        format!("\x1b[31mred\x1b[m \x1b[1;44mbold\x1b[m{}", " ".repeat(12))
    );
    assert_eq!(lines(&styled)[1], " ".repeat(20));
    // 256-colour and truecolour survive the trip through the scrollback store.
    let mut e = emu(20, 2);
    e.feed(b"\x1b[38;5;200;48;2;1;2;3mX\x1b[m\r\n\r\n\r\n");
    let styled = e.capture(true, true);
    assert!(
        styled.starts_with("\x1b[38;5;200;48;2;1;2;3mX\x1b[m"),
        "{styled:?}"
    );
}

#[test]
fn hyperlinks_in_styled_capture() {
    let mut e = emu(20, 2);
    e.feed(b"\x1b]8;;https://x.y\x1b\\link\x1b]8;;\x1b\\ no\r\n\r\n");
    let live = "\x1b]8;;https://x.y\x1b\\link\x1b]8;;\x1b\\ no";
    assert!(
        e.capture(true, true).starts_with(live),
        "{:?}",
        e.capture(true, true)
    );
    assert!(e.capture(true, false).starts_with("link no\n"));
}

#[test]
fn regional_indicators_get_a_cluster_break() {
    let e = fed(10, 1, "\u{1F1FA}\u{1F1F8}".as_bytes());
    assert_eq!(e.capture(false, false), "\u{1F1FA}\u{1F1F8}");
    assert!(e
        .capture(false, true)
        .starts_with("\u{1F1FA}\x08\x1b[C\u{1F1F8}"));
}

fn numbered(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        out.extend_from_slice(format!("line {i}\r\n").as_bytes());
    }
    out
}

#[test]
fn scrollback_order_after_100_lines() {
    let e = fed(40, 10, &numbered(100));
    assert_eq!(e.scrollback_len(), 91);
    assert_eq!(e.rows_pushed(), 91);
    let all = e.capture(true, false);
    let rows = lines(&all);
    assert_eq!(rows.len(), 101);
    for (i, row) in rows.iter().take(100).enumerate() {
        assert_eq!(*row, format!("line {i}"));
    }
    assert_eq!(rows[100], "");
}

#[test]
fn scrollback_ring_keeps_the_newest_lines() {
    let mut e = Emulator::new(40, 10, 10_000);
    // Fed in uneven pieces, as a PTY delivers them.
    let data = numbered(20_000);
    for piece in data.chunks(777) {
        e.feed(piece);
    }
    assert_eq!(e.scrollback_len(), 10_000);
    assert_eq!(e.rows_pushed(), 19_991);
    let all = e.capture(true, false);
    let rows = lines(&all);
    assert_eq!(rows.len(), 10_000 + 10);
    assert_eq!(rows[0], "line 9991");
    assert_eq!(rows[9_999], "line 19990");
    assert_eq!(rows[10_000], "line 19991");
    assert_eq!(rows[10_008], "line 19999");
}

#[test]
fn csi_s_on_a_full_screen_loses_no_rows() {
    let mut e = emu(20, 5);
    e.feed(b"a\r\nb\r\nc\r\nd\r\ne");
    e.feed(b"\x1b[100S");
    assert_eq!(e.scrollback_len(), 5);
    assert_eq!(e.capture(true, false), "a\nb\nc\nd\ne\n\n\n\n\n");
    // Many large scrolls in one feed, far more rows than alacritty's own history.
    let mut e = Emulator::new(20, 50, 100_000);
    let mut bytes = Vec::new();
    for i in 0..400 {
        bytes.extend_from_slice(format!("\x1b[50;1Hrow {i}\x1b[9999S").as_bytes());
    }
    e.feed(&bytes);
    let all = e.capture(true, false);
    let kept: Vec<&str> = lines(&all).into_iter().filter(|r| !r.is_empty()).collect();
    let want: Vec<String> = (0..400).map(|i| format!("row {i}")).collect();
    assert_eq!(kept, want);
    assert_eq!(e.rows_pushed(), 400 * 50);
}

#[test]
fn clear_screen_pushes_rows_and_ed3_clears_them() {
    let mut e = emu(20, 3);
    e.feed(b"one\r\ntwo\x1b[H\x1b[2J");
    assert_eq!(e.capture(true, false), "one\ntwo\n\n\n");
    e.feed(b"\x1b[3J");
    assert_eq!(e.scrollback_len(), 0);
    assert_eq!(e.rows_pushed(), 2);
    assert_eq!(e.capture(true, false), "\n\n");
}

#[test]
fn delete_lines_at_top_leaves_the_scrollback_alone() {
    // xterm and tmux: DL deletes; only scrolling the whole screen feeds the scrollback.
    let mut e = emu(20, 3);
    e.feed(b"one\r\ntwo\r\nthree\x1b[H\x1b[2M");
    assert_eq!(e.capture(false, false), "three\n\n");
    assert_eq!(e.capture(true, false), "three\n\n");
}

#[test]
fn alt_screen_keeps_scrollback_and_reports_mode() {
    let mut e = emu(20, 3);
    e.feed(b"p1\r\np2\r\np3\r\np4");
    e.take_effects();
    let before = e.scrollback_len();
    e.feed(b"\x1b[?1049h");
    assert!(e.modes().alt_screen);
    assert_eq!(e.take_effects().mode_changes, vec![(Mode::AltScreen, true)]);
    let mut flood = Vec::new();
    for i in 0..500 {
        flood.extend_from_slice(format!("alt {i}\r\n").as_bytes());
    }
    e.feed(&flood);
    assert_eq!(e.scrollback_len(), before);
    assert_eq!(e.capture(false, false), "alt 498\nalt 499\n");
    e.feed(b"\x1b[?1049l");
    assert!(!e.modes().alt_screen);
    assert_eq!(
        e.take_effects().mode_changes,
        vec![(Mode::AltScreen, false)]
    );
    assert_eq!(e.capture(true, false), "p1\np2\np3\np4");
    // On and off within one feed: both switches, in order.
    e.feed(b"\x1b[?1049h\x1b[?1049l");
    assert_eq!(
        e.take_effects().mode_changes,
        vec![(Mode::AltScreen, true), (Mode::AltScreen, false)]
    );
}

#[test]
fn mode_changes_for_paste_cursor_mouse() {
    let mut e = emu(20, 3);
    e.feed(b"\x1b[?2004h\x1b[?1h\x1b[?1000h\x1b[?1006h");
    let m = e.modes();
    assert!(m.bracketed_paste && m.app_cursor && m.mouse && !m.alt_screen);
    assert_eq!(
        e.take_effects().mode_changes,
        vec![
            (Mode::BracketedPaste, true),
            (Mode::AppCursor, true),
            (Mode::MouseReporting, true)
        ]
    );
    e.feed(b"\x1b[?2004l");
    assert_eq!(
        e.take_effects().mode_changes,
        vec![(Mode::BracketedPaste, false)]
    );
    assert_eq!(Mode::BracketedPaste.as_str(), "bracketed-paste");
    // RIS resets them all.
    e.feed(b"\x1bc");
    let fx = e.take_effects();
    assert_eq!(
        fx.mode_changes,
        vec![(Mode::AppCursor, false), (Mode::MouseReporting, false)]
    );
    assert_eq!(e.modes(), Modes::default());
}

#[test]
fn focus_reporting_is_refused() {
    let mut e = emu(20, 3);
    e.feed(b"\x1b[?1004h\x1b[?1004$p");
    assert!(!e.modes().focus);
    let fx = e.take_effects();
    assert!(fx.mode_changes.is_empty());
    assert_eq!(fx.pty_replies, b"\x1b[?1004;4$y");
}

#[test]
fn title_set_and_reset() {
    let mut e = emu(20, 3);
    assert_eq!(e.title(), None);
    e.feed(b"\x1b]2;my title\x07");
    assert_eq!(e.title(), Some("my title"));
    assert!(e.take_effects().title_changed);
    e.feed(b"x");
    assert!(!e.take_effects().title_changed);
    e.feed(b"\x1b]0;other\x1b\\");
    assert_eq!(e.title(), Some("other"));
    e.feed(b"\x1b]2;\x07");
    assert_eq!(e.title(), None);
    assert!(e.take_effects().title_changed);
}

#[test]
fn bells_are_counted() {
    let mut e = emu(20, 3);
    e.feed(b"a\x07b\x07\x07");
    assert_eq!(e.take_effects().bells, 3);
    assert_eq!(e.take_effects(), Effects::default());
    assert_eq!(e.capture(false, false), "ab\n\n");
}

#[test]
fn queries_get_replies() {
    let mut e = emu(20, 5);
    e.feed(b"ab\r\ncde\x1b[6n");
    assert_eq!(e.take_effects().pty_replies, b"\x1b[2;4R");
    e.feed(b"\x1b[c");
    assert_eq!(e.take_effects().pty_replies, b"\x1b[?6c");
    // Colour queries get the default palette; replies keep their order.
    e.feed(b"\x1b]11;?\x07\x1b[5n");
    assert_eq!(
        e.take_effects().pty_replies,
        b"\x1b]11;rgb:0000/0000/0000\x07\x1b[0n"
    );
    // Kitty keyboard flags are tracked and reported.
    e.feed(b"\x1b[>1u\x1b[?u");
    assert_eq!(e.kitty_keyboard_flags(), 1);
    assert_eq!(e.take_effects().pty_replies, b"\x1b[?1u");
}

#[test]
fn resize_keeps_content_sensible() {
    let mut e = emu(20, 5);
    e.feed(b"first\r\nsecond\r\nthird");
    e.resize(30, 8);
    assert_eq!((e.cols(), e.rows()), (30, 8));
    assert_eq!(e.capture(false, false), "first\nsecond\nthird\n\n\n\n\n");
    assert_eq!(e.cursor(), (5, 2));
    // Shrinking the height pushes the top rows into the scrollback.
    e.resize(30, 2);
    assert_eq!(e.capture(false, false), "second\nthird");
    assert_eq!(e.capture(true, false), "first\nsecond\nthird");
    // Narrowing reflows the screen; nothing is lost.
    e.resize(4, 2);
    let all = e.capture(true, false);
    assert_eq!(all.replace('\n', ""), "firstsecondthird");
    e.feed(b"\r\nmore");
    assert!(e.capture(false, false).ends_with("more"));
    // Lots of output after resizes still lands in order.
    e.resize(40, 10);
    e.feed(&numbered(300));
    let all = e.capture(true, false);
    assert!(all.contains("line 0\nline 1\n"));
    assert!(all.contains("line 298\nline 299\n"));
}

#[test]
fn resize_in_alt_screen_keeps_both_screens() {
    let mut e = emu(20, 4);
    e.feed(b"primary\r\n\x1b[?1049h\x1b[2;1Halt text");
    e.resize(30, 6);
    assert!(e.modes().alt_screen);
    assert_eq!(e.capture(false, false), "\nalt text\n\n\n\n");
    e.feed(b"\x1b[?1049l");
    assert!(e.capture(false, false).starts_with("primary\n"));
    e.feed(&numbered(50));
    let all = e.capture(true, false);
    assert!(all.starts_with("primary\nline 0\nline 1\n"), "{all}");
}

#[test]
fn zero_scrollback_keeps_nothing() {
    let mut e = Emulator::new(20, 3, 0);
    e.feed(&numbered(10));
    assert_eq!(e.scrollback_len(), 0);
    assert_eq!(e.rows_pushed(), 8);
    assert_eq!(e.capture(true, false), "line 8\nline 9\n");
}

/// Characters a line shows (CSI sequences excluded).
fn visible_len(s: &str) -> usize {
    let mut n = 0;
    let mut in_csi = false;
    for c in s.chars() {
        match (in_csi, c) {
            (false, '\x1b') => in_csi = true,
            (false, _) => n += 1,
            (true, c) if c.is_ascii_alphabetic() => in_csi = false,
            _ => {}
        }
    }
    n
}

/// A coloured log line filling `cols` columns.
fn log_line(i: usize, cols: usize) -> String {
    let level = [
        "\x1b[32mINFO\x1b[m",
        "\x1b[1;33mWARN\x1b[m",
        "\x1b[1;31mERROR\x1b[m",
    ][i % 3];
    let mut s = format!(
        "\x1b[2m2026-12-02T10:{:02}:{:02}.{:03}Z\x1b[m {level} \x1b[36mworker-{}\x1b[m request \
         \x1b[38;5;{}mid={i}\x1b[m path=/api/v1/items/{} status=\x1b[1m200\x1b[m ",
        i / 60 % 60,
        i % 60,
        i % 1000,
        i % 8,
        100 + i % 100,
        i * 7
    );
    let fill = cols.saturating_sub(visible_len(&s));
    s.extend((0..fill).map(|k| (b'a' + ((i + k) % 26) as u8) as char));
    s.push_str("\r\n");
    s
}

#[test]
fn store_bytes_for_10k_coloured_lines() {
    let mut e = Emulator::new(120, 40, 10_000);
    let mut data = String::new();
    for i in 0..10_040 {
        data.push_str(&log_line(i, 120));
    }
    for piece in data.as_bytes().chunks(4096) {
        e.feed(piece);
    }
    assert_eq!(e.scrollback_len(), 10_000);
    let all = e.capture(true, false);
    let rows = lines(&all);
    let full = rows.iter().filter(|r| r.chars().count() >= 118).count();
    assert!(full > 9_000, "rows should be nearly full width: {full}");
    let bytes = e.store_bytes();
    assert!(bytes <= 2_500_000, "store holds {bytes} bytes");
}

/// Random but reproducible terminal output: text, colours, wide chars, wraps, cursor moves,
/// erases, scroll regions, `CSI n S`, `CSI n L`, `CSI 2 J` and alt-screen excursions. It
/// leaves out what tuios does differently from alacritty on purpose (DL, DCH past the end,
/// regions that start at the top but are not the whole screen).
fn mixed_output(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed;
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    // Start with some history, as alacritty's clear-screen differs on an empty history.
    let mut out = numbered(100);
    while out.len() < len {
        match next(20) {
            0..=7 => {
                let words = next(30) as usize;
                for w in 0..words {
                    out.extend_from_slice(format!("w{w}-{} ", next(1000)).as_bytes());
                }
                out.extend_from_slice(b"\r\n");
            }
            8 => out.extend_from_slice(format!("\x1b[{}m", 30 + next(8)).as_bytes()),
            9 => out.extend_from_slice(
                format!("\x1b[38;2;{};{};{}m", next(256), next(256), next(256)).as_bytes(),
            ),
            10 => out.extend_from_slice(b"\x1b[m"),
            11 => out.extend_from_slice("漢字テスト😀 ".as_bytes()),
            12 => out.extend_from_slice(format!("\x1b[{};{}H", next(30), next(90)).as_bytes()),
            13 => out.extend_from_slice(format!("\x1b[{}S", next(40)).as_bytes()),
            14 => out.extend_from_slice(format!("\x1b[H\x1b[{}L", next(30)).as_bytes()),
            15 => out.extend_from_slice(b"\x1b[2J"),
            16 => out.extend_from_slice(format!("\x1b[{}K\x1b[{}X", next(3), next(5)).as_bytes()),
            17 => out.extend_from_slice(
                format!(
                    "\x1b[{};{}r\x1b[{}S\x1b[r",
                    2 + next(5),
                    10 + next(15),
                    next(9)
                )
                .as_bytes(),
            ),
            18 => out.extend_from_slice(b"\x1b[?1049h\x1b[Halt\r\n\x1b[5Sx\x1b[?1049l"),
            _ => out.extend(std::iter::repeat_n(b'z', next(300) as usize)),
        }
    }
    out
}

/// The same output through alacritty alone, with a history big enough to keep everything.
fn reference_capture(cols: usize, rows: usize, data: &[u8], styled: bool) -> String {
    let config = Config {
        scrolling_history: 1_000_000,
        ..Config::default()
    };
    let mut term = Term::new(config, &Size { cols, rows }, Listener::default());
    let mut parser: Processor<NoSync> = Processor::new();
    for piece in data.chunks(4096) {
        parser.advance(&mut term, piece);
    }
    let grid = term.grid();
    let mut out = String::new();
    for i in (1..=grid.history_size()).rev() {
        render_row(&mut out, &grid[Line(-(i as i32))][..], styled);
        out.push('\n');
    }
    for r in 0..rows {
        if r > 0 {
            out.push('\n');
        }
        render_row(&mut out, &grid[Line(r as i32)][..], styled);
    }
    out
}

#[test]
fn matches_alacritty_with_full_history() {
    for seed in 1..=3 {
        let data = mixed_output(seed, 300_000);
        let mut e = Emulator::new(90, 30, 1_000_000);
        for piece in data.chunks(4096) {
            e.feed(piece);
        }
        for styled in [false, true] {
            let want = reference_capture(90, 30, &data, styled);
            let got = e.capture(true, styled);
            if got != want {
                let (g, w) = (lines(&got), lines(&want));
                let at = g
                    .iter()
                    .zip(&w)
                    .position(|(a, b)| a != b)
                    .unwrap_or(g.len().min(w.len()));
                panic!(
                    "seed {seed} styled {styled}: {} vs {} rows, first difference at row {at}:\n \
                     got  {:?}\n want {:?}",
                    g.len(),
                    w.len(),
                    g.get(at),
                    w.get(at)
                );
            }
        }
    }
}

#[test]
fn capture_from_resumes_by_row_number() {
    let mut e = Emulator::new(20, 3, 5);
    for i in 0..10 {
        e.feed(format!("line{i}\r\n").as_bytes());
    }
    // 10 lines + the cursor row on a 3-row screen: 8 rows pushed, 5 kept.
    assert_eq!(e.rows_pushed(), 8);
    let all = e.capture_from(0, false);
    assert_eq!(all, e.capture(true, false));
    assert!(all.starts_with("line3\n"));
    // Row 6 is "line6": resuming there skips what was already read.
    assert_eq!(e.capture_from(6, false), "line6\nline7\nline8\nline9\n");
    // Numbers on the screen skip visible rows; past the end gives nothing.
    assert_eq!(e.capture_from(9, false), "line9\n");
    assert_eq!(e.capture_from(8, false), e.capture(false, false));
    assert_eq!(e.capture_from(100, false), "");
}

mod rows;

// Fidelity fixes (issue 16). Each feeds the byte stream a program writes and compares the
// plain and styled capture with what xterm shows.

#[test]
fn dch_with_a_large_count_keeps_cells_left_of_the_cursor() {
    let e = fed(10, 1, b"0123456789\x1b[1;6H\x1b[99P");
    assert_eq!(e.capture(false, false), "01234");
    assert_eq!(e.cursor(), (5, 0));
    // Cells shifted in take the pen's background; the rest of the row moves left.
    let e = fed(10, 1, b"0123456789\x1b[1;3H\x1b[44m\x1b[2P\x1b[m");
    assert_eq!(e.capture(false, false), "01456789");
    assert_eq!(e.capture(false, true), "01456789\x1b[44m  \x1b[m");
}

#[test]
fn cuu_and_cud_stop_at_the_margins() {
    // Region rows 3..6 (1-based). From inside it, CUU/CUD stop at the margins.
    let e = fed(10, 8, b"\x1b[3;6r\x1b[5;1H\x1b[10AU\x1b[10BD");
    assert_eq!(e.capture(false, false), "\n\nU\n\n\n D\n\n");
    // From above the region CUD stops at the bottom margin; from below, CUU at the top one.
    let e = fed(10, 8, b"\x1b[3;6r\x1b[1;1H\x1b[20Ba\x1b[8;3H\x1b[20Ab");
    assert_eq!(e.capture(false, false), "\n\n  b\n\n\na\n\n");
    // Outside the region, CUD goes to the screen's bottom.
    let e = fed(10, 8, b"\x1b[3;6r\x1b[7;1H\x1b[20Bz");
    assert_eq!(e.cursor(), (1, 7));
    // CNL/CPL too, with the column going to 0.
    let e = fed(10, 8, b"\x1b[3;6r\x1b[4;5H\x1b[9Fp\x1b[9Eq");
    assert_eq!(e.capture(false, false), "\n\np\n\n\nq\n\n");
}

#[test]
fn relative_moves_in_origin_mode_add_the_margin_once() {
    // DECOM: CUP is relative to the top margin; CUU/CUD/CHA must not add it again.
    let e = fed(10, 8, b"\x1b[3;6r\x1b[?6h\x1b[2;1HX\x1b[AY\x1b[2BZ\x1b[5GW");
    assert_eq!(e.capture(false, false), "\n\n Y\nX\n  Z W\n\n\n");
    // Resetting DECOM homes the cursor to the screen's top-left.
    let e = fed(10, 8, b"\x1b[3;6r\x1b[?6h\x1b[2;2H\x1b[?6lH");
    assert_eq!(e.capture(false, false), "H\n\n\n\n\n\n\n");
}

#[test]
fn dl_at_the_top_does_not_feed_the_scrollback() {
    let e = fed(10, 3, b"a\r\nb\r\nc\x1b[H\x1b[M");
    assert_eq!(e.scrollback_len(), 0);
    assert_eq!(e.capture(true, false), "b\nc\n");
    let e = fed(10, 3, b"a\r\nb\r\nc\x1b[H\x1b[5M");
    assert_eq!(e.capture(true, false), "\n\n");
    // A region that starts at the top does, as in xterm and tmux (a status line below it).
    let mut bytes = b"\x1b[3;1Hstatus\x1b[1;2r\x1b[1;1H".to_vec();
    bytes.extend_from_slice(&numbered(5));
    let e = fed(10, 3, &bytes);
    assert_eq!(
        e.capture(true, false),
        "line 0\nline 1\nline 2\nline 3\nline 4\n\nstatus"
    );
    // Scrolling the whole screen still does.
    let e = fed(10, 3, &numbered(5));
    assert_eq!(e.scrollback_len(), 3);
}

#[test]
fn rep_repeats_the_last_printed_character() {
    let e = fed(10, 1, b"ab\x1b[2b\x1b[3b");
    assert_eq!(e.capture(false, false), "abbb");
    // Only right after a printed character (xterm): the second REP is ignored.
    let e = fed(10, 1, b"x\x1b[1b\x1b[31m\x1b[2b");
    assert_eq!(e.capture(false, false), "xx");
}

#[test]
fn blink_and_double_underline_in_styled_capture() {
    let mut e = emu(12, 2);
    e.feed(b"\x1b[5mB\x1b[25mn \x1b[6mF\x1b[m \x1b[1;21mD\x1b[24mb\x1b[m");
    let styled = e.capture(false, true);
    assert_eq!(
        lines(&styled)[0],
        "\x1b[5mB\x1b[mn \x1b[5mF\x1b[m \x1b[1;4:2mD\x1b[0;1mb\x1b[m     "
    );
    assert_eq!(e.capture(false, false), "Bn F Db\n");
    // Both survive the trip through the scrollback store.
    e.feed(b"\r\n\r\n");
    assert!(
        e.capture(true, true)
            .starts_with("\x1b[5mB\x1b[mn \x1b[5mF\x1b[m \x1b[1;4:2mD\x1b[0;1mb\x1b[m"),
        "{:?}",
        e.capture(true, true)
    );
}

#[test]
fn alternate_screen_47_and_1047() {
    for mode in ["47", "1047"] {
        let mut e = emu(10, 2);
        e.feed(b"main");
        e.take_effects();
        e.feed(format!("\x1b[?{mode}h").as_bytes());
        assert!(e.modes().alt_screen, "?{mode}");
        e.feed(b"\x1b[2;1Halt");
        assert_eq!(e.capture(false, false), "\nalt");
        e.feed(format!("\x1b[?{mode}l").as_bytes());
        assert!(!e.modes().alt_screen);
        assert_eq!(e.capture(false, false), "main\n");
        // The cursor stays where the program left it (no restore, unlike 1049).
        assert_eq!(e.cursor(), (3, 1), "?{mode}");
        assert_eq!(
            e.take_effects().mode_changes,
            vec![(Mode::AltScreen, true), (Mode::AltScreen, false)]
        );
    }
    // 47/1047 leave the saved cursor (DECSC) alone; 1049 restores the cursor.
    let e = fed(
        10,
        4,
        b"\x1b[2;3H\x1b7\x1b[1;1H\x1b[?1047h\x1b[4;4H\x1b[?1047l\x1b8",
    );
    assert_eq!(e.cursor(), (2, 1));
    let e = fed(10, 4, b"\x1b[2;3H\x1b[?1049h\x1b[4;4Hx\x1b[?1049l");
    assert_eq!(e.cursor(), (2, 1));
    // Nothing drawn on the alternate screen reaches the scrollback.
    let mut bytes = b"\x1b[?47h".to_vec();
    bytes.extend_from_slice(&numbered(10));
    bytes.extend_from_slice(b"\x1b[?47l");
    let e = fed(10, 3, &bytes);
    assert_eq!(e.scrollback_len(), 0);
}

#[test]
fn growing_the_window_brings_scrollback_back() {
    let mut e = emu(10, 3);
    e.feed(b"l1\r\nl2\r\n\x1b[31ml3\x1b[m\r\n\xe5\xad\x97w\r\nl5");
    assert_eq!(e.scrollback_len(), 2);
    e.resize(10, 5);
    assert_eq!(e.scrollback_len(), 0);
    assert_eq!(e.capture(true, false), "l1\nl2\nl3\n字w\nl5");
    assert_eq!(e.cursor(), (2, 4));
    // Shrinking pushes the rows above the cursor back; growing again restores the screen.
    e.resize(10, 2);
    assert_eq!(e.capture(false, false), "字w\nl5");
    assert_eq!(e.cursor(), (2, 1));
    e.resize(10, 5);
    assert_eq!(e.capture(false, false), "l1\nl2\nl3\n字w\nl5");
    assert!(lines(&e.capture(false, true))[2].starts_with("\x1b[31ml3\x1b[m"));
    assert_eq!(e.cursor(), (2, 4));
    // More growth than history: the rest are blank rows at the bottom.
    e.resize(10, 7);
    assert_eq!(e.capture(true, false), "l1\nl2\nl3\n字w\nl5\n\n");
    // Rows keep their numbers.
    assert_eq!(e.rows_pushed(), 0);
    // Growing while a full-screen program runs keeps the primary screen's rows for later.
    let mut e = emu(10, 3);
    e.feed(b"l1\r\nl2\r\nl3\r\nl4\x1b[?1049h\x1b[Hfull");
    e.resize(10, 4);
    assert_eq!(e.capture(false, false), "full\n\n\n");
    e.feed(b"\x1b[?1049l");
    assert_eq!(e.capture(true, false), "l1\nl2\nl3\nl4");
    assert_eq!(e.cursor(), (2, 3));
}

#[test]
fn ed1_on_the_second_row_clears_the_first() {
    let e = fed(10, 3, b"ab\r\ncd\r\nef\x1b[2;2H\x1b[1J");
    assert_eq!(e.capture(false, false), "\n\nef");
}

#[test]
fn decaln_homes_the_cursor_and_resets_margins() {
    let mut e = fed(4, 3, b"\x1b[2;3r\x1b[3;3H\x1b#8X");
    assert_eq!(e.capture(false, false), "XEEE\nEEEE\nEEEE");
    // Line feeds at the bottom scroll the whole screen again: X goes too.
    e.feed(b"\x1b[3;1H\n\nY");
    assert_eq!(e.capture(false, false), "EEEE\n\nY");
}

#[test]
fn app_cursor_accessor_follows_decckm() {
    let mut e = emu(10, 2);
    assert!(!e.app_cursor());
    e.feed(b"\x1b[?1h");
    assert!(e.app_cursor());
    assert!(e.window_modes().app_cursor);
    e.feed(b"\x1b[?1l");
    assert!(!e.app_cursor());
}

#[test]
fn long_osc_strings_are_dropped_and_the_window_keeps_working() {
    // Under the cap: fed whole, even split between chunks at any point.
    let osc = b"\x1b]0;a title\x07after";
    for cut in 0..osc.len() {
        let mut e = emu(20, 1);
        e.feed(&osc[..cut]);
        e.feed(&osc[cut..]);
        assert_eq!(e.title(), Some("a title"), "cut at {cut}");
        assert_eq!(e.capture(false, false), "after");
    }
    // Over the cap: dropped whole (a cut-off title or link would be made up), then normal.
    for terminator in [&b"\x07"[..], b"\x1b\\"] {
        let mut e = emu(20, 1);
        e.feed(b"\x1b]0;");
        let chunk = vec![b'x'; 4096];
        for _ in 0..(MAX_OSC_BYTES / 4096 + 2) {
            e.feed(&chunk);
        }
        e.feed(terminator);
        e.feed(b"ok\x1b]2;next\x07");
        assert_eq!(e.capture(false, false), "ok");
        assert_eq!(e.title(), Some("next"));
        assert_eq!(e.take_effects().bells, 0);
    }
    // Control characters between ESC and ']' keep the parser in its escape state; the
    // guard must see that OSC start too.
    let mut e = emu(20, 2);
    e.feed(b"\x1b\x01\x80]0;");
    e.feed(&vec![b'y'; MAX_OSC_BYTES + 10]);
    assert!(e.osc.held_capacity() <= MAX_OSC_BYTES + 4096);
    e.feed(b"\x07fine");
    assert_eq!(e.capture(false, false), "fine\n");
    assert_eq!(e.title(), None);
    // 100 MiB of an unterminated OSC: the guard never holds more than the cap.
    let mut e = emu(20, 1);
    e.feed(b"\x1b]8;;http://");
    let chunk = vec![b'z'; 1 << 20];
    for _ in 0..100 {
        e.feed(&chunk);
        assert!(e.osc.held_capacity() <= MAX_OSC_BYTES + 4096);
    }
    e.feed(b"\x1b\\still here");
    assert_eq!(e.capture(false, false), "still here");
    assert_eq!(
        e.capture(false, true),
        format!("still here{}", " ".repeat(10))
    );
}

#[test]
fn titles_are_capped() {
    let mut e = emu(20, 1);
    let long = "é".repeat(MAX_TITLE_BYTES);
    e.feed(format!("\x1b]2;{long}\x07").as_bytes());
    let title = e.title().expect("title set");
    assert!(title.len() <= MAX_TITLE_BYTES && title.len() > MAX_TITLE_BYTES - 4);
    assert!(long.starts_with(title));
}

/// Every row whose content changed must have a new change count, whatever the sequence: the
/// attach path skips converting rows whose count did not move. Each piece is fed on its own
/// after a screen of varied content, and all rows are compared before and after.
#[test]
fn row_generations_cover_every_changed_row() {
    let base: &[u8] =
        b"\x1b[2J\x1b[Hline one\r\nline two\r\n\x1b[31mred three\x1b[m\r\nfour\r\nfive\r\nsix";
    let pieces: &[&[u8]] = &[
        b"x",
        b"abc\r\ndef",
        b"\x1b[3Aup",
        b"\x1b[3Aup\x1b[2Bdown",
        b"\x1b[3Fprev\x1b[2Enext",
        b"\x1b[2Bdown",
        b"\x1b[10Gcol",
        b"\x1b[2;5Hgoto",
        b"\x1b[3A\x1b[5Gmid\x1b[2Bend",
        b"\x1b[2;1H\x1b[M",
        b"\x1b[2;1H\x1b[3M",
        b"\x1b[2;1H\x1b[L",
        b"\x1b[1;3H\x1b[2P",
        b"\x1b[1;3H\x1b[4@",
        b"\x1b[1;3H\x1b[3X",
        b"\x1b[1;3H\x1b[K",
        b"\x1b[2;3H\x1b[1K",
        b"\x1b[3;3H\x1b[J",
        b"\x1b[3;3H\x1b[1J",
        b"\x1b[2;1H\x1b[1J",
        b"\x1b[2;4r\x1b[4;1H\n\nscrolled\x1b[r",
        b"\x1b[2;4r\x1b[2;1H\x1bMrev\x1b[r",
        b"\x1b[S",
        b"\x1b[2T",
        b"\x1b[?1049hALT\x1b[?1049l",
        b"\x1b[?1049hALT",
        b"\x1b[?47hALT47\x1b[?47l",
        b"\x1b#8",
        b"\x1bc",
        b"\x1b[6;1Hwrapping across the edge of the screen",
        b"\x08\x08\x08zz",
        b"\tT\tT",
        b"\x1b7\x1b[1;1Hsaved\x1b8back",
        b"\r\n\r\n\r\n\r\n\r\n\r\n\r\n",
        b"\x1b[4;1H\x1b[2A\x1b[1Bz\x1b[3;20Hq",
    ];
    for piece in pieces {
        let mut e = fed(24, 6, base);
        let before: Vec<_> = (0..6)
            .map(|r| (e.screen_row(r), e.row_generation(r)))
            .collect();
        e.feed(piece);
        for r in 0..6u16 {
            let (row, generation) = &before[usize::from(r)];
            if e.screen_row(r) != *row {
                assert_ne!(
                    e.row_generation(r),
                    *generation,
                    "row {r} changed without a new change count after {:?}",
                    String::from_utf8_lossy(piece)
                );
            }
        }
    }
    // A resize counts as a change of every row.
    let mut e = fed(24, 6, base);
    let g = e.row_generation(0);
    e.resize(30, 6);
    e.feed(b"");
    assert_ne!(e.row_generation(0), g);
}
