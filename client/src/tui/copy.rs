//! Copy mode: a scrollable view of one window's scrollback and screen, fetched from the daemon on
//! demand, with a cursor, character or line selection, and yank (to the outer terminal's
//! clipboard through OSC 52, done by the caller); `search` finds lines over the window's whole
//! history with the daemon's `search` verb.

mod search;
pub use search::{SearchAnswer, SearchAsk, Searcher};

use protocol::attach::{ClientOp, Row};
use termwiz::input::{KeyCode, KeyEvent, Modifiers};

use super::input::normalize_mods;
use super::text::char_width;

/// Rows asked for per scrollback request.
const CHUNK: u32 = 500;
/// Rows asked for per request while loading up to a line a search found (the daemon's most).
const JUMP_CHUNK: u32 = 10_000;

/// What a key did in copy mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CopyOutcome {
    Stay,
    Exit,
    /// Leave, copying this text.
    Yank(String),
    /// Ask the daemon for the next line matching a pattern (see `search`).
    Search(SearchAsk),
}

#[derive(Debug, Clone)]
pub struct CopyMode {
    pub window: String,
    /// Loaded scrollback rows, oldest first; row `history_first` of the window is `history[0]`.
    history: Vec<Row>,
    history_first: Option<u64>,
    /// The oldest row the window still keeps, as its last answer said (for the scrollbar).
    oldest: Option<u64>,
    /// Older rows than the loaded ones exist (or have not been asked about yet).
    more: bool,
    /// Scrollback requests sent and not answered yet (answers come in the order asked), and
    /// how many of those answers were asked for rows the view has since let go.
    in_flight: u32,
    discard: u32,
    /// The screen as it was on entering, so the view holds still while the program writes.
    screen: Vec<Row>,
    /// Cursor as (line in history+screen, display column).
    pub line: usize,
    pub col: usize,
    /// First line shown.
    pub top: usize,
    anchor: Option<(usize, usize)>,
    line_mode: bool,
    /// Entered by the mouse wheel: scrolling back to the bottom leaves.
    via_wheel: bool,
    pub width: usize,
    pub height: usize,
    /// The number of the screen's first row, learnt from the first history answer.
    screen_first: Option<u64>,
    /// The loaded history stops short of the screen (a search jumped far back): the screen is
    /// not shown until `G` goes back to it.
    gap: bool,
    /// A line a search found, to put the cursor on once its rows are loaded.
    jump: Option<(u64, usize)>,
    search: search::SearchState,
}

impl CopyMode {
    pub fn new(
        window: &str,
        screen: Vec<Row>,
        cursor: (usize, usize),
        width: usize,
        height: usize,
        via_wheel: bool,
    ) -> CopyMode {
        let height = height.max(1);
        let line = cursor.1.min(screen.len().saturating_sub(1));
        CopyMode {
            window: window.to_string(),
            history: Vec::new(),
            history_first: None,
            oldest: None,
            more: true,
            in_flight: 0,
            discard: 0,
            screen,
            line,
            col: cursor.0.min(width.saturating_sub(1)),
            top: 0,
            anchor: None,
            line_mode: false,
            via_wheel,
            width: width.max(1),
            height,
            screen_first: None,
            gap: false,
            jump: None,
            search: search::SearchState::default(),
        }
    }

    pub fn total(&self) -> usize {
        if self.gap {
            self.history.len()
        } else {
            self.history.len() + self.screen.len()
        }
    }

    /// Where the view is among all the rows the window keeps: (first line shown, lines in
    /// all). None until the daemon has said how far back its scrollback goes.
    pub fn scroll_position(&self) -> Option<(usize, usize)> {
        let oldest = self.oldest?;
        let unloaded = match self.history_first {
            Some(first) => first.saturating_sub(oldest),
            // Nothing loaded yet: an empty answer (no scrollback) still says where rows start.
            None if !self.more => 0,
            None => return None,
        };
        let unloaded = usize::try_from(unloaded).unwrap_or(usize::MAX);
        let all = match (self.gap, self.screen_first) {
            // Rows around a far search match: the lines down to the screen count too.
            (true, Some(screen_first)) => usize::try_from(screen_first.saturating_sub(oldest))
                .unwrap_or(usize::MAX)
                .saturating_add(self.screen.len()),
            _ => unloaded.saturating_add(self.total()),
        };
        Some((unloaded + self.top, all))
    }

    pub fn line_row(&self, i: usize) -> Option<&Row> {
        if i < self.history.len() {
            self.history.get(i)
        } else if self.gap {
            None
        } else {
            self.screen.get(i - self.history.len())
        }
    }

    /// The next scrollback request, when the view is near the oldest loaded row and older rows
    /// may exist; at most one is in flight.
    pub fn wanted(&mut self) -> Option<ClientOp> {
        if !self.more || self.in_flight > self.discard {
            return None;
        }
        // Once known, the frozen screen's first row bounds every request, so rows the program
        // wrote since entering never come in as history.
        let before = self.history_first.or(self.screen_first);
        // A search's line further up is loaded in big steps; otherwise only near the top.
        let count = match (self.jump, before) {
            (Some((line, _)), Some(first)) if line < first => {
                (first - line + self.height as u64).min(JUMP_CHUNK as u64) as u32
            }
            _ if self.top > self.height * 2 => return None,
            _ => CHUNK,
        };
        self.in_flight += 1;
        Some(ClientOp::Scrollback {
            window: self.window.clone(),
            before,
            count,
        })
    }

    /// Older rows arrived: put them in front and keep the view where it was.
    pub fn add_history(&mut self, first: u64, rows: Vec<Row>, more: bool, oldest: Option<u64>) {
        self.in_flight = self.in_flight.saturating_sub(1);
        if self.discard > 0 {
            // Asked before a search or G let the loaded rows go.
            self.discard -= 1;
            return;
        }
        if oldest.is_some() {
            self.oldest = oldest;
        }
        if self.screen_first.is_none() {
            // The first answer was for the rows just above the screen: it starts after them.
            self.screen_first = Some(first + rows.len() as u64);
        }
        let rows: Vec<Row> = match self.history_first {
            // Keep only rows older than what we hold (none when the daemon has dropped them).
            Some(known) => {
                let keep = known.saturating_sub(first).min(rows.len() as u64) as usize;
                rows.into_iter().take(keep).collect()
            }
            None => rows,
        };
        let n = rows.len();
        self.more = more && n > 0;
        if n == 0 {
            self.land_jump();
            return;
        }
        self.history_first = Some(first);
        let mut joined = rows;
        joined.append(&mut self.history);
        self.history = joined;
        self.line += n;
        self.top += n;
        if let Some((l, _)) = &mut self.anchor {
            *l += n;
        }
        self.land_jump();
    }

    pub fn resize(&mut self, width: usize, height: usize) {
        self.width = width.max(1);
        self.height = height.max(1);
        self.col = self.col.min(self.width - 1);
        self.follow_cursor();
    }

    fn follow_cursor(&mut self) {
        let last = self.total().saturating_sub(1);
        self.line = self.line.min(last);
        if self.line < self.top {
            self.top = self.line;
        }
        if self.line >= self.top + self.height {
            self.top = self.line + 1 - self.height;
        }
        self.top = self.top.min(self.total().saturating_sub(self.height));
    }

    fn move_by(&mut self, delta: isize) {
        self.line = self.line.saturating_add_signed(delta);
        self.follow_cursor();
    }

    /// Scrolls the view (mouse wheel) by `delta` lines, the cursor kept inside. Returns
    /// [`CopyOutcome::Exit`] when a wheel-entered view scrolls past the bottom.
    pub fn scroll(&mut self, delta: isize) -> CopyOutcome {
        let max_top = self.total().saturating_sub(self.height);
        if delta > 0 && self.top >= max_top && self.via_wheel && self.anchor.is_none() {
            return CopyOutcome::Exit;
        }
        self.top = self.top.saturating_add_signed(delta).min(max_top);
        self.line = self.line.clamp(self.top, self.top + self.height - 1);
        self.line = self.line.min(self.total().saturating_sub(1));
        CopyOutcome::Stay
    }

    pub fn key(&mut self, ev: &KeyEvent) -> CopyOutcome {
        let mods = normalize_mods(ev.modifiers);
        let ctrl = mods.contains(Modifiers::CTRL);
        let page = self.height as isize;
        if self.search.typing() {
            return self.prompt_key(ev.key, ctrl);
        }
        match ev.key {
            KeyCode::Char('/') => self.search.open(false),
            KeyCode::Char('?') => self.search.open(true),
            KeyCode::Char('n') if !ctrl => return self.search_again(false),
            KeyCode::Char('N') => return self.search_again(true),
            KeyCode::Char('q') | KeyCode::Escape => return CopyOutcome::Exit,
            KeyCode::Char('c') if ctrl => return CopyOutcome::Exit,
            KeyCode::UpArrow | KeyCode::ApplicationUpArrow | KeyCode::Char('k') => self.move_by(-1),
            KeyCode::DownArrow | KeyCode::ApplicationDownArrow | KeyCode::Char('j') => {
                self.move_by(1)
            }
            KeyCode::LeftArrow | KeyCode::ApplicationLeftArrow | KeyCode::Char('h') => {
                self.col = self.col.saturating_sub(1)
            }
            KeyCode::RightArrow | KeyCode::ApplicationRightArrow | KeyCode::Char('l') => {
                self.col = (self.col + 1).min(self.width - 1)
            }
            KeyCode::Char('u') if ctrl => self.move_by(-page / 2),
            KeyCode::Char('d') if ctrl => self.move_by(page / 2),
            KeyCode::Char('b') if ctrl => self.move_by(-page),
            KeyCode::Char('f') if ctrl => self.move_by(page),
            KeyCode::PageUp => self.move_by(-page),
            KeyCode::PageDown => self.move_by(page),
            KeyCode::Char('g') | KeyCode::Home => {
                self.line = 0;
                self.follow_cursor();
            }
            KeyCode::Char('G') | KeyCode::End => {
                if self.gap {
                    self.back_to_screen();
                }
                self.line = self.total().saturating_sub(1);
                self.follow_cursor();
            }
            KeyCode::Char('0') => self.col = 0,
            KeyCode::Char('$') => {
                self.col = self
                    .line_row(self.line)
                    .map(|r| {
                        line_text(r)
                            .trim_end()
                            .chars()
                            .map(char_width)
                            .sum::<usize>()
                    })
                    .unwrap_or(0)
                    .saturating_sub(1)
                    .min(self.width - 1)
            }
            KeyCode::Char('v') | KeyCode::Char(' ') => {
                self.line_mode = false;
                self.anchor = match self.anchor {
                    Some(_) => None,
                    None => Some((self.line, self.col)),
                };
            }
            KeyCode::Char('V') => {
                self.line_mode = true;
                self.anchor = match self.anchor {
                    Some(_) => None,
                    None => Some((self.line, 0)),
                };
            }
            KeyCode::Char('y') | KeyCode::Enter => return CopyOutcome::Yank(self.selected_text()),
            _ => {}
        }
        CopyOutcome::Stay
    }

    /// Ordered selection bounds ((line, col), (line, col)), inclusive.
    fn bounds(&self) -> Option<((usize, usize), (usize, usize))> {
        let a = self.anchor?;
        let b = (self.line, self.col);
        Some(if a <= b { (a, b) } else { (b, a) })
    }

    /// Selected display columns of line `i` as [start, end), if any.
    pub fn selection_on(&self, i: usize) -> Option<(usize, usize)> {
        let ((l0, c0), (l1, c1)) = self.bounds()?;
        if i < l0 || i > l1 {
            return None;
        }
        if self.line_mode {
            return Some((0, self.width));
        }
        let start = if i == l0 { c0 } else { 0 };
        let end = if i == l1 { c1 + 1 } else { self.width };
        Some((start, end))
    }

    /// The selection as text (the cursor's line when nothing is selected): rows joined by
    /// newlines, trailing blanks of each row dropped.
    pub fn selected_text(&self) -> String {
        let (from, to) = self
            .bounds()
            .unwrap_or(((self.line, 0), (self.line, usize::MAX)));
        let mut lines = Vec::new();
        for i in from.0..=to.0 {
            let Some(row) = self.line_row(i) else {
                continue;
            };
            let text = line_text(row);
            let (start, end) = if self.line_mode || self.anchor.is_none() {
                (0, usize::MAX)
            } else {
                (
                    if i == from.0 { from.1 } else { 0 },
                    if i == to.0 { to.1 + 1 } else { usize::MAX },
                )
            };
            lines.push(columns(&text, start, end).trim_end().to_string());
        }
        lines.join("\n")
    }

    pub fn has_selection(&self) -> bool {
        self.anchor.is_some()
    }

    /// The line shown at `row` of the view.
    fn view_line(&self, row: usize) -> usize {
        (self.top + row).min(self.total().saturating_sub(1))
    }

    /// A mouse selection starts at (`row` of the view, display column `col`).
    pub fn mouse_anchor(&mut self, row: usize, col: usize) {
        self.line_mode = false;
        self.anchor = Some((self.view_line(row), col.min(self.width - 1)));
    }

    /// A mouse selection reaches (`row` of the view, `col`).
    pub fn mouse_to(&mut self, row: usize, col: usize) {
        self.line = self.view_line(row);
        self.col = col.min(self.width - 1);
    }

    /// Selects the word under (`row` of the view, `col`), `extra` being the punctuation that
    /// counts as word characters. False when no word is there.
    pub fn select_word(&mut self, row: usize, col: usize, extra: &str) -> bool {
        let line = self.view_line(row);
        let Some((start, end)) = self
            .line_row(line)
            .and_then(|r| word_bounds(&line_text(r), col, extra))
        else {
            return false;
        };
        self.line_mode = false;
        self.anchor = Some((line, start));
        self.line = line;
        self.col = (end - 1).min(self.width - 1);
        true
    }
}

/// Display columns [start, end) of the word covering column `col` of `text`: a run of letters,
/// digits and characters of `extra` (`appearance.word_characters`). None off a word.
pub fn word_bounds(text: &str, col: usize, extra: &str) -> Option<(usize, usize)> {
    let is_word = |c: char| c.is_alphanumeric() || extra.contains(c);
    // (first column, width, part of a word) per cell; combining marks ride on their base.
    let mut cells: Vec<(usize, usize, bool)> = Vec::new();
    let mut x = 0;
    for c in text.chars() {
        let w = char_width(c);
        if w == 0 {
            continue;
        }
        cells.push((x, w, is_word(c)));
        x += w;
    }
    let i = cells
        .iter()
        .position(|&(s, w, _)| col >= s && col < s + w)?;
    if !cells[i].2 {
        return None;
    }
    let first = cells[..i].iter().rposition(|c| !c.2).map_or(0, |j| j + 1);
    let last = cells[i..]
        .iter()
        .position(|c| !c.2)
        .map_or(cells.len(), |j| i + j)
        - 1;
    Some((cells[first].0, cells[last].0 + cells[last].1))
}

/// A row's text.
pub fn line_text(row: &Row) -> String {
    row.runs.iter().map(|r| r.text.as_str()).collect()
}

/// The characters of `text` covering display columns [start, end).
fn columns(text: &str, start: usize, end: usize) -> String {
    let mut col = 0;
    let mut out = String::new();
    for c in text.chars() {
        let w = char_width(c);
        if col >= end {
            break;
        }
        if col + w.max(1) > start {
            out.push(c);
        }
        col += w;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::attach::Run;

    pub(super) fn row(s: &str) -> Row {
        Row {
            runs: vec![Run {
                text: s.to_string(),
                style: Default::default(),
                link: None,
            }],
        }
    }

    fn key(c: char) -> KeyEvent {
        KeyEvent {
            key: KeyCode::Char(c),
            modifiers: Modifiers::NONE,
        }
    }

    fn screen() -> Vec<Row> {
        vec![row("$ echo one"), row("one"), row("$ ")]
    }

    #[test]
    fn fetches_history_and_keeps_the_view() {
        let mut c = CopyMode::new("w", screen(), (2, 2), 20, 3, false);
        assert_eq!(
            c.wanted(),
            Some(ClientOp::Scrollback {
                window: "w".into(),
                before: None,
                count: CHUNK
            })
        );
        assert_eq!(c.wanted(), None, "one request in flight");
        assert_eq!(c.scroll_position(), None, "how far back is not known yet");
        c.add_history(10, vec![row("old 10"), row("old 11")], true, Some(5));
        assert_eq!(c.total(), 5);
        // Rows 5..10 are kept but not loaded: the view's top (line 2) is line 7 of 10.
        assert_eq!(c.scroll_position(), Some((7, 10)));
        assert_eq!(c.line, 4, "cursor stays on the same row");
        assert_eq!(c.top, 2);
        assert_eq!(line_text(c.line_row(0).unwrap()), "old 10");
        // Scrolling to the top asks for older rows, before the first one held.
        c.key(&key('g'));
        assert_eq!(c.top, 0);
        assert_eq!(
            c.wanted(),
            Some(ClientOp::Scrollback {
                window: "w".into(),
                before: Some(10),
                count: CHUNK
            })
        );
        c.add_history(9, vec![row("old 9")], false, Some(9));
        assert_eq!(c.total(), 6);
        assert_eq!(c.line, 1);
        assert_eq!(c.wanted(), None, "no more history");
        assert_eq!(c.scroll_position(), Some((1, 6)), "the view held still");
    }

    #[test]
    fn selection_and_yank() {
        let mut c = CopyMode::new("w", screen(), (0, 0), 20, 3, false);
        c.add_history(0, vec![], false, None);
        // Line yank without a selection.
        assert_eq!(c.key(&key('y')), CopyOutcome::Yank("$ echo one".into()));
        c.key(&key('l'));
        c.key(&key('l'));
        c.key(&key('v'));
        c.key(&key('j'));
        assert_eq!(c.selection_on(0), Some((2, 20)));
        assert_eq!(c.selection_on(1), Some((0, 3)));
        assert_eq!(c.selected_text(), "echo one\none");
        c.key(&key('V'));
        assert!(!c.has_selection(), "V while selecting clears");
        c.key(&key('V'));
        c.key(&key('j'));
        assert_eq!(c.selected_text(), "one\n$");
        assert_eq!(c.key(&key('q')), CopyOutcome::Exit);
    }

    #[test]
    fn wheel_entered_view_leaves_at_the_bottom() {
        let mut c = CopyMode::new("w", screen(), (0, 2), 20, 3, true);
        c.add_history(
            0,
            (0..10).map(|i| row(&format!("h{i}"))).collect(),
            false,
            Some(0),
        );
        assert_eq!(c.top, 10);
        assert_eq!(c.scroll(-3), CopyOutcome::Stay);
        assert_eq!(c.top, 7);
        assert_eq!(c.scroll(3), CopyOutcome::Stay);
        assert_eq!(c.scroll(3), CopyOutcome::Exit);
    }

    #[test]
    fn word_bounds_take_in_the_word_characters() {
        let text = "see https://x.org/a?b=1 now";
        let extra = "@-./_~?&=%+#";
        // `:` is not in the list, so the scheme is a word by itself.
        assert_eq!(word_bounds(text, 5, extra), Some((4, 9)));
        assert_eq!(word_bounds(text, 12, extra), Some((10, 23)));
        assert_eq!(word_bounds(text, 12, ""), Some((12, 13)));
        assert_eq!(word_bounds(text, 3, extra), None);
        assert_eq!(word_bounds(text, 40, extra), None);
        assert_eq!(word_bounds("漢字 x", 2, ""), Some((0, 4)));
    }

    #[test]
    fn mouse_selection_and_word() {
        let mut c = CopyMode::new("w", screen(), (0, 0), 10, 3, false);
        c.mouse_anchor(0, 2);
        c.mouse_to(1, 1);
        assert_eq!(c.selected_text(), "echo one\non");
        // Dragging up: the press stays one end.
        c.mouse_anchor(1, 2);
        c.mouse_to(0, 7);
        assert_eq!(c.selected_text(), "one\none");
        assert!(c.select_word(0, 3, ""));
        assert_eq!(c.selected_text(), "echo");
        assert!(!c.select_word(2, 0, ""));
    }

    #[test]
    fn wide_characters_count_two_columns() {
        assert_eq!(columns("a漢b", 1, 3), "漢");
        assert_eq!(columns("a漢b", 2, 4), "漢b");
        assert_eq!(columns("abc", 5, 9), "");
    }
}
