//! Quoting words for a shell: the one helper the daemon (`run` types a command line), the CLI
//! (printed commands that can be pasted) and the test harness share.

/// `word` in single quotes for a POSIX shell, whatever it holds: `'` becomes `'\''`.
pub fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// `word` as a POSIX shell reads it back, quoted only when it needs to be, so printed commands
/// stay readable and can be pasted.
pub fn quote_if_needed(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c));
    if plain {
        word.to_string()
    } else {
        quote(word)
    }
}

/// `word` in single quotes for fish, where a backslash escapes `\` and `'` inside them.
pub fn fish_quote(word: &str) -> String {
    format!("'{}'", word.replace('\\', r"\\").replace('\'', r"\'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posix() {
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
        assert_eq!(quote_if_needed("make"), "make");
        assert_eq!(quote_if_needed("a/b-c.d:e=f"), "a/b-c.d:e=f");
        assert_eq!(quote_if_needed(""), "''");
        assert_eq!(quote_if_needed("x;y"), "'x;y'");
        assert_eq!(quote_if_needed("$HOME"), "'$HOME'");
    }

    #[test]
    fn fish() {
        assert_eq!(fish_quote(r"a\'b"), r"'a\\\'b'");
        assert_eq!(fish_quote("plain"), "'plain'");
    }
}
