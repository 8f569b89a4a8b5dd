//! The session option registry: every path `set-option`, `get-option` and `list-options` know,
//! with its type, default, accepted values and who honours it. It holds every option of the
//! reference TUIOS (same paths, types, defaults, accepted values and ranges); those tuios has
//! no use for are marked [`Applies::Inert`] and only recorded.

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
    /// Nothing in tuios: the option is one of the reference TUIOS's, accepted and recorded so
    /// scripts written for it keep working, and the text says why it does nothing here.
    Inert(&'static str),
}

impl Applies {
    /// `client`, `daemon` or `inert`, as `list-options` reports it.
    pub fn as_str(self) -> &'static str {
        match self {
            Applies::Client => "client",
            Applies::Daemon => "daemon",
            Applies::Inert(_) => "inert",
        }
    }
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
    /// Enforced bounds of an int option; `None` when any whole number goes.
    pub min: Option<i64>,
    pub max: Option<i64>,
    pub kind: OptionKind,
    pub applies: Applies,
    /// Why the option is deprecated and what replaces it (as the reference TUIOS says).
    pub deprecated: Option<&'static str>,
    pub description: &'static str,
}

/// Border styles (the reference's set; the client draws both half-block styles as block).
pub const BORDER_STYLES: &[&str] = &[
    "rounded",
    "normal",
    "thick",
    "double",
    "block",
    "outer-half-block",
    "inner-half-block",
    "ascii",
    "hidden",
];
/// Where the dock can sit.
pub const DOCK_POSITIONS: &[&str] = &["bottom", "top", "hidden"];
/// Where a window title can be drawn (the reference's order; empty, the default, means top).
pub const TITLE_POSITIONS: &[&str] = &["bottom", "top", "hidden"];

// Why an inert option does nothing here.
const R_RAIL: &str = "tuios has no session rail";
const R_SCROLLBAR: &str = "the tuios client draws no scrollbar";
const R_BUTTONS: &str = "tuios window title bars carry no buttons";
const R_CLIENT: &str = "the tuios client does not have this feature";
const R_TILED: &str = "tuios sessions always start tiled (leader then t floats a workspace)";
const R_NO_QUIT: &str =
    "the tuios client never quits a session: it detaches, and every program runs on";
const R_ALWAYS_DAEMON: &str = "tuios is always daemon-backed: a bare tuios attaches to a session";
const R_FIRST_WINDOW: &str = "a tuios session always opens its first window when it is created";
const R_TERMINAL_MODE: &str = "tuios attach always starts in terminal mode";
const R_LOG_LEVEL: &str =
    "the daemon's log level is set when it starts (TUIOS_LOG_LEVEL), not per session";
const R_NO_STICKY: &str =
    "the tuios client has no sticky notices: errors expire after notifications.error_duration";
const R_NO_TAPE_DETECT: &str = "tuios does not look for project tapes when a directory is entered";

/// The registry, sorted by path (a test keeps it so): the reference TUIOS's 86 options with its
/// types, defaults, accepted values and ranges, plus `daemon.resurrect_commands`.
static OPTIONS: [OptionSpec; 87] = [
    OptionSpec {
        path: "appearance.alt_drag",
        ty: OptionType::Bool,
        section: "appearance",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Alt plus left-drag moves a floating pane",
    },
    OptionSpec {
        path: "appearance.animations_enabled",
        ty: OptionType::Bool,
        section: "appearance",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_CLIENT),
        deprecated: None,
        description: "Animate UI transitions instead of applying them instantly",
    },
    OptionSpec {
        path: "appearance.border_focused_color",
        ty: OptionType::String,
        section: "appearance",
        default: "",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Colour,
        applies: Applies::Client,
        deprecated: None,
        description: "Border colour of the focused window, as #RRGGBB; empty uses the theme's",
    },
    OptionSpec {
        path: "appearance.border_style",
        ty: OptionType::String,
        section: "appearance",
        default: "rounded",
        accepted: BORDER_STYLES,
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Line style of window borders (outer-half-block and inner-half-block are drawn as block)",
    },
    OptionSpec {
        path: "appearance.border_unfocused_color",
        ty: OptionType::String,
        section: "appearance",
        default: "",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Colour,
        applies: Applies::Client,
        deprecated: None,
        description: "Border colour of windows without focus, as #RRGGBB; empty uses the theme's",
    },
    OptionSpec {
        path: "appearance.click_to_type",
        ty: OptionType::String,
        section: "appearance",
        default: "single",
        accepted: &["single", "double", "off"],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "What a click on a pane's content does in window-management mode",
    },
    OptionSpec {
        path: "appearance.confirm_quit",
        ty: OptionType::Bool,
        section: "appearance",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_NO_QUIT),
        deprecated: None,
        description: "Always confirm on quit, not only when processes are running",
    },
    OptionSpec {
        path: "appearance.copy_on_select",
        ty: OptionType::Bool,
        section: "appearance",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_CLIENT),
        deprecated: None,
        description: "Copy a mouse selection to the clipboard on release",
    },
    OptionSpec {
        path: "appearance.dock_pill_caps",
        ty: OptionType::Bool,
        section: "dock",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_CLIENT),
        deprecated: None,
        description: "Draw powerline caps on the dock's pills instead of flat ends",
    },
    OptionSpec {
        path: "appearance.dock_workspace_tab_format",
        ty: OptionType::String,
        section: "dock",
        default: "",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Workspace tab template accepting {index} and {name} (a workspace without a name gives its number); empty keeps index:name",
    },
    OptionSpec {
        path: "appearance.dock_workspace_tabs",
        ty: OptionType::Bool,
        section: "dock",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Show the workspace tabs in the dock",
    },
    OptionSpec {
        path: "appearance.dock_workspace_tooltip",
        ty: OptionType::Bool,
        section: "dock",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_CLIENT),
        deprecated: None,
        description: "Pop a truncated workspace name in full on hover",
    },
    OptionSpec {
        path: "appearance.dockbar_position",
        ty: OptionType::String,
        section: "dock",
        default: "bottom",
        accepted: DOCK_POSITIONS,
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Edge of the screen the dock sits on, or hidden",
    },
    OptionSpec {
        path: "appearance.focus_follows_mouse",
        ty: OptionType::Bool,
        section: "appearance",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_CLIENT),
        deprecated: None,
        description: "Focus the pane under the cursor as the mouse moves",
    },
    OptionSpec {
        path: "appearance.hide_clock",
        ty: OptionType::Bool,
        section: "dock",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: Some("superseded by appearance.show_clock, which says the same thing the right way round"),
        description: "Hide the clock overlay",
    },
    OptionSpec {
        path: "appearance.hide_scrollbar",
        ty: OptionType::Bool,
        section: "appearance",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_SCROLLBAR),
        deprecated: None,
        description: "Hide the scrollbar thumb on the pane border",
    },
    OptionSpec {
        path: "appearance.hide_window_buttons",
        ty: OptionType::Bool,
        section: "appearance",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_BUTTONS),
        deprecated: None,
        description: "Hide the minimize, maximize and close buttons",
    },
    OptionSpec {
        path: "appearance.max_fps",
        ty: OptionType::Int,
        section: "appearance",
        default: "0",
        accepted: &[],
        min: Some(0),
        max: Some(240),
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Most screen redraws per second; 0 means 60",
    },
    OptionSpec {
        path: "appearance.niri_reverse_scroll",
        ty: OptionType::Bool,
        section: "appearance",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_CLIENT),
        deprecated: None,
        description: "Reverse the wheel direction in niri scrolling mode",
    },
    OptionSpec {
        path: "appearance.preferred_shell",
        ty: OptionType::String,
        section: "appearance",
        default: "",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Daemon,
        deprecated: None,
        description: "Shell run by windows created after the change; empty uses $SHELL, else /bin/sh",
    },
    OptionSpec {
        path: "appearance.scroll_lines",
        ty: OptionType::Int,
        section: "appearance",
        default: "3",
        accepted: &[],
        min: Some(1),
        max: Some(50),
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Lines scrolled per mouse-wheel step",
    },
    OptionSpec {
        path: "appearance.scrollback_lines",
        ty: OptionType::Int,
        section: "appearance",
        default: "10000",
        accepted: &[],
        min: Some(100),
        max: Some(1000000),
        kind: OptionKind::Plain,
        applies: Applies::Daemon,
        deprecated: None,
        description: "Scrollback lines kept by windows created after the change",
    },
    OptionSpec {
        path: "appearance.scrollbar.style",
        ty: OptionType::String,
        section: "scrollbar",
        default: "thin",
        accepted: &["thin", "track"],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_SCROLLBAR),
        deprecated: None,
        description: "Hairline thumb over the content column, or a full-height track",
    },
    OptionSpec {
        path: "appearance.scrollbar.thumb",
        ty: OptionType::String,
        section: "scrollbar",
        default: "",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_SCROLLBAR),
        deprecated: None,
        description: "One-cell thumb glyph; empty takes the style's own",
    },
    OptionSpec {
        path: "appearance.scrollbar.tint",
        ty: OptionType::String,
        section: "scrollbar",
        default: "quiet",
        accepted: &["quiet", "border", "muted"],
        min: None,
        max: None,
        kind: OptionKind::Colour,
        applies: Applies::Inert(R_SCROLLBAR),
        deprecated: None,
        description: "Bar colour: quiet, border, muted, or a #RRGGBB literal",
    },
    OptionSpec {
        path: "appearance.scrollbar.track",
        ty: OptionType::String,
        section: "scrollbar",
        default: "",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_SCROLLBAR),
        deprecated: None,
        description: "One-cell track glyph, or none; empty takes the style's own",
    },
    OptionSpec {
        path: "appearance.session_colors",
        ty: OptionType::Bool,
        section: "appearance",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_CLIENT),
        deprecated: None,
        description: "Give each session its own colour on the rail and in the switcher",
    },
    OptionSpec {
        path: "appearance.shared_borders",
        ty: OptionType::Bool,
        section: "appearance",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_CLIENT),
        deprecated: None,
        description: "Share one border between adjacent tiled panes",
    },
    OptionSpec {
        path: "appearance.show_clock",
        ty: OptionType::Bool,
        section: "dock",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Show a clock in the dock",
    },
    OptionSpec {
        path: "appearance.show_cpu",
        ty: OptionType::Bool,
        section: "dock",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Show the client machine's CPU use in the dock, as a percentage refreshed every 2 seconds",
    },
    OptionSpec {
        path: "appearance.show_ram",
        ty: OptionType::Bool,
        section: "dock",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Show the client machine's memory use in the dock, as a percentage",
    },
    OptionSpec {
        path: "appearance.sidebar.enabled",
        ty: OptionType::Bool,
        section: "sidebar",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_RAIL),
        deprecated: None,
        description: "Show the session rail",
    },
    OptionSpec {
        path: "appearance.sidebar.marquee",
        ty: OptionType::Bool,
        section: "sidebar",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_RAIL),
        deprecated: None,
        description: "Scroll a hovered row's overflowing title",
    },
    OptionSpec {
        path: "appearance.sidebar.position",
        ty: OptionType::String,
        section: "sidebar",
        default: "left",
        accepted: &["left", "right", "hidden"],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_RAIL),
        deprecated: None,
        description: "Edge the rail sits on, or hidden",
    },
    OptionSpec {
        path: "appearance.sidebar.show_agents",
        ty: OptionType::Bool,
        section: "sidebar",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_RAIL),
        deprecated: None,
        description: "Show the agents section at the rail's bottom",
    },
    OptionSpec {
        path: "appearance.sidebar.show_counts",
        ty: OptionType::Bool,
        section: "sidebar",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_RAIL),
        deprecated: None,
        description: "Show the window count on each session row",
    },
    OptionSpec {
        path: "appearance.sidebar.show_glyphs",
        ty: OptionType::Bool,
        section: "sidebar",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_RAIL),
        deprecated: None,
        description: "Show the agent-state glyph on each row",
    },
    OptionSpec {
        path: "appearance.sidebar.show_windows",
        ty: OptionType::Bool,
        section: "sidebar",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_RAIL),
        deprecated: None,
        description: "Show the terminals section",
    },
    OptionSpec {
        path: "appearance.sidebar.tooltips",
        ty: OptionType::Bool,
        section: "sidebar",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_RAIL),
        deprecated: None,
        description: "Label the collapsed strip on hover",
    },
    OptionSpec {
        path: "appearance.sidebar.width",
        ty: OptionType::Int,
        section: "sidebar",
        default: "28",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_RAIL),
        deprecated: None,
        description: "Preferred rail width in columns on a wide screen",
    },
    OptionSpec {
        path: "appearance.sidebar.workspaces",
        ty: OptionType::String,
        section: "sidebar",
        default: "",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_RAIL),
        deprecated: Some("no longer used: panes name their own workspace, and switching lives on the dock and alt+1..9"),
        description: "Workspace chip band the rail used to draw",
    },
    OptionSpec {
        path: "appearance.sidebar_enabled",
        ty: OptionType::Bool,
        section: "appearance",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_RAIL),
        deprecated: Some("folded into [appearance.sidebar] on load; set appearance.sidebar.enabled"),
        description: "Show the session rail",
    },
    OptionSpec {
        path: "appearance.sidebar_position",
        ty: OptionType::String,
        section: "appearance",
        default: "",
        accepted: &["left", "right", "hidden"],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_RAIL),
        deprecated: Some("folded into [appearance.sidebar] on load; set appearance.sidebar.position"),
        description: "Edge the session rail sits on",
    },
    OptionSpec {
        path: "appearance.sidebar_show_counts",
        ty: OptionType::Bool,
        section: "appearance",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_RAIL),
        deprecated: Some("folded into [appearance.sidebar] on load; set appearance.sidebar.show_counts"),
        description: "Show the window count on each session row",
    },
    OptionSpec {
        path: "appearance.sidebar_show_glyphs",
        ty: OptionType::Bool,
        section: "appearance",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_RAIL),
        deprecated: Some("folded into [appearance.sidebar] on load; set appearance.sidebar.show_glyphs"),
        description: "Show the agent-state glyph on each rail row",
    },
    OptionSpec {
        path: "appearance.sidebar_show_windows",
        ty: OptionType::Bool,
        section: "appearance",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_RAIL),
        deprecated: Some("folded into [appearance.sidebar] on load; set appearance.sidebar.show_windows"),
        description: "Show the terminals section on the rail",
    },
    OptionSpec {
        path: "appearance.sidebar_width",
        ty: OptionType::Int,
        section: "appearance",
        default: "0",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_RAIL),
        deprecated: Some("folded into [appearance.sidebar] on load; set appearance.sidebar.width"),
        description: "Preferred rail width in columns",
    },
    OptionSpec {
        path: "appearance.theme",
        ty: OptionType::String,
        section: "appearance",
        default: "",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Theme,
        applies: Applies::Client,
        deprecated: None,
        description: "Colour theme id (see list-themes); empty keeps the terminal's own colours",
    },
    OptionSpec {
        path: "appearance.whichkey_enabled",
        ty: OptionType::Bool,
        section: "appearance",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_CLIENT),
        deprecated: None,
        description: "Show the which-key popup after the leader key",
    },
    OptionSpec {
        path: "appearance.whichkey_position",
        ty: OptionType::String,
        section: "appearance",
        default: "",
        accepted: &["bottom-right", "bottom-left", "top-right", "top-left", "center"],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_CLIENT),
        deprecated: None,
        description: "Corner the which-key popup opens in (empty: bottom-right)",
    },
    OptionSpec {
        path: "appearance.window_button_position",
        ty: OptionType::String,
        section: "appearance",
        default: "right",
        accepted: &["right", "left"],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_BUTTONS),
        deprecated: None,
        description: "Which end of the title bar the window controls sit on",
    },
    OptionSpec {
        path: "appearance.window_button_style",
        ty: OptionType::String,
        section: "appearance",
        default: "pill",
        accepted: &["pill", "dots"],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_BUTTONS),
        deprecated: None,
        description: "Window controls as a filled pill or as macOS traffic lights",
    },
    OptionSpec {
        path: "appearance.window_title_format",
        ty: OptionType::String,
        section: "appearance",
        default: "",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Title template accepting {title}, {index} and {cwd} ({cwd} is empty: the client is not told a window's directory); empty keeps the plain title",
    },
    OptionSpec {
        path: "appearance.window_title_position",
        ty: OptionType::String,
        section: "appearance",
        default: "",
        accepted: TITLE_POSITIONS,
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Border edge a window's title is drawn on, or hidden (empty: top)",
    },
    OptionSpec {
        path: "appearance.word_characters",
        ty: OptionType::String,
        section: "appearance",
        default: "@-./_~?&=%+#",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_CLIENT),
        deprecated: None,
        description: "Punctuation that counts as part of a word for double-click selection",
    },
    OptionSpec {
        path: "appearance.zen_mode",
        ty: OptionType::String,
        section: "appearance",
        default: "disabled",
        accepted: &["disabled", "always", "mouse"],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_CLIENT),
        deprecated: None,
        description: "When window borders are hidden: never, always, or while the mouse is idle",
    },
    OptionSpec {
        path: "appearance.zoom_max_width",
        ty: OptionType::Int,
        section: "appearance",
        default: "0",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Width in cells a zoomed pane is centred at; 0 is fullscreen",
    },
    OptionSpec {
        path: "daemon.agent_autodetect",
        ty: OptionType::Bool,
        section: "daemon",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Daemon,
        deprecated: None,
        description: "Watch each window's foreground process and mark a window running a known agent CLI as working; TUIOS_AGENT_AUTODETECT is used when the session sets nothing",
    },
    OptionSpec {
        path: "daemon.agent_detect_seconds",
        ty: OptionType::Int,
        section: "daemon",
        default: "0",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Daemon,
        deprecated: None,
        description: "Seconds between two looks at each window's foreground process; 0 means 2, and a negative value turns detection off",
    },
    OptionSpec {
        path: "daemon.log_level",
        ty: OptionType::String,
        section: "daemon",
        default: "off",
        accepted: &["off", "errors", "basic", "messages", "verbose", "trace"],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_LOG_LEVEL),
        deprecated: None,
        description: "How much the daemon logs",
    },
    OptionSpec {
        path: "daemon.resurrect_commands",
        ty: OptionType::String,
        section: "daemon",
        default: "",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Daemon,
        deprecated: None,
        description: "Programs whose windows run their command again when the session is restored after a restart (names or paths, separated by commas or spaces; * allows all); shells always run again, other windows get a shell and a note",
    },
    OptionSpec {
        path: "debug.show_key_events",
        ty: OptionType::Bool,
        section: "debug",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Show the on-screen keycast of recent keypresses",
    },
    OptionSpec {
        path: "notifications.agent.command",
        ty: OptionType::String,
        section: "notifications",
        default: "",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Shell command run on an alert; empty runs nothing",
    },
    OptionSpec {
        path: "notifications.agent.dock",
        ty: OptionType::Bool,
        section: "notifications",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Show the alert in the dock, where it jumps to the pane that raised it",
    },
    OptionSpec {
        path: "notifications.agent.enabled",
        ty: OptionType::Bool,
        section: "notifications",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Master switch for agent-state alerts",
    },
    OptionSpec {
        path: "notifications.agent.notify",
        ty: OptionType::Bool,
        section: "notifications",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Send a desktop notification to the attached terminal",
    },
    OptionSpec {
        path: "notifications.agent.quiet_hours",
        ty: OptionType::String,
        section: "notifications",
        default: "",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Local-time window written HH:MM-HH:MM in which nothing alerts",
    },
    OptionSpec {
        path: "notifications.agent.settle_seconds",
        ty: OptionType::Int,
        section: "notifications",
        default: "2",
        accepted: &[],
        min: Some(0),
        max: Some(3600),
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Hold an alert this long and drop it if the pane leaves the state",
    },
    OptionSpec {
        path: "notifications.agent.sound",
        ty: OptionType::Bool,
        section: "notifications",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Make an alert audible",
    },
    OptionSpec {
        path: "notifications.agent.sound_cooldown_seconds",
        ty: OptionType::Int,
        section: "notifications",
        default: "3",
        accepted: &[],
        min: Some(0),
        max: Some(3600),
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Shortest gap between two cues across every pane; 0 uses 3",
    },
    OptionSpec {
        path: "notifications.agent.sound_mode",
        ty: OptionType::String,
        section: "notifications",
        default: "",
        accepted: &["audio", "bell", "both"],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "How an audible alert sounds: a played cue, a BEL, or both (tuios has no audio player, so each rings the terminal bell)",
    },
    OptionSpec {
        path: "notifications.agent.states.done",
        ty: OptionType::Bool,
        section: "notifications",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Alert when an agent reports it finished",
    },
    OptionSpec {
        path: "notifications.agent.states.errored",
        ty: OptionType::Bool,
        section: "notifications",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Alert when an agent stops on an error",
    },
    OptionSpec {
        path: "notifications.agent.states.idle",
        ty: OptionType::Bool,
        section: "notifications",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Alert when an agent goes quiet, which the stall timer guesses from silence",
    },
    OptionSpec {
        path: "notifications.agent.states.needs_input",
        ty: OptionType::Bool,
        section: "notifications",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Alert when an agent blocks on the user",
    },
    OptionSpec {
        path: "notifications.agent.states.working",
        ty: OptionType::Bool,
        section: "notifications",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Alert when an agent starts work",
    },
    OptionSpec {
        path: "notifications.agent.suppress_focused",
        ty: OptionType::Bool,
        section: "notifications",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Drop alerts for the pane the user is already looking at",
    },
    OptionSpec {
        path: "notifications.duration",
        ty: OptionType::Int,
        section: "notifications",
        default: "0",
        accepted: &[],
        min: Some(0),
        max: Some(3600),
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Seconds a notice stays on screen; 0 means 3",
    },
    OptionSpec {
        path: "notifications.error_duration",
        ty: OptionType::Int,
        section: "notifications",
        default: "0",
        accepted: &[],
        min: Some(0),
        max: Some(3600),
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Seconds an error stays on screen; 0 means as long as notifications.duration",
    },
    OptionSpec {
        path: "notifications.error_sticky",
        ty: OptionType::Bool,
        section: "notifications",
        default: "true",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_NO_STICKY),
        deprecated: None,
        description: "Make errors wait for esc instead of expiring",
    },
    OptionSpec {
        path: "notifications.warning_duration",
        ty: OptionType::Int,
        section: "notifications",
        default: "0",
        accepted: &[],
        min: Some(0),
        max: Some(3600),
        kind: OptionKind::Plain,
        applies: Applies::Client,
        deprecated: None,
        description: "Seconds a warning stays on screen; 0 means as long as notifications.duration",
    },
    OptionSpec {
        path: "startup.daemon",
        ty: OptionType::Bool,
        section: "startup",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_ALWAYS_DAEMON),
        deprecated: None,
        description: "Make a bare \"tuios\" attach to a daemon-backed session instead of running standalone. TUIOS_NO_DAEMON=1 or --standalone overrides it",
    },
    OptionSpec {
        path: "startup.open_default_window",
        ty: OptionType::Bool,
        section: "startup",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_FIRST_WINDOW),
        deprecated: None,
        description: "Open one terminal automatically when a session starts empty",
    },
    OptionSpec {
        path: "startup.start_in_terminal_mode",
        ty: OptionType::Bool,
        section: "startup",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_TERMINAL_MODE),
        deprecated: None,
        description: "Start focused in terminal mode, when a window is present",
    },
    OptionSpec {
        path: "startup.tiled",
        ty: OptionType::Bool,
        section: "startup",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_TILED),
        deprecated: None,
        description: "Start a new session tiled instead of floating",
    },
    OptionSpec {
        path: "tape.auto_review",
        ty: OptionType::Bool,
        section: "tape",
        default: "false",
        accepted: &[],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_NO_TAPE_DETECT),
        deprecated: None,
        description: "Open the review dialog on detection instead of only badging it",
    },
    OptionSpec {
        path: "tape.autorun",
        ty: OptionType::String,
        section: "tape",
        default: "ask",
        accepted: &["off", "ask", "auto"],
        min: None,
        max: None,
        kind: OptionKind::Plain,
        applies: Applies::Inert(R_NO_TAPE_DETECT),
        deprecated: None,
        description: "What happens on entering a directory with a project tape",
    },
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
