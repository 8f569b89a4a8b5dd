//! The `run-command` vocabulary: every command name `run-command` takes, how many arguments each
//! one wants, and whether the daemon can run it without a client. One table feeds the registry's
//! published `accepted` list, the name check and the argument-count check, so they cannot drift.

use crate::closest::{closest_match, echo_name};
use crate::error::{ErrorCode, Hint, VerbError};

/// Who can carry out a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    /// The daemon runs it itself when no client is attached (and routes it to a client that is).
    Daemon,
    /// Only an attached client can run it; headless, the answer is `needs_client`.
    Client,
}

/// One command of the vocabulary.
#[derive(Debug, Clone)]
pub struct CommandSpec {
    pub name: &'static str,
    /// Usage of the arguments, e.g. `"<n>"` or `"[target]"`; empty when it takes none.
    pub args: &'static str,
    pub min_args: usize,
    /// `None` when any number of trailing arguments is taken.
    pub max_args: Option<usize>,
    pub runner: Runner,
    pub description: &'static str,
}

impl CommandSpec {
    /// The whole usage line, e.g. `Split <horizontal|vertical>`.
    pub fn usage(&self) -> String {
        if self.args.is_empty() {
            self.name.to_owned()
        } else {
            format!("{} {}", self.name, self.args)
        }
    }

    /// Whether `n` arguments are within this command's bounds.
    pub fn takes(&self, n: usize) -> bool {
        n >= self.min_args && self.max_args.is_none_or(|max| n <= max)
    }

    /// The accepted argument count in words, e.g. "no arguments", "1 to 2 arguments".
    fn arity(&self) -> String {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        match (self.min_args, self.max_args) {
            (0, Some(0)) => "no arguments".to_owned(),
            (min, Some(max)) if min == max => format!("exactly {min} argument{}", plural(min)),
            (min, Some(max)) => format!("{min} to {max} arguments"),
            (0, None) => "any number of arguments".to_owned(),
            (min, None) => format!("at least {min} argument{}", plural(min)),
        }
    }
}

use Runner::{Client, Daemon};

const fn cmd(
    name: &'static str,
    args: &'static str,
    min_args: usize,
    max_args: Option<usize>,
    runner: Runner,
    description: &'static str,
) -> CommandSpec {
    CommandSpec {
        name,
        args,
        min_args,
        max_args,
        runner,
        description,
    }
}

/// Every command name, sorted. This very slice is the registry's `accepted` list for
/// `run-command`'s `command`; a test keeps it equal to the names of [`commands`].
pub static COMMAND_NAMES: &[&str] = &[
    "Backspace",
    "CloseWindow",
    "CommandPalette",
    "Delete",
    "Detach",
    "DisableAnimations",
    "DisableTiling",
    "Down",
    "EnableAnimations",
    "EnableTiling",
    "End",
    "Enter",
    "EqualizeSplits",
    "Escape",
    "FocusDirection",
    "FocusWindow",
    "GetSessionInfo",
    "GetWindow",
    "Home",
    "KeyCombo",
    "Left",
    "ListWindows",
    "LoadLayout",
    "MinimizeWindow",
    "MoveAndFollowWorkspace",
    "MoveToWorkspace",
    "NewWindow",
    "NextWindow",
    "Preselect",
    "PrevWindow",
    "RenameWindow",
    "RestoreWindow",
    "Right",
    "RotateSplit",
    "SaveLayout",
    "SetBorderStyle",
    "SetConfig",
    "SetDockbarPosition",
    "SetTheme",
    "ShowNotification",
    "SmartSplit",
    "SnapFullscreen",
    "SnapLeft",
    "SnapRight",
    "Space",
    "Split",
    "SwitchWorkspace",
    "Tab",
    "TerminalMode",
    "ToggleAnimations",
    "ToggleTiling",
    "ToggleZoom",
    "Type",
    "Up",
    "WindowManagementMode",
];

const COUNT: &str = "[count]";
const ONE: Option<usize> = Some(1);
const NONE: Option<usize> = Some(0);

static COMMANDS: &[CommandSpec] = &[
    cmd("Backspace", COUNT, 0, ONE, Client, "Press Backspace in the focused window, count times (default 1)."),
    cmd("CloseWindow", "[target]", 0, ONE, Daemon, "Close a window (default: the focused one) and end its program."),
    cmd("CommandPalette", "", 0, NONE, Client, "Open the client's command palette."),
    cmd("Delete", COUNT, 0, ONE, Client, "Press Delete in the focused window, count times (default 1)."),
    cmd("Detach", "", 0, NONE, Client, "Detach the attached client; the session keeps running."),
    cmd("DisableAnimations", "", 0, NONE, Client, "Turn the client's animations off."),
    cmd("DisableTiling", "", 0, NONE, Client, "Switch the current workspace to floating windows."),
    cmd("Down", COUNT, 0, ONE, Client, "Press the Down arrow in the focused window, count times (default 1)."),
    cmd("EnableAnimations", "", 0, NONE, Client, "Turn the client's animations on."),
    cmd("EnableTiling", "", 0, NONE, Client, "Switch the current workspace to tiled windows."),
    cmd("End", COUNT, 0, ONE, Client, "Press End in the focused window, count times (default 1)."),
    cmd("Enter", COUNT, 0, ONE, Client, "Press Enter in the focused window, count times (default 1)."),
    cmd("EqualizeSplits", "", 0, NONE, Client, "Give every tiled pane an equal share of its split."),
    cmd("Escape", COUNT, 0, ONE, Client, "Press Escape in the focused window, count times (default 1)."),
    cmd("FocusDirection", "<left|right|up|down>", 1, ONE, Client, "Focus the pane next to the focused one on that side."),
    cmd("FocusWindow", "<target>", 1, ONE, Daemon, "Focus a window and switch to its workspace."),
    cmd("GetSessionInfo", "", 0, NONE, Daemon, "Return what session-info returns for the session."),
    cmd("GetWindow", "[target]", 0, ONE, Daemon, "Return one window's row (default: the focused window)."),
    cmd("Home", COUNT, 0, ONE, Client, "Press Home in the focused window, count times (default 1)."),
    cmd("KeyCombo", "<combo>", 1, ONE, Client, "Press a key combination such as ctrl+b in the focused window; alt+1 to alt+9 switch workspace."),
    cmd("Left", COUNT, 0, ONE, Client, "Press the Left arrow in the focused window, count times (default 1)."),
    cmd("ListWindows", "", 0, NONE, Daemon, "Return what list-windows returns for the session."),
    cmd("LoadLayout", "<name>", 1, ONE, Client, "Arrange the current workspace as a saved layout template, opening windows it lacks."),
    cmd("MinimizeWindow", "[target]", 0, ONE, Daemon, "Minimize a window (default: the focused one)."),
    cmd("MoveAndFollowWorkspace", "<n>", 1, ONE, Daemon, "Move the focused window to workspace n and switch there."),
    cmd("MoveToWorkspace", "<n>", 1, ONE, Daemon, "Move the focused window to workspace n."),
    cmd("NewWindow", "[name] [argv...]", 0, None, Daemon, "Open a focused window on the current workspace, optionally named, running argv instead of the shell."),
    cmd("NextWindow", "", 0, NONE, Daemon, "Focus the next window on the current workspace."),
    cmd("Preselect", "<left|right|up|down>", 1, ONE, Client, "Choose the side the next tiled window opens on."),
    cmd("PrevWindow", "", 0, NONE, Daemon, "Focus the previous window on the current workspace."),
    cmd("RenameWindow", "<new-name> | <target> <new-name>", 1, Some(2), Daemon, "Rename the focused window, or the target window when two arguments are given."),
    cmd("RestoreWindow", "[target]", 0, ONE, Daemon, "Restore a minimized window (default: the focused one)."),
    cmd("Right", COUNT, 0, ONE, Client, "Press the Right arrow in the focused window, count times (default 1)."),
    cmd("RotateSplit", "", 0, NONE, Client, "Turn the focused pane's split the other way."),
    cmd("SaveLayout", "<name>", 1, ONE, Client, "Save the current workspace's arrangement (tiling, splits, floating geometry, names) as a layout template."),
    cmd("SetBorderStyle", "<style>", 1, ONE, Client, "Change the window border style in the client."),
    cmd("SetConfig", "<path> <value>", 2, Some(2), Client, "Change a setting in the attached client while it runs."),
    cmd("SetDockbarPosition", "<top|bottom|hidden>", 1, ONE, Client, "Move or hide the client's dock bar."),
    cmd("SetTheme", "<theme>", 1, ONE, Client, "Switch the client to another colour theme."),
    cmd("ShowNotification", "<message> [type]", 1, Some(2), Client, "Show a notification in the client; type is info, success, warning or error."),
    cmd("SmartSplit", "", 0, NONE, Client, "Split the focused pane along its longer side."),
    cmd("SnapFullscreen", "", 0, NONE, Client, "Make the focused window fill the screen."),
    cmd("SnapLeft", "", 0, NONE, Client, "Snap the focused window to the left half of the screen."),
    cmd("SnapRight", "", 0, NONE, Client, "Snap the focused window to the right half of the screen."),
    cmd("Space", COUNT, 0, ONE, Client, "Press Space in the focused window, count times (default 1)."),
    cmd("Split", "<horizontal|vertical>", 1, ONE, Client, "Split the focused pane on that axis; tiling must be on."),
    cmd("SwitchWorkspace", "<n>", 1, ONE, Daemon, "Make workspace n the current one."),
    cmd("Tab", COUNT, 0, ONE, Client, "Press Tab in the focused window, count times (default 1)."),
    cmd("TerminalMode", "", 0, NONE, Client, "Put the client in terminal mode, where keys go to the focused window."),
    cmd("ToggleAnimations", "", 0, NONE, Client, "Turn the client's animations on or off."),
    cmd("ToggleTiling", "", 0, NONE, Client, "Switch the current workspace between tiled and floating windows."),
    cmd("ToggleZoom", "", 0, NONE, Client, "Zoom the focused pane to the whole screen, or back."),
    cmd("Type", "<text>", 1, ONE, Client, "Type text into the focused window."),
    cmd("Up", COUNT, 0, ONE, Client, "Press the Up arrow in the focused window, count times (default 1)."),
    cmd("WindowManagementMode", "", 0, NONE, Client, "Put the client in window-management mode, where keys drive windows."),
];

/// Every command, sorted by name.
pub fn commands() -> &'static [CommandSpec] {
    COMMANDS
}

/// Every command name, sorted; the same slice the registry publishes.
pub fn command_names() -> &'static [&'static str] {
    COMMAND_NAMES
}

/// The command with exactly this name (case-sensitive).
pub fn find_command(name: &str) -> Option<&'static CommandSpec> {
    COMMANDS
        .binary_search_by(|c| c.name.cmp(name))
        .ok()
        .map(|i| &COMMANDS[i])
}

const LIST_COMMAND: &str = "tuios list-verbs run-command";

/// Checks a command name and its argument count. An empty or unknown name is `invalid_params`
/// on `command` (with the nearest name); a wrong count is `invalid_params` on `args` with the
/// usage. Argument values are left to whoever runs the command.
pub fn check(name: &str, args: &[String]) -> Result<&'static CommandSpec, VerbError> {
    if name.is_empty() {
        return Err(VerbError::new(
            ErrorCode::InvalidParams,
            "command is required, e.g. \"SwitchWorkspace\"",
        )
        .with_hint(
            Hint::new()
                .param("command")
                .verb("list-verbs")
                .command(LIST_COMMAND)
                .accepted(COMMAND_NAMES),
        ));
    }
    let Some(spec) = find_command(name) else {
        return Err(VerbError::new(
            ErrorCode::InvalidParams,
            format!("unknown command {:?}", echo_name(name)),
        )
        .with_hint(
            Hint::new()
                .param("command")
                .verb("list-verbs")
                .command(LIST_COMMAND)
                .did_you_mean(closest_match(name, COMMAND_NAMES.iter().copied()))
                .accepted(COMMAND_NAMES)
                .detail("Command names are matched exactly, capitals included."),
        ));
    };
    if !spec.takes(args.len()) {
        return Err(VerbError::new(
            ErrorCode::InvalidParams,
            format!("{} takes {}, got {}", spec.name, spec.arity(), args.len()),
        )
        .with_hint(
            Hint::new()
                .param("args")
                .verb("list-verbs")
                .command(LIST_COMMAND)
                .detail(format!("usage: {}", spec.usage())),
        ));
    }
    check_values(spec, args)?;
    Ok(spec)
}

/// Directions `FocusDirection` and `Preselect` take (the client also reads l, r, u, d, top and
/// bottom).
pub const DIRECTIONS: &[&str] = &["left", "right", "up", "down"];
/// Axes `Split` takes (also h and v).
pub const SPLIT_AXES: &[&str] = &["horizontal", "vertical"];
/// Where `SetDockbarPosition` puts the dock.
pub const DOCK_POSITIONS: &[&str] = &["top", "bottom", "hidden"];
/// Kinds `ShowNotification` takes (`warn` is read as warning).
pub const NOTIFICATION_TYPES: &[&str] = &["info", "success", "warning", "error"];
/// Most presses a `[count]` argument asks for.
pub const MAX_COUNT: usize = 1000;

/// Checks argument values the daemon can judge without a client, so that a command routed to
/// a client never fails there on an argument (`invalid_params` on `args` here instead of
/// `command_failed` after routing). Values only the configuration can judge (SetConfig,
/// SetTheme, SetBorderStyle) are checked by the daemon against the option registry.
fn check_values(spec: &CommandSpec, args: &[String]) -> Result<(), VerbError> {
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
    // `value` is what was given where one of `accepted` was wanted (for did_you_mean).
    let refuse_value = |message: String, value: &str, accepted: &[&str]| {
        let mut hint = Hint::new()
            .param("args")
            .verb("list-verbs")
            .command(LIST_COMMAND)
            .detail(format!("usage: {}", spec.usage()));
        if !accepted.is_empty() {
            hint = hint
                .did_you_mean(closest_match(value, accepted.iter().copied()))
                .accepted(accepted.iter().copied());
        }
        Err(VerbError::new(ErrorCode::InvalidParams, message).with_hint(hint))
    };
    let refuse = |message: String, accepted: &[&str]| refuse_value(message, arg(0), accepted);
    let one_of = |value: &str, accepted: &[&str], aliases: &[&str]| {
        let v = value.trim().to_ascii_lowercase();
        accepted.contains(&v.as_str()) || aliases.contains(&v.as_str())
    };
    let count_ok = |a: &str| {
        a.trim()
            .parse::<usize>()
            .is_ok_and(|n| (1..=MAX_COUNT).contains(&n))
    };
    match spec.name {
        "SaveLayout" | "LoadLayout" => {
            layout_name(arg(0))?;
            Ok(())
        }
        _ if spec.args == COUNT && !args.first().is_none_or(|a| count_ok(a)) => refuse(
            format!(
                "{}: {:?} is not a count from 1 to {MAX_COUNT}",
                spec.name,
                echo_name(arg(0))
            ),
            &[],
        ),
        "FocusDirection" | "Preselect"
            if !one_of(arg(0), DIRECTIONS, &["l", "r", "u", "d", "top", "bottom"]) =>
        {
            refuse(
                format!(
                    "{}: {:?} is not left, right, up or down",
                    spec.name,
                    echo_name(arg(0))
                ),
                DIRECTIONS,
            )
        }
        "Split" if !one_of(arg(0), SPLIT_AXES, &["h", "v"]) => refuse(
            format!(
                "Split: {:?} is not a split direction; use horizontal or vertical",
                echo_name(arg(0))
            ),
            SPLIT_AXES,
        ),
        "SetDockbarPosition" if !one_of(arg(0), DOCK_POSITIONS, &[]) => refuse(
            format!(
                "SetDockbarPosition: {:?} is not top, bottom or hidden",
                echo_name(arg(0))
            ),
            DOCK_POSITIONS,
        ),
        "ShowNotification" if arg(0).trim().is_empty() => {
            refuse("ShowNotification needs a message to show".into(), &[])
        }
        "ShowNotification" if args.len() > 1 && !one_of(arg(1), NOTIFICATION_TYPES, &["warn"]) => {
            refuse_value(
                format!(
                    "ShowNotification: {:?} is not info, success, warning or error",
                    echo_name(arg(1))
                ),
                arg(1),
                NOTIFICATION_TYPES,
            )
        }
        "Type" if arg(0).is_empty() => refuse("Type needs the text to type".into(), &[]),
        "KeyCombo" if !is_key_combo(arg(0)) => refuse(
            format!(
                "KeyCombo: {:?} is not a key combination like ctrl+b or alt+1",
                echo_name(arg(0))
            ),
            &[],
        ),
        "FocusWindow" if arg(0).trim().is_empty() => {
            refuse("FocusWindow needs a window name or id".into(), &[])
        }
        _ => Ok(()),
    }
}

/// Whether `s` is a key combination as the attached client reads one: modifiers (ctrl,
/// control, c, alt, opt, option, meta, m, shift, s, super, cmd, win) joined with `+` to a key
/// name or one character (`ctrl++` is ctrl and the plus key).
pub fn is_key_combo(s: &str) -> bool {
    let s = s.trim();
    if s.is_empty() {
        return false;
    }
    let (head, last) = match s.strip_suffix("++") {
        Some(h) => (h, "+"),
        None => match s.rsplit_once('+') {
            Some((h, k)) if !k.is_empty() => (h, k),
            Some(_) => return false,
            None => ("", s),
        },
    };
    let mods_ok = head.split('+').filter(|m| !m.is_empty()).all(|m| {
        matches!(
            m.to_ascii_lowercase().as_str(),
            "ctrl"
                | "control"
                | "c"
                | "alt"
                | "opt"
                | "option"
                | "meta"
                | "m"
                | "shift"
                | "s"
                | "super"
                | "cmd"
                | "win"
        )
    });
    mods_ok && (is_combo_key_name(last) || last.chars().count() == 1)
}

/// Key names a combination ends with (the client's list).
fn is_combo_key_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    match lower.as_str() {
        "enter" | "return" | "cr" | "space" | "spc" | "tab" | "escape" | "esc" | "backspace"
        | "bs" | "delete" | "del" | "insert" | "ins" | "up" | "down" | "left" | "right"
        | "home" | "end" | "pageup" | "pgup" | "pagedown" | "pgdown" | "pgdn" => true,
        f if f.len() >= 2 && f.starts_with('f') => {
            f[1..].parse::<u8>().is_ok_and(|n| (1..=24).contains(&n))
        }
        _ => false,
    }
}

/// Longest layout template name: it is a file name, and a name, not a description.
pub const MAX_LAYOUT_NAME: usize = 64;

/// Checks a layout template name: 1 to 64 of `A-Z a-z 0-9 . _ -`, not starting with a dot. The
/// name becomes `<name>.json` in the layouts directory, so nothing else may reach the path.
pub fn layout_name(name: &str) -> Result<&str, VerbError> {
    let refuse = |why: &str| {
        VerbError::new(
            ErrorCode::InvalidParams,
            format!("layout name {:?} {why}", echo_name(name)),
        )
        .with_hint(Hint::new().param("args").detail(format!(
            "a layout name is 1 to {MAX_LAYOUT_NAME} letters, digits, dots, dashes or underscores, not starting with a dot, e.g. dev or work-2"
        )))
    };
    if name.is_empty() {
        return Err(refuse("is empty"));
    }
    if name.len() > MAX_LAYOUT_NAME {
        return Err(refuse(&format!("is longer than {MAX_LAYOUT_NAME} bytes")));
    }
    if name.starts_with('.') {
        return Err(refuse("starts with a dot"));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
    {
        return Err(refuse(&format!("holds {c:?}")));
    }
    Ok(name)
}

/// Reads the workspace number argument of a workspace command: a decimal number (surrounding
/// spaces ignored) in `1..=max`. Anything else is `invalid_params` on `args`.
pub fn workspace_arg(command: &str, arg: Option<&String>, max: i64) -> Result<i64, VerbError> {
    let range_detail = || format!("this session has workspaces 1 to {max}.");
    let Some(raw) = arg else {
        return Err(VerbError::new(
            ErrorCode::InvalidParams,
            format!("{command} needs a workspace number (1-{max})"),
        )
        .with_hint(
            Hint::new()
                .param("args")
                .verb("list-workspaces")
                .detail(range_detail()),
        ));
    };
    let n: i64 = raw.trim().parse().map_err(|_| {
        VerbError::new(
            ErrorCode::InvalidParams,
            format!("{command}: {:?} is not a workspace number", echo_name(raw)),
        )
        .with_hint(
            Hint::new()
                .param("args")
                .verb("list-workspaces")
                .detail(range_detail()),
        )
    })?;
    if !(1..=max).contains(&n) {
        return Err(VerbError::new(
            ErrorCode::InvalidParams,
            format!("workspace {n} out of range (1-{max})"),
        )
        .with_hint(
            Hint::new()
                .param("args")
                .verb("list-workspaces")
                .detail(format!(
                    "this session has workspaces 1 to {max}; {n} is outside that."
                )),
        ));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn table_is_sorted_unique_and_matches_the_name_list() {
        let names: Vec<&str> = commands().iter().map(|c| c.name).collect();
        assert_eq!(names, command_names());
        assert!(names.windows(2).all(|w| w[0] < w[1]), "sorted and unique");
        for c in commands() {
            assert!(!c.description.is_empty(), "{}", c.name);
            assert!(c.max_args.is_none_or(|max| max >= c.min_args), "{}", c.name);
            // A required argument shows as <...> in the usage.
            assert_eq!(c.min_args > 0, c.args.starts_with('<'), "{}", c.name);
            assert_eq!(c.max_args == Some(0), c.args.is_empty(), "{}", c.name);
            assert_eq!(find_command(c.name).map(|f| f.name), Some(c.name));
        }
    }

    #[test]
    fn runners() {
        let daemon: Vec<&str> = commands()
            .iter()
            .filter(|c| c.runner == Runner::Daemon)
            .map(|c| c.name)
            .collect();
        assert_eq!(
            daemon,
            [
                "CloseWindow",
                "FocusWindow",
                "GetSessionInfo",
                "GetWindow",
                "ListWindows",
                "MinimizeWindow",
                "MoveAndFollowWorkspace",
                "MoveToWorkspace",
                "NewWindow",
                "NextWindow",
                "PrevWindow",
                "RenameWindow",
                "RestoreWindow",
                "SwitchWorkspace"
            ]
        );
        assert_eq!(find_command("Split").unwrap().runner, Runner::Client);
        assert_eq!(find_command("Detach").unwrap().runner, Runner::Client);
        // Tape keywords that do nothing here are not offered.
        for absent in [
            "Sleep",
            "Wait",
            "WaitUntilRegex",
            "Set",
            "Output",
            "Source",
            "Comment",
            "Focus",
        ] {
            assert!(find_command(absent).is_none(), "{absent}");
        }
    }

    #[test]
    fn find_is_exact() {
        assert!(find_command("SwitchWorkspace").is_some());
        assert!(find_command("switchworkspace").is_none());
        assert!(find_command("SwitchWorkspace ").is_none());
        assert!(find_command("").is_none());
    }

    #[test]
    fn check_accepts_valid_calls() {
        let ok: &[(&str, &[&str])] = &[
            ("NewWindow", &[]),
            ("NewWindow", &["logs", "tail", "-f", "x.log"]),
            ("CloseWindow", &[]),
            ("CloseWindow", &["build"]),
            ("RenameWindow", &["new"]),
            ("RenameWindow", &["old", "new"]),
            ("SwitchWorkspace", &["2"]),
            ("ListWindows", &[]),
            ("Enter", &[]),
            ("Enter", &["3"]),
            ("SetConfig", &["appearance.border_style", "rounded"]),
            ("ShowNotification", &["hi"]),
            ("ShowNotification", &["hi", "warning"]),
            ("Type", &["echo hi"]),
        ];
        for (name, args) in ok {
            assert_eq!(
                check(name, &strings(args)).map(|c| c.name),
                Ok(*name),
                "{name} {args:?}"
            );
        }
    }

    #[test]
    fn check_refuses_unknown_names() {
        let err = check("SwitchWorkpace", &[]).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParams);
        assert_eq!(err.message, "unknown command \"SwitchWorkpace\"");
        assert_eq!(err.hint.param.as_deref(), Some("command"));
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("SwitchWorkspace"));
        assert_eq!(
            err.hint.command.as_deref(),
            Some("tuios list-verbs run-command")
        );
        assert_eq!(err.hint.accepted, command_names());

        // Case matters for the match, not for the suggestion.
        let err = check("enabletiling", &[]).unwrap_err();
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("EnableTiling"));

        // Nothing near: no suggestion, still the list.
        let err = check("Reboot the moon", &[]).unwrap_err();
        assert_eq!(err.hint.did_you_mean, None);
        assert!(!err.hint.accepted.is_empty());

        // Tape-only keywords are unknown here.
        assert!(check("Sleep", &strings(&["1s"])).is_err());

        let err = check("", &[]).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParams);
        assert_eq!(err.hint.param.as_deref(), Some("command"));
        assert!(err.message.contains("required"), "{}", err.message);

        let long = "X".repeat(300);
        let err = check(&long, &[]).unwrap_err();
        assert!(err.message.contains("(300 bytes)"), "{}", err.message);
    }

    #[test]
    fn check_refuses_wrong_argument_counts() {
        let cases: &[(&str, &[&str], &str, &str)] = &[
            (
                "Split",
                &[],
                "Split takes exactly 1 argument, got 0",
                "usage: Split <horizontal|vertical>",
            ),
            (
                "Split",
                &["h", "v"],
                "Split takes exactly 1 argument, got 2",
                "usage: Split <horizontal|vertical>",
            ),
            (
                "ListWindows",
                &["x"],
                "ListWindows takes no arguments, got 1",
                "usage: ListWindows",
            ),
            (
                "RenameWindow",
                &[],
                "RenameWindow takes 1 to 2 arguments, got 0",
                "usage: RenameWindow <new-name> | <target> <new-name>",
            ),
            (
                "RenameWindow",
                &["a", "b", "c"],
                "RenameWindow takes 1 to 2 arguments, got 3",
                "usage: RenameWindow <new-name> | <target> <new-name>",
            ),
            (
                "SetConfig",
                &["path"],
                "SetConfig takes exactly 2 arguments, got 1",
                "usage: SetConfig <path> <value>",
            ),
            (
                "Enter",
                &["1", "2"],
                "Enter takes 0 to 1 arguments, got 2",
                "usage: Enter [count]",
            ),
            (
                "FocusWindow",
                &[],
                "FocusWindow takes exactly 1 argument, got 0",
                "usage: FocusWindow <target>",
            ),
        ];
        for (name, args, message, detail) in cases {
            let err = check(name, &strings(args)).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidParams);
            assert_eq!(err.message, *message);
            assert_eq!(err.hint.param.as_deref(), Some("args"));
            assert_eq!(err.hint.detail.as_deref(), Some(*detail));
            assert_eq!(
                err.hint.command.as_deref(),
                Some("tuios list-verbs run-command")
            );
        }
    }

    #[test]
    fn layout_names() {
        for ok in ["dev", "work-2", "a.b_c", "X", &"n".repeat(MAX_LAYOUT_NAME)] {
            assert_eq!(layout_name(ok), Ok(ok));
            assert!(check("SaveLayout", &strings(&[ok])).is_ok(), "{ok}");
        }
        for (bad, why) in [
            ("", "is empty"),
            (".hidden", "starts with a dot"),
            ("..", "starts with a dot"),
            ("a/b", "holds '/'"),
            ("../etc", "starts with a dot"),
            ("two words", "holds ' '"),
            ("caf\u{e9}", "holds '\u{e9}'"),
        ] {
            let err = check("LoadLayout", &strings(&[bad])).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidParams, "{bad:?}");
            assert_eq!(err.hint.param.as_deref(), Some("args"), "{bad:?}");
            assert!(err.message.ends_with(why), "{bad:?}: {}", err.message);
        }
        let long = "n".repeat(MAX_LAYOUT_NAME + 1);
        assert!(layout_name(&long)
            .unwrap_err()
            .message
            .contains("longer than 64"));
        assert_eq!(find_command("SaveLayout").unwrap().runner, Runner::Client);
        assert_eq!(find_command("LoadLayout").unwrap().runner, Runner::Client);
    }

    #[test]
    fn routed_argument_values_are_checked_before_routing() {
        let ok: &[(&str, &[&str])] = &[
            ("Enter", &["3"]),
            ("Up", &[" 1000 "]),
            ("FocusDirection", &["left"]),
            ("FocusDirection", &["Down"]),
            ("Preselect", &["u"]),
            ("Split", &["vertical"]),
            ("Split", &["h"]),
            ("SetDockbarPosition", &["hidden"]),
            ("ShowNotification", &["hi", "Warning"]),
            ("ShowNotification", &["hi", "warn"]),
            ("KeyCombo", &["ctrl+b"]),
            ("KeyCombo", &["Alt+1"]),
            ("KeyCombo", &["ctrl++"]),
            ("KeyCombo", &["shift+F12"]),
            ("KeyCombo", &["x"]),
            ("Type", &["echo hi"]),
            ("FocusWindow", &["build"]),
        ];
        for (name, args) in ok {
            assert!(check(name, &strings(args)).is_ok(), "{name} {args:?}");
        }
        let bad: &[(&str, &[&str], &str)] = &[
            (
                "Enter",
                &["0"],
                "Enter: \"0\" is not a count from 1 to 1000",
            ),
            (
                "Tab",
                &["1001"],
                "Tab: \"1001\" is not a count from 1 to 1000",
            ),
            (
                "Left",
                &["two"],
                "Left: \"two\" is not a count from 1 to 1000",
            ),
            (
                "FocusDirection",
                &["sideways"],
                "FocusDirection: \"sideways\" is not left, right, up or down",
            ),
            (
                "Preselect",
                &[""],
                "Preselect: \"\" is not left, right, up or down",
            ),
            (
                "Split",
                &["diagonal"],
                "Split: \"diagonal\" is not a split direction; use horizontal or vertical",
            ),
            (
                "SetDockbarPosition",
                &["left"],
                "SetDockbarPosition: \"left\" is not top, bottom or hidden",
            ),
            (
                "ShowNotification",
                &["hi", "loud"],
                "ShowNotification: \"loud\" is not info, success, warning or error",
            ),
            (
                "ShowNotification",
                &[" "],
                "ShowNotification needs a message to show",
            ),
            (
                "KeyCombo",
                &["ctrl+"],
                "KeyCombo: \"ctrl+\" is not a key combination like ctrl+b or alt+1",
            ),
            (
                "KeyCombo",
                &["hyper+x"],
                "KeyCombo: \"hyper+x\" is not a key combination like ctrl+b or alt+1",
            ),
            (
                "KeyCombo",
                &["ctrl+enterr"],
                "KeyCombo: \"ctrl+enterr\" is not a key combination like ctrl+b or alt+1",
            ),
            ("Type", &[""], "Type needs the text to type"),
            (
                "FocusWindow",
                &[""],
                "FocusWindow needs a window name or id",
            ),
        ];
        for (name, args, message) in bad {
            let err = check(name, &strings(args)).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidParams, "{name} {args:?}");
            assert_eq!(err.message, *message);
            assert_eq!(err.hint.param.as_deref(), Some("args"), "{name}");
            assert!(err.hint.detail.unwrap().starts_with("usage: "), "{name}");
        }
        let err = check("FocusDirection", &strings(&["lfet"])).unwrap_err();
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("left"));
        assert_eq!(err.hint.accepted, DIRECTIONS);
        let err = check("ShowNotification", &strings(&["hi", "eror"])).unwrap_err();
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("error"));
    }

    #[test]
    fn workspace_numbers() {
        let arg = |s: &str| s.to_owned();
        assert_eq!(workspace_arg("SwitchWorkspace", Some(&arg("2")), 9), Ok(2));
        assert_eq!(
            workspace_arg("SwitchWorkspace", Some(&arg(" 9 ")), 9),
            Ok(9)
        );
        assert_eq!(workspace_arg("SwitchWorkspace", Some(&arg("+1")), 9), Ok(1));

        let err = workspace_arg("MoveToWorkspace", None, 9).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParams);
        assert_eq!(err.hint.param.as_deref(), Some("args"));
        assert_eq!(
            err.message,
            "MoveToWorkspace needs a workspace number (1-9)"
        );

        for bad in ["two", "", "2.5", "99999999999999999999"] {
            let err = workspace_arg("SwitchWorkspace", Some(&arg(bad)), 9).unwrap_err();
            assert_eq!(err.hint.param.as_deref(), Some("args"), "{bad}");
            assert_eq!(
                err.message,
                format!("SwitchWorkspace: {bad:?} is not a workspace number")
            );
        }

        for (n, max) in [("0", 9), ("10", 9), ("-1", 9), ("4", 3)] {
            let err = workspace_arg("MoveAndFollowWorkspace", Some(&arg(n)), max).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidParams);
            assert_eq!(err.hint.param.as_deref(), Some("args"));
            assert_eq!(err.hint.verb.as_deref(), Some("list-workspaces"));
            assert_eq!(err.message, format!("workspace {n} out of range (1-{max})"));
            assert!(err.hint.detail.unwrap().contains(&format!("1 to {max}")));
        }
    }
}
