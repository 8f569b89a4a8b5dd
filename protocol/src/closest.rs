//! "Did you mean" suggestions and bounded echoing of caller-supplied names.

/// Longest caller-supplied name echoed back in full inside an error message.
pub const ECHO_LIMIT_BYTES: usize = 128;

/// The candidate closest to `target`, if one is close enough to be a plausible typo.
///
/// Distance is the Levenshtein distance over characters, ignoring case. The tolerance is
/// `min(target_bytes / 4 + 1, 3)` edits. A candidate identical to the target (case included) is
/// never suggested; ties go to the lexicographically smallest candidate. Candidates whose length
/// differs from the target's by more than the tolerance are skipped without computing a distance,
/// which keeps a very long target cheap.
pub fn closest_match<'a, I: IntoIterator<Item = &'a str>>(
    target: &str,
    candidates: I,
) -> Option<String> {
    if target.is_empty() {
        return None;
    }
    let limit = (target.len() / 4 + 1).min(3);
    let target_chars = target.chars().count();
    let target_lower = target.to_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        if candidate == target || candidate.chars().count().abs_diff(target_chars) > limit {
            continue;
        }
        let distance = strsim::levenshtein(&target_lower, &candidate.to_lowercase());
        if distance > limit {
            continue;
        }
        let better = match best {
            None => true,
            Some((d, name)) => distance < d || (distance == d && candidate < name),
        };
        if better {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, name)| name.to_owned())
}

/// A caller-supplied name made safe to quote in a message: anything over 128 bytes is cut (on a
/// character boundary) and marked with its full length, so a huge name cannot bloat the response.
pub fn echo_name(name: &str) -> String {
    if name.len() <= ECHO_LIMIT_BYTES {
        return name.to_owned();
    }
    let mut cut = ECHO_LIMIT_BYTES;
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}... ({} bytes)", &name[..cut], name.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    const VERBS: [&str; 6] = [
        "send-keys",
        "send-text",
        "list-windows",
        "list-sessions",
        "list-verbs",
        "new-window",
    ];

    fn cm(target: &str, candidates: &[&str]) -> Option<String> {
        closest_match(target, candidates.iter().copied())
    }

    #[test]
    fn table() {
        let cases: &[(&str, &[&str], Option<&str>)] = &[
            ("sendkeys", &VERBS, Some("send-keys")),
            ("list-window", &VERBS, Some("list-windows")),
            ("List-Windows", &VERBS, Some("list-windows")),
            ("new-windw", &VERBS, Some("new-window")),
            // The exact spelling is skipped, but another candidate within tolerance still counts.
            ("send-keys", &VERBS, Some("send-text")),
            ("send-keys", &["send-keys"], None),
            ("xyz", &VERBS, None),
            ("", &VERBS, None),
            ("abc", &[], None),
            // Ties go to the lexicographically smallest candidate.
            ("cat", &["cbt", "bat", "cut"], Some("bat")),
            ("b", &["c", "a"], Some("a")),
            // 3-byte target: limit 1.
            ("abc", &["axx"], None),
            ("abc", &["abx"], Some("abx")),
            // 8-byte target: limit 3; 12+ bytes stays at 3.
            ("abcdefgh", &["abcdeXYZ"], Some("abcdeXYZ")),
            ("abcdefgh", &["abcdWXYZ"], None),
            ("abcdefghijklmnop", &["abcdefghijklWXYZ"], None),
            // A case-only difference is a real suggestion; the exact same spelling never is.
            ("SEND-KEYS", &["send-keys"], Some("send-keys")),
            ("recent", &["recent", "visible"], None),
        ];
        for (target, candidates, want) in cases {
            assert_eq!(
                cm(target, candidates).as_deref(),
                *want,
                "target {target:?}"
            );
        }
    }

    #[test]
    fn length_prefilter_skips_far_candidates() {
        let long = "x".repeat(100_000);
        assert_eq!(closest_match(&long, VERBS.iter().copied()), None);
        // Length differs by 4 > limit 3 even though the text is a prefix.
        assert_eq!(cm("abcdefghijkl", &["abcdefghijklmnop"]), None);
        assert_eq!(
            cm("abcdefghijkl", &["abcdefghijklmno"]),
            Some("abcdefghijklmno".into())
        );
    }

    #[test]
    fn non_ascii_counts_characters() {
        assert_eq!(cm("café", &["cafe"]), Some("cafe".into()));
        assert_eq!(cm("ÉCRAN", &["écran"]), Some("écran".into()));
    }

    #[test]
    fn echo_name_bounds_the_echo() {
        assert_eq!(echo_name("short"), "short");
        let exact = "a".repeat(128);
        assert_eq!(echo_name(&exact), exact);
        let long = "b".repeat(300);
        assert_eq!(
            echo_name(&long),
            format!("{}... (300 bytes)", "b".repeat(128))
        );
        // 'é' is two bytes; byte 128 falls inside one, so the cut backs off to 127.
        let multi = format!("a{}", "é".repeat(100));
        let echoed = echo_name(&multi);
        assert!(echoed.starts_with(&multi[..127]));
        assert!(echoed.ends_with("... (201 bytes)"));
    }
}
