//! Searching in copy mode: `/` (towards newer lines) and `?` (towards older ones) read a
//! pattern, `n` and `N` repeat the last search. The daemon's `search` verb does the work over
//! the window's whole history, disk included, on a connection of its own off the draw path
//! ([`Searcher`]); the copy view then loads the rows up to the line found, or, when that line
//! is far above what is loaded, shows the rows around it alone until `G` goes back to the
//! screen.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};

use serde_json::json;
use termwiz::input::KeyCode;

use super::{char_width, CopyMode, CopyOutcome};
use crate::json_client::JsonClient;

/// Longest pattern typed at the prompt, in characters.
const MAX_PATTERN_CHARS: usize = 256;
/// A line found at most this far above the loaded rows is reached by loading them all; a line
/// further up is shown with only this many rows around it.
const LOAD_UP_TO: u64 = 20_000;
/// Rows loaded below a far line found, so the view around it is full.
const CONTEXT_BELOW: u64 = 200;

/// The daemon's answer to a search: the line found and its text, none, or why it failed.
pub type SearchAnswer = Result<Option<(u64, String)>, String>;

/// One search for the daemon: the first line matching `pattern` before line `from` (`up`) or
/// from `from` on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchAsk {
    pub window: String,
    pub pattern: String,
    pub up: bool,
    pub from: u64,
}

#[derive(Debug, Clone, Default)]
pub(super) struct SearchState {
    /// The pattern being typed, and whether it searches upwards.
    prompt: Option<(bool, String)>,
    /// The last pattern searched and its direction, for `n` and `N`.
    last: Option<(String, bool)>,
    /// What the dock shows: the prompt, "searching", a miss, an error.
    status: Option<String>,
    /// A search has been asked and not answered.
    waiting: bool,
}

impl SearchState {
    pub(super) fn typing(&self) -> bool {
        self.prompt.is_some()
    }

    pub(super) fn open(&mut self, up: bool) {
        self.prompt = Some((up, String::new()));
        self.status = None;
    }
}

impl CopyMode {
    /// What the dock shows for the search, if anything.
    pub fn search_status(&self) -> Option<String> {
        if let Some((up, text)) = &self.search.prompt {
            return Some(format!("{}{text}", if *up { "?" } else { "/" }));
        }
        if self.search.waiting {
            return Some("searching...".into());
        }
        if let Some(status) = &self.search.status {
            return Some(status.clone());
        }
        self.gap
            .then(|| "newer lines are not loaded · G back to the screen".into())
    }

    pub(super) fn prompt_key(&mut self, key: KeyCode, ctrl: bool) -> CopyOutcome {
        let Some((up, text)) = &mut self.search.prompt else {
            return CopyOutcome::Stay;
        };
        match key {
            KeyCode::Escape => self.search.prompt = None,
            KeyCode::Char('c') if ctrl => self.search.prompt = None,
            // The guard pops the last character; on an empty prompt Backspace leaves it, as in vi.
            KeyCode::Backspace if text.pop().is_none() => self.search.prompt = None,
            KeyCode::Enter => {
                let (up, text) = (*up, std::mem::take(text));
                self.search.prompt = None;
                // An empty pattern repeats the last one in the new direction, as in vi.
                let pattern = match (text.is_empty(), &self.search.last) {
                    (false, _) => text,
                    (true, Some((last, _))) => last.clone(),
                    (true, None) => return CopyOutcome::Stay,
                };
                self.search.last = Some((pattern, up));
                return self.search_again(false);
            }
            KeyCode::Char(c) if !ctrl && text.chars().count() < MAX_PATTERN_CHARS => text.push(c),
            _ => {}
        }
        CopyOutcome::Stay
    }

    /// `n` (the last direction) or `N` (`reverse`d): the next match from the cursor.
    pub(super) fn search_again(&mut self, reverse: bool) -> CopyOutcome {
        let Some((pattern, up)) = self.search.last.clone() else {
            self.search.status = Some("no search yet: / searches down, ? up".into());
            return CopyOutcome::Stay;
        };
        let Some(at) = self.line_number(self.line) else {
            self.search.status = Some("the history is still loading; try again".into());
            return CopyOutcome::Stay;
        };
        let up = up != reverse;
        self.search.waiting = true;
        self.search.status = None;
        CopyOutcome::Search(SearchAsk {
            window: self.window.clone(),
            pattern,
            up,
            // Upwards the daemon searches lines before `from`; downwards from it on.
            from: if up { at } else { at + 1 },
        })
    }

    /// The daemon's answer to the last search: the line found (with its text), none, or why
    /// it failed. An answer nobody here is waiting for (asked in an earlier copy view) is
    /// ignored.
    pub fn found(&mut self, answer: SearchAnswer) {
        if !std::mem::take(&mut self.search.waiting) {
            return;
        }
        let (line, text) = match answer {
            Ok(Some(found)) => found,
            Ok(None) => {
                let (pattern, up) = self.search.last.clone().unwrap_or_default();
                let way = if up { "above" } else { "below" };
                self.search.status = Some(format!("no match for {pattern} {way}"));
                return;
            }
            Err(why) => {
                self.search.status = Some(format!("search failed: {why}"));
                return;
            }
        };
        let Some(screen_first) = self.screen_first else {
            return;
        };
        let col = self.match_column(&text);
        let screen_end = screen_first + self.screen.len() as u64;
        if line >= screen_end {
            // The daemon searched the live screen; this view holds the one it entered with.
            self.search.status = Some(format!(
                "line {line} came after this view: leave copy mode to see it"
            ));
            return;
        }
        if line >= screen_first {
            if self.gap {
                self.back_to_screen();
            }
        } else {
            let loaded_from = self.history_first.unwrap_or(screen_first);
            let loaded_end = if self.gap {
                loaded_from + self.history.len() as u64
            } else {
                screen_first
            };
            let loaded = (loaded_from..loaded_end).contains(&line);
            let near = line < loaded_from && loaded_from - line <= LOAD_UP_TO;
            if !loaded && !near {
                self.show_around(line, screen_first);
            }
        }
        self.jump = Some((line, col));
        self.land_jump();
    }

    /// Lets the loaded rows go and loads those around `line` alone (the screen stays out of
    /// view unless they reach it).
    fn show_around(&mut self, line: u64, screen_first: u64) {
        let end = (line + CONTEXT_BELOW).min(screen_first);
        self.history.clear();
        self.history_first = Some(end);
        self.gap = end < screen_first;
        self.more = true;
        self.discard = self.in_flight;
        self.anchor = None;
        self.line = 0;
        self.top = 0;
    }

    /// The display column where the last pattern first matches `text` (0 when it cannot tell).
    fn match_column(&self, text: &str) -> usize {
        let Some((pattern, _)) = &self.search.last else {
            return 0;
        };
        let Ok(re) = regex::Regex::new(pattern) else {
            return 0;
        };
        re.find(text)
            .map(|m| text[..m.start()].chars().map(char_width).sum())
            .unwrap_or(0)
    }

    /// Puts the cursor on the line a search found once it is loaded.
    pub(super) fn land_jump(&mut self) {
        let Some((line, col)) = self.jump else {
            return;
        };
        let Some(index) = self.index_of(line) else {
            // Still above what is loaded, and nothing older left: the daemon has dropped it.
            if !self.more {
                self.jump = None;
                self.search.status = Some(format!("line {line} is no longer kept"));
                self.follow_cursor();
            }
            return;
        };
        self.jump = None;
        self.anchor = None;
        self.line = index;
        self.col = col.min(self.width - 1);
        // The line found sits a third of the way down the view, with what led to it above.
        self.top = index.saturating_sub(self.height / 3);
        self.follow_cursor();
    }

    /// Back from rows around a far match to the screen: the history is loaded afresh.
    pub(super) fn back_to_screen(&mut self) {
        self.history.clear();
        self.history_first = None;
        self.gap = false;
        self.more = true;
        self.discard = self.in_flight;
        self.anchor = None;
        self.jump = None;
        self.line = self.screen.len().saturating_sub(1);
        self.top = 0;
        self.follow_cursor();
    }

    /// The window's number of the line at index `i` of the view, when known.
    fn line_number(&self, i: usize) -> Option<u64> {
        let loaded = self.history.len();
        match self.history_first {
            Some(first) if i < loaded => Some(first + i as u64),
            _ if self.gap => None,
            _ => self.screen_first.map(|s| s + (i - loaded) as u64),
        }
    }

    /// The index in the view of the window's line `line`, when it is loaded.
    fn index_of(&self, line: u64) -> Option<usize> {
        let first = self.history_first.or(self.screen_first)?;
        let index = usize::try_from(line.checked_sub(first)?).ok()?;
        (index < self.total()).then_some(index)
    }
}

/// Runs searches on a thread with a connection of its own, so a long one never holds up a
/// frame. One at a time: a new search replaces the answer of one still running.
pub struct Searcher {
    socket: PathBuf,
    running: Option<(SearchAsk, Receiver<SearchAnswer>)>,
}

impl Searcher {
    pub fn new(socket: &Path) -> Searcher {
        Searcher {
            socket: socket.to_path_buf(),
            running: None,
        }
    }

    pub fn busy(&self) -> bool {
        self.running.is_some()
    }

    pub fn start(&mut self, session: &str, ask: SearchAsk) {
        let (tx, rx) = mpsc::channel();
        let socket = self.socket.clone();
        let params = json!({
            "session": session,
            "window": ask.window,
            "pattern": ask.pattern,
            "order": if ask.up { "newest" } else { "oldest" },
            "from": ask.from,
            "limit": 1,
        });
        std::thread::spawn(move || {
            let answer = JsonClient::connect(&socket)
                .and_then(|mut c| c.call("search", Some(&params)))
                .map_err(|f| {
                    let message = &f.to_json()["error"]["message"];
                    crate::output::escape_controls(message.as_str().unwrap_or("no answer"))
                        .into_owned()
                })
                .map(|reply| {
                    let found = &reply["matches"][0];
                    found["line"].as_u64().map(|line| {
                        let text = found["text"].as_str().unwrap_or_default().to_string();
                        (line, text)
                    })
                });
            // The copy view may have gone meanwhile: nobody to tell.
            let _ = tx.send(answer);
        });
        self.running = Some((ask, rx));
    }

    /// The answer to the running search, once it has come: the window it was for, and it.
    pub fn take(&mut self) -> Option<(String, SearchAnswer)> {
        let (ask, rx) = self.running.as_ref()?;
        let answer = match rx.try_recv() {
            Ok(answer) => answer,
            Err(mpsc::TryRecvError::Empty) => return None,
            Err(mpsc::TryRecvError::Disconnected) => Err("the search thread stopped".into()),
        };
        let window = ask.window.clone();
        self.running = None;
        Some((window, answer))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::row;
    use super::super::{line_text, CHUNK, JUMP_CHUNK};
    use super::*;
    use protocol::attach::{ClientOp, Row};
    use termwiz::input::{KeyEvent, Modifiers};

    fn rows(first: u64, n: u64) -> Vec<Row> {
        (first..first + n)
            .map(|i| row(&format!("line {i}")))
            .collect()
    }

    fn press(c: &mut CopyMode, keys: &str) -> CopyOutcome {
        let mut last = CopyOutcome::Stay;
        for ch in keys.chars() {
            let key = if ch == '\n' {
                KeyCode::Enter
            } else {
                KeyCode::Char(ch)
            };
            last = c.key(&KeyEvent {
                key,
                modifiers: Modifiers::NONE,
            });
        }
        last
    }

    /// A copy view of a 3-row screen whose first row is line `screen_first`, with the 10 lines
    /// above it loaded.
    fn view(screen_first: u64) -> CopyMode {
        let screen = vec![row("$ make"), row("ok"), row("$ ")];
        let mut c = CopyMode::new("w", screen, (0, 2), 40, 3, false);
        assert!(c.wanted().is_some());
        c.add_history(
            screen_first - 10,
            rows(screen_first - 10, 10),
            true,
            Some(0),
        );
        c
    }

    #[test]
    fn the_prompt_asks_from_the_cursor_and_a_near_match_moves_it() {
        let mut c = view(110);
        assert_eq!(
            c.line, 12,
            "the cursor is on the screen's last row, line 112"
        );
        press(&mut c, "?err");
        assert_eq!(c.search_status().as_deref(), Some("?err"));
        let asked = press(&mut c, "\n");
        assert_eq!(
            asked,
            CopyOutcome::Search(SearchAsk {
                window: "w".into(),
                pattern: "err".into(),
                up: true,
                from: 112,
            })
        );
        assert_eq!(c.search_status().as_deref(), Some("searching..."));
        c.found(Ok(Some((105, "line 105 err".into()))));
        assert_eq!((c.line, c.col), (5, 9), "on line 105, at the match");
        assert_eq!(c.search_status(), None);
        // n goes on upwards from there; N turns down, starting below the cursor.
        match press(&mut c, "n") {
            CopyOutcome::Search(ask) => assert_eq!((ask.up, ask.from), (true, 105)),
            other => panic!("{other:?}"),
        }
        c.found(Ok(None));
        assert_eq!(c.search_status().as_deref(), Some("no match for err above"));
        match press(&mut c, "N") {
            CopyOutcome::Search(ask) => assert_eq!((ask.up, ask.from), (false, 106)),
            other => panic!("{other:?}"),
        }
        c.found(Err("bad pattern".into()));
        assert_eq!(
            c.search_status().as_deref(),
            Some("search failed: bad pattern")
        );
    }

    #[test]
    fn escape_leaves_the_prompt_and_n_needs_a_search() {
        let mut c = view(110);
        press(&mut c, "/ab");
        c.key(&KeyEvent {
            key: KeyCode::Escape,
            modifiers: Modifiers::NONE,
        });
        assert_eq!(c.search_status(), None);
        assert_eq!(press(&mut c, "n"), CopyOutcome::Stay);
        assert!(c.search_status().unwrap().starts_with("no search yet"));
        // q in the prompt is part of the pattern, not a way out.
        assert_eq!(press(&mut c, "/q"), CopyOutcome::Stay);
        assert_eq!(c.search_status().as_deref(), Some("/q"));
    }

    #[test]
    fn a_match_above_the_loaded_rows_loads_up_to_it() {
        let mut c = view(1_000_010);
        press(&mut c, "?x\n");
        c.found(Ok(Some((990_000, "x".into()))));
        assert_eq!(
            c.wanted(),
            Some(ClientOp::Scrollback {
                window: "w".into(),
                before: Some(1_000_000),
                count: JUMP_CHUNK,
            })
        );
        c.add_history(990_000, rows(990_000, 10_000), true, Some(0));
        assert_eq!(c.line, 0, "on line 990,000");
        assert_eq!(c.total(), 10_010 + 3, "still joined to the screen");
        assert_eq!(c.search_status(), None);
    }

    #[test]
    fn a_far_match_shows_its_rows_alone_until_g() {
        let mut c = view(1_000_010);
        press(&mut c, "?x\n");
        c.found(Ok(Some((100, "x".into()))));
        assert_eq!(
            c.wanted(),
            Some(ClientOp::Scrollback {
                window: "w".into(),
                before: Some(100 + CONTEXT_BELOW),
                count: (CONTEXT_BELOW + 3) as u32,
            })
        );
        c.add_history(0, rows(0, 100 + CONTEXT_BELOW), false, Some(0));
        assert_eq!(c.line, 100);
        assert_eq!(line_text(c.line_row(c.line).unwrap()), "line 100");
        assert_eq!(c.total(), 300, "the screen is not joined to these rows");
        assert!(c.search_status().unwrap().contains("G back to the screen"));
        // Searching down from here finds lines on the screen: back to it.
        press(&mut c, "/ok\n");
        c.found(Ok(Some((1_000_011, "ok".into()))));
        assert_eq!(c.total(), 3);
        assert_eq!(c.line, 1);
        // History loads afresh above the screen the view entered with.
        assert_eq!(
            c.wanted(),
            Some(ClientOp::Scrollback {
                window: "w".into(),
                before: Some(1_000_010),
                count: CHUNK,
            })
        );
    }

    #[test]
    fn a_match_between_far_rows_and_the_screen_is_shown_around_it() {
        let mut c = view(1_000_010);
        press(&mut c, "?x\n");
        c.found(Ok(Some((100, "x".into()))));
        c.wanted();
        c.add_history(0, rows(0, 300), false, Some(0));
        press(&mut c, "/y\n");
        c.found(Ok(Some((500_000, "y".into()))));
        assert_eq!(
            c.wanted(),
            Some(ClientOp::Scrollback {
                window: "w".into(),
                before: Some(500_000 + CONTEXT_BELOW),
                count: (CONTEXT_BELOW + 3) as u32,
            })
        );
        c.add_history(499_997, rows(499_997, 203), true, Some(0));
        assert_eq!(line_text(c.line_row(c.line).unwrap()), "line 500000");
    }

    #[test]
    fn answers_asked_for_rows_let_go_are_dropped() {
        let mut c = view(1_000_010);
        press(&mut c, "?x\n");
        c.found(Ok(Some((100, "x".into()))));
        assert!(c.wanted().is_some());
        // G before the rows around line 100 came: their answer must not join the screen.
        press(&mut c, "G");
        let fresh = c.wanted();
        assert!(
            fresh.is_some(),
            "G asks for the rows above the screen at once"
        );
        c.add_history(0, rows(0, 300), false, Some(0));
        assert_eq!(c.total(), 3, "the late answer was dropped");
        c.add_history(1_000_000, rows(1_000_000, 10), true, Some(0));
        assert_eq!(c.total(), 13);
        assert_eq!(line_text(c.line_row(0).unwrap()), "line 1000000");
    }

    #[test]
    fn stray_and_too_new_answers_move_nothing() {
        let mut c = view(110);
        let before = (c.line, c.col);
        // Nobody asked (an answer for an earlier copy view).
        c.found(Ok(Some((105, "x".into()))));
        assert_eq!((c.line, c.col), before);
        assert_eq!(c.search_status(), None);
        // Written after the view was entered: the view cannot show it.
        press(&mut c, "/x\n");
        c.found(Ok(Some((113, "x".into()))));
        assert_eq!((c.line, c.col), before);
        assert!(c.search_status().unwrap().contains("after this view"));
    }

    #[test]
    fn a_match_the_daemon_has_dropped_since_ends_the_jump() {
        let mut c = view(110);
        c.key(&KeyEvent {
            key: KeyCode::Char('g'),
            modifiers: Modifiers::NONE,
        });
        press(&mut c, "?x\n");
        c.found(Ok(Some((50, "x".into()))));
        assert!(c.wanted().is_some());
        // The daemon dropped everything before line 100 meanwhile: no rows, none older.
        c.add_history(100, vec![], false, Some(100));
        assert_eq!(c.wanted(), None, "no more asking");
        assert_eq!(
            c.search_status().as_deref(),
            Some("line 50 is no longer kept")
        );
        assert!(c.line < c.total());
    }

    #[test]
    fn g_goes_back_to_the_screen() {
        let mut c = view(1_000_010);
        press(&mut c, "?x\n");
        c.found(Ok(Some((100, "x".into()))));
        c.wanted();
        c.add_history(0, rows(0, 300), true, Some(0));
        press(&mut c, "G");
        assert_eq!(c.total(), 3);
        assert_eq!(c.line, 2);
        assert_eq!(c.search_status(), None);
    }
}
