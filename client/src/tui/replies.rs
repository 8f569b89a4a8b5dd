//! Reports and replies of the outer terminal that termwiz's input parser has no event for:
//! focus in/out (`ESC [ I`, `ESC [ O`), device attributes, mode and status reports, colour
//! answers (`ESC ] 11 ; rgb:… ESC \`), DCS and APC replies. termwiz turns them into ordinary
//! keys (`ESC [ I` is Alt+`[` then `I`), which would reach a program as typed input; Lumen says
//! no client ever writes a focus report to a PTY, and a terminal's replies are not the user's
//! typing either.
//!
//! [`ReplyFilter`] sits between the terminal and the app. A key that can start such a sequence
//! is held; when the rest of a well-formed sequence follows within one input burst (each event
//! within [`GRACE`] of the previous one), the whole sequence is dropped. Anything else is
//! passed on unchanged and in order, so a user who types Alt+`[` loses nothing: the key only
//! waits for [`GRACE`].

use std::time::{Duration, Instant};

use termwiz::input::{InputEvent, KeyCode, KeyEvent, Modifiers};

/// How long held keys wait for the next part of a sequence before they count as typed. A
/// terminal writes a reply in one go, so its parts arrive together; a person does not type
/// two keys this close together.
pub const GRACE: Duration = Duration::from_millis(25);
/// Longest CSI (parameters and intermediates) held; replies are far shorter.
const MAX_CSI: usize = 64;
/// Longest string body (OSC, DCS, APC, PM) held.
const MAX_STRING: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SeqState {
    Idle,
    /// A lone ESC: the terminal's write may have been split right after it.
    Esc,
    /// After CSI; `intermediates` once a byte from 0x20..=0x2f was seen (no parameters after).
    Csi {
        intermediates: bool,
    },
    /// Inside an OSC, DCS, APC or PM body; `bel_ends` for OSC (BEL ends it as ST does);
    /// `esc` right after an ESC (the first half of ST).
    Str {
        bel_ends: bool,
        esc: bool,
    },
}

/// See the module documentation.
#[derive(Debug)]
pub struct ReplyFilter {
    state: SeqState,
    held: Vec<InputEvent>,
    deadline: Option<Instant>,
}

impl Default for ReplyFilter {
    fn default() -> Self {
        ReplyFilter::new()
    }
}

/// The character of a key without modifiers (how termwiz yields bytes it does not know).
fn plain_char(ev: &InputEvent) -> Option<char> {
    match ev {
        InputEvent::Key(KeyEvent {
            key: KeyCode::Char(c),
            modifiers,
        }) if modifiers.is_empty() => Some(*c),
        _ => None,
    }
}

/// The character of an Alt+key (termwiz's reading of ESC followed by that character).
fn alt_char(ev: &InputEvent) -> Option<char> {
    match ev {
        InputEvent::Key(KeyEvent {
            key: KeyCode::Char(c),
            modifiers,
        }) if *modifiers == Modifiers::ALT => Some(*c),
        _ => None,
    }
}

fn is_escape(ev: &InputEvent) -> bool {
    matches!(
        ev,
        InputEvent::Key(KeyEvent {
            key: KeyCode::Escape,
            modifiers,
        }) if modifiers.is_empty()
    )
}

/// BEL: termwiz reads 0x07 as Ctrl+G.
fn is_bel(ev: &InputEvent) -> bool {
    matches!(
        ev,
        InputEvent::Key(KeyEvent {
            key: KeyCode::Char('g'),
            modifiers,
        }) if *modifiers == Modifiers::CTRL
    )
}

/// The state the character after ESC (or the C1 control) `c` opens, if it opens a sequence.
fn opened_by(c: char) -> Option<SeqState> {
    let string = |bel_ends| SeqState::Str {
        bel_ends,
        esc: false,
    };
    match c {
        '[' | '\u{9b}' => Some(SeqState::Csi {
            intermediates: false,
        }),
        ']' | '\u{9d}' => Some(string(true)),
        'P' | '_' | '^' | '\u{90}' | '\u{9f}' | '\u{9e}' => Some(string(false)),
        _ => None,
    }
}

/// The 8-bit introducers arrive as plain characters; the 7-bit ones as Alt+character.
fn introducer(ev: &InputEvent) -> Option<SeqState> {
    if let Some(c) = alt_char(ev) {
        return opened_by(c).filter(|_| c.is_ascii());
    }
    if is_escape(ev) {
        return Some(SeqState::Esc);
    }
    plain_char(ev).filter(|c| !c.is_ascii()).and_then(opened_by)
}

/// What one more event does to a sequence in progress.
enum Advance {
    /// Part of it; keep holding.
    More(SeqState),
    /// It ends the sequence: drop everything held, this included.
    Done,
    /// Not part of it: the held keys were typed.
    Break,
}

impl ReplyFilter {
    pub fn new() -> ReplyFilter {
        ReplyFilter {
            state: SeqState::Idle,
            held: Vec::new(),
            deadline: None,
        }
    }

    /// When the held keys stop waiting for the rest of a sequence; None while nothing is held.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// One event from the terminal; returns the events to handle now, in order.
    pub fn push(&mut self, ev: InputEvent, now: Instant) -> Vec<InputEvent> {
        if self.state == SeqState::Idle {
            return match introducer(&ev) {
                Some(state) => {
                    self.hold(state, ev, now);
                    Vec::new()
                }
                None => vec![ev],
            };
        }
        match self.step(&ev) {
            Advance::More(state) => {
                self.hold(state, ev, now);
                Vec::new()
            }
            Advance::Done => {
                self.reset();
                Vec::new()
            }
            Advance::Break => {
                let mut out = self.flush();
                // The event that broke the pattern may start a sequence of its own.
                out.extend(self.push(ev, now));
                out
            }
        }
    }

    /// Nothing more arrived in time: whatever is held was typed, and is handed over.
    pub fn flush(&mut self) -> Vec<InputEvent> {
        self.state = SeqState::Idle;
        self.deadline = None;
        std::mem::take(&mut self.held)
    }

    fn hold(&mut self, state: SeqState, ev: InputEvent, now: Instant) {
        self.state = state;
        self.held.push(ev);
        self.deadline = Some(now + GRACE);
    }

    fn reset(&mut self) {
        self.state = SeqState::Idle;
        self.held.clear();
        self.deadline = None;
    }

    fn step(&self, ev: &InputEvent) -> Advance {
        let body = self.held.len();
        match self.state {
            SeqState::Idle => Advance::Break,
            SeqState::Esc => match plain_char(ev).and_then(opened_by) {
                Some(state) => Advance::More(state),
                None => Advance::Break,
            },
            SeqState::Csi { intermediates } => {
                let Some(c) = plain_char(ev) else {
                    return Advance::Break;
                };
                if body > MAX_CSI {
                    return Advance::Break;
                }
                match c {
                    '0'..='?' if !intermediates => Advance::More(SeqState::Csi {
                        intermediates: false,
                    }),
                    ' '..='/' => Advance::More(SeqState::Csi {
                        intermediates: true,
                    }),
                    '@'..='~' => Advance::Done,
                    _ => Advance::Break,
                }
            }
            SeqState::Str { bel_ends, esc } => {
                if esc {
                    return if plain_char(ev) == Some('\\') {
                        Advance::Done
                    } else {
                        Advance::Break
                    };
                }
                if alt_char(ev) == Some('\\') || plain_char(ev) == Some('\u{9c}') {
                    return Advance::Done;
                }
                if bel_ends && is_bel(ev) {
                    return Advance::Done;
                }
                if is_escape(ev) {
                    return Advance::More(SeqState::Str {
                        bel_ends,
                        esc: true,
                    });
                }
                match plain_char(ev) {
                    Some(c) if !c.is_control() && body <= MAX_STRING => Advance::More(self.state),
                    _ => Advance::Break,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use termwiz::input::{InputParser, MouseButtons, MouseEvent};

    /// What the filter passes on when `chunks` arrive one read each, close together, and then
    /// nothing more.
    fn through(chunks: &[&[u8]]) -> Vec<InputEvent> {
        let mut parser = InputParser::new();
        let mut filter = ReplyFilter::new();
        let now = Instant::now();
        let mut out = Vec::new();
        for chunk in chunks {
            for ev in parser.parse_as_vec(chunk, false) {
                out.extend(filter.push(ev, now));
            }
        }
        out.extend(filter.flush());
        out
    }

    fn keys(s: &str) -> Vec<InputEvent> {
        s.chars()
            .map(|c| {
                InputEvent::Key(KeyEvent {
                    key: KeyCode::Char(c),
                    modifiers: Modifiers::NONE,
                })
            })
            .collect()
    }

    fn key(key: KeyCode, modifiers: Modifiers) -> InputEvent {
        InputEvent::Key(KeyEvent { key, modifiers })
    }

    #[test]
    fn termwiz_yields_focus_reports_as_alt_bracket_then_a_letter() {
        // What this filter is for; if termwiz learns these sequences, the filter is moot.
        let evs = InputParser::new().parse_as_vec(b"\x1b[I", false);
        assert_eq!(
            evs,
            vec![
                key(KeyCode::Char('['), Modifiers::ALT),
                key(KeyCode::Char('I'), Modifiers::NONE)
            ]
        );
    }

    #[test]
    fn focus_reports_are_dropped() {
        assert_eq!(through(&[b"\x1b[I"]), vec![]);
        assert_eq!(through(&[b"\x1b[O"]), vec![]);
        assert_eq!(through(&[b"\x1b[I\x1b[O\x1b[I"]), vec![]);
        // Between typed keys, in the same read.
        assert_eq!(through(&[b"a\x1b[Ib\x1b[Oc"]), keys("abc"));
        // The terminal's write split after ESC or after the bracket.
        assert_eq!(through(&[b"\x1b", b"[I"]), vec![]);
        assert_eq!(through(&[b"\x1b[", b"O", b"x"]), keys("x"));
    }

    #[test]
    fn other_terminal_replies_are_dropped() {
        for reply in [
            &b"\x1b[?62;22c"[..],                // DA1
            b"\x1b[>41;390;0c",                  // DA2
            b"\x1b[?2004;1$y",                   // DECRQM
            b"\x1b[?1u",                         // kitty keyboard flags
            b"\x1b[8;30;100t",                   // text area size
            b"\x1b[?997;1n",                     // colour scheme
            b"\x1b]11;rgb:1e1e/1e1e/2e2e\x1b\\", // OSC 11 answer, ST
            b"\x1b]10;rgb:ffff/ffff/ffff\x07",   // OSC 10 answer, BEL
            b"\x1b]lsome title\x1b\\",           // title report
            b"\x1bP>|tmux 3.3a\x1b\\",           // XTVERSION
            b"\x1bP1$r0m\x1b\\",                 // DECRQSS
            b"\x1b_Gi=1;OK\x1b\\",               // kitty graphics
        ] {
            assert_eq!(through(&[reply]), vec![], "{reply:?}");
            let mut typed = b"x".to_vec();
            typed.extend_from_slice(reply);
            typed.push(b'y');
            assert_eq!(through(&[&typed]), keys("xy"), "{reply:?}");
        }
        // An 8-bit CSI.
        assert_eq!(through(&["\u{9b}I".as_bytes()]), vec![]);
        // A long OSC answer across reads.
        assert_eq!(
            through(&[b"\x1b]11;rgb:1e1e", b"/1e1e/2e2e\x1b", b"\\z"]),
            keys("z")
        );
    }

    #[test]
    fn keys_pass_unchanged_and_in_order() {
        assert_eq!(through(&[b"hello"]), keys("hello"));
        // termwiz's own keys: arrows, the focus-return chord in both forms, Alt+x, Enter.
        assert_eq!(
            through(&[b"\x1b[A\x1b[27;6u\x1b[27;6;27~\x1bx\r"]),
            vec![
                key(KeyCode::UpArrow, Modifiers::NONE),
                key(KeyCode::Char('\x1b'), Modifiers::CTRL | Modifiers::SHIFT),
                key(KeyCode::Escape, Modifiers::CTRL | Modifiers::SHIFT),
                key(KeyCode::Char('x'), Modifiers::ALT),
                key(KeyCode::Enter, Modifiers::NONE),
            ]
        );
        // A lone Escape, a lone Alt+[ and Alt+] are typed keys once nothing follows.
        for (bytes, k) in [
            (&b"\x1b"[..], key(KeyCode::Escape, Modifiers::NONE)),
            (b"\x1b[", key(KeyCode::Char('['), Modifiers::ALT)),
            (b"\x1b]", key(KeyCode::Char(']'), Modifiers::ALT)),
        ] {
            assert_eq!(through(&[bytes]), vec![k]);
        }
        // Alt+[ then keys that cannot continue a CSI: all of them, in order.
        let mut expected = vec![key(KeyCode::Char('['), Modifiers::ALT)];
        expected.extend(keys("1"));
        expected.push(key(KeyCode::Enter, Modifiers::NONE));
        assert_eq!(through(&[b"\x1b[", b"1\r"]), expected);
        // An OSC that a typed key breaks is handed over whole, the key after it.
        let mut expected = vec![key(KeyCode::Char(']'), Modifiers::ALT)];
        expected.extend(keys("11;"));
        expected.push(key(KeyCode::Tab, Modifiers::NONE));
        assert_eq!(through(&[b"\x1b]11;\t"]), expected);
    }

    #[test]
    fn other_events_break_a_sequence_and_keep_their_place() {
        let mut f = ReplyFilter::new();
        let now = Instant::now();
        let alt_bracket = key(KeyCode::Char('['), Modifiers::ALT);
        assert!(f.push(alt_bracket.clone(), now).is_empty());
        assert_eq!(f.deadline(), Some(now + GRACE));
        let click = InputEvent::Mouse(MouseEvent {
            x: 1,
            y: 1,
            mouse_buttons: MouseButtons::LEFT,
            modifiers: Modifiers::NONE,
        });
        assert_eq!(f.push(click.clone(), now), vec![alt_bracket.clone(), click]);
        assert_eq!(f.deadline(), None);
        let paste = InputEvent::Paste("p".into());
        f.push(alt_bracket.clone(), now);
        assert_eq!(f.push(paste.clone(), now), vec![alt_bracket, paste]);
        // A sequence that breaks off may start the next one.
        let esc = key(KeyCode::Escape, Modifiers::NONE);
        f.push(esc.clone(), now);
        assert_eq!(f.push(esc.clone(), now), vec![esc.clone()]);
        assert_eq!(f.flush(), vec![esc]);
        // Each part of a sequence moves the deadline on.
        let later = now + Duration::from_millis(10);
        f.push(key(KeyCode::Char(']'), Modifiers::ALT), now);
        f.push(keys("1").remove(0), later);
        assert_eq!(f.deadline(), Some(later + GRACE));
    }
}
