//! OSC 8 link activation rules: the scheme allowlist check and the escaped form of a URL shown in
//! the chrome confirmation. The URL comes from window content, so it is untrusted: nothing in it
//! may hide, reorder or impersonate characters in the confirmation.

use std::fmt::Write;

/// `url` for a confirmation: every control character (C0, DEL, C1), bidi control, zero-width
/// character, other format character, non-ASCII whitespace and backslash is written as an escape
/// (`\u{202E}`, `\\`), so what is shown is exactly, and only, what would be opened.
pub fn escape_url_for_display(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        if c == '\\' {
            out.push_str("\\\\");
        } else if needs_escape(c) {
            let _ = write!(out, "\\u{{{:04X}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

fn needs_escape(c: char) -> bool {
    // The same invisible and bidi set the paste preview escapes, so both show them alike.
    c.is_control() || (c.is_whitespace() && c != ' ') || super::paste::is_invisible(c)
}

/// The scheme of `url` (RFC 3986: a letter, then letters, digits, `+`, `-` or `.`, ending at the
/// first `:`), lowercased. `None` when the URL does not start with a well-formed scheme: a
/// leading space, control or look-alike character makes it schemeless, never a different scheme.
pub fn link_scheme(url: &str) -> Option<String> {
    let (scheme, _) = url.split_once(':')?;
    let mut chars = scheme.chars();
    if !chars.next()?.is_ascii_alphabetic() {
        return None;
    }
    if !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) {
        return None;
    }
    Some(scheme.to_ascii_lowercase())
}

/// Whether the user's policy lets `url` be activated: its scheme must be in `allowed_schemes`
/// (compared without case) and it must hold no control character. The error says why, naming the
/// scheme, for a notice.
pub fn link_allowed(url: &str, allowed_schemes: &[String]) -> Result<(), String> {
    let Some(scheme) = link_scheme(url) else {
        return Err("link has no valid scheme".to_string());
    };
    if !allowed_schemes
        .iter()
        .any(|s| s.trim().eq_ignore_ascii_case(&scheme))
    {
        return Err(format!("link scheme \"{scheme}:\" is not allowed"));
    }
    if url.chars().any(char::is_control) {
        return Err("link contains control characters".to_string());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> Vec<String> {
        ["https", "http", "mailto"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    #[test]
    fn plain_url_is_shown_as_is() {
        let url = "https://example.com/a?b=c&d=e#f";
        assert_eq!(escape_url_for_display(url), url);
        assert_eq!(
            escape_url_for_display("https://例え.jp/ü"),
            "https://例え.jp/ü"
        );
    }

    #[test]
    fn rtl_override_is_escaped() {
        // "https://example.com/\u{202E}txt.exe" would render reversed without the escape.
        let shown = escape_url_for_display("https://example.com/\u{202E}evil");
        assert_eq!(shown, "https://example.com/\\u{202E}evil");
        assert!(!shown.contains('\u{202E}'));
    }

    #[test]
    fn every_bidi_control_is_escaped() {
        for c in [
            '\u{200E}', '\u{200F}', '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}',
            '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}', '\u{061C}',
        ] {
            let shown = escape_url_for_display(&format!("a{c}b"));
            assert_eq!(shown, format!("a\\u{{{:04X}}}b", c as u32));
        }
    }

    #[test]
    fn zero_width_in_host_is_escaped() {
        let shown = escape_url_for_display("https://exa\u{200B}mple.com\u{FEFF}/\u{2060}\u{200D}");
        assert_eq!(
            shown,
            "https://exa\\u{200B}mple.com\\u{FEFF}/\\u{2060}\\u{200D}"
        );
    }

    #[test]
    fn controls_and_backslash_are_escaped() {
        let shown = escape_url_for_display("a\x1b[2Jb\x07c\u{7f}d\u{9b}e\nf\\g\u{a0}h");
        assert_eq!(
            shown,
            "a\\u{001B}[2Jb\\u{0007}c\\u{007F}d\\u{009B}e\\u{000A}f\\\\g\\u{00A0}h"
        );
        assert!(!shown.chars().any(|c| c.is_control()));
    }

    #[test]
    fn escaped_form_is_unambiguous() {
        // A literal "\u{202E}" in the URL must not look like an escaped override.
        assert_ne!(
            escape_url_for_display("x\\u{202E}"),
            escape_url_for_display("x\u{202E}")
        );
    }

    #[test]
    fn scheme_is_lowercased_and_validated() {
        assert_eq!(link_scheme("HTTPS://x").as_deref(), Some("https"));
        assert_eq!(link_scheme("mailto:a@b").as_deref(), Some("mailto"));
        assert_eq!(link_scheme("git+ssh://h/r").as_deref(), Some("git+ssh"));
        assert_eq!(link_scheme("no-scheme"), None);
        assert_eq!(link_scheme(":x"), None);
        assert_eq!(link_scheme("1http://x"), None);
        assert_eq!(link_scheme(" https://x"), None);
        assert_eq!(link_scheme("\u{200B}https://x"), None);
        assert_eq!(link_scheme("ht\u{200B}tps://x"), None);
        // Fullwidth letters are not ASCII letters.
        assert_eq!(link_scheme("ｈttps://x"), None);
    }

    #[test]
    fn allowlist_accepts_default_schemes_in_any_case() {
        let allowed = defaults();
        assert_eq!(link_allowed("https://example.com/", &allowed), Ok(()));
        assert_eq!(link_allowed("HtTp://example.com/", &allowed), Ok(()));
        assert_eq!(link_allowed("mailto:[email protected]", &allowed), Ok(()));
        // Bidi and zero-width characters are allowed but shown escaped in the confirmation.
        assert_eq!(
            link_allowed("https://example.com/\u{202E}evil", &allowed),
            Ok(())
        );
        // The policy's own case and stray spaces do not matter either.
        assert_eq!(link_allowed("https://x", &[" HTTPS ".to_string()]), Ok(()));
    }

    #[test]
    fn dangerous_schemes_are_refused() {
        let allowed = defaults();
        for url in [
            "javascript:alert(1)",
            "JavaScript:alert(1)",
            "file:///etc/passwd",
            "data:text/html,<script>alert(1)</script>",
            "vbscript:x",
            "ssh://host",
        ] {
            let err = link_allowed(url, &allowed).unwrap_err();
            let scheme = link_scheme(url).unwrap();
            assert!(err.contains(&scheme), "{err}");
        }
        assert!(link_allowed("https://x", &[]).is_err());
    }

    #[test]
    fn schemeless_and_control_laden_links_are_refused() {
        let allowed = defaults();
        assert!(link_allowed("//example.com", &allowed).is_err());
        assert!(link_allowed("example.com/path", &allowed).is_err());
        assert!(link_allowed(" https://x", &allowed).is_err());
        assert!(link_allowed("https://x\n--flag", &allowed).is_err());
        assert!(link_allowed("https://x\u{9b}", &allowed).is_err());
    }
}
