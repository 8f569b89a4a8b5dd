//! `tuios set-window`: rename a window, minimize or restore it.
use std::path::Path;

use clap::ArgGroup;
use protocol::verbs::set_window::{Params, Reply, SPEC};

use super::target::WindowTarget;
use crate::failure::Failure;
use crate::output::short_id;

pub const NAME: Option<&str> = Some("set-window");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
#[command(group(
    ArgGroup::new("change")
        .required(true)
        .multiple(true)
        .args(["name", "minimize", "restore"])
))]
pub struct Args {
    #[command(flatten)]
    pub target: WindowTarget,
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Minimize the window.
    #[arg(long, conflicts_with = "restore")]
    pub minimize: bool,
    /// Restore the window from minimized.
    #[arg(long)]
    pub restore: bool,
}

/// The typed params this command sends. An empty `--name` is sent as is: it clears the
/// window's own name.
pub fn params(a: &Args) -> Params {
    let minimized = match (a.minimize, a.restore) {
        (true, _) => Some(true),
        (false, true) => Some(false),
        (false, false) => None,
    };
    Params {
        session: a.target.session.clone(),
        window: a.target.window.clone(),
        name: a.name.clone(),
        minimized,
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

/// The window as it stands after the change.
fn print(r: &Reply) -> String {
    let w = &r.window;
    let state = if w.minimized {
        "minimized"
    } else {
        "not minimized"
    };
    let name = match &w.custom_name {
        Some(n) => format!("named {n:?}"),
        None => format!("no name of its own (title {:?})", w.title),
    };
    format!("window {}: {name}, {state}\n", short_id(&w.window_id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::refused;
    use crate::verbs::testing::sends;

    use protocol::verbs::common::WindowRow;
    use serde_json::json;

    #[test]
    fn name_and_minimized_map_from_their_flags() {
        assert_eq!(
            sends(&["set-window", "-w", "1", "--name", "logs", "--minimize"]),
            json!({"window": "1", "name": "logs", "minimized": true})
        );
        assert_eq!(
            sends(&["set-window", "--restore"]),
            json!({"minimized": false})
        );
        // An empty name is how the window's own name is cleared.
        assert_eq!(sends(&["set-window", "--name", ""]), json!({"name": ""}));
        assert_eq!(
            refused(&["set-window"]),
            clap::error::ErrorKind::MissingRequiredArgument
        );
        assert_eq!(
            refused(&["set-window", "--minimize", "--restore"]),
            clap::error::ErrorKind::ArgumentConflict
        );
    }

    #[test]
    fn the_window_is_shown_as_it_stands() {
        let reply = |custom_name: Option<&str>, minimized: bool| Reply {
            window: WindowRow {
                window_id: "abcdef0123".into(),
                custom_name: custom_name.map(str::to_string),
                title: "sh".into(),
                minimized,
                ..Default::default()
            },
            ..Default::default()
        };
        assert_eq!(
            print(&reply(Some("logs"), true)),
            "window abcdef01: named \"logs\", minimized\n"
        );
        assert_eq!(
            print(&reply(None, false)),
            "window abcdef01: no name of its own (title \"sh\"), not minimized\n"
        );
    }
}
