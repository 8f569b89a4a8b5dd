//! Text helpers shared by the client's state and its drawing: display widths, wrapping, window
//! names, command-line words. A leaf: it uses no other module of the client, so anything may
//! use it without making a circle.

use protocol::attach::{Row, WindowView};
use termwiz::cell::grapheme_column_width;

/// Display columns of one character (0 for combining marks, 2 for wide ones).
pub fn char_width(c: char) -> usize {
    if c.is_ascii() {
        // Printable ASCII is one column; controls are drawn as spaces by the canvas.
        return 1;
    }
    let mut buf = [0u8; 4];
    grapheme_column_width(c.encode_utf8(&mut buf), None)
}

/// Wraps prose to `width` columns at spaces (words longer than a line are cut).
pub fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    for para in text.split('\n') {
        let mut cur = String::new();
        let mut used = 0;
        for word in para.split(' ').filter(|w| !w.is_empty()) {
            let ww: usize = word.chars().map(char_width).sum();
            if ww > width {
                for piece in wrap(word, width) {
                    if !cur.is_empty() {
                        out.push(std::mem::take(&mut cur));
                    }
                    used = piece.chars().map(char_width).sum();
                    cur = piece;
                }
                continue;
            }
            if used > 0 && used + 1 + ww > width {
                out.push(std::mem::take(&mut cur));
                used = 0;
            }
            if used > 0 {
                cur.push(' ');
                used += 1;
            }
            cur.push_str(word);
            used += ww;
        }
        out.push(cur);
    }
    out
}

/// Wraps text to `width` columns (hard breaks at newlines).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    for line in text.split('\n') {
        let mut cur = String::new();
        let mut used = 0;
        for ch in line.chars() {
            let cw = char_width(ch);
            if used + cw > width {
                out.push(std::mem::take(&mut cur));
                used = 0;
            }
            cur.push(ch);
            used += cw;
        }
        out.push(cur);
    }
    out
}

/// The OSC 8 link of the cell at `col` of `row`, if any. Wide characters take two columns.
pub fn link_at(row: &Row, col: u16) -> Option<&str> {
    let mut x = 0usize;
    let col = usize::from(col);
    for run in &row.runs {
        for c in run.text.chars() {
            let w = char_width(c);
            if w == 0 {
                continue;
            }
            if col < x + w {
                return run.link.as_deref();
            }
            x += w;
        }
    }
    None
}

/// A window's name as shown: its name, else its title, else its id.
pub fn title_of(w: &WindowView) -> String {
    let s = if !w.display_name.is_empty() {
        &w.display_name
    } else if !w.title.is_empty() {
        &w.title
    } else {
        &w.id
    };
    s.chars().filter(|c| !c.is_control()).collect()
}

/// Words of a command line; double or single quotes group words.
pub fn split_words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            (None, c) => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::attach::Run;

    #[test]
    fn widths_and_wrapping() {
        assert_eq!(char_width('a'), 1);
        assert_eq!(char_width('漢'), 2);
        assert_eq!(wrap("abcdef\ngh", 4), vec!["abcd", "ef", "gh"]);
        assert_eq!(wrap("", 4), vec![""]);
        assert_eq!(
            wrap_words("the quick brown fox", 10),
            vec!["the quick", "brown fox"]
        );
        assert_eq!(
            wrap_words("abcdefghijkl x", 5),
            vec!["abcde", "fghij", "kl x"]
        );
    }

    #[test]
    fn link_at_counts_columns() {
        let row = Row {
            runs: vec![
                Run {
                    text: "字a".into(),
                    style: Default::default(),
                    link: None,
                },
                Run {
                    text: "x\u{301}y".into(),
                    style: Default::default(),
                    link: Some("https://t/".into()),
                },
            ],
        };
        assert_eq!(link_at(&row, 0), None);
        assert_eq!(link_at(&row, 1), None);
        assert_eq!(link_at(&row, 2), None);
        assert_eq!(link_at(&row, 3), Some("https://t/"));
        assert_eq!(link_at(&row, 4), Some("https://t/"));
        assert_eq!(link_at(&row, 5), None);
    }

    #[test]
    fn command_lines_split_into_words() {
        assert_eq!(
            split_words("RenameWindow a 'my logs'"),
            vec!["RenameWindow", "a", "my logs"]
        );
        assert_eq!(split_words("  Type \"\"  "), vec!["Type", ""]);
        assert!(split_words("   ").is_empty());
    }
}
