//! The filter between a recording's output and the real terminal. A recording is a file anyone
//! can hand out, so its bytes must not be able to talk to the terminal on the viewer's behalf.
//!
//! Kept: printable text; BS, HT, LF, VT, FF, CR, SO, SI and BEL; CSI cursor movement, erase,
//! insert/delete, scroll (SU/SD, DECSTBM), SGR, tab stops, save/restore cursor, the ANSI modes
//! (SM/RM), a short list of DEC private modes (cursor keys, origin, autowrap, cursor blink and
//! visibility, the alternate screens, synchronized output), cursor style (DECSCUSR) and soft
//! reset (DECSTR); ESC 7/8/=/>/D/E/H/M/c and the charset designations (ESC ( ) * + - . / #).
//!
//! Dropped: every OSC (clipboard writes with OSC 52, colour queries, hyperlinks, and titles too:
//! a recording has no business renaming the viewer's window); DCS, APC, PM and SOS strings whole
//! (this is where frame protocols and terminal queries live); 8-bit C1 controls; ENQ and the
//! other C0 controls; CSI sequences that make the terminal answer into its input (DSR `n`, DA
//! `c`, DECRQM `$p`, window ops `t`, XTVERSION and anything with a `>`/`=`/`<` prefix) or change
//! what keys send (modifyOtherKeys, the kitty keyboard flags), and the DEC modes that turn on
//! mouse, focus or bracketed-paste reports, which would go on after the player exits.

/// DEC private modes a recording may set: they change how the screen looks, not what the
/// terminal sends. 1 (application cursor keys) changes key encoding, but full-screen programs
/// in recordings use it all the time and the player resets it when it ends.
const DEC_MODES_KEPT: &[&str] = &[
    "1", "5", "6", "7", "12", "25", "47", "1047", "1048", "1049", "2026",
];

/// CSI finals with no prefix and no intermediates that only draw or move.
const CSI_FINALS_KEPT: &str = "@ABCDEFGHIJKLMPSTXZabdefghlmrsu`";

/// Longest CSI kept; longer ones are dropped whole (nothing legitimate is that long).
const CSI_MAX: usize = 128;

#[derive(Debug, Default, Clone, Copy, PartialEq)]
enum State {
    #[default]
    Ground,
    Esc,
    /// ESC followed by intermediates (0x20..=0x2f), waiting for the final.
    EscIntermediate,
    Csi,
    /// A string (OSC, DCS, APC, PM, SOS) being swallowed.
    Str,
    /// ESC seen inside a string: ST when `\` follows.
    StrEsc,
}

/// Stateful, because a sequence may be split over two output events.
#[derive(Debug, Default)]
pub struct Sanitiser {
    state: State,
    seq: String,
    /// The string being swallowed is an OSC, which BEL also ends.
    osc: bool,
}

impl Sanitiser {
    pub fn new() -> Sanitiser {
        Sanitiser::default()
    }

    /// The part of `input` that may reach the terminal.
    pub fn feed(&mut self, input: &str) -> String {
        let mut out = String::with_capacity(input.len());
        for c in input.chars() {
            self.step(c, &mut out);
        }
        out
    }

    fn step(&mut self, c: char, out: &mut String) {
        // CAN and SUB abort any sequence, as in a VT.
        if matches!(c, '\x18' | '\x1a') && self.state != State::Ground {
            self.state = State::Ground;
            return;
        }
        match self.state {
            State::Ground => self.ground(c, out),
            State::Esc => self.esc(c, out),
            State::EscIntermediate => match c {
                '\x20'..='\x2f' => self.seq.push(c),
                '\x30'..='\x7e' => {
                    self.seq.push(c);
                    // Charset designations and the DEC line/alignment tests (ESC # n).
                    if self.seq[1..].starts_with(['(', ')', '*', '+', '-', '.', '/', '#']) {
                        out.push_str(&self.seq);
                    }
                    self.state = State::Ground;
                }
                '\x1b' => self.start_esc(),
                _ => self.state = State::Ground,
            },
            State::Csi => self.csi(c, out),
            State::Str => match c {
                '\x1b' => self.state = State::StrEsc,
                '\x07' if self.osc => self.state = State::Ground,
                _ => {}
            },
            // ST, or any other escape: in both cases the string is over and gone.
            State::StrEsc => {
                self.state = State::Ground;
                if c != '\\' {
                    self.start_esc();
                    self.esc(c, out);
                }
            }
        }
    }

    fn start_esc(&mut self) {
        self.state = State::Esc;
        self.seq.clear();
        self.seq.push('\x1b');
    }

    fn ground(&mut self, c: char, out: &mut String) {
        match c {
            '\x1b' => self.start_esc(),
            '\x07'..='\x0f' => out.push(c),
            // ENQ (answerback) and the rest of C0, DEL, and C1 as 8-bit characters (a UTF-8
            // terminal may still take U+009B as CSI).
            '\0'..='\x1f' | '\x7f' | '\u{80}'..='\u{9f}' => {}
            _ => out.push(c),
        }
    }

    fn esc(&mut self, c: char, out: &mut String) {
        self.state = State::Ground;
        match c {
            '[' => {
                self.seq.push(c);
                self.state = State::Csi;
            }
            ']' | 'P' | '_' | '^' | 'X' => {
                self.osc = c == ']';
                self.state = State::Str;
            }
            '\x20'..='\x2f' => {
                self.seq.push(c);
                self.state = State::EscIntermediate;
            }
            '7' | '8' | '=' | '>' | 'D' | 'E' | 'H' | 'M' | 'c' => {
                out.push('\x1b');
                out.push(c);
            }
            '\x1b' => self.start_esc(),
            // ESC Z (DECID) answers; the rest is not needed to draw.
            _ => {}
        }
    }

    fn csi(&mut self, c: char, out: &mut String) {
        match c {
            '\x1b' => self.start_esc(),
            // C0 inside a CSI is executed by a VT and the sequence goes on.
            '\0'..='\x1f' => self.ground(c, out),
            '\x20'..='\x3f' => {
                self.seq.push(c);
            }
            '\x40'..='\x7e' => {
                self.seq.push(c);
                self.state = State::Ground;
                if self.seq.len() <= CSI_MAX {
                    if let Some(kept) = csi_kept(&self.seq) {
                        out.push_str(&kept);
                    }
                }
            }
            _ => self.state = State::Ground,
        }
    }
}

/// What of a whole CSI sequence (`ESC [ ... final`) may be written, if anything.
fn csi_kept(seq: &str) -> Option<String> {
    let body = &seq[2..];
    let final_char = body.chars().last()?;
    let inner = &body[..body.len() - 1];
    let split = inner
        .find(|c: char| ('\x20'..='\x2f').contains(&c))
        .unwrap_or(inner.len());
    let (params, intermediates) = inner.split_at(split);
    match (params.chars().next(), intermediates, final_char) {
        (Some('?'), "", 'h' | 'l') => {
            let kept: Vec<&str> = params[1..]
                .split(';')
                .filter(|p| DEC_MODES_KEPT.contains(p))
                .collect();
            (!kept.is_empty()).then(|| format!("\x1b[?{}{final_char}", kept.join(";")))
        }
        // DECSED/DECSEL: selective erase.
        (Some('?'), "", 'J' | 'K') => Some(seq.to_string()),
        (Some('?' | '<' | '=' | '>'), _, _) => None,
        // DECSCUSR (cursor style) and DECSTR (soft reset).
        (_, " ", 'q') | (_, "!", 'p') => Some(seq.to_string()),
        (_, "", f) if CSI_FINALS_KEPT.contains(f) => Some(seq.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(s: &str) -> String {
        Sanitiser::new().feed(s)
    }

    #[test]
    fn drawing_passes_through() {
        let s = "\x1b[1;31mred\x1b[0m\r\n\x1b[2J\x1b[H\x1b[5;10H\x1b[K\x1b[3A\x1b[2;20r\
                 \x1b[?1049h\x1b[?25l\x1b(0qqq\x1b(B\x1b7\x1b8\x1b[38:2::1:2:3mx\x1b[4 q\tcaf\u{e9}";
        assert_eq!(clean(s), s);
    }

    #[test]
    fn osc_strings_go_whole() {
        assert_eq!(clean("a\x1b]52;c;ZXZpbA==\x07b"), "ab");
        assert_eq!(clean("a\x1b]0;pwned\x1b\\b"), "ab");
        assert_eq!(clean("a\x1b]11;?\x07b"), "ab");
        assert_eq!(clean("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"), "link");
    }

    #[test]
    fn device_strings_go_whole() {
        assert_eq!(clean("a\x1bP+q544e\x1b\\b"), "ab");
        assert_eq!(clean("a\x1b_Gf=100;AAAA\x1b\\b"), "ab");
        assert_eq!(clean("a\x1b^pm\x1b\\b\x1bXsos\x1b\\c"), "abc");
        // BEL does not end a DCS; the ST later does.
        assert_eq!(clean("\x1bPx\x07y\x1b\\z"), "z");
    }

    #[test]
    fn queries_and_input_changes_are_dropped() {
        for q in [
            "\x1b[6n",
            "\x1b[c",
            "\x1b[>c",
            "\x1b[=c",
            "\x1b[?6n",
            "\x1b[?2004$p",
            "\x1b[18t",
            "\x1b[8;50;200t",
            "\x1b[>0q",
            "\x1b[>4;2m",
            "\x1b[>1u",
            "\x1b[?u",
            "\x1bZ",
            "\x05",
        ] {
            assert_eq!(clean(&format!("a{q}b")), "ab", "{q:?}");
        }
        // An 8-bit CSI loses its introducer; what followed is plain text.
        assert_eq!(clean("a\u{9b}6nb"), "a6nb");
    }

    #[test]
    fn only_harmless_dec_modes_survive() {
        assert_eq!(clean("\x1b[?1000;1006h"), "");
        assert_eq!(clean("\x1b[?2004h\x1b[?1004h"), "");
        assert_eq!(clean("\x1b[?1049;1000;25h"), "\x1b[?1049;25h");
    }

    #[test]
    fn sequences_split_over_events_are_still_seen() {
        let mut s = Sanitiser::new();
        let out = [
            s.feed("x\x1b]5"),
            s.feed("2;c;AA"),
            s.feed("==\x07y\x1b["),
            s.feed("31mz"),
        ]
        .concat();
        assert_eq!(out, "xy\x1b[31mz");
    }

    #[test]
    fn runaway_sequences_are_dropped() {
        let long = format!("\x1b[{}m", "1;".repeat(100));
        assert_eq!(clean(&format!("a{long}b")), "ab");
        // An escape inside a string ends it; CAN aborts a CSI.
        assert_eq!(clean("\x1b]0;t\x1b[1mx"), "\x1b[1mx");
        assert_eq!(clean("\x1b[3\x18x"), "x");
    }
}
