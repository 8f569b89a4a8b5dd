//! Differential test of the emulator: byte streams written from the VT specifications (vt100.net,
//! xterm's ctlseqs) run in a tuios window and in a tmux pane of the same size; the captured
//! text (screen, and scrollback where the case says so), the cursor position and the styles
//! of every cell must agree.
//!
//! Where tmux itself departs from xterm's documented behaviour, the case carries xterm's
//! screen instead (`Expect::Xterm`) and tuios is compared with that; where tuios deliberately
//! differs from tmux (and from xterm), the case says why (`Expect::Differs`) and only the
//! parts that must still agree are compared.
//!
//! One daemon, one tmux server, cases in batches of windows: each window runs the same
//! /bin/sh script, which waits for a go on a FIFO (so the window has its size first), writes
//! the case's bytes with output post-processing off, asks the terminal for the cursor
//! position (CPR) and writes the answer to a file.

use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::json;
use tuios_integration_tests::*;

// A test crate's root looks for modules beside it, where each file is a test of its own.
#[path = "differential/styles.rs"]
mod styles;

use styles::{styled_rows, Style};

/// What the tuios side is compared with.
#[derive(Clone, Copy)]
enum Expect {
    /// tmux's screen, cursor and styles.
    Tmux,
    /// xterm's documented screen (rows joined by '\n', trailing blanks trimmed) and cursor
    /// (col, row), because tmux is wrong here; `why` says how.
    Xterm {
        screen: &'static str,
        cursor: (u16, u16),
        why: &'static str,
    },
    /// tuios differs from tmux on purpose; only the visible screen text is compared.
    Differs { why: &'static str },
    /// Text and cursor as tmux; erased cells `from..to` of `row` carry background `bg`
    /// (xterm's background colour erase), which tmux's capture does not show.
    Bce {
        row: usize,
        from: usize,
        to: usize,
        bg: u32,
        why: &'static str,
    },
}

struct Case {
    name: &'static str,
    cols: u16,
    rows: u16,
    /// Written one after the other; between two parts the window is resized to the next
    /// entry of `resizes`.
    parts: Vec<&'static str>,
    resizes: Vec<(u16, u16)>,
    /// Compare the scrollback too.
    scrollback: bool,
    expect: Expect,
}

fn case(name: &'static str, cols: u16, rows: u16, bytes: &'static str) -> Case {
    Case {
        name,
        cols,
        rows,
        parts: vec![bytes],
        resizes: Vec::new(),
        scrollback: false,
        expect: Expect::Tmux,
    }
}

/// A case on a 20x6 screen.
fn c(name: &'static str, bytes: &'static str) -> Case {
    case(name, 20, 6, bytes)
}

impl Case {
    fn with_scrollback(mut self) -> Case {
        self.scrollback = true;
        self
    }

    fn then_resize(mut self, cols: u16, rows: u16, bytes: &'static str) -> Case {
        self.resizes.push((cols, rows));
        self.parts.push(bytes);
        self
    }
}

fn cases() -> Vec<Case> {
    let mut v = vec![
        // Cursor positioning (CUP, HVP, relative moves, CR/LF/BS, IND/NEL/RI, save/restore).
        c("cup", "\x1b[3;5HX"),
        c("cup_default", "ab\x1b[HX"),
        c("cup_zero_params", "\x1b[0;0HX"),
        c("cup_clamped", "\x1b[99;99HX"),
        c("hvp", "\x1b[2;3fX"),
        c("cuu", "\x1b[5;5H\x1b[2AX"),
        c("cuu_clamped", "\x1b[2;5H\x1b[9AX"),
        c("cuu_zero_is_one", "\x1b[4;4H\x1b[0AX"),
        c("cud", "\x1b[2;2H\x1b[3BX"),
        c("cud_clamped", "\x1b[9BX"),
        c("cuf", "\x1b[3CX"),
        c("cuf_clamped", "\x1b[99CX"),
        c("cub", "abcdef\x1b[3DX"),
        c("cub_clamped", "abc\x1b[99DX"),
        c("cnl", "\x1b[2;5H\x1b[2EX"),
        c("cpl", "\x1b[5;5H\x1b[2FX"),
        c("cha", "abc\x1b[10GX"),
        c("cha_clamped", "abc\x1b[99GX"),
        c("hpa", "abc\x1b[10`X"),
        c("vpa", "abc\x1b[4dX"),
        c("hpr", "abc\x1b[2aX"),
        c("vpr", "\x1b[2;3H\x1b[2eX"),
        c("cr_lf", "ab\rX\nY"),
        c("lf_keeps_column", "abc\ndef"),
        c("vt_ff_are_lf", "ab\x0bc\x0cd"),
        c("bs", "abc\x08\x08X"),
        c("bs_at_column_0", "\x08X"),
        case("bs_from_pending_wrap", 5, 3, "abcde\x08X"),
        c("ind", "\x1b[6;1Hx\x1bDy"),
        c("nel", "ab\x1bEcd"),
        c("ri_at_top_scrolls_down", "a\r\nb\x1b[H\x1bMX"),
        c("ri_inside", "\x1b[3;3H\x1bMX"),
        c("decsc_decrc", "\x1b[2;3H\x1b7\x1b[5;5H\x1b8X"),
        c("scosc_scorc", "\x1b[2;3H\x1b[s\x1b[5;5H\x1b[uX"),
        c("decrc_without_save_homes", "\x1b[3;3H\x1b8X"),
        c(
            "decsc_keeps_pen",
            "\x1b[31;1m\x1b7\x1b[m\x1b[2;1H\x1b8X\x1b[mY",
        ),
        c("nul_and_del_ignored", "a\x00b\x7fc"),
        // Tabs.
        c("ht", "a\tb\tc"),
        c("ht_to_last_column", "\t\t\t\t\tX"),
        c("hts", "\x1b[4G\x1bH\r\tX"),
        c("tbc_current", "\x1b[9G\x1b[g\r\tX"),
        c("tbc_all", "\x1b[3g\tX"),
        c("cht", "\x1b[2IX"),
        c("cbt", "\x1b[15G\x1b[ZX"),
        c("cbt_two", "\x1b[20G\x1b[2ZX"),
        c("cbt_at_start", "\x1b[Z\x1b[ZX"),
        // Scroll margins (DECSTBM) and origin mode (DECOM).
        c("decstbm_homes", "ab\x1b[2;4rX"),
        c("decstbm_lf_scrolls_region", "\x1b[2;4r\x1b[4;1Ha\nb\nc"),
        c(
            "decstbm_content",
            "r1\r\nr2\r\nr3\r\nr4\r\nr5\x1b[2;4r\x1b[4;1H\n\nX",
        ),
        c(
            "decstbm_ri_at_top_margin",
            "r1\r\nr2\r\nr3\r\nr4\x1b[2;4r\x1b[2;1H\x1bMX",
        ),
        c("decstbm_cuu_stops_at_margin", "\x1b[3;5r\x1b[5;3H\x1b[9AX"),
        c("decstbm_cud_stops_at_margin", "\x1b[2;4r\x1b[2;3H\x1b[9BX"),
        c("decstbm_cud_from_above", "\x1b[3;5r\x1b[1;1H\x1b[9BX"),
        c("decstbm_cuu_from_below", "\x1b[2;3r\x1b[6;1H\x1b[9AX"),
        c("decstbm_cud_from_below", "\x1b[2;3r\x1b[5;1H\x1b[9BX"),
        c("decstbm_cuu_above_region", "\x1b[4;5r\x1b[2;1H\x1b[9AX"),
        c("decstbm_cnl_cpl", "\x1b[2;4r\x1b[3;5H\x1b[9Fa\x1b[9Eb"),
        c("decstbm_invalid_ignored", "\x1b[4;2r\x1b[6;1HX\nY"),
        c("decstbm_reset", "\x1b[2;3r\x1b[r\x1b[6;1HX\nY"),
        c("decstbm_su", "r1\r\nr2\r\nr3\r\nr4\r\nr5\x1b[2;4r\x1b[2S"),
        c("decstbm_sd", "r1\r\nr2\r\nr3\r\nr4\r\nr5\x1b[2;4r\x1b[1T"),
        c(
            "decstbm_il",
            "r1\r\nr2\r\nr3\r\nr4\r\nr5\x1b[2;5r\x1b[3;1H\x1b[2L",
        ),
        c(
            "decstbm_dl",
            "r1\r\nr2\r\nr3\r\nr4\r\nr5\x1b[2;5r\x1b[3;1H\x1b[2M",
        ),
        c(
            "decstbm_il_outside_ignored",
            "r1\r\nr2\r\nr3\r\nr4\r\nr5\x1b[2;3r\x1b[5;1H\x1b[L",
        ),
        c("decstbm_lf_below_region", "\x1b[2;3r\x1b[5;1Ha\nb\nc"),
        c("decom_cup", "\x1b[3;5r\x1b[?6h\x1b[1;1HX"),
        c("decom_cup_clamped", "\x1b[3;5r\x1b[?6h\x1b[9;1HX"),
        c("decom_cuu", "\x1b[3;5r\x1b[?6h\x1b[2;2HX\x1b[AY"),
        c("decom_cud", "\x1b[3;5r\x1b[?6h\x1b[9BX"),
        c("decom_cha", "\x1b[3;5r\x1b[?6h\x1b[2;1H\x1b[5GX"),
        c("decom_vpa", "\x1b[3;5r\x1b[?6h\x1b[2dX"),
        c("decom_reset_homes", "\x1b[3;5r\x1b[?6h\x1b[2;2H\x1b[?6lX"),
        c("decom_set_homes", "\x1b[3;5r\x1b[4;4H\x1b[?6hX"),
        // Insert and delete.
        c("ich", "abcdef\x1b[1;2H\x1b[2@"),
        c("ich_large", "abcdef\x1b[1;3H\x1b[99@"),
        c("ich_at_end", "abcdefghijklmnopqrs\x1b[1;20H\x1b[@X"),
        c("dch", "abcdef\x1b[1;2H\x1b[2P"),
        c("dch_large", "0123456789\x1b[1;6H\x1b[99P"),
        c("dch_last_column", "abcdefghijklmnopqrst\x1b[1;20H\x1b[P"),
        c("dch_bg", "0123456789\x1b[1;3H\x1b[44m\x1b[2P\x1b[m"),
        c("ech", "abcdef\x1b[1;2H\x1b[3X"),
        c("ech_large", "abcdef\x1b[1;2H\x1b[99X"),
        c("ech_bg", "abcdef\x1b[1;2H\x1b[42m\x1b[2X\x1b[m"),
        c("il", "r1\r\nr2\r\nr3\r\nr4\x1b[2;1H\x1b[2L"),
        c("il_at_home", "\r\n11111\r\n22222\x1b[H\x1b[L"),
        c("il_one", "r1\r\nr2\r\nr3\x1b[2;1H\x1b[L"),
        c("il_large", "r1\r\nr2\r\nr3\x1b[2;1H\x1b[99L"),
        c("dl", "r1\r\nr2\r\nr3\x1b[2;1H\x1b[M"),
        c("dl_large", "r1\r\nr2\r\nr3\x1b[2;1H\x1b[99M"),
        c("dl_at_top", "r1\r\nr2\r\nr3\x1b[H\x1b[2M").with_scrollback(),
        c("irm", "abc\x1b[1;1H\x1b[4hXY\x1b[4l"),
        c(
            "irm_pushes_off_the_edge",
            "abcdefghijklmnopqrst\x1b[1;1H\x1b[4hXY\x1b[4l",
        ),
        // Erase.
        c("el0", "abcdef\x1b[1;3H\x1b[K"),
        c("el1", "abcdef\x1b[1;3H\x1b[1K"),
        c("el2", "abcdef\x1b[1;3H\x1b[2K"),
        c("ed0", "ab\r\ncd\r\nef\x1b[2;2H\x1b[J"),
        c("ed1", "ab\r\ncd\r\nef\x1b[2;2H\x1b[1J"),
        c("ed2_keeps_cursor", "ab\r\ncd\r\nef\x1b[2;2H\x1b[2JX"),
        c("el_bg", "abcdef\x1b[1;3H\x1b[41m\x1b[K\x1b[m"),
        c("ed_bg", "ab\r\ncd\x1b[1;2H\x1b[45m\x1b[J\x1b[m"),
        c("decaln", "\x1b#8"),
        c("decaln_homes", "\x1b[3;3H\x1b#8X"),
        // Wrapping at the last column.
        case("wrap_pending", 5, 3, "abcde"),
        case("wrap_next", 5, 3, "abcdef"),
        case("wrap_pending_cr", 5, 3, "abcde\rX"),
        case("wrap_pending_cub", 5, 3, "abcde\x1b[DX"),
        case("wrap_pending_cup", 5, 3, "abcde\x1b[2;1HX"),
        case("wrap_pending_el", 5, 3, "abcde\x1b[KX"),
        case("wrap_pending_lf", 5, 3, "abcde\nX"),
        case("decawm_off", 5, 3, "\x1b[?7labcdefgh"),
        case(
            "decawm_reenabled",
            5,
            3,
            "\x1b[?7labcdefgh\x1b[?7h\r\nabcdefgh",
        ),
        case("wrap_scrolls_at_bottom", 5, 3, "aaaaabbbbbcccccddd"),
        case("wide_does_not_fit", 5, 3, "abcd\u{5b57}x"),
        case("wide_exactly_fits", 5, 3, "abc\u{5b57}x"),
        case("tab_at_pending_wrap", 5, 3, "abcde\tX"),
        // Wide and combining characters.
        c("wide", "a\u{5b57}b"),
        c(
            "wide_line",
            "\u{65e5}\u{672c}\u{8a9e}\u{30c6}\u{30ad}\u{30b9}\u{30c8}",
        ),
        c("wide_overwrite_left_half", "\u{5b57}\x1b[1;1Hx"),
        c("wide_overwrite_right_half", "\u{5b57}\x1b[1;2Hx"),
        c("wide_cursor", "\u{5b57}\u{5b57}X"),
        c("combining", "e\u{301}x"),
        c("combining_two", "a\u{301}\u{308}b"),
        c("combining_after_wide", "\u{5b57}\u{301}x"),
        c("emoji", "\u{1f600}x"),
        c("wide_ich", "\u{5b57}\u{5b57}\x1b[1;1H\x1b[@"),
        c("wide_ech", "a\u{5b57}b\x1b[1;2H\x1b[X"),
        // Alternate screens.
        c("alt1049_back", "main\x1b[?1049halt\x1b[?1049l"),
        c("alt1049_shows_alt", "main\x1b[?1049h\x1b[2;1Halt"),
        c(
            "alt1049_restores_cursor",
            "\x1b[2;3H\x1b[?1049h\x1b[5;5H\x1b[?1049lX",
        ),
        c(
            "alt1049_cleared_on_entry",
            "\x1b[?1049hA\x1b[?1049l\x1b[?1049hB",
        ),
        c("alt47_back", "main\x1b[?47h\x1b[2;1Halt\x1b[?47l"),
        c("alt47_shows_alt", "main\x1b[?47h\x1b[2;1Halt"),
        c("alt1047_back", "main\x1b[?1047h\x1b[2;1Halt\x1b[?1047l"),
        c("alt1047_shows_alt", "main\x1b[?1047h\x1b[2;1Halt"),
        c(
            "alt1047_cursor_stays",
            "\x1b[2;3H\x1b[?1047h\x1b[5;5H\x1b[?1047lX",
        ),
        c(
            "alt1047_with_1048",
            "\x1b[2;3H\x1b[?1048h\x1b[?1047h\x1b[5;5H\x1b7\x1b[?1047l\x1b8\x1b[?1048lX",
        ),
        c(
            "alt_scroll_keeps_no_history",
            "p\x1b[?1049h1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\r\n8\x1b[?1049l",
        )
        .with_scrollback(),
        // Scrollback.
        case(
            "scrollback_lines",
            20,
            4,
            "l1\r\nl2\r\nl3\r\nl4\r\nl5\r\nl6\r\nl7",
        )
        .with_scrollback(),
        case("scrollback_su", 20, 4, "l1\r\nl2\r\nl3\x1b[2S").with_scrollback(),
        case(
            "scrollback_styled",
            20,
            3,
            "\x1b[31mred\x1b[m\r\n\x1b[1mbold\x1b[m\r\nc\r\nd\r\ne",
        )
        .with_scrollback(),
        case("scrollback_wide", 10, 3, "\u{5b57}\u{5b57}\r\nb\r\nc\r\nd").with_scrollback(),
        case(
            "scrollback_partial_region",
            20,
            4,
            "\x1b[4;1Hstatus\x1b[1;3r\x1b[1;1Ha\r\nb\r\nc\r\nd\r\ne",
        )
        .with_scrollback(),
        case(
            "scrollback_region_not_at_top",
            20,
            4,
            "top\x1b[2;4r\x1b[2;1Ha\r\nb\r\nc\r\nd",
        )
        .with_scrollback(),
        case("scrollback_wrapped", 5, 3, "aaaaabbbbbcccccdddddeeeee").with_scrollback(),
        // Resizing, with history.
        case(
            "grow_rows_brings_history_back",
            20,
            3,
            "l1\r\nl2\r\nl3\r\nl4\r\nl5",
        )
        .then_resize(20, 5, "X")
        .with_scrollback(),
        case("grow_rows_more_than_history", 20, 3, "l1\r\nl2\r\nl3\r\nl4")
            .then_resize(20, 6, "X")
            .with_scrollback(),
        case(
            "shrink_rows_pushes_history",
            20,
            5,
            "l1\r\nl2\r\nl3\r\nl4\r\nl5",
        )
        .then_resize(20, 3, "X")
        .with_scrollback(),
        case("shrink_rows_blank_below_cursor", 20, 6, "l1\r\nl2")
            .then_resize(20, 3, "X")
            .with_scrollback(),
        case("shrink_then_grow_rows", 20, 5, "l1\r\nl2\r\nl3\r\nl4\r\nl5")
            .then_resize(20, 2, "")
            .then_resize(20, 5, "X")
            .with_scrollback(),
        case("grow_cols", 10, 3, "abc\r\ndef")
            .then_resize(20, 3, "X")
            .with_scrollback(),
        case("shrink_cols_reflows", 10, 3, "abcdefgh\r\nxy")
            .then_resize(5, 3, "Z")
            .with_scrollback(),
        case("grow_cols_unwraps", 5, 4, "abcdefgh\r\nxy")
            .then_resize(10, 4, "Z")
            .with_scrollback(),
        case(
            "resize_in_alt_screen",
            20,
            4,
            "l1\r\nl2\r\nl3\x1b[?1049h\x1b[Hfull",
        )
        .then_resize(20, 6, "\x1b[?1049lX")
        .with_scrollback(),
        case(
            "shrink_then_grow_cols",
            20,
            4,
            "0123456789abcdef\r\nb\r\nc23456789abcdef\r\nd",
        )
        .then_resize(10, 4, "")
        .then_resize(20, 4, "X")
        .with_scrollback(),
        case("resize_shrink_cols_wide", 10, 3, "ab\u{5b57}cd")
            .then_resize(4, 3, "")
            .with_scrollback(),
        // Character sets, REP, resets, modes.
        c("dec_graphics", "\x1b(0lqqk\r\nx  x\r\nmqqj\x1b(B ok"),
        c("dec_graphics_g1_shift", "\x1b)0a\x0eq\x0fb"),
        c("rep", "a\x1b[3b"),
        c("rep_after_rep", "ab\x1b[2b\x1b[3b"),
        c("rep_after_sgr", "x\x1b[31m\x1b[2b\x1b[m"),
        c("rep_to_the_edge", "abcdefghijklmnopqr\x1b[2b"),
        c("ris", "abc\x1b[31m\x1bcX"),
        c("decstr_keeps_screen", "abc\x1b[31m\x1b[!pX"),
        c("lnm", "\x1b[20hab\ncd\x1b[20l"),
        c("dectcem_invisible", "\x1b[?25lab"),
    ];
    // SGR of every kind, one case each (styles are compared cell by cell).
    let sgr: &[(&str, &str)] = &[
        ("sgr_bold", "\x1b[1mX\x1b[mY"),
        ("sgr_dim", "\x1b[2mX\x1b[mY"),
        ("sgr_italic", "\x1b[3mX\x1b[mY"),
        ("sgr_underline", "\x1b[4mX\x1b[mY"),
        ("sgr_double_underline_colon", "\x1b[4:2mX\x1b[mY"),
        ("sgr_curly_underline", "\x1b[4:3mX\x1b[mY"),
        ("sgr_dotted_underline", "\x1b[4:4mX\x1b[mY"),
        ("sgr_dashed_underline", "\x1b[4:5mX\x1b[mY"),
        ("sgr_underline_off_colon", "\x1b[4mX\x1b[4:0mY"),
        ("sgr_blink", "\x1b[5mX\x1b[mY"),
        ("sgr_rapid_blink", "\x1b[6mX\x1b[mY"),
        ("sgr_inverse", "\x1b[7mX\x1b[mY"),
        ("sgr_hidden", "\x1b[8mX\x1b[mY"),
        ("sgr_strike", "\x1b[9mX\x1b[mY"),
        ("sgr_21_double_underline", "\x1b[21mX\x1b[mY"),
        ("sgr_22_normal_intensity", "\x1b[1;2mX\x1b[22mY"),
        ("sgr_23_not_italic", "\x1b[3mX\x1b[23mY"),
        ("sgr_24_not_underlined", "\x1b[4mX\x1b[24mY"),
        ("sgr_25_not_blinking", "\x1b[5mX\x1b[25mY"),
        ("sgr_27_not_inverse", "\x1b[7mX\x1b[27mY"),
        ("sgr_28_not_hidden", "\x1b[8mX\x1b[28mY"),
        ("sgr_29_not_struck", "\x1b[9mX\x1b[29mY"),
        ("sgr_fg_normal", "\x1b[30ma\x1b[31mb\x1b[32mc\x1b[33md\x1b[34me\x1b[35mf\x1b[36mg\x1b[37mh\x1b[m"),
        ("sgr_fg_bright", "\x1b[90ma\x1b[91mb\x1b[92mc\x1b[93md\x1b[94me\x1b[95mf\x1b[96mg\x1b[97mh\x1b[m"),
        ("sgr_bg_normal", "\x1b[40ma\x1b[41mb\x1b[42mc\x1b[43md\x1b[44me\x1b[45mf\x1b[46mg\x1b[47mh\x1b[m"),
        ("sgr_bg_bright", "\x1b[100ma\x1b[101mb\x1b[102mc\x1b[103md\x1b[104me\x1b[105mf\x1b[106mg\x1b[107mh\x1b[m"),
        ("sgr_fg_256", "\x1b[38;5;196mX\x1b[38;5;22mY\x1b[m"),
        ("sgr_bg_256", "\x1b[48;5;17mX\x1b[48;5;250mY\x1b[m"),
        ("sgr_fg_rgb", "\x1b[38;2;1;2;3mX\x1b[m"),
        ("sgr_bg_rgb", "\x1b[48;2;250;128;0mX\x1b[m"),
        ("sgr_fg_rgb_colon", "\x1b[38:2::10:20:30mX\x1b[m"),
        ("sgr_fg_256_colon", "\x1b[38:5:100mX\x1b[m"),
        ("sgr_default_fg", "\x1b[31;42mX\x1b[39mY\x1b[m"),
        ("sgr_default_bg", "\x1b[31;42mX\x1b[49mY\x1b[m"),
        ("sgr_reset_empty", "\x1b[1;31mX\x1b[mY"),
        ("sgr_reset_zero", "\x1b[1;31mX\x1b[0mY"),
        ("sgr_combined", "\x1b[1;4;31;42mX\x1b[m"),
        ("sgr_many_in_one", "\x1b[1;2;3;4;5;7;9;33;44mX\x1b[m"),
        ("sgr_bold_bright_fg", "\x1b[1;91mX\x1b[m"),
        ("sgr_inverse_space", "\x1b[7m  \x1b[m"),
        ("sgr_bg_on_spaces", "\x1b[44m   \x1b[mx"),
        ("sgr_erase_takes_bg", "\x1b[43m\x1b[2K\x1b[m"),
    ];
    for (name, bytes) in sgr {
        v.push(c(name, bytes));
    }
    apply_known_differences(&mut v);
    v
}

/// Cases where tmux is not what xterm documents, or where tuios differs from tmux on
/// purpose. Each says why.
fn apply_known_differences(cases: &mut [Case]) {
    for case in cases.iter_mut() {
        match case.name {
            "rep_to_the_edge" => {
                case.expect = Expect::Xterm {
                    screen: "abcdefghijklmnopqrrr",
                    cursor: (19, 0),
                    why: "tmux clamps REP at the right margin; xterm repeats through the print \
                          path, so the count fills the row up to the last column",
                }
            }
            "hpr" => xterm(case, "abc  X", (6, 0), "tmux ignores HPR (CSI a)"),
            "alt1047_with_1048" => xterm(
                case,
                "\n  X",
                (3, 1),
                "tmux ignores ?1048 and keeps one DECSC slot for both screens; xterm saves the \
                 cursor on ?1048 and each screen has its own DECSC slot (vttest 11.8.7)",
            ),
            "vpr" => xterm(case, "\n\n\n  X", (3, 3), "tmux ignores VPR (CSI e)"),
            "cht" => xterm(case, "                X", (17, 0), "tmux ignores CHT (CSI I)"),
            "bs_from_pending_wrap" => xterm(
                case,
                "abcXe",
                (4, 0),
                "in the pending-wrap state tmux keeps its cursor past the edge, so BS lands on \
                 the last column; xterm's cursor is on the last column and BS leaves it",
            ),
            "decstbm_il_outside_ignored" => xterm(
                case,
                "r1\nr2\nr3\nr4\nr5",
                (0, 4),
                "tmux inserts a line outside the scroll region; xterm and the VT510 ignore IL \
                 there",
            ),
            "dch_bg" => bce(case, 0, 18, 20, 4),
            "el_bg" => bce(case, 0, 2, 20, 1),
            "ed_bg" => bce(case, 0, 1, 20, 5),
            "sgr_erase_takes_bg" => bce(case, 0, 0, 20, 3),
            "ich_large" => xterm(
                case,
                "ab",
                (2, 0),
                "tmux leaves the row alone when ICH's count reaches past the edge; xterm shifts \
                 every cell off it",
            ),
            "wrap_pending_cub" => xterm(
                case,
                "abcXe",
                (4, 0),
                "tmux's cursor is past the edge in the pending-wrap state, so CUB lands on the \
                 last column; xterm's is on the last column",
            ),
            "wide_overwrite_right_half" => xterm(
                case,
                " x",
                (2, 0),
                "writing over the right half of a wide character erases it in xterm; tmux keeps \
                 the character",
            ),
            "scrollback_region_not_at_top" => xterm(
                case,
                "top\nb\nc\nd",
                (1, 3),
                "tmux moves the top row of any scrolled region into its history; xterm only when \
                 the region starts at the top of the screen",
            ),
            "dec_graphics" => xterm(
                case,
                "\u{250c}\u{2500}\u{2500}\u{2510}\n\u{2502}  \u{2502}\n\u{2514}\u{2500}\u{2500}\u{2518} ok",
                (7, 2),
                "tmux captures line-drawing cells as the ASCII byte sent (with SO/SI in -e); \
                 the screen shows box-drawing glyphs, which is what tuios captures",
            ),
            "dec_graphics_g1_shift" => xterm(
                case,
                "a\u{2500}b",
                (3, 0),
                "tmux captures line-drawing cells as the ASCII byte sent; tuios captures the glyph",
            ),
            "shrink_cols_reflows" | "grow_cols_unwraps" | "resize_shrink_cols_wide" => {
                case.expect = Expect::Differs {
                    why: "tmux reflows its whole history; tuios reflows the screen and keeps \
                          scrollback rows at the width they were written",
                }
            }
            _ => {}
        }
    }
}

fn xterm(case: &mut Case, screen: &'static str, cursor: (u16, u16), why: &'static str) {
    case.expect = Expect::Xterm {
        screen,
        cursor,
        why,
    };
}

fn bce(case: &mut Case, row: usize, from: usize, to: usize, bg: u32) {
    case.expect = Expect::Bce {
        row,
        from,
        to,
        bg,
        why: "tmux erases with the background colour on screen but its capture-pane -e shows \
              erased cells without it",
    };
}

const SCRIPT: &str = r#"d=$1
stty -opost -echo -icanon min 1 time 0
i=0
while [ -e "$d/part$i" ]; do
  read go < "$d/fifo"
  cat "$d/part$i"
  i=$((i+1))
  : > "$d/stage$i"
done
printf '\033[6n'
r=
while :; do
  c=$(dd bs=1 count=1 2>/dev/null)
  r="$r$c"
  case "$c" in R|'') break;; esac
done
printf '%s' "$r" > "$d/cursor.tmp"
mv "$d/cursor.tmp" "$d/cursor"
exec sleep 1000
"#;

/// One side's run of a case: its directory (parts, FIFO, stage and cursor files).
struct Run {
    dir: PathBuf,
}

impl Run {
    fn new(root: &Path, side: &str, index: usize, case: &Case) -> Run {
        let dir = root.join(format!("{side}-{index}-{}", case.name));
        fs::create_dir_all(&dir).expect("case directory");
        for (i, part) in case.parts.iter().enumerate() {
            fs::write(dir.join(format!("part{i}")), part).expect("part file");
        }
        let fifo = dir.join("fifo");
        let c_path = std::ffi::CString::new(fifo.to_str().expect("UTF-8 path")).expect("no NUL");
        // SAFETY: a valid NUL-terminated path.
        let rc = unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) };
        assert_eq!(rc, 0, "mkfifo {}", fifo.display());
        Run { dir }
    }

    /// Lets the script write its next part: opens the FIFO once the script reads it.
    fn go(&self) {
        let fifo = self.dir.join("fifo");
        let what = format!("the case script in {} to open its FIFO", self.dir.display());
        // Generous: a batch starts many windows at once, and a loaded machine is slow to run them
        // (a CI run beside three builds once took over a minute).
        let mut file = poll(DEADLINE * 9, &what, || {
            fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&fifo)
                .map_err(|e| e.to_string())
        });
        file.write_all(b"go\n").expect("write the FIFO");
    }

    fn wait_stage(&self, stage: usize) {
        let path = self.dir.join(format!("stage{stage}"));
        poll(DEADLINE, &format!("{}", path.display()), || {
            if path.exists() {
                Ok(())
            } else {
                Err("not yet".to_string())
            }
        });
    }

    /// The cursor the terminal reported, 0-based (col, row).
    fn cursor(&self) -> (u16, u16) {
        let path = self.dir.join("cursor");
        let reply = poll(DEADLINE, &format!("{}", path.display()), || {
            fs::read_to_string(&path).map_err(|e| e.to_string())
        });
        let body = reply
            .strip_prefix("\x1b[")
            .and_then(|r| r.strip_suffix('R'))
            .unwrap_or_else(|| panic!("not a CPR answer: {reply:?}"));
        let (row, col) = body.split_once(';').expect("row;col");
        (
            col.parse::<u16>().expect("col") - 1,
            row.parse::<u16>().expect("row") - 1,
        )
    }
}

struct Tmux {
    socket: PathBuf,
}

impl Tmux {
    fn start(dir: &Path) -> Tmux {
        let conf = dir.join("tmux.conf");
        fs::write(
            &conf,
            "set -g status off\nset -g history-limit 10000\nset -g default-shell /bin/sh\n\
             set -g remain-on-exit off\nset -g escape-time 0\n",
        )
        .expect("tmux.conf");
        let tmux = Tmux {
            socket: dir.join("tmux.sock"),
        };
        // The server starts with the first session; -f names our configuration.
        let out = tmux.cmd(&[
            "-f",
            conf.to_str().expect("UTF-8"),
            "new-session",
            "-d",
            "-s",
            "keep",
            "-x",
            "20",
            "-y",
            "5",
            "exec sleep 1000",
        ]);
        assert!(out.status.success(), "tmux did not start: {}", text(&out));
        tmux
    }

    fn cmd(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new("tmux");
        cmd.arg("-S").arg(&self.socket).args(args);
        cmd.env_remove("TMUX");
        run_with_deadline(cmd, DEADLINE)
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.cmd(args);
        assert!(out.status.success(), "tmux {args:?}: {}", text(&out));
        String::from_utf8(out.stdout).expect("tmux output is UTF-8")
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn require_tmux() {
    let found = Command::new("tmux").arg("-V").output();
    assert!(
        found.is_ok_and(|o| o.status.success()),
        "the differential test needs tmux (installed by .ci/run): install it, e.g. apt-get install tmux"
    );
}

/// Rows of a plain capture, trailing blanks trimmed. tuios joins rows with '\n'; tmux ends
/// every row with one, so strip that first (`tmux_body`).
fn plain_rows(capture: &str) -> Vec<String> {
    capture
        .split('\n')
        .map(|row| row.trim_end().to_string())
        .collect()
}

fn tmux_body(capture: &str) -> &str {
    capture.strip_suffix('\n').unwrap_or(capture)
}

/// What one side showed for a case.
#[derive(Debug, PartialEq)]
struct Shown {
    screen: Vec<String>,
    styled: Vec<Vec<(String, Style)>>,
    cursor: (u16, u16),
    history: Option<Vec<String>>,
}

const BATCH: usize = 30;

#[test]
fn tuios_and_tmux_agree_on_vt_byte_streams() {
    require_tmux();
    let cases = cases();
    assert!(cases.len() >= 150, "only {} cases", cases.len());
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("diff");
    let mut conn = daemon.conn();
    let root = daemon.dir().join("cases");
    fs::create_dir_all(&root).expect("cases directory");
    let script = root.join("case.sh");
    fs::write(&script, SCRIPT).expect("case script");
    let script = script.to_str().expect("UTF-8").to_string();
    let tmux = Tmux::start(daemon.dir());

    let mut failures = Vec::new();
    for (batch_no, batch) in cases.chunks(BATCH).enumerate() {
        let base = batch_no * BATCH;
        // Start every case of the batch on both sides.
        let mut runs = Vec::new();
        for (k, case) in batch.iter().enumerate() {
            let index = base + k;
            let ours = Run::new(&root, "tuios", index, case);
            let theirs = Run::new(&root, "tmux", index, case);
            let dir = ours.dir.to_str().expect("UTF-8").to_string();
            let window = conn.new_window_id(
                &session,
                json!({"command": ["/bin/sh", script, dir], "focus": false}),
            );
            conn.ok(
                "resize",
                json!({"session": session, "window": window, "width": case.cols, "height": case.rows}),
            );
            let name = format!("c{index}");
            let command = format!("/bin/sh {script} {}", theirs.dir.display());
            tmux.ok(&[
                "new-session",
                "-d",
                "-s",
                &name,
                "-x",
                &case.cols.to_string(),
                "-y",
                &case.rows.to_string(),
                &command,
            ]);
            runs.push((window, name, ours, theirs));
        }
        // Feed the parts, resizing both sides in between.
        for (case, (window, name, ours, theirs)) in batch.iter().zip(&runs) {
            for stage in 0..case.parts.len() {
                if stage > 0 {
                    let (w, h) = case.resizes[stage - 1];
                    conn.ok(
                        "resize",
                        json!({"session": session, "window": window, "width": w, "height": h}),
                    );
                    tmux.ok(&[
                        "resize-window",
                        "-t",
                        name,
                        "-x",
                        &w.to_string(),
                        "-y",
                        &h.to_string(),
                    ]);
                }
                ours.go();
                theirs.go();
                ours.wait_stage(stage + 1);
                theirs.wait_stage(stage + 1);
            }
        }
        for (case, (window, name, ours, theirs)) in batch.iter().zip(&runs) {
            let mine = Shown {
                cursor: ours.cursor(),
                screen: plain_rows(&conn.capture(&session, window, json!({}))),
                styled: styled_rows(&conn.capture(&session, window, json!({"styled": true}))),
                history: case.scrollback.then(|| {
                    plain_rows(&conn.capture(&session, window, json!({"source": "recent"})))
                }),
            };
            // In the pending-wrap state tmux reports the column past the edge; xterm (and
            // tuios) report the last column.
            let (col, row) = theirs.cursor();
            let cols = case.resizes.last().map_or(case.cols, |r| r.0);
            let theirs_shown = Shown {
                cursor: (col.min(cols - 1), row),
                screen: plain_rows(tmux_body(&tmux.ok(&["capture-pane", "-p", "-t", name]))),
                // -N keeps trailing cells, which -e alone drops even when they have a
                // background or are inverse.
                styled: styled_rows(tmux_body(&tmux.ok(&[
                    "capture-pane",
                    "-p",
                    "-e",
                    "-N",
                    "-t",
                    name,
                ]))),
                history: case.scrollback.then(|| {
                    plain_rows(tmux_body(&tmux.ok(&[
                        "capture-pane",
                        "-p",
                        "-S",
                        "-",
                        "-E",
                        "-",
                        "-t",
                        name,
                    ])))
                }),
            };
            if let Some(problem) = compare(case, &mine, &theirs_shown) {
                failures.push(format!(
                    "{} ({}x{}, {:?}): {problem}",
                    case.name, case.cols, case.rows, case.parts
                ));
            }
        }
        for (window, name, _, _) in &runs {
            conn.ok(
                "close-window",
                json!({"session": session, "window": window}),
            );
            tmux.ok(&["kill-session", "-t", name]);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

fn compare(case: &Case, mine: &Shown, tmux: &Shown) -> Option<String> {
    let mut out = String::new();
    match case.expect {
        Expect::Tmux => {
            if mine.screen != tmux.screen {
                let _ = write!(out, "screen {:?} vs tmux {:?}; ", mine.screen, tmux.screen);
            }
            if mine.cursor != tmux.cursor {
                let _ = write!(out, "cursor {:?} vs tmux {:?}; ", mine.cursor, tmux.cursor);
            }
            if mine.styled != tmux.styled {
                let _ = write!(out, "styles {:?} vs tmux {:?}; ", mine.styled, tmux.styled);
            }
            if mine.history != tmux.history {
                let _ = write!(
                    out,
                    "history {:?} vs tmux {:?}; ",
                    mine.history, tmux.history
                );
            }
        }
        Expect::Xterm { screen, cursor, .. } => {
            let want = plain_rows(screen);
            let mut got = mine.screen.clone();
            while got.len() > want.len() && got.last().is_some_and(String::is_empty) {
                got.pop();
            }
            if got != want {
                let _ = write!(out, "screen {got:?} vs xterm {want:?}; ");
            }
            if mine.cursor != cursor {
                let _ = write!(out, "cursor {:?} vs xterm {cursor:?}; ", mine.cursor);
            }
        }
        Expect::Differs { .. } => {
            if mine.screen != tmux.screen {
                let _ = write!(out, "screen {:?} vs tmux {:?}; ", mine.screen, tmux.screen);
            }
        }
        Expect::Bce {
            row, from, to, bg, ..
        } => {
            if mine.screen != tmux.screen {
                let _ = write!(out, "screen {:?} vs tmux {:?}; ", mine.screen, tmux.screen);
            }
            if mine.cursor != tmux.cursor {
                let _ = write!(out, "cursor {:?} vs tmux {:?}; ", mine.cursor, tmux.cursor);
            }
            let cells = mine.styled.get(row).map(Vec::as_slice).unwrap_or(&[]);
            let erased = cells.get(from..to).unwrap_or(&[]);
            if erased.len() != to - from || erased.iter().any(|(_, s)| s.bg != Some(bg)) {
                let _ = write!(
                    out,
                    "row {row} cells {from}..{to} not on background {bg}: {cells:?}; "
                );
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The table's notes, so the known differences are listed in one place (and used).
#[test]
fn every_known_difference_says_why() {
    for case in cases() {
        let why = match case.expect {
            Expect::Tmux => continue,
            Expect::Xterm { why, .. } | Expect::Differs { why } | Expect::Bce { why, .. } => why,
        };
        assert!(why.len() > 20, "{}: {why:?}", case.name);
    }
}
