//! `search`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;
use crate::error::{ErrorCode, Hint, VerbError};

/// Matches returned when `limit` is left out.
pub const DEFAULT_LIMIT: usize = 100;
/// Most matches one request may ask for.
pub const MAX_LIMIT: usize = 10_000;
/// Longest pattern, in bytes.
pub const MAX_PATTERN_BYTES: usize = 4096;
/// Most bytes of a compiled pattern (the regex crate's size limit): a pattern that would
/// compile to more is refused rather than built.
pub const MAX_PATTERN_PROGRAM_BYTES: usize = 1 << 20;
/// Longest text returned per match; a longer line is cut at a character boundary.
pub const MAX_MATCH_TEXT_BYTES: usize = 4096;
/// The accepted `order` values.
pub const ORDERS: &[&str] = &["newest", "oldest"];

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    pub window: Option<String>,
    pub pattern: String,
    pub limit: Option<i64>,
    pub order: Option<String>,
    pub from: Option<i64>,
}

reply_tag!(Tag = "search_result");

/// One line that matched.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Match {
    /// Its number, counted from the window's first line (0); never changes.
    pub line: u64,
    pub text: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub matches: Vec<Match>,
    /// Pass as `from` to go on; null when the search reached the end.
    pub next: Option<u64>,
    pub window_id: String,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "search",
    description: "Extension (not in the control-protocol spec): search a window's whole history (in memory and on disk) and its screen for lines matching a regular expression. Lines are numbered from the window's first line and keep their numbers when older lines are dropped.",
    params: &[
        SESSION,
        WINDOW,
        param("pattern", Str, "Regular expression (Rust regex syntax) matched against each line's plain text."),
        with_default("limit", Int, "Most matches to return (at most 10000).", "100"),
        with_default("order", Str, "\"newest\" searches from the bottom of the screen upwards, \"oldest\" from the oldest line kept downwards.", "newest").accepting(ORDERS),
        param("from", Int, "Go on from a previous reply's next: lines before it (newest) or from it on (oldest)."),
    ],
    returns: &[
        param("matches", ObjectList, "The matching lines in search order: line (number from the window's first line) and text (plain, cut at 4096 bytes)."),
        param("next", Int, "Where to go on (pass as from); null when nothing is left to search."),
        param("window_id", Str, "Id of the window that was searched."),
    ],
    examples: &[
        r#"{"id":1,"verb":"search","params":{"session":"work","window":"1","pattern":"error"}}"#,
        r#"{"id":2,"verb":"search","params":{"session":"work","pattern":"^build \\d+","order":"oldest","limit":10,"from":5000}}"#,
    ],
};

/// Whether the search starts at the newest line (the default).
pub fn newest_first(order: Option<&str>) -> Result<bool, VerbError> {
    match order.unwrap_or("newest") {
        "newest" | "" => Ok(true),
        "oldest" => Ok(false),
        other => Err(VerbError::new(
            ErrorCode::InvalidParams,
            format!("unknown search order {:?}", crate::closest::echo_name(other)),
        )
        .with_hint(Hint::new().param("order").accepted(ORDERS))),
    }
}

/// `limit` checked: 1..=MAX_LIMIT, DEFAULT_LIMIT when left out.
pub fn check_limit(limit: Option<i64>) -> Result<usize, VerbError> {
    match limit {
        None => Ok(DEFAULT_LIMIT),
        Some(n) if (1..=MAX_LIMIT as i64).contains(&n) => Ok(n as usize),
        Some(n) => Err(VerbError::new(
            ErrorCode::InvalidParams,
            format!("limit {n} is outside 1..={MAX_LIMIT}"),
        )
        .with_hint(Hint::new().param("limit").detail(format!(
            "Ask for at most {MAX_LIMIT} matches (MAX_LIMIT) and go on with next."
        )))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_and_limits() {
        assert!(newest_first(None).unwrap());
        assert!(!newest_first(Some("oldest")).unwrap());
        assert_eq!(
            newest_first(Some("old")).unwrap_err().code,
            ErrorCode::InvalidParams
        );
        assert_eq!(check_limit(None).unwrap(), 100);
        assert!(check_limit(Some(0)).is_err());
        assert!(check_limit(Some(10_001)).is_err());
    }
}
