//! `tuios search`: lines of a window's history and screen matching a regular expression.
use std::path::Path;

use protocol::verbs::search::{Params, Reply, SPEC};

use crate::failure::Failure;

pub const NAME: Option<&str> = Some("search");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: super::target::WindowTarget,
    /// Regular expression (Rust regex syntax) matched against each line's plain text.
    pub pattern: String,
    /// Most matches to print (default 100).
    #[arg(long, value_name = "N")]
    pub limit: Option<i64>,
    /// Search from the oldest line kept downwards (default: from the newest upwards).
    #[arg(long)]
    pub oldest: bool,
    /// Go on from a previous search's "next" line.
    #[arg(long, value_name = "LINE")]
    pub from: Option<i64>,
}

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        window: a.target.window.clone(),
        pattern: a.pattern.clone(),
        limit: a.limit,
        order: a.oldest.then(|| "oldest".to_owned()),
        from: a.from,
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

/// One match a line: its number, a tab, its text; then how to go on, when there is more.
fn print(r: &Reply) -> String {
    let mut out: String = r
        .matches
        .iter()
        .map(|m| format!("{}\t{}\n", m.line, m.text))
        .collect();
    if let Some(next) = r.next {
        out.push_str(&format!("(more: --from {next})\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::sends;
    use protocol::verbs::search::Match;

    use serde_json::json;

    #[test]
    fn flags_become_params() {
        assert_eq!(
            sends(&[
                "search", "-s", "a", "-w", "2", "err", "--limit", "5", "--oldest", "--from", "7"
            ]),
            json!({"session": "a", "window": "2", "pattern": "err", "limit": 5, "order": "oldest", "from": 7})
        );
        assert_eq!(sends(&["search", "x"]), json!({"pattern": "x"}));
    }

    #[test]
    fn matches_are_numbered_lines() {
        let r = Reply {
            matches: vec![Match {
                line: 3,
                text: "a b".into(),
            }],
            next: Some(3),
            ..Default::default()
        };
        assert_eq!(print(&r), "3\ta b\n(more: --from 3)\n");
    }
}
