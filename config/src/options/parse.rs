//! Reading a recorded or default option value as a bool or an int.

/// Words read as true and false (case-insensitive, surrounding blanks ignored).
pub const TRUE_WORDS: [&str; 5] = ["true", "on", "1", "yes", "enabled"];
pub const FALSE_WORDS: [&str; 5] = ["false", "off", "0", "no", "disabled"];

/// A recorded or default bool option value: the words of [`TRUE_WORDS`] and [`FALSE_WORDS`],
/// case-insensitive, surrounding blanks ignored.
pub fn as_bool(v: &str) -> Option<bool> {
    let v = v.trim();
    if TRUE_WORDS.iter().any(|w| w.eq_ignore_ascii_case(v)) {
        Some(true)
    } else if FALSE_WORDS.iter().any(|w| w.eq_ignore_ascii_case(v)) {
        Some(false)
    } else {
        None
    }
}

/// A recorded or default int option value (decimal, optional sign, surrounding blanks ignored).
pub fn as_int(v: &str) -> Option<i64> {
    v.trim().parse().ok()
}
