//! `tuios split-window`: split a tiled pane, tmux's `-h` and `-v` included.
use std::path::Path;

use clap::ArgGroup;
use protocol::verbs::split_window::{Params, Reply, SPEC};

use super::target::WindowTarget;
use crate::failure::Failure;
use crate::output::short_id;

pub const NAME: Option<&str> = Some("split-window");
pub const ALIASES: &[&str] = &[];

/// `-h` and `-v` are tmux's: the help flag is `--help` only here.
#[derive(Debug, clap::Args)]
#[command(
    disable_help_flag = true,
    group(ArgGroup::new("axis").required(true).args(["direction", "side_by_side", "stacked"]))
)]
pub struct Args {
    #[command(flatten)]
    pub target: WindowTarget,
    #[arg(value_name = "DIRECTION")]
    pub direction: Option<String>,
    /// tmux's -h: the new pane beside the old one (a vertical divider; the same as `vertical`).
    #[arg(short = 'h')]
    pub side_by_side: bool,
    /// tmux's -v: the new pane below the old one (a horizontal divider; `horizontal`).
    #[arg(short = 'v')]
    pub stacked: bool,
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Print help.
    #[arg(long, action = clap::ArgAction::Help)]
    pub help: Option<bool>,
}

impl Args {
    /// The verb's direction, however it was given.
    fn axis(&self) -> String {
        match (&self.direction, self.side_by_side, self.stacked) {
            (Some(d), _, _) => d.clone(),
            (None, true, _) => "vertical".to_string(),
            _ => "horizontal".to_string(),
        }
    }
}

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        window: a.target.window.clone(),
        direction: a.axis(),
        name: a.name.clone(),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

fn print(r: &Reply) -> String {
    let direction = &r.direction;
    let mut out = if r.window_id.is_empty() {
        format!("split {direction}")
    } else {
        format!("split {direction}: new window {}", short_id(&r.window_id))
    };
    if let Some(name) = &r.name {
        out.push_str(&format!(" ({name})"));
    }
    out.push('\n');
    if let Some(note) = &r.note {
        out.push_str(&format!("note: {note}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::refused;
    use crate::verbs::testing::sends;

    use serde_json::json;

    #[test]
    fn the_direction_and_name_are_sent() {
        assert_eq!(
            sends(&["split-window", "vertical", "-w", "a", "--name", "tests"]),
            json!({"direction": "vertical", "window": "a", "name": "tests"})
        );
        assert_eq!(
            refused(&["split-window", "sideways"]),
            clap::error::ErrorKind::InvalidValue
        );
    }

    #[test]
    fn split_window_takes_tmux_h_and_v() {
        assert_eq!(
            sends(&["split-window", "-h"]),
            json!({"direction": "vertical"})
        );
        assert_eq!(
            sends(&["split-window", "-v", "-w", "2"]),
            json!({"direction": "horizontal", "window": "2"})
        );
        assert_eq!(
            sends(&["split-window", "horizontal"]),
            json!({"direction": "horizontal"})
        );
        for args in [
            &["split-window"][..],
            &["split-window", "-h", "-v"],
            &["split-window", "-h", "vertical"],
        ] {
            refused(args);
        }
        // --help is still help.
        assert_eq!(
            refused(&["split-window", "--help"]),
            clap::error::ErrorKind::DisplayHelp
        );
    }

    #[test]
    fn the_split_names_the_new_window_or_says_how_to_find_it() {
        let split = Reply {
            direction: "vertical".into(),
            note: Some("call list-windows".into()),
            ..Default::default()
        };
        assert_eq!(print(&split), "split vertical\nnote: call list-windows\n");
        let named = Reply {
            direction: "horizontal".into(),
            window_id: "abcdef0123".into(),
            name: Some("tests".into()),
            ..Default::default()
        };
        assert_eq!(
            print(&named),
            "split horizontal: new window abcdef01 (tests)\n"
        );
    }
}
