//! Window verbs: listing, creating, resizing, closing, changing and moving windows, and the
//! layout.

use crate::cli::{
    FocusWindowArgs, MoveWindowArgs, NewWindowArgs, ResizeArgs, SessionTarget, SetLayoutArgs,
    SetWindowArgs, SplitWindowArgs, WindowTarget,
};

use super::{session_target, window_target, Request};

pub fn list_windows(t: &SessionTarget) -> Request {
    let mut req = Request::new("list-windows");
    session_target(&mut req, t);
    req
}

pub fn new_window(a: &NewWindowArgs) -> Request {
    let mut req = Request::new("new-window");
    session_target(&mut req, &a.target);
    req.set_opt("name", a.name.clone());
    if !a.command.is_empty() {
        req.set("command", a.command.clone());
    }
    req.set_opt("workspace", a.workspace);
    req.set_opt("cwd", a.cwd.clone());
    if !a.env.is_empty() {
        req.set("env", a.env.clone());
    }
    if a.no_focus {
        req.set("focus", false);
    }
    req.set_flag("remain", a.remain);
    req
}

pub fn resize(a: &ResizeArgs) -> Request {
    let mut req = Request::new("resize");
    window_target(&mut req, &a.target);
    req.set("width", a.width);
    req.set("height", a.height);
    req
}

pub fn close_window(t: &WindowTarget) -> Request {
    let mut req = Request::new("close-window");
    window_target(&mut req, t);
    req
}

pub fn set_window(a: &SetWindowArgs) -> Request {
    let mut req = Request::new("set-window");
    window_target(&mut req, &a.target);
    // An empty --name is sent as is: it clears the window's own name.
    req.set_opt("name", a.name.clone());
    let minimized = match (a.minimize, a.restore) {
        (true, _) => Some(true),
        (false, true) => Some(false),
        (false, false) => None,
    };
    req.set_opt("minimized", minimized);
    req
}

pub fn focus_window(a: &FocusWindowArgs) -> Request {
    let mut req = Request::new("focus-window");
    session_target(&mut req, &a.target);
    req.set_opt("window", a.window.clone());
    req.set_opt("relative", a.relative.clone());
    req.set_opt("direction", a.direction.clone());
    req
}

pub fn move_window(a: &MoveWindowArgs) -> Request {
    let mut req = Request::new("move-window");
    window_target(&mut req, &a.target);
    req.set("workspace", a.workspace);
    req.set_flag("follow", a.follow);
    req
}

pub fn split_window(a: &SplitWindowArgs) -> Request {
    let mut req = Request::new("split-window");
    window_target(&mut req, &a.target);
    req.set("direction", a.axis());
    req.set_opt("name", a.name.clone());
    req
}

pub fn set_layout(a: &SetLayoutArgs) -> Request {
    let mut req = Request::new("set-layout");
    session_target(&mut req, &a.target);
    req.set_opt("tiling", a.tiling);
    req.set_flag("equalize", a.equalize);
    req.set_flag("rotate", a.rotate);
    req
}

#[cfg(test)]
mod tests {
    use crate::params::tests::{build, params, refused};
    use serde_json::json;

    #[test]
    fn new_window_maps_argv_and_focus() {
        assert_eq!(
            params(&[
                "new-window",
                "-s",
                "w",
                "build",
                "--workspace",
                "2",
                "--cwd",
                "/tmp",
                "--no-focus",
                "--remain",
                "--",
                "sh",
                "-c",
                "echo a; sleep 1"
            ]),
            json!({
                "session": "w", "name": "build", "command": ["sh", "-c", "echo a; sleep 1"],
                "workspace": 2, "cwd": "/tmp", "focus": false, "remain": true
            })
        );
        assert_eq!(params(&["new-window"]), json!({}));
        assert_eq!(
            params(&["new-window", "--", "htop"]),
            json!({"command": ["htop"]})
        );
    }

    #[test]
    fn window_commands_map_their_flags() {
        assert_eq!(
            params(&["close-window", "-s", "w", "-w", "build"]),
            json!({"session": "w", "window": "build"})
        );
        assert_eq!(build(&["kill-window"]).params_value(), None);
        assert_eq!(
            params(&["set-window", "-w", "1", "--name", "logs", "--minimize"]),
            json!({"window": "1", "name": "logs", "minimized": true})
        );
        assert_eq!(
            params(&["set-window", "--restore"]),
            json!({"minimized": false})
        );
        // An empty name is how the window's own name is cleared.
        assert_eq!(params(&["set-window", "--name", ""]), json!({"name": ""}));
        assert_eq!(
            refused(&["set-window"]),
            clap::error::ErrorKind::MissingRequiredArgument
        );
        assert_eq!(
            refused(&["set-window", "--minimize", "--restore"]),
            clap::error::ErrorKind::ArgumentConflict
        );
        assert_eq!(
            params(&["move-window", "-s", "w", "-w", "build", "3", "--follow"]),
            json!({"session": "w", "window": "build", "workspace": 3, "follow": true})
        );
        assert_eq!(params(&["move-window", "2"]), json!({"workspace": 2}));
        assert_eq!(
            params(&["split-window", "vertical", "-w", "a", "--name", "tests"]),
            json!({"direction": "vertical", "window": "a", "name": "tests"})
        );
        assert_eq!(
            refused(&["split-window", "sideways"]),
            clap::error::ErrorKind::InvalidValue
        );
    }

    #[test]
    fn focus_window_takes_exactly_one_way_of_naming() {
        assert_eq!(
            params(&["focus-window", "build"]),
            json!({"window": "build"})
        );
        assert_eq!(
            params(&["focus-window", "-s", "w", "--relative", "prev"]),
            json!({"session": "w", "relative": "prev"})
        );
        assert_eq!(
            params(&["focus-window", "--direction", "left"]),
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
    fn set_layout_needs_a_change() {
        assert_eq!(
            params(&["set-layout", "--tiling", "false"]),
            json!({"tiling": false})
        );
        assert_eq!(
            params(&["set-layout", "-s", "w", "--equalize", "--rotate"]),
            json!({"session": "w", "equalize": true, "rotate": true})
        );
        assert_eq!(
            refused(&["set-layout"]),
            clap::error::ErrorKind::MissingRequiredArgument
        );
        assert_eq!(
            refused(&["set-layout", "--tiling", "on"]),
            clap::error::ErrorKind::InvalidValue
        );
    }

    #[test]
    fn split_window_takes_tmux_h_and_v() {
        assert_eq!(
            params(&["split-window", "-h"]),
            json!({"direction": "vertical"})
        );
        assert_eq!(
            params(&["split-window", "-v", "-w", "2"]),
            json!({"direction": "horizontal", "window": "2"})
        );
        assert_eq!(
            params(&["split-window", "horizontal"]),
            json!({"direction": "horizontal"})
        );
        for refused in [
            &["split-window"][..],
            &["split-window", "-h", "-v"],
            &["split-window", "-h", "vertical"],
        ] {
            assert!(
                crate::cli::command()
                    .try_get_matches_from(std::iter::once("tuios").chain(refused.iter().copied()))
                    .is_err(),
                "{refused:?}"
            );
        }
        // --help is still help.
        let err = crate::cli::command()
            .try_get_matches_from(["tuios", "split-window", "--help"])
            .unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::DisplayHelp);
    }
}
