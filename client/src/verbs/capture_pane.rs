//! `tuios capture-pane`: a window's text, printed as captured.
use std::io::{self, IsTerminal};
use std::path::Path;

use protocol::verbs::capture_pane::{Params, Reply, SPEC};

use super::target::{CaptureSource, WindowTarget};
use crate::failure::Failure;

pub const NAME: Option<&str> = Some("capture-pane");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: WindowTarget,
    #[arg(long, value_enum, conflicts_with = "scrollback")]
    pub source: Option<CaptureSource>,
    /// Include scrollback (the same as --source recent).
    #[arg(short = 'S', long)]
    pub scrollback: bool,
    #[arg(long, visible_alias = "ansi")]
    pub styled: bool,
    #[arg(long, value_name = "N")]
    pub lines: Option<i64>,
    #[arg(long, value_name = "N")]
    pub start: Option<i64>,
    #[arg(long, value_name = "N")]
    pub end: Option<i64>,
    /// Print only the rows that differ from the screen of this hash (from --hash, --json or a
    /// screen-settled wait): a "hash H" line, then "ROW<tab>TEXT" per changed row.
    #[arg(long, value_name = "HASH", conflicts_with_all = ["scrollback", "lines", "start", "end"])]
    pub since: Option<String>,
    /// Print the visible screen's hash instead of its text.
    #[arg(long, conflicts_with = "since")]
    pub hash: bool,
}

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    // -S is the older spelling of source=recent; sending the source keeps the reply's
    // `source` field truthful about what was captured.
    let source = match (a.source, a.scrollback) {
        (Some(CaptureSource::Visible), _) => Some("visible"),
        (Some(CaptureSource::Recent), _) | (None, true) => Some("recent"),
        (None, false) => None,
    };
    Params {
        session: a.target.session.clone(),
        window: a.target.window.clone(),
        source: source.map(str::to_string),
        styled: a.styled.then_some(true),
        scrollback: None,
        ansi: None,
        lines: a.lines,
        start: a.start,
        end: a.end,
        since: a.since.clone(),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    let result = super::send(socket, SPEC.name, &params(&a))?;
    if a.target.json {
        return crate::print_json(&result);
    }
    // The pane's content is what was asked for, styling included: decoded as sent, never
    // through the escaping of the other human output.
    let reply: Reply = serde_json::from_value(result).map_err(|e| {
        Failure::msg(format!(
            "the daemon's {} reply is not what this client reads: {e}",
            SPEC.name
        ))
    })?;
    if a.hash {
        return crate::emit(&format!("{}\n", reply.hash));
    }
    crate::emit(&print(&reply, io::stdout().is_terminal()))
}

/// The content as is; a terminal gets a final newline so the prompt does not land on the
/// last row, a pipe gets exactly what the pane holds.
fn print(r: &Reply, stdout_is_tty: bool) -> String {
    if let Some(rows) = &r.rows {
        // A diff: the new hash to pass next time, whether the old screen was known, the rows.
        let mut out = format!("hash {}\n", r.hash);
        if r.since_known == Some(false) {
            out.push_str("since unknown: every row follows\n");
        }
        for row in rows {
            out.push_str(&format!("{}\t{}\n", row.row, row.text));
        }
        return out;
    }
    let mut out = r.content.clone().unwrap_or_default();
    if stdout_is_tty && !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::params_sent as sent;

    use serde_json::json;

    #[test]
    fn capture_pane_maps_sources_and_slices() {
        assert_eq!(sent(&["capture-pane"]), None);
        assert_eq!(
            sent(&["capture-pane", "-S"]),
            Some(json!({"source": "recent"}))
        );
        assert_eq!(
            sent(&[
                "capture-pane",
                "--source",
                "visible",
                "--ansi",
                "--lines",
                "5"
            ]),
            Some(json!({"source": "visible", "styled": true, "lines": 5}))
        );
        assert_eq!(
            sent(&[
                "capture-pane",
                "-w",
                "abc",
                "--styled",
                "--start",
                "2",
                "--end",
                "4"
            ]),
            Some(json!({"window": "abc", "styled": true, "start": 2, "end": 4}))
        );
        let both = crate::verbs::testing::refused(&["capture-pane", "--source", "visible", "-S"]);
        assert_eq!(
            both,
            clap::error::ErrorKind::ArgumentConflict,
            "--source and -S contradict each other"
        );
    }

    #[test]
    fn capture_adds_a_newline_only_for_terminals() {
        let reply = |content: &str| Reply {
            content: Some(content.into()),
            ..Default::default()
        };
        assert_eq!(print(&reply("a\nb"), false), "a\nb");
        assert_eq!(print(&reply("a\nb"), true), "a\nb\n");
        assert_eq!(print(&reply("a\n"), true), "a\n");
        assert_eq!(print(&reply(""), true), "");
        // Raw: the styling a capture asked for reaches the terminal.
        assert_eq!(print(&reply("\x1b[1mX"), false), "\x1b[1mX");
        let diff = Reply {
            hash: "00000000000000ab".into(),
            rows: Some(vec![protocol::verbs::capture_pane::ChangedRow {
                row: 3,
                text: "new".into(),
            }]),
            since_known: Some(false),
            ..Default::default()
        };
        assert_eq!(
            print(&diff, false),
            "hash 00000000000000ab\nsince unknown: every row follows\n3\tnew\n"
        );
    }

    #[test]
    fn since_is_sent_and_refuses_ranges() {
        assert_eq!(
            sent(&["capture-pane", "--since", "00ff"]),
            Some(json!({"since": "00ff"}))
        );
        assert_eq!(sent(&["capture-pane", "--hash"]), None);
        assert_eq!(
            crate::verbs::testing::refused(&["capture-pane", "--since", "00ff", "--lines", "3"]),
            clap::error::ErrorKind::ArgumentConflict
        );
    }
}
