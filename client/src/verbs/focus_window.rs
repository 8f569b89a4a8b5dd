//! `tuios focus-window`: focus a window by target, by stepping, or by screen side.
use std::path::Path;

use clap::ArgGroup;
use protocol::verbs::focus_window::{Params, Reply, SPEC};

use super::target::SessionTarget;
use crate::failure::Failure;
use crate::output::short_id;

pub const NAME: Option<&str> = Some("focus-window");
pub const ALIASES: &[&str] = &[];

/// The window is named in exactly one of three ways, as the verb demands.
#[derive(Debug, clap::Args)]
#[command(group(
    ArgGroup::new("how")
        .required(true)
        .args(["window", "relative", "direction"])
))]
pub struct Args {
    #[command(flatten)]
    pub target: SessionTarget,
    #[arg(value_name = "WINDOW")]
    pub window: Option<String>,
    #[arg(long, value_name = "STEP")]
    pub relative: Option<String>,
    #[arg(long, value_name = "SIDE")]
    pub direction: Option<String>,
}

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        window: a.window.clone(),
        relative: a.relative.clone(),
        direction: a.direction.clone(),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

/// Which window has the focus now, and on which workspace.
fn print(r: &Reply) -> String {
    let id = &r.focused_window_id;
    let ws = r.current_workspace;
    if id.is_empty() {
        return format!("no window has the focus; showing workspace {ws}\n");
    }
    match &r.window {
        Some(w) => format!(
            "focused window {} ({}) on workspace {ws}\n",
            short_id(id),
            w.display_name
        ),
        None => format!("focused window {} on workspace {ws}\n", short_id(id)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::refused;
    use crate::verbs::testing::sends;

    use protocol::verbs::common::WindowRow;
    use serde_json::json;

    #[test]
    fn focus_window_takes_exactly_one_way_of_naming() {
        assert_eq!(
            sends(&["focus-window", "build"]),
            json!({"window": "build"})
        );
        assert_eq!(
            sends(&["focus-window", "-s", "w", "--relative", "prev"]),
            json!({"session": "w", "relative": "prev"})
        );
        assert_eq!(
            sends(&["focus-window", "--direction", "left"]),
            json!({"direction": "left"})
        );
        assert_eq!(
            refused(&["focus-window"]),
            clap::error::ErrorKind::MissingRequiredArgument
        );
        assert_eq!(
            refused(&["focus-window", "1", "--relative", "next"]),
            clap::error::ErrorKind::ArgumentConflict
        );
        assert_eq!(
            refused(&["focus-window", "--relative", "forward"]),
            clap::error::ErrorKind::InvalidValue
        );
    }

    #[test]
    fn the_focus_is_one_line() {
        let reply = Reply {
            focused_window_id: "0123456789".into(),
            current_workspace: 2,
            window: Some(WindowRow {
                display_name: "build".into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        assert_eq!(
            print(&reply),
            "focused window 01234567 (build) on workspace 2\n"
        );
        let unnamed = Reply {
            window: None,
            ..reply
        };
        assert_eq!(print(&unnamed), "focused window 01234567 on workspace 2\n");
        let none = Reply {
            current_workspace: 3,
            ..Default::default()
        };
        assert_eq!(
            print(&none),
            "no window has the focus; showing workspace 3\n"
        );
    }
}
