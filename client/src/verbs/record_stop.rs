//! `tuios record-stop` (also `tuios record stop`): stop recording and close the files.
use std::path::Path;

use protocol::verbs::record_stop::{Params, Reply, SPEC};

use crate::failure::Failure;

pub const NAME: Option<&str> = Some("record-stop");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: super::target::WindowTarget,
}

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        window: a.target.window.clone(),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

fn print(r: &Reply) -> String {
    if r.files.is_empty() {
        return "nothing was being recorded\n".into();
    }
    r.files
        .iter()
        .map(|f| {
            format!(
                "{}: {} bytes, {:.1}s ({})\n",
                f.path,
                f.bytes,
                f.duration_ms as f64 / 1000.0,
                f.reason
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::sends;
    use protocol::verbs::record_stop::RecordedFile;

    use serde_json::json;

    #[test]
    fn the_target_is_sent() {
        assert_eq!(sends(&["record-stop", "-w", "2"]), json!({"window": "2"}));
    }

    #[test]
    fn files_are_listed_with_their_size_and_reason() {
        let r = Reply {
            files: vec![RecordedFile {
                path: "/a.cast".into(),
                bytes: 10,
                duration_ms: 1500,
                reason: "stopped".into(),
            }],
            ..Default::default()
        };
        assert_eq!(print(&r), "/a.cast: 10 bytes, 1.5s (stopped)\n");
        assert_eq!(print(&Reply::default()), "nothing was being recorded\n");
    }
}
