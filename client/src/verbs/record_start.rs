//! `tuios record-start` (also `tuios record start`): record a window, or every window of a
//! session, to asciicast v2 files.
use std::path::{Path, PathBuf};

use protocol::verbs::record_start::{Params, Reply, SPEC};

use crate::failure::Failure;

pub const NAME: Option<&str> = Some("record-start");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: super::target::WindowTarget,
    /// Directory for the .cast files (default: $XDG_STATE_HOME/tuios/recordings).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Also record what is typed into the window.
    #[arg(long)]
    pub input: bool,
    /// Stop a recording by itself when its file reaches N bytes (default 256 MiB).
    #[arg(long, value_name = "N")]
    pub max_bytes: Option<i64>,
}

/// The typed params this command sends (a relative directory is made absolute here: the
/// daemon's working directory is not the caller's).
pub fn params(a: &Args) -> Params {
    let path = a.dir.as_ref().map(|d| {
        if d.is_absolute() {
            d.clone()
        } else {
            std::env::current_dir()
                .map(|c| c.join(d))
                .unwrap_or(d.clone())
        }
    });
    Params {
        session: a.target.session.clone(),
        window: a.target.window.clone(),
        path: path.map(|p| p.display().to_string()),
        input: a.input.then_some(true),
        max_bytes: a.max_bytes,
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

fn print(r: &Reply) -> String {
    r.files
        .iter()
        .map(|f| format!("recording to {f}\n"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::sends;

    use serde_json::json;

    #[test]
    fn flags_become_params() {
        assert_eq!(
            sends(&[
                "record-start",
                "-w",
                "1",
                "-o",
                "/tmp/c",
                "--input",
                "--max-bytes",
                "9"
            ]),
            json!({"window": "1", "path": "/tmp/c", "input": true, "max_bytes": 9})
        );
        assert_eq!(sends(&["record-start"]), json!({}));
    }

    #[test]
    fn each_file_is_a_line() {
        let r = Reply {
            files: vec!["/a.cast".into(), "/b.cast".into()],
            ..Default::default()
        };
        assert_eq!(print(&r), "recording to /a.cast\nrecording to /b.cast\n");
    }
}
