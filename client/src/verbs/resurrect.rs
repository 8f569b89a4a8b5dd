//! `tuios resurrect [NAME]`: restore saved sessions into the running daemon. Also what it shares
//! with `tuios ls`, which lists the saved files it cannot read the same way.
use std::path::Path;

use protocol::verbs::resurrect::{Params, Reply, SPEC};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

use crate::failure::Failure;

pub const NAME: Option<&str> = Some("resurrect");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    pub session: Option<String>,
    /// Print the daemon's result as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn params(a: &Args) -> Params {
    Params {
        session: a.session.clone(),
    }
}

/// Exit status 1 when a saved session could not be restored (running already, or unreadable).
pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    let result = super::send(socket, SPEC.name, &params(&a))?;
    let reply: Reply = super::typed_reply(SPEC.name, &result)?;
    let failed = !reply.failed.is_empty() || !reply.unreadable.is_empty();
    if a.json {
        crate::print_json(&result)?;
    } else {
        crate::emit(&print(&reply))?;
    }
    Ok(i32::from(failed))
}

// The reply's rows are free-form objects; these are the keys printed, each optional as it was
// when read one by one.

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RestoredLine {
    name: String,
    windows: u64,
    notes: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct NotRestored {
    name: String,
    reason: String,
}

/// A saved file that cannot be read (resurrect's and list-sessions' `unreadable` rows).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Unreadable {
    pub file: String,
    pub reason: String,
}

/// Each free-form row read as `T`; a row of another shape reads as an empty one.
pub(super) fn rows<T: DeserializeOwned + Default>(values: &[Value]) -> Vec<T> {
    values
        .iter()
        .map(|v| T::deserialize(v).unwrap_or_default())
        .collect()
}

/// What `resurrect` did, for a person.
fn print(r: &Reply) -> String {
    let mut out = String::new();
    for s in rows::<RestoredLine>(&r.sessions) {
        let n = s.windows;
        out.push_str(&format!(
            "restored session {} ({n} window{})\n",
            s.name,
            if n == 1 { "" } else { "s" }
        ));
        for note in &s.notes {
            out.push_str(&format!("  {note}\n"));
        }
    }
    for f in rows::<NotRestored>(&r.failed) {
        out.push_str(&format!("not restored: {}: {}\n", f.name, f.reason));
    }
    out.push_str(&unreadable_lines(&rows(&r.unreadable)));
    if out.is_empty() {
        out.push_str("no saved sessions to restore\n");
    }
    out
}

/// The saved files that cannot be read, under a heading; empty when there are none.
pub(super) fn unreadable_lines(rows: &[Unreadable]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut out = String::from("unreadable saved sessions (left as they are):\n");
    for u in rows {
        out.push_str(&format!("  {}: {}\n", u.file, u.reason));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn report_lists_notes() {
        let reply = Reply {
            sessions: vec![
                json!({"name": "w", "windows": 1, "notes": ["window x: vim was not run again"]}),
            ],
            ..Default::default()
        };
        assert_eq!(
            print(&reply),
            "restored session w (1 window)\n  window x: vim was not run again\n"
        );
        assert_eq!(print(&Reply::default()), "no saved sessions to restore\n");
    }

    #[test]
    fn failures_and_unreadable_files_are_reported() {
        let reply = Reply {
            failed: vec![json!({"name": "w", "reason": "it is running"})],
            unreadable: vec![json!({"file": "/s/bad.json", "reason": "the file ends early"})],
            ..Default::default()
        };
        assert_eq!(
            print(&reply),
            "not restored: w: it is running\n\
             unreadable saved sessions (left as they are):\n  /s/bad.json: the file ends early\n"
        );
    }

    #[test]
    fn the_session_is_sent_only_when_named() {
        let a = |session: Option<&str>| Args {
            session: session.map(str::to_string),
            json: false,
        };
        assert_eq!(super::super::params_value(&params(&a(None))), None);
        assert_eq!(
            super::super::params_value(&params(&a(Some("work")))),
            Some(json!({"session": "work"}))
        );
    }
}
