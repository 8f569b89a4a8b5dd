//! `tuios close-window` (alias `kill-window`): close a window and end its program; with
//! `--tree`, every process it started, daemonised ones included.
use std::path::Path;

use protocol::verbs::close_window::{Params, Reply, SPEC};

use crate::failure::Failure;
use crate::output::shell_quote;

pub const NAME: Option<&str> = Some("close-window");
pub const ALIASES: &[&str] = &["kill-window"];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: super::target::WindowTarget,
    /// End every process the window started, including those that called setsid (daemons).
    #[arg(long)]
    pub tree: bool,
}

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        window: a.target.window.clone(),
        tree: a.tree.then_some(true),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    // The reply only counts what ended: the line names the window as the user did.
    let target = a.target.window.clone();
    super::verb(
        socket,
        SPEC.name,
        &params(&a),
        a.target.json,
        |r: &Reply| print(target.as_deref(), r.ended),
    )
}

fn print(target: Option<&str>, ended: Option<u64>) -> String {
    let what = match target.filter(|t| !t.is_empty()) {
        Some(t) => format!("closed window {}", shell_quote(t)),
        None => "closed the focused window".to_string(),
    };
    match ended {
        Some(n) => format!("{what}; {n} processes ended\n"),
        None => format!("{what}\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::params_value;
    use crate::verbs::testing::{parse, sent};
    use crate::verbs::VerbCommand;
    use serde_json::json;

    fn args(argv: &[&str]) -> Args {
        match parse(argv) {
            VerbCommand::CloseWindow(a) => a,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_window_target_and_tree_are_what_it_sends() {
        assert_eq!(
            sent(&params(&args(&["close-window", "-s", "w", "-w", "build"]))),
            json!({"session": "w", "window": "build"})
        );
        assert_eq!(
            sent(&params(&args(&["close-window", "-w", "srv", "--tree"]))),
            json!({"window": "srv", "tree": true})
        );
        assert_eq!(params_value(&params(&args(&["kill-window"]))), None);
    }

    #[test]
    fn the_closed_window_is_named_as_given() {
        assert_eq!(print(Some("my logs"), None), "closed window 'my logs'\n");
        assert_eq!(print(None, None), "closed the focused window\n");
        assert_eq!(print(Some(""), None), "closed the focused window\n");
        assert_eq!(
            print(Some("srv"), Some(3)),
            "closed window srv; 3 processes ended\n"
        );
    }
}
