//! A window's terminal as bytes that rebuild it: what a live upgrade hands to the next daemon.
//!
//! The new process has a fresh emulator and no shared memory with the old one, so the state
//! travels as output a terminal understands: the scrollback and screen as styled text (the
//! capture the daemon already produces), then the alternate screen if it is active, the title,
//! the scrolling region, the input modes and the cursor. Fed into a fresh emulator of the same
//! size, it gives back the same rows, styles, modes and cursor. What it does not carry: the pen
//! a program left set (programs set it again before drawing), tab stops and charsets, and the
//! soft-wrap marks of rows (a later resize reflows them as separate lines).

use std::fmt::Write as _;

use alacritty_terminal::term::TermMode;

use crate::Emulator;

impl Emulator {
    /// Escape sequences and text that rebuild this terminal in [`Emulator::from_replay`].
    /// Takes `&mut self` because reading the primary screen under an active alternate screen
    /// swaps the two for a moment; the state is the same afterwards.
    pub fn replay(&mut self) -> String {
        self.replay_with(true)
    }

    /// Like [`Emulator::replay`] without the scrollback: only what is on the screen (kept on
    /// disk for a crash, where scrollback must not go).
    pub fn replay_screen(&mut self) -> String {
        self.replay_with(false)
    }

    fn replay_with(&mut self, scrollback: bool) -> String {
        let mode = *self.term.mode();
        let alt = mode.contains(TermMode::ALT_SCREEN);
        let alt_part = alt.then(|| (self.capture(false, true), self.cursor()));
        let left = alt.then(|| self.leave_alt());
        // History on disk stays behind: only the part in memory travels (see `lines`).
        let from = if scrollback {
            self.memory_first_row()
        } else {
            self.rows_pushed()
        };
        let primary = self.capture_from(from, true);
        let primary_cursor = self.cursor();
        if let Some((grid, kitty)) = left {
            self.reenter_alt(grid, kitty);
        }

        let mut out = String::with_capacity(primary.len() + 256);
        // The screen starts out clear; a line feed after each row but the last scrolls the
        // older rows into the scrollback, in order.
        push_rows(&mut out, &primary);
        out.push_str("\x1b[m");
        push_cursor(&mut out, primary_cursor);
        if let Some((text, cursor)) = alt_part {
            // 1049 saves the primary cursor placed just above and clears the alternate screen.
            out.push_str("\x1b[?1049h\x1b[H");
            push_rows(&mut out, &text);
            out.push_str("\x1b[m");
            push_cursor(&mut out, cursor);
        }
        if let Some(title) = self.title() {
            // OSC text cannot carry control characters; a title never holds any either.
            let clean: String = title.chars().filter(|c| !c.is_control()).collect();
            let _ = write!(out, "\x1b]2;{clean}\x1b\\");
        }
        let region = self.state.region;
        if region.top != 0 || region.bottom != usize::from(self.rows()) {
            // DECSTBM homes the cursor, so it goes before the final cursor position.
            let _ = write!(out, "\x1b[{};{}r", region.top + 1, region.bottom);
        }
        for (flag, set) in [
            (TermMode::APP_CURSOR, "\x1b[?1h"),
            (TermMode::APP_KEYPAD, "\x1b="),
            (TermMode::BRACKETED_PASTE, "\x1b[?2004h"),
            (TermMode::MOUSE_REPORT_CLICK, "\x1b[?1000h"),
            (TermMode::MOUSE_DRAG, "\x1b[?1002h"),
            (TermMode::MOUSE_MOTION, "\x1b[?1003h"),
            (TermMode::UTF8_MOUSE, "\x1b[?1005h"),
            (TermMode::SGR_MOUSE, "\x1b[?1006h"),
            (TermMode::ALTERNATE_SCROLL, "\x1b[?1007h"),
            (TermMode::INSERT, "\x1b[4h"),
            (TermMode::LINE_FEED_NEW_LINE, "\x1b[20h"),
        ] {
            if mode.contains(flag) {
                out.push_str(set);
            }
        }
        let kitty = self.kitty_keyboard_flags();
        if kitty != 0 {
            let _ = write!(out, "\x1b[>{kitty}u");
        }
        if !mode.contains(TermMode::LINE_WRAP) {
            out.push_str("\x1b[?7l");
        }
        push_cursor(&mut out, self.cursor());
        if !self.cursor_visible() {
            out.push_str("\x1b[?25l");
        }
        out
    }

    /// A fresh emulator of this size with `replay` (from [`Emulator::replay`]) fed into it.
    /// Whatever the replay would have sent back to a program (answers, title and mode
    /// effects) is dropped: nothing asked.
    pub fn from_replay(cols: u16, rows: u16, scrollback_lines: usize, replay: &str) -> Emulator {
        let mut emulator = Emulator::new(cols, rows, scrollback_lines);
        emulator.feed(replay.as_bytes());
        emulator.take_effects();
        emulator
    }
}

/// Rows joined by '\n' (as captured), written so that each starts at the left margin.
fn push_rows(out: &mut String, rows: &str) {
    let mut first = true;
    for row in rows.split('\n') {
        if !first {
            out.push_str("\r\n");
        }
        first = false;
        out.push_str(row);
    }
}

fn push_cursor(out: &mut String, (col, row): (u16, u16)) {
    let _ = write!(out, "\x1b[{};{}H", u32::from(row) + 1, u32::from(col) + 1);
}

#[cfg(test)]
mod tests {
    use crate::Emulator;

    fn round_trip(e: &mut Emulator) -> Emulator {
        let replay = e.replay();
        Emulator::from_replay(e.cols(), e.rows(), 1000, &replay)
    }

    #[test]
    fn screen_scrollback_title_and_cursor_come_back() {
        let mut e = Emulator::new(20, 5, 1000);
        for i in 0..30 {
            e.feed(format!("line {i}\r\n").as_bytes());
        }
        e.feed(b"\x1b[1;31mred\x1b[m plain\x1b]2;my title\x07\x1b[3;4H");
        let r = round_trip(&mut e);
        assert_eq!(r.capture(true, false), e.capture(true, false));
        assert_eq!(r.capture(true, true), e.capture(true, true));
        assert_eq!(r.title(), Some("my title"));
        assert_eq!(r.cursor(), e.cursor());
        assert_eq!(r.rows_pushed(), e.rows_pushed());
    }

    #[test]
    fn modes_and_alternate_screen_come_back() {
        let mut e = Emulator::new(30, 6, 1000);
        e.feed(b"shell prompt $ vim\r\n");
        e.feed(b"\x1b[?1049h\x1b[H~ editing\x1b[?2004h\x1b[?1h\x1b[?1002h\x1b[?1006h\x1b[2;5H");
        let r = &mut round_trip(&mut e);
        assert_eq!(r.window_modes(), e.window_modes());
        assert!(r.modes().alt_screen && r.modes().bracketed_paste && r.app_cursor());
        assert_eq!(r.capture(false, false), e.capture(false, false));
        assert_eq!(r.cursor(), (4, 1));
        // Leaving the alternate screen shows the primary one, as before the handover.
        e.feed(b"\x1b[?1049l");
        r.feed(b"\x1b[?1049l");
        assert_eq!(r.capture(true, false), e.capture(true, false));
        assert_eq!(r.cursor(), e.cursor());
    }

    #[test]
    fn the_screen_alone_leaves_the_scrollback_out() {
        let mut e = Emulator::new(20, 3, 100);
        e.feed(b"one\r\ntwo\r\nthree\r\nfour");
        let replay = e.replay_screen();
        assert!(!replay.contains("one"), "{replay:?}");
        let r = Emulator::from_replay(20, 3, 100, &replay);
        assert_eq!(r.capture(false, false), e.capture(false, false));
        assert_eq!(r.capture(true, false), e.capture(false, false));
        assert_eq!(r.cursor(), e.cursor());
    }

    #[test]
    fn hidden_cursor_and_region_come_back() {
        let mut e = Emulator::new(10, 8, 100);
        e.feed(b"\x1b[2;6r\x1b[?25l\x1b[4;2Hx");
        let mut r = round_trip(&mut e);
        assert!(!r.cursor_visible());
        assert_eq!(r.cursor(), e.cursor());
        // Same region: a line feed at its bottom scrolls only rows 2..6 in both.
        for t in [&mut e, &mut r] {
            t.feed(b"\x1b[6;1Hbottom\n\nnext");
        }
        assert_eq!(r.capture(true, false), e.capture(true, false));
    }
}
