//! The verb registry: the single source of truth for every verb, its parameters, their types and
//! accepted values. The validator, `list-verbs` and the handlers' accepted-value checks all read
//! this table, so what `list-verbs` advertises cannot drift from what the daemon takes.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::closest::{closest_match, echo_name};
use crate::envelope::Request;
use crate::error::{ErrorCode, Hint, VerbError};
use crate::{MIN_PROTOCOL_VERSION, PROTOCOL_VERSION};

/// The type of a parameter or result field, as published by `list-verbs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    String,
    Int,
    Bool,
    StringList,
    IntList,
    /// Result fields only: parameters are never of these types.
    Float,
    Object,
    ObjectList,
}

impl ParamType {
    pub fn as_str(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Int => "int",
            ParamType::Bool => "bool",
            ParamType::StringList => "[]string",
            ParamType::IntList => "[]int",
            ParamType::Float => "float",
            ParamType::Object => "object",
            ParamType::ObjectList => "[]object",
        }
    }

    /// Human wording for type errors.
    fn expected(self) -> &'static str {
        match self {
            ParamType::String => "a string",
            ParamType::Int => "an integer",
            ParamType::Bool => "true or false",
            ParamType::StringList => "an array of strings",
            ParamType::IntList => "an array of integers",
            ParamType::Float => "a number",
            ParamType::Object => "an object",
            ParamType::ObjectList => "an array of objects",
        }
    }

    /// Whether a non-null JSON value has this type. Integers may be written as floats with no
    /// fractional part (`2.0`), since some JSON encoders emit every number that way.
    pub fn matches(self, value: &Value) -> bool {
        match self {
            ParamType::String => value.is_string(),
            ParamType::Int => as_int(value).is_some(),
            ParamType::Bool => value.is_boolean(),
            ParamType::StringList => value
                .as_array()
                .is_some_and(|a| a.iter().all(Value::is_string)),
            ParamType::IntList => value
                .as_array()
                .is_some_and(|a| a.iter().all(|v| as_int(v).is_some())),
            ParamType::Float => value.is_number(),
            ParamType::Object => value.is_object(),
            ParamType::ObjectList => value
                .as_array()
                .is_some_and(|a| a.iter().all(Value::is_object)),
        }
    }
}

impl std::fmt::Display for ParamType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A JSON number that is a whole number representable as i64.
pub(crate) fn int_value(value: &Value) -> Option<i64> {
    as_int(value)
}

fn as_int(value: &Value) -> Option<i64> {
    let n = value.as_number()?;
    if let Some(i) = n.as_i64() {
        return Some(i);
    }
    let f = n.as_f64()?;
    // 2^63 itself is out of range; the bounds are exact powers of two so the comparison is exact.
    const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
    (f.fract() == 0.0 && (-TWO_POW_63..TWO_POW_63).contains(&f)).then_some(f as i64)
}

/// One parameter (or result field) of a verb.
#[derive(Debug, Clone)]
pub struct ParamSpec {
    pub name: &'static str,
    pub ty: ParamType,
    pub required: bool,
    pub description: &'static str,
    /// The closed set of values the parameter takes; empty when open.
    pub accepted: &'static [&'static str],
    /// The default, in string form, when the parameter is omitted.
    pub default: Option<&'static str>,
}

/// One verb.
#[derive(Debug, Clone)]
pub struct VerbSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub params: &'static [ParamSpec],
    pub returns: &'static [ParamSpec],
    /// Complete request lines, each a valid call of this verb.
    pub examples: &'static [&'static str],
}

impl VerbSpec {
    pub fn param(&self, name: &str) -> Option<&'static ParamSpec> {
        self.params.iter().find(|p| p.name == name)
    }

    pub fn param_names(&self) -> Vec<&'static str> {
        self.params.iter().map(|p| p.name).collect()
    }
}

const fn param(name: &'static str, ty: ParamType, description: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        ty,
        required: false,
        description,
        accepted: &[],
        default: None,
    }
}

const fn required(name: &'static str, ty: ParamType, description: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        ty,
        required: true,
        description,
        accepted: &[],
        default: None,
    }
}

const fn with_default(
    name: &'static str,
    ty: ParamType,
    description: &'static str,
    default: &'static str,
) -> ParamSpec {
    ParamSpec {
        name,
        ty,
        required: false,
        description,
        accepted: &[],
        default: Some(default),
    }
}

use ParamType::{Bool, Float, Int, IntList, Object, ObjectList, String as Str, StringList};

const SESSION: ParamSpec = param(
    "session",
    Str,
    "Session name. Leave it out to use the session that was active most recently.",
);
const WINDOW: ParamSpec = param(
    "window",
    Str,
    "Window to act on: its id, a unique id prefix, the index list-windows shows, or its exact name. Leave it out for the focused window.",
);

/// Sources `capture-pane` reads from.
pub const CAPTURE_SOURCES: &[&str] = &["visible", "recent"];
/// Steps `focus-window` takes through the current workspace.
pub const FOCUS_RELATIVE: &[&str] = &["next", "prev"];
/// Sides `focus-window` looks for a neighbouring pane on.
pub const FOCUS_DIRECTIONS: &[&str] = &["left", "right", "up", "down"];
/// Axes `split-window` cuts along.
pub const SPLIT_DIRECTIONS: &[&str] = &["horizontal", "vertical"];

static VERBS: &[VerbSpec] = &[
    VerbSpec {
        name: "capture-pane",
        description: "Return the text of a window's terminal: the visible screen, or scrollback followed by the screen, plain or with ANSI styling, optionally narrowed to some lines.",
        params: &[
            SESSION,
            WINDOW,
            ParamSpec {
                name: "source",
                ty: Str,
                required: false,
                description: "What to read: \"visible\" is the screen as it stands, \"recent\" is the scrollback followed by the screen.",
                accepted: CAPTURE_SOURCES,
                default: Some("visible"),
            },
            with_default("styled", Bool, "Keep colours and text attributes as ANSI escape sequences.", "false"),
            with_default("scrollback", Bool, "Older spelling of source \"recent\".", "false"),
            with_default("ansi", Bool, "Older spelling of styled.", "false"),
            param(
                "lines",
                Int,
                "Return only the last N lines, not counting blank rows at the bottom. Ignored when start or end is given.",
            ),
            param("start", Int, "First line to return, counting from 1. The range includes it."),
            param("end", Int, "Last line to return, counting from 1. The range includes it."),
        ],
        returns: &[
            param("content", Str, "The captured text, rows separated by newlines."),
            param("source", Str, "The source that was actually read: \"visible\" or \"recent\"."),
            param("styled", Bool, "Whether the content carries ANSI styling."),
        ],
        examples: &[
            r#"{"id":1,"verb":"capture-pane","params":{"session":"work"}}"#,
            r#"{"id":2,"verb":"capture-pane","params":{"session":"work","source":"recent","lines":50}}"#,
            r#"{"id":3,"verb":"capture-pane","params":{"window":"build","styled":true,"start":1,"end":10}}"#,
        ],
    },
    VerbSpec {
        name: "close-window",
        description: "Close a window and end the process running in it.",
        params: &[SESSION, WINDOW],
        returns: &[],
        examples: &[
            r#"{"id":1,"verb":"close-window","params":{"session":"work","window":"build"}}"#,
            r#"{"id":2,"verb":"close-window","params":{}}"#,
        ],
    },
    VerbSpec {
        name: "explain-agent-detect",
        description: "Explain why a window was or was not recognised as running an agent: the foreground process read now (comm, argv, exe), and which harness manifest or built-in name matched it, or why each did not.",
        params: &[SESSION, WINDOW],
        returns: &[
            param("window_id", Str, "Id of the window."),
            param("state", Str, "The window's agent state."),
            param("source", Str, "Who set that state."),
            param("harness_id", Str, "The harness the window is attributed to, empty when none."),
            param("auto_detected", Bool, "True when the detector promoted the window and will clear it when the agent leaves."),
            param("running", Bool, "Whether a foreground process could be read."),
            param("matched", Bool, "Whether the foreground process is an agent."),
            param("process", Object, "The foreground process: pid, comm, argv, exe, argv0, run_token, interpreter."),
            param("manifests", ObjectList, "Every manifest in lookup order: id, matched, and the rule that matched or the reason it did not."),
            param("name_list", Str, "The built-in or configured agent name that matched, when no manifest did."),
            param("matched_rule", Str, "The predicate that identified the agent."),
            param("matched_harness", Str, "The manifest that identified it; empty for a name-list match."),
            param("reason", Str, "Why nothing could be read, when running is false."),
        ],
        examples: &[
            r#"{"id":1,"verb":"explain-agent-detect","params":{"session":"work","window":"agent"}}"#,
            r#"{"id":2,"verb":"explain-agent-detect","params":{}}"#,
        ],
    },
    VerbSpec {
        name: "explain-agent-screen",
        description: "Show what the screen rules of a harness make of a window: its last non-blank rows and, for each rule, whether it matched and what was missing or in the way.",
        params: &[
            SESSION,
            WINDOW,
            param("harness", Str, "Evaluate this harness manifest's rules instead of those of the harness the window is attributed to."),
            param("lines", Int, "How many of the last non-blank rows to read. Leave it out for the manifest's own count (6 when it sets none)."),
        ],
        returns: &[
            param("window_id", Str, "Id of the window."),
            param("harness_id", Str, "The manifest whose rules were evaluated, empty when none."),
            param("state", Str, "The window's agent state."),
            param("source", Str, "Who set that state."),
            param("lines", Int, "How many rows were read."),
            param("tail", StringList, "The rows the rules were matched against, oldest first."),
            param("enabled", Bool, "Whether the manifest's screen rules are switched on."),
            param("rules", ObjectList, "One entry per rule: index, state, priority, matched, and missing, missing_regex, none_of, blocked, blocked_regex or empty saying why it did not match."),
            param("matched", Bool, "Whether some rule matched."),
            param("rule", Int, "Index of the winning rule, -1 when none matched."),
            param("rule_state", Str, "The state the winning rule reports, empty when none matched."),
        ],
        examples: &[
            r#"{"id":1,"verb":"explain-agent-screen","params":{"session":"work","window":"agent"}}"#,
            r#"{"id":2,"verb":"explain-agent-screen","params":{"harness":"claude-code","lines":10}}"#,
        ],
    },
    VerbSpec {
        name: "focus-window",
        description: "Focus a window. Name it in exactly one way: by target (window), by stepping through the current workspace (relative), or by screen side (direction, which needs an attached client).",
        params: &[
            SESSION,
            param("window", Str, "Window to focus: its id, a unique id prefix, its index or its exact name. Focusing it also switches to its workspace."),
            ParamSpec {
                name: "relative",
                ty: Str,
                required: false,
                description: "Step to the next or previous window of the current workspace, wrapping around. Minimized windows count.",
                accepted: FOCUS_RELATIVE,
                default: None,
            },
            ParamSpec {
                name: "direction",
                ty: Str,
                required: false,
                description: "Focus the pane on that side of the focused one. Needs an attached client, which knows the layout.",
                accepted: FOCUS_DIRECTIONS,
                default: None,
            },
        ],
        returns: &[
            param("focused_window_id", Str, "Id of the window that has the focus now."),
            param("current_workspace", Int, "The workspace shown now."),
            param("window", Object, "The focused window, as list-windows describes it. Absent if the focus resolves to no window."),
        ],
        examples: &[
            r#"{"id":1,"verb":"focus-window","params":{"session":"work","window":"build"}}"#,
            r#"{"id":2,"verb":"focus-window","params":{"relative":"next"}}"#,
            r#"{"id":3,"verb":"focus-window","params":{"session":"work","direction":"left"}}"#,
        ],
    },
    VerbSpec {
        name: "get-agent-state",
        description: "Read the agent state the daemon holds for a window, with its message, when it was set, who set it and the harness it is attributed to.",
        params: &[SESSION, WINDOW],
        returns: &[
            param("window_id", Str, "Id of the window."),
            param("state", Str, "One of none, working, needs_input, idle, done, errored."),
            param("message", Str, "The message reported with the state, empty when none."),
            param("agent_state_at", Int, "When the state was set, in Unix nanoseconds; 0 when never."),
            param("source", Str, "Who set the state: report, transcript, osc, screen, detect or stall (report when nothing claims the window)."),
            param("harness_id", Str, "The harness the window is attributed to, empty when none."),
        ],
        examples: &[
            r#"{"id":1,"verb":"get-agent-state","params":{"session":"work","window":"agent"}}"#,
            r#"{"id":2,"verb":"get-agent-state","params":{}}"#,
        ],
    },
    VerbSpec {
        name: "get-option",
        description: "Read one option: the session's own value if it set one, otherwise the built-in default.",
        params: &[
            SESSION,
            required("key", Str, "Option path, e.g. \"appearance.border_style\". A path without a dot is looked up under appearance."),
        ],
        returns: &[
            param("key", Str, "The full option path that was read."),
            param("value", Str, "The value in effect, as a string."),
            param("source", Str, "\"session\" when the session set the value, \"default\" when it is the built-in default."),
            param("default", Str, "The built-in default, when the option is a known one."),
            param("option_type", Str, "bool, int or string, when the option is a known one."),
        ],
        examples: &[
            r#"{"id":1,"verb":"get-option","params":{"session":"work","key":"appearance.border_style"}}"#,
            r#"{"id":2,"verb":"get-option","params":{"key":"theme"}}"#,
        ],
    },
    VerbSpec {
        name: "hello",
        description: "Compare protocol versions with the daemon. Reports the version it speaks, the oldest it still serves, its build, pid and session count, and refuses a caller whose version is outside that range.",
        params: &[
            param("client", Str, "Name of the calling program, recorded in the daemon's log."),
            param("version", Str, "The caller's own release, quoted back if the versions do not match."),
            param("protocol", Int, "Control protocol version the caller speaks. Leave it out, or pass 0, to skip the check."),
        ],
        returns: &[
            param("protocol", Int, "Control protocol version the daemon speaks."),
            param("min_protocol", Int, "Oldest control protocol version the daemon still serves."),
            param("daemon_version", Str, "The daemon's release."),
            param("pid", Int, "The daemon's process id."),
            param("sessions", Int, "How many sessions the daemon holds."),
        ],
        examples: &[
            r#"{"id":1,"verb":"hello","params":{"client":"deploy-script","version":"1.0.0","protocol":1}}"#,
            r#"{"id":2,"verb":"hello","params":{}}"#,
        ],
    },
    VerbSpec {
        name: "kill-session",
        description: "End a session: every window in it is closed and the programs running in them are ended. The name must be given; this verb never guesses.",
        params: &[required(
            "session",
            Str,
            "Name of the session to end. Required: this verb never picks a session by itself.",
        )],
        returns: &[],
        examples: &[r#"{"id":1,"verb":"kill-session","params":{"session":"work"}}"#],
    },
    VerbSpec {
        name: "list-options",
        description: "List the options that can be set, with their type, section, default and accepted values, and the session's own value where it set one. Filter by section or path prefix.",
        params: &[
            param("session", Str, "Session whose values to show next to the defaults. Leave it out to use the session that was active most recently, if there is one."),
            param("section", Str, "Only options of this section, e.g. \"appearance\"."),
            param("prefix", Str, "Only options whose path starts with this, e.g. \"appearance.sidebar\"."),
        ],
        returns: &[
            param("options", ObjectList, "One row per option, sorted by path: path, type, section, description, default, applies (client, daemon or inert: an option of the reference TUIOS that is accepted and recorded but does nothing here), and accepted, min, max, inert (why it does nothing), deprecated and session_value where they apply."),
            param("sections", StringList, "Every section name, sorted."),
            param("total", Int, "How many rows were returned."),
        ],
        examples: &[
            r#"{"id":1,"verb":"list-options","params":{}}"#,
            r#"{"id":2,"verb":"list-options","params":{"session":"work","section":"appearance"}}"#,
            r#"{"id":3,"verb":"list-options","params":{"prefix":"appearance.sidebar"}}"#,
        ],
    },
    VerbSpec {
        name: "list-sessions",
        description: "List every session the daemon holds, oldest first, with its size, window count and whether a client is attached; a session brought back from the state directory has restored: true. Saved sessions that are not running are listed apart in saved, and saved files that cannot be read in unreadable (extension).",
        params: &[],
        returns: &[],
        examples: &[r#"{"id":1,"verb":"list-sessions","params":{}}"#],
    },
    VerbSpec {
        name: "list-themes",
        description: "List the colour themes there are (built in, plus JSON files in the themes directory), or describe one theme's palette with the contrast of each colour against its background.",
        params: &[
            param("session", Str, "Session whose theme to report as active. Leave it out to use the session that was active most recently, if there is one."),
            param("theme", Str, "Describe this theme's palette."),
            param("filter", Str, "Only theme ids containing this text, ignoring case."),
        ],
        returns: &[
            param("total", Int, "How many themes there are in all."),
            param("themes_dir", Str, "Directory custom theme files are read from."),
            param("themes_dir_error", Str, "Why the themes directory could not be read, when it could not."),
            param("problems", StringList, "One line per custom theme file that was skipped, and why."),
            param("session", Str, "The session the active theme was read from, when there is one."),
            param("active", Str, "The session's theme, empty for the default."),
            param("active_source", Str, "\"session\" or \"default\": where active comes from."),
            param("matched", Int, "How many theme ids match the filter."),
            param("themes", StringList, "The matching ids, sorted, at most 100. Given when no theme is named, or when a filter is."),
            param("truncated", Bool, "True when themes was cut at 100."),
            param("palette", Object, "The named theme's colours: background, foreground, cursor and the 16 ANSI colours, each with its contrast ratio and whether it is legible."),
        ],
        examples: &[
            r#"{"id":1,"verb":"list-themes","params":{}}"#,
            r#"{"id":2,"verb":"list-themes","params":{"filter":"dark"}}"#,
            r#"{"id":3,"verb":"list-themes","params":{"session":"work","theme":"dracula"}}"#,
        ],
    },
    VerbSpec {
        name: "list-verbs",
        description: "Describe the protocol: every verb with its parameters, accepted values, defaults and example requests, plus the error codes and envelope shapes. Name a verb to describe only that one.",
        params: &[param("verb", Str, "Describe only this verb.")],
        returns: &[],
        examples: &[
            r#"{"id":1,"verb":"list-verbs","params":{}}"#,
            r#"{"id":2,"verb":"list-verbs","params":{"verb":"capture-pane"}}"#,
        ],
    },
    VerbSpec {
        name: "list-windows",
        description: "List the windows of a session with their index, id, name, workspace, size, focus and agent state.",
        params: &[SESSION],
        returns: &[],
        examples: &[
            r#"{"id":1,"verb":"list-windows","params":{"session":"work"}}"#,
            r#"{"id":2,"verb":"list-windows","params":{}}"#,
        ],
    },
    VerbSpec {
        name: "list-workspaces",
        description: "List every workspace of a session with its name, window count, whether it is shown, and the window that has its focus.",
        params: &[SESSION],
        returns: &[
            param("workspaces", ObjectList, "One row per workspace, from 1: workspace, name (empty when unnamed), window_count, current, focused_window_id."),
            param("current_workspace", Int, "The workspace shown now."),
            param("order", IntList, "The order workspaces are shown in, or null for 1, 2, 3 ..."),
        ],
        examples: &[
            r#"{"id":1,"verb":"list-workspaces","params":{"session":"work"}}"#,
            r#"{"id":2,"verb":"list-workspaces","params":{}}"#,
        ],
    },
    VerbSpec {
        name: "move-window",
        description: "Move a window to another workspace, and optionally switch to that workspace with it.",
        params: &[
            SESSION,
            WINDOW,
            required("workspace", Int, "Workspace to move the window to, counting from 1."),
            with_default("follow", Bool, "Switch to that workspace after the move.", "false"),
        ],
        returns: &[
            param("window_id", Str, "Id of the window that moved."),
            param("from_workspace", Int, "Workspace the window was on."),
            param("workspace", Int, "Workspace the window is on now."),
            param("current_workspace", Int, "The workspace shown after the move."),
        ],
        examples: &[
            r#"{"id":1,"verb":"move-window","params":{"session":"work","window":"build","workspace":2}}"#,
            r#"{"id":2,"verb":"move-window","params":{"workspace":3,"follow":true}}"#,
        ],
    },
    VerbSpec {
        name: "new-session",
        description: "Create a session with its first window, running the shell or the given command, and answer with the session as list-sessions shows it.",
        params: &[
            param("name", Str, "Name of the session (up to 200 bytes; letters, digits and . _ - work everywhere). Leave it out to let the daemon pick session-0, session-1, ..."),
            with_default("width", Int, "Width in columns, 1 to 1000. Attached clients resize the session to their own size.", "80"),
            with_default("height", Int, "Height in rows, 1 to 1000.", "24"),
            param("command", StringList, "Program and arguments for the first window instead of a shell, e.g. [\"htop\"]; no shell parsing. The window stays when the program exits, so its output can still be captured."),
            param("cwd", Str, "Directory the first window starts in. It must exist. Leave it out for the daemon's directory (the CLI sends its own)."),
            param("env", StringList, "Extra environment for the first window, each \"NAME=value\", e.g. [\"RUST_LOG=debug\"]."),
        ],
        returns: &[
            param("name", Str, "The session's name."),
            param("id", Str, "The session's id."),
            param("window_id", Str, "Id of its first window."),
            param("width", Int, "Width in columns."),
            param("height", Int, "Height in rows."),
            param("window_count", Int, "Windows in the session: 1."),
        ],
        examples: &[
            r#"{"id":1,"verb":"new-session","params":{"name":"scratch"}}"#,
            r#"{"id":2,"verb":"new-session","params":{"name":"tests","width":120,"height":40,"cwd":"/tmp","env":["CI=1"]}}"#,
            r#"{"id":3,"verb":"new-session","params":{"name":"job","command":["/bin/sh","-c","echo job finished"]}}"#,
        ],
    },
    VerbSpec {
        name: "new-window",
        description: "Open a window in a session. It runs the session's shell, or the program given in command (executed directly, without a shell). A command window closes when its program exits, unless remain is true.",
        params: &[
            SESSION,
            param("name", Str, "Name for the window. Leave it out to let the program running in it set the title."),
            param("workspace", Int, "Workspace to open the window on, counting from 1. Leave it out for the current workspace."),
            param("cwd", Str, "Directory to start in. It must exist. Leave it out to use the daemon's directory (the CLI sends its own, as tmux does)."),
            with_default(
                "focus",
                Bool,
                "Focus the new window and switch to its workspace. Pass false to open it in the background.",
                "true",
            ),
            param(
                "command",
                StringList,
                "Program and arguments to run instead of a shell, e.g. [\"make\",\"test\"]. They are passed as they are, with no shell parsing. The window closes when the program exits, unless remain is true.",
            ),
            with_default(
                "remain",
                Bool,
                "Keep a command window after its program exits, with its screen and scrollback, so capture-pane can still read it. Shell windows always stay.",
                "false",
            ),
            param("env", StringList, "Extra environment for the window, each \"NAME=value\", e.g. [\"RUST_LOG=debug\"]."),
        ],
        returns: &[
            param("window_id", Str, "Id of the new window."),
            param("name", Str, "The window's name: the one given, or the title it was given by default."),
            param("workspace", Int, "Workspace the window was opened on."),
            param("pty_id", Str, "Id of the window's terminal."),
            param("focused", Bool, "Whether the window was focused."),
            param(
                "unplaced",
                Bool,
                "True until an attached client has placed the window; until then its geometry is a placeholder.",
            ),
        ],
        examples: &[
            r#"{"id":1,"verb":"new-window","params":{"session":"work","name":"build"}}"#,
            r#"{"id":2,"verb":"new-window","params":{"session":"work","command":["/bin/sh","-c","echo build finished"],"remain":true}}"#,
            r#"{"id":3,"verb":"new-window","params":{"workspace":2,"cwd":"/tmp","focus":false}}"#,
        ],
    },
    VerbSpec {
        name: "resize",
        description: "Change the size of a window's terminal. The program in it is notified of the new size.",
        params: &[
            SESSION,
            WINDOW,
            required("width", Int, "New width in columns. Must be positive."),
            required("height", Int, "New height in rows. Must be positive."),
        ],
        returns: &[
            param("width", Int, "Width in columns now in effect."),
            param("height", Int, "Height in rows now in effect."),
        ],
        examples: &[r#"{"id":1,"verb":"resize","params":{"session":"work","window":"build","width":120,"height":40}}"#],
    },
    VerbSpec {
        name: "resurrect",
        description: "Extension (not in the control-protocol spec): restore saved sessions that are not running, from the daemon's state directory; the daemon also does this by itself when it starts. Each comes back with its workspaces, window names, options and layout; windows start in their saved directories, and a window's command runs again only if it is a shell or listed in the session's daemon.resurrect_commands option (otherwise the window gets a shell and a one-line note).",
        params: &[param(
            "session",
            Str,
            "Name of the saved session to restore. Leave it out to restore every saved session that is not running.",
        )],
        returns: &[
            param("sessions", ObjectList, "One row per restored session: name, windows (how many came back) and notes (one line per window that came back differently)."),
            param("failed", ObjectList, "Saved sessions that could not be restored: name and reason."),
            param("unreadable", ObjectList, "Saved files that cannot be read: file and reason. They are left as they are."),
        ],
        examples: &[
            r#"{"id":1,"verb":"resurrect","params":{"session":"work"}}"#,
            r#"{"id":2,"verb":"resurrect","params":{}}"#,
        ],
    },
    VerbSpec {
        name: "run",
        description: "Type a command into a window's shell, wait for it to finish, and return its output (without the echoed command line or the prompt) and its exit status. The shell must be waiting at its prompt (sh, dash, bash, zsh, ksh or fish). An extension beyond the Go shapes.",
        params: &[
            SESSION,
            WINDOW,
            required("command", Str, "The command line, as you would type it at the prompt, e.g. \"make test\". It runs in the shell itself (eval), so cd and variables persist."),
            with_default("timeout", Int, "Milliseconds to wait for the command to finish before failing with the timeout code. The command keeps running then.", "30000"),
        ],
        returns: &[
            param("output", Str, "What the command printed, as the terminal shows it: rows joined with \\n (CRLF becomes \\n, trailing spaces dropped, a line longer than the window's width comes back split at the width)."),
            param("exit_code", Int, "The command's exit status."),
            param("window_id", Str, "Id of the window it ran in."),
            param("truncated", Bool, "True when the output began more rows ago than the scrollback keeps; output then starts at the oldest row kept."),
            param("shell_exited", Bool, "True when the command ended the shell itself (exit); exit_code is then the shell's exit status."),
        ],
        examples: &[
            r#"{"id":1,"verb":"run","params":{"session":"ci","window":"0","command":"echo ready; test -d /tmp","timeout":60000}}"#,
        ],
    },
    VerbSpec {
        name: "run-command",
        description: "Run one named tuios command with string arguments. Window, focus and workspace commands run in the daemon when no client is attached; the others (keys, layout, appearance) need an attached client. Unknown names and wrong argument counts are refused.",
        params: &[
            SESSION,
            ParamSpec {
                name: "command",
                ty: Str,
                required: true,
                description: "Name of the command, matched exactly, capitals included.",
                accepted: crate::commands::COMMAND_NAMES,
                default: None,
            },
            param("args", StringList, "The command's arguments, each a string, e.g. [\"2\"] for SwitchWorkspace."),
        ],
        returns: &[
            param("command", Str, "The command that ran."),
            param("routed", Bool, "True when the attached client ran it, false when the daemon did."),
            param("window_id", Str, "NewWindow run by the daemon: id of the new window. Read-only commands add the keys their verb returns."),
        ],
        examples: &[
            r#"{"id":1,"verb":"run-command","params":{"session":"work","command":"SwitchWorkspace","args":["2"]}}"#,
            r#"{"id":2,"verb":"run-command","params":{"command":"NewWindow","args":["logs","tail","-f","app.log"]}}"#,
            r#"{"id":3,"verb":"run-command","params":{"session":"work","command":"ListWindows"}}"#,
        ],
    },
    VerbSpec {
        name: "select-workspace",
        description: "Show another workspace. The focus moves to the window that last had it there, if any.",
        params: &[SESSION, required("workspace", Int, "Workspace to show, counting from 1.")],
        returns: &[
            param("current_workspace", Int, "The workspace shown now."),
            param("focused_window_id", Str, "Id of the focused window after the switch."),
            param("window_count", Int, "How many windows that workspace holds."),
        ],
        examples: &[
            r#"{"id":1,"verb":"select-workspace","params":{"session":"work","workspace":2}}"#,
            r#"{"id":2,"verb":"select-workspace","params":{"workspace":1}}"#,
        ],
    },
    VerbSpec {
        name: "send-keys",
        description: "Send keys to a window, e.g. \"ls,Enter\" or \"ctrl+c\". Tokens are separated by spaces or commas; key names (Enter, Tab, Escape, Up, PageDown, F1, ...), ctrl+<key> and alt+<key>, and tmux's names (C-c, M-x, S-Up, BSpace, BTab, DC, IC, NPage, PPage) become the bytes those keys send, and any other token is typed as written, except a capitalised one within a typo of a key name (Entr), which is refused with did_you_mean. Use literal, or send-text, for text that contains spaces or commas.",
        params: &[
            SESSION,
            WINDOW,
            required("keys", Str, "Key tokens separated by spaces or commas, e.g. \"ls,Enter\" or \"ctrl+c\"."),
            with_default("literal", Bool, "Send keys exactly as written instead of reading key names from it.", "false"),
            with_default(
                "raw",
                Bool,
                "Treat every character as a key of its own instead of splitting on spaces and commas.",
                "false",
            ),
        ],
        returns: &[],
        examples: &[
            r#"{"id":1,"verb":"send-keys","params":{"session":"work","keys":"ls,Enter"}}"#,
            r#"{"id":2,"verb":"send-keys","params":{"window":"build","keys":"ctrl+c"}}"#,
            r#"{"id":3,"verb":"send-keys","params":{"keys":"echo hi","literal":true}}"#,
        ],
    },
    VerbSpec {
        name: "send-text",
        description: "Write text to a window's terminal exactly as given, as if it were typed or pasted.",
        params: &[SESSION, WINDOW, required("text", Str, "The text to write. It must not be empty.")],
        returns: &[],
        examples: &[r#"{"id":1,"verb":"send-text","params":{"session":"work","text":"make test\n"}}"#],
    },
    VerbSpec {
        name: "session-info",
        description: "Describe one session: its workspaces and their names, layout, size, window count, and whether a client is attached.",
        params: &[SESSION],
        returns: &[],
        examples: &[
            r#"{"id":1,"verb":"session-info","params":{"session":"work"}}"#,
            r#"{"id":2,"verb":"session-info","params":{}}"#,
        ],
    },
    VerbSpec {
        name: "set-agent-state",
        description: "Report the state of the agent running in a window. Reports compete by source: one from a source ranked below the window's current claimant (report > transcript > osc > screen > detect > stall) is refused with applied false and changes nothing.",
        params: &[
            SESSION,
            WINDOW,
            ParamSpec {
                name: "state",
                ty: Str,
                required: true,
                description: "The agent's state; none clears it.",
                accepted: crate::agent::AGENT_STATES,
                default: None,
            },
            param("message", Str, "A short note shown with the state, e.g. what the agent waits for."),
            ParamSpec {
                name: "source",
                ty: Str,
                required: false,
                description: "Who observed the state. Leave it out when the agent reports for itself.",
                accepted: crate::agent::SETTABLE_SOURCES,
                default: Some("report"),
            },
            param("harness", Str, "Id of the agent's harness manifest, e.g. \"claude-code\"; its screen rules then apply to the window."),
        ],
        returns: &[
            param("state", Str, "The window's state after the call: the new one, or the standing one when refused."),
            param("message", Str, "The message as sent."),
            param("source", Str, "The source the report was made with."),
            param("applied", Bool, "False when a higher-ranked source holds the window; nothing changed then."),
        ],
        examples: &[
            r#"{"id":1,"verb":"set-agent-state","params":{"session":"work","window":"agent","state":"needs_input","message":"approve the edit"}}"#,
            r#"{"id":2,"verb":"set-agent-state","params":{"state":"done","harness":"claude-code"}}"#,
            r#"{"id":3,"verb":"set-agent-state","params":{"state":"idle","source":"stall"}}"#,
        ],
    },
    VerbSpec {
        name: "set-layout",
        description: "Change the tiling layout of the current workspace: turn tiling on or off, turn the focused split the other way, or make the splits even. Needs an attached client, which does the layout.",
        params: &[
            SESSION,
            param("tiling", Bool, "true to tile the windows, false to let them float. Leave it out to keep the mode."),
            with_default("equalize", Bool, "Give every pane an equal share of its split.", "false"),
            with_default("rotate", Bool, "Turn the focused pane's split the other way.", "false"),
        ],
        returns: &[
            param("tiling_mode", Str, "\"tiling\" or \"floating\"."),
            param("layout_mode", Str, "\"bsp\", \"master-stack\", \"scrolling\", or \"unknown\" when no client has reported one."),
            param("master_ratio", Float, "Share of the width the master pane takes."),
        ],
        examples: &[
            r#"{"id":1,"verb":"set-layout","params":{"session":"work","tiling":true}}"#,
            r#"{"id":2,"verb":"set-layout","params":{"equalize":true,"rotate":true}}"#,
        ],
    },
    VerbSpec {
        name: "set-option",
        description: "Set an option for a session. The value is checked against the option's type and accepted values, recorded with the session, and applied at once by an attached client.",
        params: &[
            SESSION,
            required("key", Str, "Option path, e.g. \"appearance.border_style\". A path without a dot is looked up under appearance. list-options gives them all."),
            param("value", Str, "The new value, always as a string: \"true\", \"5\", \"rounded\". An empty string unsets a colour or the theme."),
        ],
        returns: &[
            param("key", Str, "The full option path that was set."),
            param("value", Str, "The value recorded, as it was sent."),
            param("applied", Bool, "True when an attached client applied the change."),
            param("reason", Str, "Why applied is false: no client attached, or what the client said."),
            param("deprecated", Str, "Present when the option is deprecated: what to use instead."),
        ],
        examples: &[
            r#"{"id":1,"verb":"set-option","params":{"session":"work","key":"appearance.border_style","value":"rounded"}}"#,
            r#"{"id":2,"verb":"set-option","params":{"key":"theme","value":"dracula"}}"#,
        ],
    },
    VerbSpec {
        name: "set-session-accent",
        description: "Set the accent colour clients use for a session, an ANSI colour name such as \"cyan\" or \"bright blue\", or \"#rrggbb\" (stored in lower case); an empty accent clears it.",
        params: &[
            SESSION,
            param("accent", Str, "The colour: an ANSI colour name or #rrggbb. Surrounding spaces are dropped; empty or left out clears it."),
        ],
        returns: &[],
        examples: &[
            r#"{"id":1,"verb":"set-session-accent","params":{"session":"work","accent":"cyan"}}"#,
            r##"{"id":2,"verb":"set-session-accent","params":{"accent":"#ff8800"}}"##,
        ],
    },
    VerbSpec {
        name: "set-session-name",
        description: "Set the name clients display for a session. The session keeps the name it is addressed by; an empty name clears the display name.",
        params: &[
            SESSION,
            param("name", Str, "Name to display. Surrounding spaces are dropped; empty or left out clears it."),
        ],
        returns: &[],
        examples: &[
            r#"{"id":1,"verb":"set-session-name","params":{"session":"work","name":"Deploy 42"}}"#,
            r#"{"id":2,"verb":"set-session-name","params":{"session":"work","name":""}}"#,
        ],
    },
    VerbSpec {
        name: "set-window",
        description: "Rename a window, minimize or restore it, or both. At least one of name and minimized must be given.",
        params: &[
            SESSION,
            WINDOW,
            param("name", Str, "New name for the window. Surrounding spaces are dropped; an empty name clears it, so the program's title shows again."),
            param("minimized", Bool, "true to minimize the window, false to restore it."),
        ],
        returns: &[
            param("window_id", Str, "Id of the window. The other keys of its list-windows row follow, as it stands now."),
            param("display_name", Str, "The name shown for the window: its own name if set, else its title."),
            param("custom_name", Str, "The window's own name, absent when it has none."),
            param("minimized", Bool, "Whether the window is minimized."),
        ],
        examples: &[
            r#"{"id":1,"verb":"set-window","params":{"session":"work","window":"1","name":"logs"}}"#,
            r#"{"id":2,"verb":"set-window","params":{"window":"logs","minimized":true}}"#,
        ],
    },
    VerbSpec {
        name: "set-workspace-name",
        description: "Name a workspace of a session, or clear its name.",
        params: &[
            SESSION,
            required("workspace", Int, "The workspace, counting from 1."),
            param("name", Str, "Name for it. Surrounding spaces are dropped; empty or left out clears it."),
        ],
        returns: &[],
        examples: &[
            r#"{"id":1,"verb":"set-workspace-name","params":{"session":"work","workspace":2,"name":"logs"}}"#,
            r#"{"id":2,"verb":"set-workspace-name","params":{"workspace":2,"name":""}}"#,
        ],
    },
    VerbSpec {
        name: "set-workspace-order",
        description: "Choose the order clients show a session's workspaces in. Numbers out of range and repeats are dropped; workspaces left out follow the named ones; an ascending list restores the natural order.",
        params: &[
            SESSION,
            required("order", IntList, "Workspace numbers in the order to show them, e.g. [3,1,2]."),
        ],
        returns: &[],
        examples: &[
            r#"{"id":1,"verb":"set-workspace-order","params":{"session":"work","order":[3,1,2]}}"#,
            r#"{"id":2,"verb":"set-workspace-order","params":{"order":[1,2,3]}}"#,
        ],
    },
    VerbSpec {
        name: "split-window",
        description: "Split a tiled pane in two, opening a new window in the new half. Needs an attached client with tiling on.",
        params: &[
            SESSION,
            param("window", Str, "Pane to split: its id, a unique id prefix, its index or its exact name. It is focused first. Leave it out for the focused window."),
            ParamSpec {
                name: "direction",
                ty: Str,
                required: true,
                description: "The axis to cut along.",
                accepted: SPLIT_DIRECTIONS,
                default: None,
            },
            param("name", Str, "Name for the new window."),
        ],
        returns: &[
            param("direction", Str, "The axis that was cut."),
            param("window_id", Str, "Id of the new window, or empty if it has not reached the daemon yet (see note)."),
            param("name", Str, "The new window's name, when one was given."),
            param("note", Str, "Present when window_id is empty: call list-windows to find the new window."),
        ],
        examples: &[
            r#"{"id":1,"verb":"split-window","params":{"session":"work","direction":"vertical"}}"#,
            r#"{"id":2,"verb":"split-window","params":{"window":"build","direction":"horizontal","name":"tests"}}"#,
        ],
    },
    VerbSpec {
        name: "subscribe",
        description: "Turn this connection into an event stream as well: events matching the filters follow as lines of their own, from now on (no backfill), interleaved with the responses to later requests.",
        params: &[
            param("session", Str, "Only events of this session (exact name). Leave it out for every session."),
            param("window", Str, "Only events of this window: its id, or any window target when session is given."),
            ParamSpec {
                name: "types",
                ty: StringList,
                required: false,
                description: "Only these event types. Leave it out for all of them.",
                accepted: crate::events::EVENT_TYPES,
                default: None,
            },
            with_default("queue", Int, "Events buffered for this stream before a reader that falls behind gets a gap event instead.", "256"),
        ],
        returns: &[
            param("seq", Int, "The last sequence number assigned before the stream started; events that follow have higher numbers."),
        ],
        examples: &[
            r#"{"id":1,"verb":"subscribe","params":{"session":"work","types":["window-created","window-closed"]}}"#,
            r#"{"id":2,"verb":"subscribe","params":{}}"#,
        ],
    },
    VerbSpec {
        name: "unsubscribe",
        description: "Close this connection's event stream; no event is written after the response.",
        params: &[],
        returns: &[],
        examples: &[r#"{"id":1,"verb":"unsubscribe"}"#],
    },
    VerbSpec {
        name: "upgrade",
        description: "Extension (not in the control-protocol spec): replace the running daemon with the tuios binary now on disk, in the same process, keeping every session, window and running program (live upgrade; SIGUSR2 does the same). The binary on disk is asked first whether it can take over; if it cannot (it does not start, or reads no handover format this daemon writes) the answer is an error saying why and the daemon carries on unchanged. Otherwise the answer comes just before the switch, and then every connection closes: JSON requests in flight are answered first, attached clients reconnect by themselves, event streams end and can be subscribed again. Call hello on a new connection to see the new daemon_version; the pid stays the same. With check true nothing is replaced: the answer says whether an upgrade would work.",
        params: &[with_default(
            "check",
            Bool,
            "Only check whether the binary on disk could take over; replace nothing.",
            "false",
        )],
        returns: &[
            param("binary", Str, "Path of the tuios binary on disk that takes (or would take) over."),
            param("from_version", Str, "Upgrade: the release of the daemon being replaced."),
            param("reads", IntList, "Check: the handover format versions the binary on disk reads."),
            param("writes", Int, "Check: the handover format version this daemon writes."),
            param("would_upgrade", Bool, "Check: true (a binary that could not take over is an error instead)."),
        ],
        examples: &[r#"{"id":1,"verb":"upgrade","params":{"check":true}}"#],
    },
    VerbSpec {
        name: "wait-for",
        description: "Block this connection until a condition holds, and fail with the timeout code if it does not hold in time.",
        params: &[
            ParamSpec {
                name: "condition",
                ty: Str,
                required: true,
                description: "What to wait for.",
                accepted: crate::events::WAIT_CONDITIONS,
                default: None,
            },
            SESSION,
            WINDOW,
            param("pattern", Str, "Regular expression the window's text must match (window-output)."),
            ParamSpec {
                name: "source",
                ty: Str,
                required: false,
                description: "Text window-output searches: the visible screen, or scrollback and screen.",
                accepted: CAPTURE_SOURCES,
                default: Some("recent"),
            },
            with_default("fresh", Bool, "Only output that arrives after the wait began can match (window-output).", "false"),
            with_default("idle", Int, "Milliseconds without output that count as idle (window-idle).", "500"),
            with_default("timeout", Int, "Milliseconds to wait before failing with the timeout code.", "30000"),
            ParamSpec {
                name: "until",
                ty: Str,
                required: false,
                description: "agent-state: the states to wait for, comma-separated, e.g. \"idle,done\". Required by that condition.",
                accepted: crate::agent::AGENT_STATES,
                default: None,
            },
        ],
        returns: &[
            param("matched", Bool, "Always true: a wait that does not match fails with the timeout code instead."),
            param("state", Str, "agent-state: the state that was reached."),
            param("exit_code", Int, "window-exit: the program's exit status, when it exited normally."),
            param("signal", Int, "window-exit: the signal that ended the program, when one did."),
        ],
        examples: &[
            r#"{"id":1,"verb":"wait-for","params":{"condition":"window-output","session":"work","pattern":"done","timeout":10000}}"#,
            r#"{"id":2,"verb":"wait-for","params":{"condition":"window-exit","session":"work","window":"build"}}"#,
            r#"{"id":3,"verb":"wait-for","params":{"condition":"session-exists","session":"work","timeout":5000}}"#,
            r#"{"id":4,"verb":"wait-for","params":{"condition":"window-idle","session":"work","idle":1000}}"#,
            r#"{"id":5,"verb":"wait-for","params":{"condition":"agent-state","session":"work","window":"agent","until":"done","timeout":60000}}"#,
        ],
    },
];

/// Every verb, sorted by name.
pub fn verbs() -> &'static [VerbSpec] {
    VERBS
}

pub fn find_verb(name: &str) -> Option<&'static VerbSpec> {
    VERBS.iter().find(|v| v.name == name)
}

/// Every verb name, sorted.
pub fn verb_names() -> Vec<&'static str> {
    VERBS.iter().map(|v| v.name).collect()
}

/// The accepted set `list-verbs` publishes for one parameter (empty when the parameter is open or
/// unknown). Handlers check values against this very slice.
pub fn accepted_of(verb: &str, param: &str) -> &'static [&'static str] {
    find_verb(verb)
        .and_then(|v| v.param(param))
        .map(|p| p.accepted)
        .unwrap_or(&[])
}

/// Checks `value` against the published accepted set of `verb`'s `param` (a no-op for an open
/// parameter). The error is `invalid_params` naming the parameter, its accepted values and the
/// nearest spelling. Handlers call it in their own check order.
pub fn check_accepted(verb: &str, param: &str, value: &str) -> Result<(), VerbError> {
    let accepted = accepted_of(verb, param);
    if accepted.is_empty() || accepted.contains(&value) {
        return Ok(());
    }
    Err(VerbError::new(
        ErrorCode::InvalidParams,
        format!(
            "{param} {} is not one of: {}",
            quote(value),
            accepted.join(", ")
        ),
    )
    .with_hint(
        Hint::new()
            .verb("list-verbs")
            .param(param)
            .accepted(accepted)
            .did_you_mean(closest_match(value, accepted.iter().copied())),
    ))
}

/// A caller's value, bounded and quoted for a message.
fn quote(value: &str) -> String {
    format!("{:?}", echo_name(value))
}

fn unknown_verb(name: &str) -> VerbError {
    VerbError::new(
        ErrorCode::UnknownVerb,
        format!("unknown verb {}", echo_name(name)),
    )
    .with_hint(
        Hint::new()
            .verb("list-verbs")
            .command("tuios list-verbs")
            .did_you_mean(closest_match(name, verb_names()))
            .available(verb_names())
            .detail("list-verbs describes every verb with its parameters and example requests."),
    )
}

fn describe_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a fractional number",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Validates a request against the registry, in this order: the verb exists; `params` is an object
/// (or absent/null); every key is a declared parameter (exact, case-sensitive); every non-null
/// declared value has its declared type. Required parameters and accepted values are left to the
/// handlers, which check them in their documented order.
pub fn validate(req: &Request) -> Result<&'static VerbSpec, VerbError> {
    let spec = find_verb(&req.verb).ok_or_else(|| unknown_verb(&req.verb))?;
    let params = match &req.params {
        Value::Null => return Ok(spec),
        Value::Object(map) => map,
        other => {
            return Err(VerbError::new(
                ErrorCode::InvalidParams,
                format!("params must be a JSON object, got {}", describe_kind(other)),
            )
            .with_hint(
                Hint::new()
                    .verb("list-verbs")
                    .command(format!("tuios list-verbs {}", spec.name))
                    .detail("list-verbs gives this verb's parameter schema, including each parameter's type."),
            ));
        }
    };
    let names = spec.param_names();
    for key in params.keys() {
        if spec.param(key).is_none() {
            return Err(VerbError::new(
                ErrorCode::InvalidParams,
                format!("verb {} has no parameter {}", spec.name, echo_name(key)),
            )
            .with_hint(
                Hint::new()
                    .param(key.as_str())
                    .verb("list-verbs")
                    .command(format!("tuios list-verbs {}", spec.name))
                    .did_you_mean(closest_match(key, names.iter().copied()))
                    .accepted(&names)
                    .detail("A parameter the verb does not know is refused, not ignored, so a call never reports success for something it did not do."),
            ));
        }
    }
    for p in spec.params {
        match params.get(p.name) {
            None | Some(Value::Null) => {}
            Some(v) if p.ty.matches(v) => {}
            Some(v) => {
                return Err(VerbError::new(
                    ErrorCode::InvalidParams,
                    format!(
                        "parameter {} must be {}, got {}",
                        p.name,
                        p.ty.expected(),
                        describe_kind(v)
                    ),
                )
                .with_hint(
                    Hint::new()
                        .param(p.name)
                        .verb("list-verbs")
                        .command(format!("tuios list-verbs {}", spec.name))
                        .detail(format!(
                            "{} takes a value of type {}.",
                            p.name,
                            p.ty.as_str()
                        )),
                ));
            }
        }
    }
    crate::limits::check_verb_params(spec.name, params)?;
    Ok(spec)
}

/// Rewrites whole-number floats (`3.0`) as integers so typed decoding accepts what `validate`
/// accepted.
fn normalize_numbers(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => {
            if let Some(i) = as_int(value) {
                *value = Value::from(i);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalize_numbers),
        Value::Object(map) => map.values_mut().for_each(normalize_numbers),
        _ => {}
    }
}

/// Decodes validated params into a typed struct. `Null` decodes as `{}`; any failure is
/// `invalid_params`.
pub fn decode<T: DeserializeOwned>(params: &Value) -> Result<T, VerbError> {
    let mut value = match params {
        Value::Null => Value::Object(Map::new()),
        other => other.clone(),
    };
    normalize_numbers(&mut value);
    serde_json::from_value(value).map_err(|e| {
        VerbError::new(
            ErrorCode::InvalidParams,
            format!("params could not be read: {e}"),
        )
        .with_hint(Hint::new().verb("list-verbs").detail(
            "list-verbs gives this verb's parameter schema, including each parameter's type.",
        ))
    })
}

fn param_doc(p: &ParamSpec) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), p.name.into());
    m.insert("type".into(), p.ty.as_str().into());
    if p.required {
        m.insert("required".into(), true.into());
    }
    m.insert("description".into(), p.description.into());
    if !p.accepted.is_empty() {
        m.insert("accepted".into(), p.accepted.into());
    }
    if let Some(d) = p.default {
        m.insert("default".into(), d.into());
    }
    Value::Object(m)
}

fn verb_doc(v: &VerbSpec) -> Value {
    let mut m = Map::new();
    m.insert("verb".into(), v.name.into());
    m.insert("description".into(), v.description.into());
    m.insert("params".into(), v.params.iter().map(param_doc).collect());
    if !v.returns.is_empty() {
        m.insert("returns".into(), v.returns.iter().map(param_doc).collect());
    }
    if !v.examples.is_empty() {
        m.insert("examples".into(), v.examples.into());
    }
    Value::Object(m)
}

/// The result of `list-verbs`: every verb (or the one named), the error catalog and the envelope
/// shapes. An unknown verb name is `unknown_verb` with a suggestion.
pub fn list_verbs(verb: Option<&str>, daemon_version: &str) -> Result<Value, VerbError> {
    let docs: Vec<Value> = match verb.filter(|v| !v.is_empty()) {
        None => VERBS.iter().map(verb_doc).collect(),
        Some(name) => {
            let spec = find_verb(name).ok_or_else(|| {
                VerbError::new(
                    ErrorCode::UnknownVerb,
                    format!("unknown verb {}", echo_name(name)),
                )
                .with_hint(
                    Hint::new()
                        .param("verb")
                        .did_you_mean(closest_match(name, verb_names()))
                        .available(verb_names()),
                )
            })?;
            vec![verb_doc(spec)]
        }
    };
    let error_codes: Vec<Value> = ErrorCode::ALL
        .iter()
        .map(|c| {
            let mut m = Map::new();
            m.insert("code".into(), c.as_str().into());
            m.insert("description".into(), c.description().into());
            Value::Object(m)
        })
        .collect();
    let mut envelope = Map::new();
    envelope.insert(
        "transport".into(),
        "Newline-delimited JSON on the daemon's Unix socket: write one request object per line, read one response object per line, in order."
            .into(),
    );
    envelope.insert(
        "request".into(),
        r#"{"id":<any>,"verb":"<name>","params":{...}}"#.into(),
    );
    envelope.insert(
        "success".into(),
        r#"{"id":<echoed>,"result":{"type":"<result type>",...}}"#.into(),
    );
    envelope.insert(
        "failure".into(),
        r#"{"id":<echoed>,"error":{"code":"<stable code>","message":"...","hint":{...}}}"#.into(),
    );
    envelope.insert(
        "hint".into(),
        "Included with most errors. It can name the verb or CLI command that helps, the parameter at fault and the values it takes, the nearest spelling of what was asked for, and what does exist."
            .into(),
    );
    let mut out = Map::new();
    out.insert("type".into(), "verb_list".into());
    out.insert("version".into(), PROTOCOL_VERSION.into());
    out.insert("min_version".into(), MIN_PROTOCOL_VERSION.into());
    out.insert("daemon_version".into(), daemon_version.into());
    out.insert("verbs".into(), docs.into());
    out.insert("error_codes".into(), error_codes.into());
    out.insert("envelope".into(), Value::Object(envelope));
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::parse_request;
    use serde_json::json;

    fn req(verb: &str, params: Value) -> Request {
        Request::new(Some(json!(1)), verb, params)
    }

    #[test]
    fn registry_is_sorted_and_complete() {
        let names = verb_names();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(names, sorted);
        assert_eq!(
            names,
            [
                "capture-pane",
                "close-window",
                "explain-agent-detect",
                "explain-agent-screen",
                "focus-window",
                "get-agent-state",
                "get-option",
                "hello",
                "kill-session",
                "list-options",
                "list-sessions",
                "list-themes",
                "list-verbs",
                "list-windows",
                "list-workspaces",
                "move-window",
                "new-session",
                "new-window",
                "resize",
                "resurrect",
                "run",
                "run-command",
                "select-workspace",
                "send-keys",
                "send-text",
                "session-info",
                "set-agent-state",
                "set-layout",
                "set-option",
                "set-session-accent",
                "set-session-name",
                "set-window",
                "set-workspace-name",
                "set-workspace-order",
                "split-window",
                "subscribe",
                "unsubscribe",
                "upgrade",
                "wait-for"
            ]
        );
        // The spec's 35 verbs and the extensions: new-session, resurrect, run, upgrade.
        assert_eq!(names.len(), 39);
        for v in verbs() {
            assert!(!v.description.is_empty(), "{}", v.name);
            assert!(!v.examples.is_empty(), "{} has no example", v.name);
            let mut seen = std::collections::HashSet::new();
            for p in v.params.iter().chain(v.returns) {
                assert!(!p.description.is_empty(), "{}.{}", v.name, p.name);
            }
            for p in v.params {
                assert!(seen.insert(p.name), "{} declares {} twice", v.name, p.name);
                if let Some(d) = p.default {
                    if !p.accepted.is_empty() {
                        assert!(
                            p.accepted.contains(&d),
                            "{}.{} default outside accepted",
                            v.name,
                            p.name
                        );
                    }
                }
            }
        }
        assert!(find_verb("new-window").is_some_and(|v| !v.returns.is_empty()));
        for name in [
            "new-window",
            "split-window",
            "focus-window",
            "move-window",
            "set-window",
            "select-workspace",
            "list-workspaces",
            "set-layout",
            "run-command",
            "list-options",
            "set-option",
            "list-themes",
            "get-option",
        ] {
            assert!(
                find_verb(name).is_some_and(|v| !v.returns.is_empty()),
                "{name} documents no returns"
            );
        }
        for v in verbs() {
            for p in v.params {
                assert!(
                    !matches!(p.ty, Float | Object | ObjectList),
                    "{}.{} has a result-only type",
                    v.name,
                    p.name
                );
            }
        }
    }

    #[test]
    fn every_example_is_a_valid_request_for_its_verb() {
        for v in verbs() {
            for ex in v.examples {
                assert!(!ex.contains('\n'), "{ex} spans lines");
                let r = parse_request(ex).unwrap_or_else(|e| panic!("{ex}: {e:?}"));
                assert_eq!(r.verb, v.name, "{ex}");
                assert!(r.id.is_some(), "{ex}");
                assert_eq!(validate(&r).map(|s| s.name), Ok(v.name), "{ex}");
                for p in v.params.iter().filter(|p| p.required) {
                    assert!(
                        r.params.get(p.name).is_some_and(|x| !x.is_null()),
                        "{ex} lacks {}",
                        p.name
                    );
                }
                for p in v.params.iter().filter(|p| !p.accepted.is_empty()) {
                    if let Some(val) = r.params.get(p.name).and_then(Value::as_str) {
                        assert!(check_accepted(v.name, p.name, val).is_ok(), "{ex}");
                    }
                }
            }
        }
    }

    #[test]
    fn unknown_verb_suggests_and_lists() {
        let err = validate(&req("list-window", Value::Null)).unwrap_err();
        assert_eq!(err.code, ErrorCode::UnknownVerb);
        assert_eq!(err.message, "unknown verb list-window");
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("list-windows"));
        assert_eq!(err.hint.verb.as_deref(), Some("list-verbs"));
        assert_eq!(err.hint.command.as_deref(), Some("tuios list-verbs"));
        assert_eq!(err.hint.available, verb_names());
        assert!(err.hint.detail.is_some());

        let err = validate(&req("sendkeys", Value::Null)).unwrap_err();
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("send-keys"));

        let long = "z".repeat(500);
        let err = validate(&req(&long, Value::Null)).unwrap_err();
        assert!(err.message.ends_with("... (500 bytes)"));
        assert_eq!(err.hint.did_you_mean, None);
    }

    #[test]
    fn params_must_be_an_object() {
        for bad in [json!([1]), json!("x"), json!(3), json!(true)] {
            let err = validate(&req("list-sessions", bad)).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidParams);
            assert_eq!(err.hint.verb.as_deref(), Some("list-verbs"));
        }
        assert!(validate(&req("list-sessions", Value::Null)).is_ok());
        assert!(validate(&req("list-sessions", json!({}))).is_ok());
    }

    #[test]
    fn unknown_param_is_refused_with_a_hint() {
        let err = validate(&req("capture-pane", json!({"session": "s", "Lines": 3}))).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParams);
        assert_eq!(err.message, "verb capture-pane has no parameter Lines");
        assert_eq!(err.hint.param.as_deref(), Some("Lines"));
        assert_eq!(err.hint.verb.as_deref(), Some("list-verbs"));
        assert_eq!(
            err.hint.command.as_deref(),
            Some("tuios list-verbs capture-pane")
        );
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("lines"));
        assert_eq!(
            err.hint.accepted,
            [
                "session",
                "window",
                "source",
                "styled",
                "scrollback",
                "ansi",
                "lines",
                "start",
                "end"
            ]
        );
        assert!(err.hint.detail.is_some());

        // A verb without parameters refuses every key.
        let err = validate(&req("list-sessions", json!({"session": "x"}))).unwrap_err();
        assert_eq!(err.hint.param.as_deref(), Some("session"));
        assert!(err.hint.accepted.is_empty());
    }

    #[test]
    fn every_declared_param_accepts_null() {
        for v in verbs() {
            let params: Map<String, Value> = v
                .params
                .iter()
                .map(|p| (p.name.to_owned(), Value::Null))
                .collect();
            assert!(
                validate(&req(v.name, Value::Object(params))).is_ok(),
                "{}",
                v.name
            );
        }
    }

    #[test]
    fn types_are_checked() {
        let ok = [
            ("resize", json!({"width": 80, "height": 24})),
            ("resize", json!({"width": 80.0, "height": 24.0})),
            (
                "new-window",
                json!({"command": ["a", "b"], "focus": false, "workspace": 2}),
            ),
            ("new-window", json!({"command": []})),
            ("send-keys", json!({"keys": "x", "literal": true})),
        ];
        for (verb, params) in ok {
            assert!(
                validate(&req(verb, params.clone())).is_ok(),
                "{verb} {params}"
            );
        }
        let bad = [
            ("resize", json!({"width": "80"}), "width"),
            ("resize", json!({"width": 80.5}), "width"),
            ("resize", json!({"height": 1e30}), "height"),
            ("resize", json!({"height": true}), "height"),
            ("new-window", json!({"command": "make"}), "command"),
            ("new-window", json!({"command": ["a", 1]}), "command"),
            ("new-window", json!({"command": ["a", null]}), "command"),
            ("new-window", json!({"focus": "yes"}), "focus"),
            ("new-window", json!({"name": 5}), "name"),
            ("send-keys", json!({"keys": ["a"]}), "keys"),
            ("capture-pane", json!({"lines": {}}), "lines"),
        ];
        for (verb, params, param) in bad {
            let err = validate(&req(verb, params.clone())).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidParams, "{verb} {params}");
            assert_eq!(err.hint.param.as_deref(), Some(param), "{verb} {params}");
            assert_eq!(err.hint.verb.as_deref(), Some("list-verbs"));
            assert!(err.message.contains(param), "{}", err.message);
        }
        assert!(ParamType::IntList.matches(&json!([1, 2.0, -3])));
        assert!(!ParamType::IntList.matches(&json!([1, 2.5])));
        assert!(!ParamType::IntList.matches(&json!(1)));
    }

    #[test]
    fn decode_handles_null_and_whole_floats() {
        #[derive(serde::Deserialize, Debug, Default)]
        struct P {
            width: Option<i64>,
            list: Option<Vec<i64>>,
            name: Option<String>,
        }
        let p: P = decode(&Value::Null).unwrap();
        assert!(p.width.is_none() && p.list.is_none() && p.name.is_none());
        let p: P = decode(&json!({"width": 80.0, "list": [1.0, 2], "name": null})).unwrap();
        assert_eq!(p.width, Some(80));
        assert_eq!(p.list, Some(vec![1, 2]));
        assert_eq!(p.name, None);
        let err = decode::<P>(&json!({"width": "x"})).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParams);
        assert_eq!(err.hint.verb.as_deref(), Some("list-verbs"));
    }

    #[test]
    fn list_verbs_shape() {
        let out = list_verbs(None, "0.1.0-test").unwrap();
        assert_eq!(out["type"], "verb_list");
        assert_eq!(out["version"], PROTOCOL_VERSION);
        assert_eq!(out["min_version"], MIN_PROTOCOL_VERSION);
        assert_eq!(out["daemon_version"], "0.1.0-test");
        let env = out["envelope"].as_object().unwrap();
        for k in ["transport", "request", "success", "failure", "hint"] {
            assert!(env[k].as_str().is_some_and(|s| !s.is_empty()), "{k}");
        }
        let codes: Vec<&str> = out["error_codes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["code"].as_str().unwrap())
            .collect();
        let want: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(codes, want);
        for c in out["error_codes"].as_array().unwrap() {
            assert!(c["description"].as_str().is_some_and(|d| !d.is_empty()));
        }

        let verbs_out = out["verbs"].as_array().unwrap();
        let names: Vec<&str> = verbs_out
            .iter()
            .map(|v| v["verb"].as_str().unwrap())
            .collect();
        assert_eq!(names, verb_names());
        for v in verbs_out {
            let name = v["verb"].as_str().unwrap();
            let spec = find_verb(name).unwrap();
            assert!(v["params"].is_array(), "{name} params always present");
            assert_eq!(v.get("returns").is_some(), !spec.returns.is_empty());
            assert_eq!(v.get("examples").is_some(), !spec.examples.is_empty());
            for p in v["params"].as_array().unwrap() {
                let pname = p["name"].as_str().unwrap();
                let ps = spec.param(pname).unwrap();
                assert!(["string", "int", "bool", "[]string", "[]int"]
                    .contains(&p["type"].as_str().unwrap()));
                assert_eq!(p.get("required").is_some(), ps.required);
                if ps.required {
                    assert_eq!(p["required"], true);
                }
                let published: Vec<&str> = p
                    .get("accepted")
                    .map(|a| {
                        a.as_array()
                            .unwrap()
                            .iter()
                            .map(|s| s.as_str().unwrap())
                            .collect()
                    })
                    .unwrap_or_default();
                assert_eq!(published, accepted_of(name, pname), "{name}.{pname}");
                assert_eq!(p.get("default").and_then(Value::as_str), ps.default);
            }
        }
        let cp = verbs_out
            .iter()
            .find(|v| v["verb"] == "capture-pane")
            .unwrap();
        let source = cp["params"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "source")
            .unwrap();
        assert_eq!(source["accepted"], json!(["visible", "recent"]));
        assert_eq!(source["default"], "visible");
        let ls = verbs_out
            .iter()
            .find(|v| v["verb"] == "list-sessions")
            .unwrap();
        assert_eq!(ls["params"], json!([]));
    }

    #[test]
    fn list_verbs_for_one_verb() {
        let out = list_verbs(Some("resize"), "x").unwrap();
        let verbs_out = out["verbs"].as_array().unwrap();
        assert_eq!(verbs_out.len(), 1);
        assert_eq!(verbs_out[0]["verb"], "resize");
        assert_eq!(out["error_codes"].as_array().unwrap().len(), 13);
        assert_eq!(
            list_verbs(Some(""), "x").unwrap()["verbs"]
                .as_array()
                .unwrap()
                .len(),
            verbs().len()
        );

        let err = list_verbs(Some("capture-pain"), "x").unwrap_err();
        assert_eq!(err.code, ErrorCode::UnknownVerb);
        assert_eq!(err.hint.param.as_deref(), Some("verb"));
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("capture-pane"));
        assert_eq!(err.hint.available, verb_names());
    }

    #[test]
    fn new_verbs_publish_their_accepted_sets() {
        // Declared as crate::commands::COMMAND_NAMES, so it cannot drift from the command table.
        assert_eq!(
            accepted_of("run-command", "command"),
            crate::commands::command_names()
        );
        assert_eq!(accepted_of("focus-window", "relative"), ["next", "prev"]);
        assert_eq!(
            accepted_of("focus-window", "direction"),
            ["left", "right", "up", "down"]
        );
        assert_eq!(
            accepted_of("split-window", "direction"),
            ["horizontal", "vertical"]
        );
        // The option registry lives elsewhere; key stays open here.
        assert!(accepted_of("set-option", "key").is_empty());
        assert!(accepted_of("get-option", "key").is_empty());

        let err = check_accepted("run-command", "command", "SwitchWorkpace").unwrap_err();
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("SwitchWorkspace"));
        let err = check_accepted("split-window", "direction", "vertcal").unwrap_err();
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("vertical"));

        let required = |verb: &str| -> Vec<&str> {
            find_verb(verb)
                .unwrap()
                .params
                .iter()
                .filter(|p| p.required)
                .map(|p| p.name)
                .collect()
        };
        assert_eq!(required("select-workspace"), ["workspace"]);
        assert_eq!(required("move-window"), ["workspace"]);
        assert_eq!(required("split-window"), ["direction"]);
        assert_eq!(required("run-command"), ["command"]);
        assert_eq!(required("set-workspace-name"), ["workspace"]);
        assert_eq!(required("set-workspace-order"), ["order"]);
        assert_eq!(required("set-option"), ["key"]);
        assert_eq!(required("get-option"), ["key"]);
        for verb in [
            "set-window",
            "set-layout",
            "list-options",
            "list-themes",
            "focus-window",
        ] {
            assert!(required(verb).is_empty(), "{verb}");
        }
        let default = |verb: &str, p: &str| find_verb(verb).unwrap().param(p).unwrap().default;
        assert_eq!(default("move-window", "follow"), Some("false"));
        assert_eq!(default("set-layout", "equalize"), Some("false"));
        assert_eq!(default("set-layout", "rotate"), Some("false"));
        assert_eq!(default("set-layout", "tiling"), None);

        let types = [
            ("set-workspace-order", json!({"order": [3, 1.0, 2]}), true),
            ("set-workspace-order", json!({"order": ["3"]}), false),
            (
                "run-command",
                json!({"command": "Type", "args": ["hi"]}),
                true,
            ),
            (
                "run-command",
                json!({"command": "SwitchWorkspace", "args": [2]}),
                false,
            ),
            ("set-option", json!({"key": "k", "value": true}), false),
            (
                "set-window",
                json!({"name": null, "minimized": false}),
                true,
            ),
            ("set-layout", json!({"tiling": "on"}), false),
        ];
        for (verb, params, ok) in types {
            assert_eq!(
                validate(&req(verb, params.clone())).is_ok(),
                ok,
                "{verb} {params}"
            );
        }
    }

    #[test]
    fn accepted_values() {
        assert_eq!(accepted_of("capture-pane", "source"), CAPTURE_SOURCES);
        assert!(accepted_of("capture-pane", "nope").is_empty());
        assert!(accepted_of("nope", "source").is_empty());
        assert!(check_accepted("capture-pane", "source", "recent").is_ok());
        assert!(check_accepted("send-text", "text", "anything").is_ok());
        let err = check_accepted("capture-pane", "source", "visibel").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParams);
        assert_eq!(err.hint.param.as_deref(), Some("source"));
        assert_eq!(err.hint.accepted, ["visible", "recent"]);
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("visible"));
    }
}
