//! The session option registry: every path `set-option`, `get-option` and `list-options` know,
//! with its type, default, accepted values and who honours it. Only options something really
//! applies are listed here.

use std::fmt;
use std::num::IntErrorKind;
use std::path::PathBuf;

use crate::themes::{is_hex_colour, ThemeRegistry};

/// The value type of an option, as `list-options` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionType {
    Bool,
    Int,
    String,
}

impl OptionType {
    /// `bool`, `int` or `string`.
    pub fn as_str(self) -> &'static str {
        match self {
            OptionType::Bool => "bool",
            OptionType::Int => "int",
            OptionType::String => "string",
        }
    }
}

impl fmt::Display for OptionType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Extra validation a string option gets beyond its type and accepted set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionKind {
    Plain,
    /// Empty, a keyword from `accepted`, or `#RRGGBB`.
    Colour,
    /// Empty, or the id of a theme that exists.
    Theme,
}

/// Who applies an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applies {
    /// The attached client, when it draws.
    Client,
    /// The daemon (for example when it creates a window).
    Daemon,
}

/// One settable option.
#[derive(Debug, Clone)]
pub struct OptionSpec {
    pub path: &'static str,
    pub ty: OptionType,
    pub section: &'static str,
    /// The value in effect when the session has none, as a string (`""` for unset).
    pub default: &'static str,
    /// Closed set of values (exact, case-sensitive); empty when any value of the type goes.
    /// For [`OptionKind::Colour`] these are keywords accepted besides `#RRGGBB`.
    pub accepted: &'static [&'static str],
    pub min: Option<i64>,
    pub max: Option<i64>,
    pub kind: OptionKind,
    pub description: &'static str,
    pub applies: Applies,
}

const fn plain(
    path: &'static str,
    ty: OptionType,
    section: &'static str,
    default: &'static str,
    applies: Applies,
    description: &'static str,
) -> OptionSpec {
    OptionSpec {
        path,
        ty,
        section,
        default,
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        description,
        applies,
    }
}

const fn one_of(
    path: &'static str,
    section: &'static str,
    default: &'static str,
    accepted: &'static [&'static str],
    description: &'static str,
) -> OptionSpec {
    OptionSpec {
        accepted,
        ..plain(
            path,
            OptionType::String,
            section,
            default,
            Applies::Client,
            description,
        )
    }
}

const fn int(
    path: &'static str,
    section: &'static str,
    default: &'static str,
    min: i64,
    max: i64,
    applies: Applies,
    description: &'static str,
) -> OptionSpec {
    OptionSpec {
        min: Some(min),
        max: Some(max),
        ..plain(
            path,
            OptionType::Int,
            section,
            default,
            applies,
            description,
        )
    }
}

const fn colour(path: &'static str, description: &'static str) -> OptionSpec {
    OptionSpec {
        kind: OptionKind::Colour,
        ..plain(
            path,
            OptionType::String,
            "appearance",
            "",
            Applies::Client,
            description,
        )
    }
}

/// Border styles the client can draw.
pub const BORDER_STYLES: &[&str] = &["rounded", "normal", "thick", "double", "ascii", "hidden"];
/// Where the dock can sit.
pub const DOCK_POSITIONS: &[&str] = &["bottom", "top", "hidden"];
/// Where a window title can be drawn.
pub const TITLE_POSITIONS: &[&str] = &["top", "bottom", "hidden"];

/// The registry, sorted by path (a test keeps it so).
static OPTIONS: [OptionSpec; 16] = [
    colour(
        "appearance.border_focused_color",
        "Border colour of the focused window, as #RRGGBB; empty uses the theme's",
    ),
    one_of(
        "appearance.border_style",
        "appearance",
        "rounded",
        BORDER_STYLES,
        "Line style of window borders",
    ),
    colour(
        "appearance.border_unfocused_color",
        "Border colour of windows without focus, as #RRGGBB; empty uses the theme's",
    ),
    plain(
        "appearance.dock_workspace_tabs",
        OptionType::Bool,
        "dock",
        "true",
        Applies::Client,
        "Show the workspace tabs in the dock",
    ),
    one_of(
        "appearance.dockbar_position",
        "dock",
        "bottom",
        DOCK_POSITIONS,
        "Edge of the screen the dock sits on, or hidden",
    ),
    int(
        "appearance.max_fps",
        "appearance",
        "0",
        0,
        240,
        Applies::Client,
        "Most screen redraws per second; 0 means 60",
    ),
    plain(
        "appearance.preferred_shell",
        OptionType::String,
        "appearance",
        "",
        Applies::Daemon,
        "Shell run by windows created after the change; empty uses $SHELL, else /bin/sh",
    ),
    int(
        "appearance.scroll_lines",
        "appearance",
        "3",
        1,
        50,
        Applies::Client,
        "Lines scrolled per mouse-wheel step",
    ),
    int(
        "appearance.scrollback_lines",
        "appearance",
        "10000",
        100,
        1_000_000,
        Applies::Daemon,
        "Scrollback lines kept by windows created after the change",
    ),
    plain(
        "appearance.show_clock",
        OptionType::Bool,
        "dock",
        "false",
        Applies::Client,
        "Show a clock in the dock",
    ),
    OptionSpec {
        kind: OptionKind::Theme,
        ..plain(
            "appearance.theme",
            OptionType::String,
            "appearance",
            "",
            Applies::Client,
            "Colour theme id (see list-themes); empty keeps the terminal's own colours",
        )
    },
    one_of(
        "appearance.window_title_position",
        "appearance",
        "top",
        TITLE_POSITIONS,
        "Border edge a window's title is drawn on, or hidden",
    ),
    plain(
        "daemon.agent_autodetect",
        OptionType::Bool,
        "daemon",
        "true",
        Applies::Daemon,
        "Watch each window's foreground process and mark a window running a known agent CLI as working; TUIOS_AGENT_AUTODETECT is used when the session sets nothing",
    ),
    int(
        "daemon.agent_detect_seconds",
        "daemon",
        "0",
        -1,
        3600,
        Applies::Daemon,
        "Seconds between two looks at each window's foreground process; 0 means 2, and -1 turns detection off",
    ),
    plain(
        "daemon.resurrect_commands",
        OptionType::String,
        "daemon",
        "",
        Applies::Daemon,
        "Programs whose windows run their command again when the session is restored after a restart (names or paths, separated by commas or spaces; * allows all); shells always run again, other windows get a shell and a note",
    ),
    int(
        "notifications.duration",
        "notifications",
        "0",
        0,
        3600,
        Applies::Client,
        "Seconds a notice stays on screen; 0 means 3",
    ),
];

/// Every option, sorted by path.
pub fn options() -> &'static [OptionSpec] {
    &OPTIONS
}

/// Every option path, sorted.
pub fn paths() -> Vec<&'static str> {
    OPTIONS.iter().map(|o| o.path).collect()
}

/// The section names, sorted and without repeats.
pub fn sections() -> Vec<&'static str> {
    let mut s: Vec<&'static str> = OPTIONS.iter().map(|o| o.section).collect();
    s.sort_unstable();
    s.dedup();
    s
}

/// The option at exactly `key`, or, when `key` holds no `.`, at `appearance.<key>`.
pub fn resolve(key: &str) -> Option<&'static OptionSpec> {
    if let Some(spec) = OPTIONS.iter().find(|o| o.path == key) {
        return Some(spec);
    }
    if key.is_empty() || key.contains('.') {
        return None;
    }
    OPTIONS
        .iter()
        .find(|o| o.path.strip_prefix("appearance.") == Some(key))
}

/// The option path closest to an unknown `key`, for a "did you mean" hint. A bare key is also
/// compared as `appearance.<key>`, the way [`resolve`] would read it.
pub fn did_you_mean(key: &str) -> Option<String> {
    let all = paths();
    protocol::closest::closest_match(key, all.iter().copied()).or_else(|| {
        if key.is_empty() || key.contains('.') {
            return None;
        }
        protocol::closest::closest_match(&format!("appearance.{key}"), all.iter().copied())
    })
}

/// A value `set-option` refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionValueError {
    /// What is wrong, naming the path and the value.
    pub message: String,
    /// The option's type, default, range and description, for the hint.
    pub detail: String,
    /// The closest accepted value (or theme id), when one is close.
    pub did_you_mean: Option<String>,
}

impl fmt::Display for OptionValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for OptionValueError {}

/// Words read as true and false (case-insensitive, surrounding blanks ignored).
pub const TRUE_WORDS: [&str; 5] = ["true", "on", "1", "yes", "enabled"];
pub const FALSE_WORDS: [&str; 5] = ["false", "off", "0", "no", "disabled"];

/// Check `value` for `spec`, in this order: colour rules (colour options), theme existence
/// (the theme option; the themes directory is read again before refusing, so a theme written
/// a moment ago is found), the closed `accepted` set, then the type (bool words; decimal
/// integers within `min..=max`; strings without control characters).
///
/// Returns the value to record: the value as sent, with surrounding blanks removed.
pub fn validate_value(
    spec: &OptionSpec,
    value: &str,
    themes: &ThemeRegistry,
) -> Result<String, OptionValueError> {
    let v = value.trim();
    let path = spec.path;
    let shown = echo(v);
    let fail = |message: String, did_you_mean: Option<String>| OptionValueError {
        message,
        detail: detail(spec),
        did_you_mean,
    };

    match spec.kind {
        OptionKind::Colour => {
            if v.is_empty() || spec.accepted.contains(&v) || is_hex_colour(v) {
                return Ok(v.to_string());
            }
            let message = if spec.accepted.is_empty() {
                format!("{path}: \"{shown}\" is not a colour; give #RRGGBB, or an empty value to unset it")
            } else {
                format!(
                    "{path}: \"{shown}\" is not a colour; give #RRGGBB, one of {}, or an empty value to unset it",
                    spec.accepted.join(", ")
                )
            };
            let hint = protocol::closest::closest_match(v, spec.accepted.iter().copied());
            return Err(fail(message, hint));
        }
        OptionKind::Theme => {
            if v.is_empty() || themes.get(v).is_some() {
                return Ok(v.to_string());
            }
            let fresh = ThemeRegistry::load(themes.dir());
            if fresh.get(v).is_some() {
                return Ok(v.to_string());
            }
            let ids = fresh.ids();
            let hint = protocol::closest::closest_match(v, ids.iter().map(String::as_str));
            return Err(fail(
                format!(
                    "{path}: there is no theme called \"{shown}\"; list-themes shows the ones there are, or save it as {shown}.json in {} first",
                    fresh.dir().display()
                ),
                hint,
            ));
        }
        OptionKind::Plain => {}
    }

    if !spec.accepted.is_empty() && !spec.accepted.contains(&v) {
        let hint = protocol::closest::closest_match(v, spec.accepted.iter().copied());
        return Err(fail(
            format!(
                "{path}: \"{shown}\" is not one of the accepted values ({})",
                spec.accepted.join(", ")
            ),
            hint,
        ));
    }

    match spec.ty {
        OptionType::Bool => {
            if as_bool(v).is_none() {
                return Err(fail(
                    format!("{path}: \"{shown}\" is not a yes-or-no value; use true or false (on/off, yes/no, 1/0 and enabled/disabled work too)"),
                    None,
                ));
            }
        }
        OptionType::Int => {
            let n = match v.parse::<i64>() {
                Ok(n) => n,
                Err(e)
                    if matches!(
                        e.kind(),
                        IntErrorKind::PosOverflow | IntErrorKind::NegOverflow
                    ) =>
                {
                    return Err(fail(
                        format!("{path}: {shown} is {}", range_words(spec)),
                        None,
                    ))
                }
                Err(_) => {
                    return Err(fail(
                        format!("{path}: \"{shown}\" is not a whole number"),
                        None,
                    ))
                }
            };
            let below = spec.min.is_some_and(|min| n < min);
            let above = spec.max.is_some_and(|max| n > max);
            if below || above {
                return Err(fail(format!("{path}: {n} is {}", range_words(spec)), None));
            }
        }
        OptionType::String => {
            if v.chars().any(char::is_control) {
                return Err(fail(
                    format!("{path}: the value must not contain control characters"),
                    None,
                ));
            }
        }
    }
    Ok(v.to_string())
}

/// "outside 1..50" (or the one bound there is).
fn range_words(spec: &OptionSpec) -> String {
    match (spec.min, spec.max) {
        (Some(min), Some(max)) => format!("outside the range {min}..{max}"),
        (Some(min), None) => format!("below the minimum {min}"),
        (None, Some(max)) => format!("above the maximum {max}"),
        (None, None) => "out of range".to_string(),
    }
}

/// The hint detail for an option: type, default, range, description.
fn detail(spec: &OptionSpec) -> String {
    let default = if spec.default.is_empty() {
        "empty".to_string()
    } else {
        spec.default.to_string()
    };
    let range = match (spec.min, spec.max) {
        (Some(min), Some(max)) => format!(", range {min}..{max}"),
        _ => String::new(),
    };
    format!(
        "type {}, default {default}{range}. {}.",
        spec.ty, spec.description
    )
}

/// A caller's value inside a message: escaped, and cut short when very long.
fn echo(v: &str) -> String {
    const LIMIT: usize = 64;
    let escaped: String = v.escape_debug().collect();
    if escaped.chars().count() <= LIMIT {
        return escaped;
    }
    let mut cut: String = escaped.chars().take(LIMIT).collect();
    cut.push('…');
    cut
}

/// A recorded or default bool option value: the words of [`TRUE_WORDS`] and [`FALSE_WORDS`],
/// case-insensitive, surrounding blanks ignored.
pub fn as_bool(v: &str) -> Option<bool> {
    let v = v.trim();
    if TRUE_WORDS.iter().any(|w| w.eq_ignore_ascii_case(v)) {
        Some(true)
    } else if FALSE_WORDS.iter().any(|w| w.eq_ignore_ascii_case(v)) {
        Some(false)
    } else {
        None
    }
}

/// A recorded or default int option value (decimal, optional sign, surrounding blanks ignored).
pub fn as_int(v: &str) -> Option<i64> {
    v.trim().parse().ok()
}

const FOCUS_RETURN_ONLY: &str = "the focus-return chord can be changed only in the user policy file ($XDG_CONFIG_HOME/tuios/policy.toml, read by the client), so that nothing running inside a window can change it";
const POLICY_ONLY: &str = "this setting lives only in the user policy file ($XDG_CONFIG_HOME/tuios/policy.toml, read by the client), so that nothing running inside a window can change it";

/// `Some(explanation)` when `key` names a setting that only the user policy file may hold (the
/// focus-return chord and its fallback, link policy, anything under `lumen.` or `policy.`);
/// `set-option` must refuse it with a hint naming [`policy_file_path`]. The explanation is a
/// lower-case clause meant to follow "<key> is not a session option: ".
pub fn policy_only(key: &str) -> Option<&'static str> {
    let k = key.trim().to_ascii_lowercase().replace('-', "_");
    if k.contains("focus_return") {
        return Some(FOCUS_RETURN_ONLY);
    }
    let prefixed = ["lumen.", "policy.", "links.", "link."]
        .iter()
        .any(|p| k.starts_with(p));
    if prefixed || k == "lumen" || k == "policy" {
        return Some(POLICY_ONLY);
    }
    None
}

/// The user policy file: `$XDG_CONFIG_HOME/tuios/policy.toml`, else `~/.config/tuios/policy.toml`
/// (shown literally as `$XDG_CONFIG_HOME/tuios/policy.toml` when neither variable is usable).
pub fn policy_file_path() -> PathBuf {
    crate::config_dir()
        .map(|d| d.join("policy.toml"))
        .unwrap_or_else(|| PathBuf::from("$XDG_CONFIG_HOME/tuios/policy.toml"))
}

#[cfg(test)]
#[path = "options_tests.rs"]
mod tests;
