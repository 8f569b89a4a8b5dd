//! `tuios close-window` (alias `kill-window`): close a window and end its program.
use std::path::Path;

use protocol::verbs::close_window::{Params, Reply, SPEC};

use crate::failure::Failure;
use crate::output::shell_quote;

pub const NAME: Option<&str> = Some("close-window");
pub const ALIASES: &[&str] = &["kill-window"];

pub type Args = super::target::WindowOnly;

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    a.params()
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    // The reply is a bare acknowledgement: the line names the window as the user did.
    let target = a.target.window.clone();
    super::verb(
        socket,
        SPEC.name,
        &params(&a),
        a.target.json,
        |_: &Reply| print(target.as_deref()),
    )
}

fn print(target: Option<&str>) -> String {
    match target.filter(|t| !t.is_empty()) {
        Some(t) => format!("closed window {}\n", shell_quote(t)),
        None => "closed the focused window\n".to_string(),
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
    fn the_window_target_is_all_it_sends() {
        assert_eq!(
            sent(&params(&args(&["close-window", "-s", "w", "-w", "build"]))),
            json!({"session": "w", "window": "build"})
        );
        assert_eq!(params_value(&params(&args(&["kill-window"]))), None);
    }

    #[test]
    fn the_closed_window_is_named_as_given() {
        assert_eq!(print(Some("my logs")), "closed window 'my logs'\n");
        assert_eq!(print(None), "closed the focused window\n");
        assert_eq!(print(Some("")), "closed the focused window\n");
    }
}
