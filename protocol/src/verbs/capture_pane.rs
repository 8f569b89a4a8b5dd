//! `capture-pane`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;
use crate::closest::{closest_match, echo_name};
use crate::error::{ErrorCode, Hint, VerbError};
use crate::registry::CAPTURE_SOURCES;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    pub window: Option<String>,
    pub source: Option<String>,
    pub styled: Option<bool>,
    pub scrollback: Option<bool>,
    pub ansi: Option<bool>,
    pub lines: Option<i64>,
    pub start: Option<i64>,
    pub end: Option<i64>,
    pub since: Option<String>,
}

reply_tag!(Tag = "pane_content");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    /// Left out when `since` was given: `rows` holds the changed rows instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    pub source: String,
    pub styled: bool,
    pub window_id: String,
    /// The visible screen's hash (styles included, cursor left out); opaque to clients.
    #[serde(default)]
    pub hash: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<Vec<ChangedRow>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_known: Option<bool>,
}

/// A row of the visible screen that differs from the screen `since` named.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChangedRow {
    /// 0 is the top row of the screen.
    pub row: u32,
    pub text: String,
}

/// How many screens a window remembers for `since`.
pub const REMEMBERED_SCREENS: usize = 16;

pub const SPEC: VerbSpec = VerbSpec {
    name: "capture-pane",
    description: "Return the text of a window's terminal: the visible screen, or scrollback followed by the screen, plain or with ANSI styling, optionally narrowed to some lines.",
    params: &[
        SESSION,
        WINDOW,
        with_default("source", Str, "What to read: \"visible\" is the screen as it stands, \"recent\" is the scrollback followed by the screen.", "visible").accepting(CAPTURE_SOURCES),
        with_default("styled", Bool, "Keep colours and text attributes as ANSI escape sequences.", "false"),
        with_default("scrollback", Bool, "Older spelling of source \"recent\".", "false"),
        with_default("ansi", Bool, "Older spelling of styled.", "false"),
        param(
            "lines",
            Int,
            "Return only the last N lines, not counting blank rows at the bottom. Ignored when start or end is given.",
        ),
        param("start", Int, "First line to return, counting from 1. The range includes it."),
        param("end", Int, "Last line to return, counting from 1. The range includes it."),
        param("since", Str, "A hash from an earlier capture-pane or screen-settled wait: return only the visible rows that differ from that screen, in rows, instead of content. The window remembers its last 16 screens handed out; an older or unknown hash returns every row with since_known false. Not with source \"recent\", lines, start or end."),
    ],
    returns: &[
        param("content", Str, "The captured text, rows separated by newlines. Left out when since is given."),
        param("source", Str, "The source that was actually read: \"visible\" or \"recent\"."),
        param("styled", Bool, "Whether the content carries ANSI styling."),
        param("window_id", Str, "Id of the window that was read."),
        param("hash", Str, "Hash of the visible screen's text and styles (the cursor does not count), to pass as since later or compare with a screen-settled wait's. Opaque: compare it, do not parse it."),
        param("rows", ObjectList, "With since: the rows that differ, each {row, text}; row 0 is the top of the screen, text is plain or styled as asked. A row whose styles alone changed is listed too."),
        param("since_known", Bool, "With since: false when the window no longer remembers that screen (every row is returned)."),
    ],
    examples: &[
        r#"{"id":1,"verb":"capture-pane","params":{"session":"work"}}"#,
        r#"{"id":2,"verb":"capture-pane","params":{"session":"work","source":"recent","lines":50}}"#,
        r#"{"id":3,"verb":"capture-pane","params":{"window":"build","styled":true,"start":1,"end":10}}"#,
        r#"{"id":4,"verb":"capture-pane","params":{"session":"work","since":"9f3b2c0d4e5a6b7c"}}"#,
    ],
};

/// What a capture-pane call reads, once its aliases are folded in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaptureMode {
    /// Read the scrollback before the visible screen.
    pub scrollback: bool,
    /// Keep ANSI styling.
    pub styled: bool,
}

impl CaptureMode {
    /// The `source` to report in the result: the one actually read.
    pub fn source(&self) -> &'static str {
        if self.scrollback {
            "recent"
        } else {
            "visible"
        }
    }
}

/// The source name that was retired: the emulator does not record soft wraps, so "unwrapping"
/// rows could only guess.
pub const RETIRED_CAPTURE_SOURCE: &str = "recent-unwrapped";

impl Params {
    /// Checks `source` (capture-pane's first check, before the session is looked up) and folds the
    /// older spellings `scrollback` and `ansi` into the mode.
    pub fn mode(&self) -> Result<CaptureMode, VerbError> {
        let source = self.source.as_deref().unwrap_or("");
        if !source.is_empty() && !CAPTURE_SOURCES.contains(&source) {
            let message = format!("unknown capture source {:?}", echo_name(source));
            let hint = Hint::new()
                .param("source")
                .accepted(CAPTURE_SOURCES)
                .verb("list-verbs");
            let hint = if source == RETIRED_CAPTURE_SOURCE {
                hint.did_you_mean(Some("recent".to_owned())).detail(
                    "Unwrapped capture was retired: the emulator does not record which rows were soft-wrapped, so joining them would be guesswork. \"recent\" returns the same rows, split at the pane width.",
                )
            } else {
                hint.did_you_mean(closest_match(source, CAPTURE_SOURCES.iter().copied()))
            };
            return Err(VerbError::new(ErrorCode::InvalidParams, message).with_hint(hint));
        }
        let mode = CaptureMode {
            scrollback: source == "recent" || self.scrollback.unwrap_or(false),
            styled: self.styled.unwrap_or(false) || self.ansi.unwrap_or(false),
        };
        if self.since.is_some() {
            let narrowed = [self.lines, self.start, self.end]
                .iter()
                .any(|n| n.is_some_and(|n| n > 0));
            if mode.scrollback || narrowed {
                return Err(VerbError::new(
                    ErrorCode::InvalidParams,
                    "since compares whole visible screens: it cannot be combined with source \"recent\", lines, start or end",
                )
                .with_hint(Hint::new().param("since").detail(
                    "Drop since to read scrollback or a range of lines, or drop those to read the rows changed since a screen.",
                )));
            }
        }
        Ok(mode)
    }
}

/// Narrows captured content to some of its rows.
///
/// - `start > 0 || end > 0`: rows `start..=end`, 1-based; `start <= 0` means 1, `end <= 0` or past
///   the last row means the last row; a range that is empty or starts past the end gives `""`.
/// - otherwise `lines > 0`: blank (whitespace-only) rows at the bottom are dropped, then the last
///   `lines` rows are kept.
/// - otherwise the content is returned unchanged.
///
/// A trailing newline on the input is not a row of its own, and is kept on a non-empty result.
pub fn slice_capture(content: &str, lines: i64, start: i64, end: i64) -> String {
    if start <= 0 && end <= 0 && lines <= 0 {
        return content.to_owned();
    }
    let trailing = content.ends_with('\n');
    let body = content.strip_suffix('\n').unwrap_or(content);
    let rows: Vec<&str> = body.split('\n').collect();
    let count = rows.len() as i64;

    let selected: &[&str] = if start > 0 || end > 0 {
        let lo = start.max(1);
        let hi = if end <= 0 || end > count { count } else { end };
        if lo > count || lo > hi {
            return String::new();
        }
        &rows[(lo - 1) as usize..hi as usize]
    } else {
        // A capture ends at the bottom of the pane, usually below the cursor in a run of empty
        // rows; "the last N lines" means the last N with something on them.
        let mut kept = rows.len();
        while kept > 0 && rows[kept - 1].trim().is_empty() {
            kept -= 1;
        }
        let from = kept.saturating_sub(lines as usize);
        &rows[from..kept]
    };
    let mut out = selected.join("\n");
    if trailing && !out.is_empty() {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::decode;
    use serde_json::json;

    #[test]
    fn slicing() {
        let c = "a\nb\nc\nd\ne";
        assert_eq!(slice_capture(c, 0, 0, 0), c);
        assert_eq!(slice_capture(c, -1, -5, 0), c);
        assert_eq!(slice_capture(c, 2, 0, 0), "d\ne");
        assert_eq!(slice_capture(c, 10, 0, 0), c);
        assert_eq!(slice_capture(c, 0, 2, 3), "b\nc");
        assert_eq!(slice_capture(c, 0, 2, 0), "b\nc\nd\ne");
        assert_eq!(slice_capture(c, 0, 0, 2), "a\nb");
        assert_eq!(slice_capture(c, 0, 4, 99), "d\ne");
        assert_eq!(slice_capture(c, 0, 6, 0), "");
        assert_eq!(slice_capture(c, 0, 3, 2), "");
        assert_eq!(slice_capture(c, 0, 5, 5), "e");
        // start/end win over lines.
        assert_eq!(slice_capture(c, 1, 1, 1), "a");
        // Trailing blank rows are not counted by lines, but are by start/end.
        let screen = "$ ls\nfile\n$ \n   \n\n";
        assert_eq!(slice_capture(screen, 2, 0, 0), "file\n$ \n");
        assert_eq!(slice_capture(screen, 0, 3, 0), "$ \n   \n\n");
        // A trailing newline is kept on a non-empty result only.
        assert_eq!(slice_capture("x\ny\n", 1, 0, 0), "y\n");
        assert_eq!(slice_capture("x\ny\n", 0, 3, 0), "");
        assert_eq!(slice_capture("\n\n\n", 2, 0, 0), "");
        assert_eq!(slice_capture("", 3, 0, 0), "");
        assert_eq!(slice_capture("", 0, 1, 1), "");
        assert_eq!(slice_capture("only", 0, 1, 1), "only");
    }

    #[test]
    fn capture_mode() {
        let p = |v: serde_json::Value| decode::<Params>(&v).unwrap().mode();
        assert_eq!(
            p(json!({})).unwrap(),
            CaptureMode {
                scrollback: false,
                styled: false
            }
        );
        assert_eq!(p(json!({"source": ""})).unwrap().source(), "visible");
        assert_eq!(p(json!({"source": "recent"})).unwrap().source(), "recent");
        // The older spellings fold in, and the reported source is the one actually read.
        assert_eq!(
            p(json!({"source": "visible", "scrollback": true}))
                .unwrap()
                .source(),
            "recent"
        );
        assert!(p(json!({"ansi": true})).unwrap().styled);
        assert!(p(json!({"styled": true})).unwrap().styled);

        let err = p(json!({"source": "recnet"})).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParams);
        assert_eq!(err.hint.param.as_deref(), Some("source"));
        assert_eq!(err.hint.accepted, ["visible", "recent"]);
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("recent"));

        assert!(p(json!({"since": "00ff"})).is_ok());
        let err = p(json!({"since": "00ff", "source": "recent"})).unwrap_err();
        assert_eq!(err.hint.param.as_deref(), Some("since"));
        assert!(p(json!({"since": "00ff", "lines": 3})).is_err());

        let err = p(json!({"source": "recent-unwrapped"})).unwrap_err();
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("recent"));
        assert!(err.hint.detail.is_some());
    }
}
