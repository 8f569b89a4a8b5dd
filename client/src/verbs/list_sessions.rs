//! `tuios ls`: the running sessions, then saved ones that are not running. With no daemon, the
//! saved sessions in the state directory (a daemon restores them when it starts).
use std::path::Path;

use protocol::verbs::common::SessionRow;
use protocol::verbs::list_sessions::{Params, Reply, SPEC};
use serde::Deserialize;
use serde_json::Value;

use super::resurrect::{rows, unreadable_lines, Unreadable};
use crate::failure::Failure;
use crate::output::{escape_controls, format_local_time, table};

pub const NAME: Option<&str> = Some("ls");
pub const ALIASES: &[&str] = &["list-sessions"];

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print the sessions as a JSON array.
    #[arg(long)]
    pub json: bool,
}

pub fn params(_a: &Args) -> Params {
    Params {}
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    let result = match super::send(socket, SPEC.name, &params(&a)) {
        // Nothing is running, but sessions saved by a daemon that stopped are worth knowing
        // about: they come back when one starts. Still a failure: there is no daemon.
        Err(failure @ Failure::NoDaemon(_)) if !a.json => {
            let saved = offline_section();
            if !saved.is_empty() {
                crate::emit(&saved)?;
            }
            return Err(failure);
        }
        other => other?,
    };
    if a.json {
        // Only the running sessions, as the daemon sent them.
        let sessions = result
            .get("sessions")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        crate::print_json(&Value::Array(sessions))
    } else {
        crate::emit(&print(&super::typed_reply(SPEC.name, &result)?))
    }
}

fn print(r: &Reply) -> String {
    let saved = section(
        &rows(&r.saved),
        &rows(&r.unreadable),
        "\nsaved, not running (tuios resurrect NAME):\n",
    );
    format!("{}{saved}", sessions_table(&r.sessions))
}

/// One row per running session.
fn sessions_table(sessions: &[SessionRow]) -> String {
    if sessions.is_empty() {
        return "no sessions\n".to_string();
    }
    let rows: Vec<Vec<String>> = sessions
        .iter()
        .map(|sess| {
            vec![
                sess.name.clone(),
                sess.window_count.to_string(),
                format!("{}x{}", sess.width, sess.height),
                format_local_time(i64::try_from(sess.created).unwrap_or(0)),
                if sess.attached { "yes" } else { "no" }.to_string(),
            ]
        })
        .collect();
    table(&["NAME", "WINDOWS", "SIZE", "CREATED", "ATTACHED"], &rows)
}

/// A saved session that is not running; the reply's `saved` rows are free-form, these are the
/// keys printed.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Saved {
    name: String,
    window_count: u64,
    saved_at: i64,
}

/// The sessions saved in the state directory (read with the daemon's own reader), escaped as a
/// reply would be. Empty when there are none.
fn offline_section() -> String {
    let Some(dir) = daemon::paths::sessions_dir() else {
        return String::new();
    };
    let mut saved = Vec::new();
    let mut unreadable = Vec::new();
    for entry in actors::session::saved::scan(&dir) {
        match entry.session {
            Ok(s) => saved.push(Saved {
                name: escape_controls(&s.name).into_owned(),
                window_count: s.windows.len() as u64,
                saved_at: i64::try_from(s.saved_at).unwrap_or(0),
            }),
            Err(reason) => unreadable.push(Unreadable {
                file: escape_controls(&entry.file.display().to_string()).into_owned(),
                reason: escape_controls(&reason).into_owned(),
            }),
        }
    }
    section(
        &saved,
        &unreadable,
        "saved (no daemon is running; starting one restores them: tuios new -d NAME):\n",
    )
}

/// The saved sessions under `heading`, then the unreadable files; empty when there are neither.
/// A heading that starts with a blank line (after the live table) puts one before the
/// unreadable files too.
fn section(saved: &[Saved], unreadable: &[Unreadable], heading: &str) -> String {
    let mut out = String::new();
    if !saved.is_empty() {
        out.push_str(heading);
        let rows: Vec<Vec<String>> = saved
            .iter()
            .map(|s| {
                vec![
                    s.name.clone(),
                    s.window_count.to_string(),
                    format_local_time(s.saved_at),
                ]
            })
            .collect();
        out.push_str(&table(&["NAME", "WINDOWS", "SAVED"], &rows));
    }
    let bad = unreadable_lines(unreadable);
    if !bad.is_empty() {
        if !out.is_empty() || heading.starts_with('\n') {
            out.push('\n');
        }
        out.push_str(&bad);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn session_table_has_the_documented_columns() {
        let t = sessions_table(&[SessionRow {
            name: "work".into(),
            window_count: 2,
            width: 80,
            height: 24,
            created: 0,
            attached: false,
            ..Default::default()
        }]);
        let mut lines = t.lines();
        assert_eq!(
            lines.next().unwrap().split_whitespace().collect::<Vec<_>>(),
            ["NAME", "WINDOWS", "SIZE", "CREATED", "ATTACHED"]
        );
        assert_eq!(
            lines.next().unwrap().split_whitespace().collect::<Vec<_>>(),
            ["work", "2", "80x24", "-", "no"]
        );
        assert_eq!(sessions_table(&[]), "no sessions\n");
    }

    #[test]
    fn ls_shows_saved_and_unreadable_apart() {
        let reply = Reply {
            saved: vec![json!({"name": "old", "window_count": 2, "saved_at": 0})],
            unreadable: vec![json!({"file": "/s/bad.json", "reason": "the file ends early"})],
            ..Default::default()
        };
        let text = print(&reply);
        assert!(
            text.starts_with("no sessions\n\nsaved, not running"),
            "{text}"
        );
        assert!(text.contains("old"), "{text}");
        assert!(text.contains("/s/bad.json: the file ends early"), "{text}");
        assert_eq!(print(&Reply::default()), "no sessions\n");
    }

    #[test]
    fn ls_sends_no_params() {
        assert_eq!(
            super::super::params_value(&params(&Args { json: false })),
            None
        );
    }
}
