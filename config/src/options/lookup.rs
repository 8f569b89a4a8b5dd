//! Finding options in the registry: all of them, their paths and sections, one by key, and the
//! closest path to a key that names none.

use super::spec::OptionSpec;
use super::table::OPTIONS;

/// Every option, sorted by path.
pub fn options() -> &'static [OptionSpec] {
    &OPTIONS
}

/// Every option path, sorted.
pub fn paths() -> Vec<&'static str> {
    OPTIONS.iter().map(|o| o.path).collect()
}

/// The section names, sorted and without repeats.
pub fn sections() -> Vec<&'static str> {
    let mut s: Vec<&'static str> = OPTIONS.iter().map(|o| o.section).collect();
    s.sort_unstable();
    s.dedup();
    s
}

/// The option at exactly `key`, or, when `key` holds no `.`, at `appearance.<key>`.
pub fn resolve(key: &str) -> Option<&'static OptionSpec> {
    if let Some(spec) = OPTIONS.iter().find(|o| o.path == key) {
        return Some(spec);
    }
    if key.is_empty() || key.contains('.') {
        return None;
    }
    OPTIONS
        .iter()
        .find(|o| o.path.strip_prefix("appearance.") == Some(key))
}

/// The option path closest to an unknown `key`, for a "did you mean" hint. A bare key is also
/// compared as `appearance.<key>`, the way [`resolve`] would read it.
pub fn did_you_mean(key: &str) -> Option<String> {
    let all = paths();
    protocol::closest::closest_match(key, all.iter().copied()).or_else(|| {
        if key.is_empty() || key.contains('.') {
            return None;
        }
        protocol::closest::closest_match(&format!("appearance.{key}"), all.iter().copied())
    })
}
