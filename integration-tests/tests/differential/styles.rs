//! Reading a styled capture (tuios's or tmux's) into cells, each with the style SGR gave it,
//! so the two sides are compared cell by cell whatever SGR spelling each one chose.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Style {
    pub(crate) fg: Option<u32>,
    pub(crate) bg: Option<u32>,
    pub(crate) attrs: u16,
}

const BOLD: u16 = 1;
const DIM: u16 = 2;
const ITALIC: u16 = 4;
const UNDERLINE: u16 = 8;
const DOUBLE_UNDERLINE: u16 = 16;
const CURLY_UNDERLINE: u16 = 32;
const DOTTED_UNDERLINE: u16 = 64;
const DASHED_UNDERLINE: u16 = 128;
const BLINK: u16 = 256;
const INVERSE: u16 = 512;
const HIDDEN: u16 = 1024;
const STRIKE: u16 = 2048;
const ANY_UNDERLINE: u16 =
    UNDERLINE | DOUBLE_UNDERLINE | CURLY_UNDERLINE | DOTTED_UNDERLINE | DASHED_UNDERLINE;

impl Style {
    /// Applies one SGR sequence's parameters (`;`-separated, `:` sub-parameters).
    fn apply(&mut self, params: &str) {
        let mut items: Vec<Vec<Option<u32>>> = params
            .split(';')
            .map(|p| p.split(':').map(|s| s.parse().ok()).collect())
            .collect();
        if params.is_empty() {
            items = vec![vec![Some(0)]];
        }
        let mut i = 0;
        while i < items.len() {
            let item = &items[i];
            let code = item[0].unwrap_or(0);
            i += 1;
            match code {
                0 => *self = Style::default(),
                1 => self.attrs |= BOLD,
                2 => self.attrs |= DIM,
                3 => self.attrs |= ITALIC,
                4 => {
                    self.attrs &= !ANY_UNDERLINE;
                    self.attrs |= match item.get(1).copied().flatten() {
                        None | Some(1) => UNDERLINE,
                        Some(0) => 0,
                        Some(2) => DOUBLE_UNDERLINE,
                        Some(3) => CURLY_UNDERLINE,
                        Some(4) => DOTTED_UNDERLINE,
                        Some(_) => DASHED_UNDERLINE,
                    };
                }
                5 | 6 => self.attrs |= BLINK,
                7 => self.attrs |= INVERSE,
                8 => self.attrs |= HIDDEN,
                9 => self.attrs |= STRIKE,
                21 => {
                    self.attrs &= !ANY_UNDERLINE;
                    self.attrs |= DOUBLE_UNDERLINE;
                }
                22 => self.attrs &= !(BOLD | DIM),
                23 => self.attrs &= !ITALIC,
                24 => self.attrs &= !ANY_UNDERLINE,
                25 => self.attrs &= !BLINK,
                27 => self.attrs &= !INVERSE,
                28 => self.attrs &= !HIDDEN,
                29 => self.attrs &= !STRIKE,
                30..=37 => self.fg = Some(code - 30),
                39 => self.fg = None,
                40..=47 => self.bg = Some(code - 40),
                49 => self.bg = None,
                90..=97 => self.fg = Some(code - 90 + 8),
                100..=107 => self.bg = Some(code - 100 + 8),
                38 | 48 | 58 => {
                    // Either sub-parameters in this item, or the next items.
                    let rest: Vec<Option<u32>> = if item.len() > 1 {
                        let mut r = item[1..].to_vec();
                        // 38:2::r:g:b carries an empty colour-space id.
                        if r.first() == Some(&Some(2)) && r.len() == 5 {
                            r.remove(1);
                        }
                        r
                    } else {
                        let kind = items.get(i).and_then(|p| p[0]);
                        let n = if kind == Some(2) { 4 } else { 2 };
                        let r = items[i..(i + n).min(items.len())]
                            .iter()
                            .map(|p| p[0])
                            .collect();
                        i += n;
                        r
                    };
                    let color = match rest.as_slice() {
                        [Some(5), Some(n)] => Some(*n),
                        [Some(2), Some(r), Some(g), Some(b)] => {
                            Some(0x100_0000 | (r << 16) | (g << 8) | b)
                        }
                        _ => None,
                    };
                    match code {
                        38 => self.fg = color,
                        48 => self.bg = color,
                        _ => {} // underline colour: tmux and tuios both keep it; not compared
                    }
                }
                _ => {}
            }
        }
    }
}

fn is_zero_width(c: char) -> bool {
    matches!(c as u32, 0x300..=0x36f | 0x200b..=0x200f | 0xfe00..=0xfe0f | 0x20d0..=0x20ff)
}

/// The cells of a styled capture, row by row: (text, style), trailing default blanks dropped.
pub(crate) fn styled_rows(body: &str) -> Vec<Vec<(String, Style)>> {
    let mut rows = Vec::new();
    let mut style = Style::default();
    for line in body.split('\n') {
        let mut cells: Vec<(String, Style)> = Vec::new();
        let mut chars = line.chars().peekable();
        while let Some(ch) = chars.next() {
            match ch {
                '\x1b' => match chars.next() {
                    Some('[') => {
                        let mut params = String::new();
                        let mut fin = ' ';
                        for p in chars.by_ref() {
                            if ('\x40'..='\x7e').contains(&p) {
                                fin = p;
                                break;
                            }
                            params.push(p);
                        }
                        if fin == 'm' {
                            style.apply(&params);
                        }
                    }
                    Some(']') => {
                        // OSC (links): skip to ST or BEL.
                        while let Some(p) = chars.next() {
                            if p == '\x07' || (p == '\x1b' && chars.next_if_eq(&'\\').is_some()) {
                                break;
                            }
                        }
                    }
                    _ => {}
                },
                '\x08' => {}
                c if is_zero_width(c) => {
                    if let Some(last) = cells.last_mut() {
                        last.0.push(c);
                    }
                }
                c => cells.push((c.to_string(), style)),
            }
        }
        while cells
            .last()
            .is_some_and(|(t, s)| t == " " && *s == Style::default())
        {
            cells.pop();
        }
        rows.push(cells);
        // Each row of both captures starts from the default pen.
        style = Style::default();
    }
    rows
}
