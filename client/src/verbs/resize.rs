//! `tuios resize`: the size of a window's terminal.
use std::path::Path;

use protocol::verbs::resize::{Params, Reply, SPEC};

use super::target::WindowTarget;
use crate::failure::Failure;

pub const NAME: Option<&str> = Some("resize");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: WindowTarget,
    #[arg(value_name = "WIDTH")]
    pub width: i64,
    #[arg(value_name = "HEIGHT")]
    pub height: i64,
}

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        window: a.target.window.clone(),
        width: a.width,
        height: a.height,
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

fn print(r: &Reply) -> String {
    format!("resized to {}x{}\n", r.width, r.height)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::{parse, sent};
    use crate::verbs::VerbCommand;
    use serde_json::json;

    #[test]
    fn the_window_and_its_size_are_sent() {
        let VerbCommand::Resize(a) = parse(&["resize", "-w", "1", "100", "30"]) else {
            panic!("resize parses");
        };
        assert_eq!(
            sent(&params(&a)),
            json!({"window": "1", "width": 100, "height": 30})
        );
    }

    #[test]
    fn without_a_window_the_daemon_picks_the_focused_one() {
        let VerbCommand::Resize(a) = parse(&["resize", "100", "30"]) else {
            panic!("resize parses");
        };
        assert_eq!(sent(&params(&a)), json!({"width": 100, "height": 30}));
    }

    #[test]
    fn the_size_in_effect_is_shown() {
        let reply = Reply {
            width: 120,
            height: 40,
            ..Default::default()
        };
        assert_eq!(print(&reply), "resized to 120x40\n");
    }
}
