//! The options the client honours, resolved from the session's option values (only those set
//! arrive), the client's own live changes (SetTheme and friends), and the registry defaults.

use std::collections::BTreeMap;
use std::path::Path;

use figment::providers::{Format, Toml};
use figment::Figment;
use serde::Deserialize;

use config::options::{as_bool, as_int};

use super::alerts::AlertConfig;
use config::themes::{parse_hex, themes_dir, Theme, ThemeRegistry};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BorderStyle {
    Rounded,
    Normal,
    Thick,
    Double,
    /// Full blocks; the reference's two half-block styles are drawn this way too.
    Block,
    Ascii,
    Hidden,
}

/// Corner and edge glyphs: top-left, top-right, bottom-left, bottom-right, horizontal, vertical.
pub struct Glyphs {
    pub tl: char,
    pub tr: char,
    pub bl: char,
    pub br: char,
    pub h: char,
    pub v: char,
}

impl BorderStyle {
    fn parse(s: &str) -> BorderStyle {
        match s {
            "normal" => BorderStyle::Normal,
            "thick" => BorderStyle::Thick,
            "double" => BorderStyle::Double,
            "block" | "outer-half-block" | "inner-half-block" => BorderStyle::Block,
            "ascii" => BorderStyle::Ascii,
            "hidden" => BorderStyle::Hidden,
            _ => BorderStyle::Rounded,
        }
    }

    pub fn glyphs(self) -> Glyphs {
        let g = |tl, tr, bl, br, h, v| Glyphs {
            tl,
            tr,
            bl,
            br,
            h,
            v,
        };
        match self {
            BorderStyle::Rounded => g('╭', '╮', '╰', '╯', '─', '│'),
            BorderStyle::Normal => g('┌', '┐', '└', '┘', '─', '│'),
            BorderStyle::Thick => g('┏', '┓', '┗', '┛', '━', '┃'),
            BorderStyle::Double => g('╔', '╗', '╚', '╝', '═', '║'),
            BorderStyle::Block => g('█', '█', '█', '█', '█', '█'),
            BorderStyle::Ascii => g('+', '+', '+', '+', '-', '|'),
            BorderStyle::Hidden => g(' ', ' ', ' ', ' ', ' ', ' '),
        }
    }

    pub fn bordered(self) -> bool {
        self != BorderStyle::Hidden
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    Top,
    Bottom,
    Hidden,
}

impl Edge {
    fn parse(s: &str) -> Edge {
        match s {
            "top" => Edge::Top,
            "hidden" => Edge::Hidden,
            _ => Edge::Bottom,
        }
    }
}

/// Everything drawing needs from the options.
#[derive(Debug, Clone)]
pub struct Settings {
    pub border: BorderStyle,
    pub dock: Edge,
    pub title: Edge,
    pub theme: Option<Theme>,
    pub focused_color: Option<[u8; 3]>,
    pub unfocused_color: Option<[u8; 3]>,
    pub scroll_lines: u16,
    pub show_clock: bool,
    pub show_cpu: bool,
    pub show_ram: bool,
    /// `appearance.window_title_format` and `appearance.dock_workspace_tab_format`; empty
    /// keeps the built-in labels.
    pub title_format: String,
    pub tab_format: String,
    /// `appearance.alt_drag`: alt plus a left drag moves a floating window.
    pub alt_drag: bool,
    /// `debug.show_key_events`: the dock shows the last keys pressed.
    pub show_key_events: bool,
    /// `appearance.click_to_type`: `single`, `double` or `off`.
    pub click_to_type: String,
    /// Widest a zoomed window is drawn, in cells; 0 fills the screen.
    pub zoom_max_width: u16,
    /// `appearance.niri_reverse_scroll`: the wheel walks a scrolling strip the other way.
    pub niri_reverse_scroll: bool,
    /// `notifications.agent.*`.
    pub alerts: AlertConfig,
    pub dock_tabs: bool,
    pub max_fps: u16,
    pub notice_secs: u64,
    /// How long a warning and an error stay up (0 in the option: as long as other notices).
    pub warning_secs: u64,
    pub error_secs: u64,
    /// `tape.autorun`: `off`, `ask` or `auto` (run a trusted project tape without asking).
    pub tape_autorun: String,
    /// `tape.auto_review`: open the review at once instead of only saying a tape is there.
    pub tape_auto_review: bool,
    /// `appearance.confirm_quit`: ask before closing a window whose program already exited
    /// too (a running one is always asked about).
    pub confirm_quit: bool,
    /// `appearance.whichkey_enabled` and `whichkey_position`: the corner (or `center`) the
    /// popup of the keys after the leader opens in, or None when it is off.
    pub whichkey: Option<String>,
    /// `appearance.hide_scrollbar` and `appearance.scrollbar.*`: None when hidden.
    pub scrollbar: Option<Scrollbar>,
    /// `appearance.hide_window_buttons` and the button options: None when hidden.
    pub buttons: Option<Buttons>,
    /// `appearance.shared_borders`: adjacent tiled panes share one border line.
    pub shared_borders: bool,
    /// `appearance.dock_pill_caps`: the dock's pills get rounded caps.
    pub pill_caps: bool,
    /// `appearance.dock_workspace_tooltip`: a cut workspace name shows in full under the pointer.
    pub ws_tooltip: bool,
    /// `appearance.sidebar.*` and `appearance.session_colors`: the session rail.
    pub rail: RailSettings,
    /// `appearance.copy_on_select`: a mouse selection goes to the clipboard on release.
    pub copy_on_select: bool,
    /// `appearance.word_characters`: punctuation a double-click word takes in.
    pub word_characters: String,
    /// `appearance.focus_follows_mouse`: the window under the pointer takes focus.
    pub focus_follows_mouse: bool,
    /// `appearance.animations_enabled`: short chrome transitions (see `animate.rs`).
    pub animations: bool,
    /// `notifications.error_sticky`: errors stay until dismissed instead of expiring.
    pub error_sticky: bool,
}

/// How the scrollbar on a window's right border is drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scrollbar {
    pub thumb: char,
    /// None: the border shows where there is no thumb.
    pub track: Option<char>,
    /// `quiet`, `border`, `muted`, or a colour.
    pub tint: Tint,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tint {
    Quiet,
    Border,
    Muted,
    Rgb([u8; 3]),
}

impl Scrollbar {
    fn read(get: &dyn Fn(&str) -> String) -> Option<Scrollbar> {
        if as_bool(&get("appearance.hide_scrollbar")).unwrap_or(false) {
            return None;
        }
        // thin: a heavy hairline over the border, no track; track: a block thumb on a shaded track.
        let (thumb, track) = match get("appearance.scrollbar.style").as_str() {
            "track" => ('█', Some('░')),
            _ => ('┃', None),
        };
        let one = |path: &str| get(path).chars().next();
        let thumb = one("appearance.scrollbar.thumb").unwrap_or(thumb);
        let track = match get("appearance.scrollbar.track").as_str() {
            "" => track,
            "none" => None,
            t => t.chars().next(),
        };
        let tint = match get("appearance.scrollbar.tint").trim() {
            "border" => Tint::Border,
            "muted" => Tint::Muted,
            t => parse_hex(t).map_or(Tint::Quiet, Tint::Rgb),
        };
        Some(Scrollbar { thumb, track, tint })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Buttons {
    /// `appearance.window_button_position`: at the title bar's left end.
    pub left: bool,
    /// `appearance.window_button_style`: traffic-light dots instead of a pill.
    pub dots: bool,
}

/// Which edge the session rail takes its columns from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RailEdge {
    Left,
    Right,
}

/// The session rail's options, resolved. `edge` None: the rail is off (disabled or
/// `position = hidden`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RailSettings {
    pub edge: Option<RailEdge>,
    /// Preferred width in columns; the layout clamps it to what the terminal can spare.
    pub width: u16,
    pub show_windows: bool,
    pub show_glyphs: bool,
    pub show_counts: bool,
    pub show_agents: bool,
    /// The hovered row's overflowing title scrolls round.
    pub marquee: bool,
    /// Hovering the collapsed strip names the session under the pointer.
    pub tooltips: bool,
    pub session_colors: bool,
}

impl RailSettings {
    /// `get` reads a value (the default when unset); `is_set` says whether one was set. The
    /// flat `appearance.sidebar_*` spellings are the reference's deprecated ones, folded into
    /// `appearance.sidebar.*`: one applies when set and the new path is not.
    fn read(get: &dyn Fn(&str) -> String, is_set: &dyn Fn(&str) -> bool) -> RailSettings {
        let pick = |field: &str| {
            let new = format!("appearance.sidebar.{field}");
            let old = format!("appearance.sidebar_{field}");
            if !is_set(&new) && is_set(&old) && !get(&old).trim().is_empty() {
                get(&old)
            } else {
                get(&new)
            }
        };
        let flag = |field: &str, default: bool| as_bool(&pick(field)).unwrap_or(default);
        let enabled = flag("enabled", false);
        let edge = match pick("position").trim() {
            "hidden" => None,
            "right" => Some(RailEdge::Right),
            _ => Some(RailEdge::Left),
        };
        let width = match as_int(&pick("width")).unwrap_or(28) {
            n if n <= 0 => 28,
            n => n.min(200) as u16,
        };
        RailSettings {
            edge: edge.filter(|_| enabled),
            width,
            show_windows: flag("show_windows", true),
            show_glyphs: flag("show_glyphs", true),
            show_counts: flag("show_counts", true),
            show_agents: flag("show_agents", true),
            marquee: flag("marquee", true),
            tooltips: flag("tooltips", true),
            session_colors: as_bool(&get("appearance.session_colors")).unwrap_or(true),
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings::resolve(
            &BTreeMap::new(),
            &BTreeMap::new(),
            &mut ThemeCache::default(),
        )
    }
}

/// Themes read once per theme id asked for, so redraws never touch the disk.
#[derive(Debug, Default)]
pub struct ThemeCache {
    loaded: BTreeMap<String, Option<Theme>>,
}

impl ThemeCache {
    pub fn get(&mut self, id: &str) -> Option<Theme> {
        if id.is_empty() {
            return None;
        }
        self.loaded
            .entry(id.to_string())
            .or_insert_with(|| ThemeRegistry::load(&themes_dir()).get(id).cloned())
            .clone()
    }

    /// Whether a theme id exists (read fresh, so a theme saved a moment ago is found).
    pub fn exists(&mut self, id: &str) -> bool {
        self.loaded.remove(id);
        self.get(id).is_some()
    }
}

impl Settings {
    /// `overrides` (the client's live changes) win over `options` (the session's), which win
    /// over the registry defaults.
    pub fn resolve(
        options: &BTreeMap<String, String>,
        overrides: &BTreeMap<String, String>,
        themes: &mut ThemeCache,
    ) -> Settings {
        let get = |path: &str| -> String {
            overrides
                .get(path)
                .or_else(|| options.get(path))
                .cloned()
                .or_else(|| config::options::resolve(path).map(|s| s.default.to_string()))
                .unwrap_or_default()
        };
        let is_set = |path: &str| overrides.contains_key(path) || options.contains_key(path);
        let int = |path: &str, fallback: i64| as_int(&get(path)).unwrap_or(fallback);
        let colour = |path: &str| parse_hex(get(path).trim());
        let max_fps = match int("appearance.max_fps", 0) {
            n if n <= 0 => 60,
            n => n.min(240) as u16,
        };
        let notice_secs = match int("notifications.duration", 0) {
            n if n <= 0 => 3,
            n => n as u64,
        };
        let level_secs = |path: &str| match int(path, 0) {
            n if n <= 0 => notice_secs,
            n => n as u64,
        };
        let warning_secs = level_secs("notifications.warning_duration");
        let error_secs = level_secs("notifications.error_duration");
        Settings {
            // Zen mode `always` draws no borders whatever the style; `mouse` (while the mouse
            // is idle) needs motion reports this client does not ask for, so it keeps them.
            border: match get("appearance.zen_mode").as_str() {
                "always" => BorderStyle::Hidden,
                _ => BorderStyle::parse(&get("appearance.border_style")),
            },
            dock: Edge::parse(&get("appearance.dockbar_position")),
            title: match get("appearance.window_title_position").as_str() {
                "bottom" => Edge::Bottom,
                "hidden" => Edge::Hidden,
                _ => Edge::Top,
            },
            theme: themes.get(get("appearance.theme").trim()),
            focused_color: colour("appearance.border_focused_color"),
            unfocused_color: colour("appearance.border_unfocused_color"),
            scroll_lines: int("appearance.scroll_lines", 3).clamp(1, 50) as u16,
            // hide_clock is the reference's deprecated spelling; when set it wins.
            show_clock: as_bool(&get("appearance.show_clock")).unwrap_or(false)
                && !as_bool(&get("appearance.hide_clock")).unwrap_or(false),
            click_to_type: get("appearance.click_to_type"),
            alt_drag: as_bool(&get("appearance.alt_drag")).unwrap_or(true),
            show_key_events: as_bool(&get("debug.show_key_events")).unwrap_or(false),
            zoom_max_width: int("appearance.zoom_max_width", 0).clamp(0, i64::from(u16::MAX))
                as u16,
            niri_reverse_scroll: as_bool(&get("appearance.niri_reverse_scroll")).unwrap_or(false),
            alerts: AlertConfig::read(&get),
            title_format: get("appearance.window_title_format"),
            tab_format: get("appearance.dock_workspace_tab_format"),
            show_cpu: as_bool(&get("appearance.show_cpu")).unwrap_or(false),
            show_ram: as_bool(&get("appearance.show_ram")).unwrap_or(false),
            dock_tabs: as_bool(&get("appearance.dock_workspace_tabs")).unwrap_or(true),
            max_fps,
            notice_secs,
            warning_secs,
            error_secs,
            tape_autorun: get("tape.autorun"),
            tape_auto_review: as_bool(&get("tape.auto_review")).unwrap_or(false),
            confirm_quit: as_bool(&get("appearance.confirm_quit")).unwrap_or(false),
            whichkey: as_bool(&get("appearance.whichkey_enabled"))
                .unwrap_or(true)
                .then(|| match get("appearance.whichkey_position").as_str() {
                    "" => "bottom-right".to_string(),
                    p => p.to_string(),
                }),
            scrollbar: Scrollbar::read(&get),
            buttons: (!as_bool(&get("appearance.hide_window_buttons")).unwrap_or(false)).then(
                || Buttons {
                    left: get("appearance.window_button_position") == "left",
                    dots: get("appearance.window_button_style") == "dots",
                },
            ),
            shared_borders: as_bool(&get("appearance.shared_borders")).unwrap_or(false),
            pill_caps: as_bool(&get("appearance.dock_pill_caps")).unwrap_or(false),
            ws_tooltip: as_bool(&get("appearance.dock_workspace_tooltip")).unwrap_or(true),
            rail: RailSettings::read(&get, &is_set),
            copy_on_select: as_bool(&get("appearance.copy_on_select")).unwrap_or(true),
            word_characters: get("appearance.word_characters"),
            focus_follows_mouse: as_bool(&get("appearance.focus_follows_mouse")).unwrap_or(false),
            animations: as_bool(&get("appearance.animations_enabled")).unwrap_or(true),
            error_sticky: as_bool(&get("notifications.error_sticky")).unwrap_or(true),
        }
    }
}

impl Settings {
    /// Seconds a notice of this level stays on screen.
    pub fn notice_secs_for(&self, level: protocol::attach::NoticeLevel) -> u64 {
        use protocol::attach::NoticeLevel;
        match level {
            NoticeLevel::Info => self.notice_secs,
            NoticeLevel::Warning => self.warning_secs,
            NoticeLevel::Error => self.error_secs,
        }
    }
}

/// `template` with each `{name}` of `fields` replaced by its value; other text, unknown
/// placeholders included, is kept as written. Control characters are dropped so a title cannot
/// move the cursor.
pub fn fill_template(template: &str, fields: &[(&str, &str)]) -> String {
    let mut out = template.to_string();
    for (name, value) in fields {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out.chars().filter(|c| !c.is_control()).collect()
}

/// Link activation policy from the user policy file (`policy.toml` `[links]`): the schemes a
/// click may open and the program that opens them. Only the user's file sets it; no option,
/// verb, run-command or window content reaches it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkPolicy {
    pub schemes: Vec<String>,
    /// The opener program and its own arguments; the URL is added as one more argument.
    pub opener: Vec<String>,
}

pub const DEFAULT_LINK_SCHEMES: [&str; 3] = ["https", "http", "mailto"];
pub const DEFAULT_LINK_OPENER: &str = "xdg-open";

impl Default for LinkPolicy {
    fn default() -> Self {
        LinkPolicy {
            schemes: DEFAULT_LINK_SCHEMES.iter().map(|s| s.to_string()).collect(),
            opener: vec![DEFAULT_LINK_OPENER.to_string()],
        }
    }
}

#[derive(Debug, Default, Deserialize)]
struct LinkPolicyFile {
    #[serde(default)]
    links: LinksTable,
}

#[derive(Debug, Default, Deserialize)]
struct LinksTable {
    schemes: Option<Vec<String>>,
    opener: Option<String>,
}

impl LinkPolicy {
    /// Reads `[links] schemes` and `opener` from the policy file. A missing file or key gives
    /// the default; a bad value gives the default and a warning.
    pub fn load(policy: Option<&Path>) -> (LinkPolicy, Vec<String>) {
        let mut out = LinkPolicy::default();
        let mut warnings = Vec::new();
        let Some(path) = policy.filter(|p| p.exists()) else {
            return (out, warnings);
        };
        let table = match Figment::from(Toml::file(path)).extract::<LinkPolicyFile>() {
            Ok(f) => f.links,
            Err(e) => {
                warnings.push(format!(
                    "{}: [links]: {e}; using the default link policy",
                    path.display()
                ));
                return (out, warnings);
            }
        };
        if let Some(schemes) = table.schemes {
            let valid = schemes.iter().all(|s| {
                let mut c = s.chars();
                c.next().is_some_and(|f| f.is_ascii_alphabetic())
                    && c.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            });
            if valid {
                out.schemes = schemes.iter().map(|s| s.to_ascii_lowercase()).collect();
            } else {
                warnings.push(format!(
                    "{}: [links] schemes {schemes:?} holds a name that is not a URL scheme; using {}",
                    path.display(),
                    DEFAULT_LINK_SCHEMES.join(", ")
                ));
            }
        }
        if let Some(opener) = table.opener {
            let words = super::text::split_words(&opener);
            if words.first().is_some_and(|w| !w.is_empty()) {
                out.opener = words;
            } else {
                warnings.push(format!(
                    "{}: [links] opener is empty; using {DEFAULT_LINK_OPENER}",
                    path.display()
                ));
            }
        }
        (out, warnings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_precedence() {
        let s = Settings::default();
        assert_eq!(s.border, BorderStyle::Rounded);
        assert_eq!(s.dock, Edge::Bottom);
        assert_eq!(s.title, Edge::Top);
        assert_eq!(s.max_fps, 60);
        assert_eq!(s.notice_secs, 3);
        assert_eq!(s.scroll_lines, 3);
        assert!(s.dock_tabs);
        assert!(!s.show_clock);
        assert!(s.theme.is_none());

        let mut opts = BTreeMap::new();
        opts.insert("appearance.border_style".to_string(), "double".to_string());
        opts.insert("appearance.dockbar_position".to_string(), "top".to_string());
        opts.insert("appearance.max_fps".to_string(), "30".to_string());
        opts.insert(
            "appearance.border_focused_color".to_string(),
            "#ff0000".to_string(),
        );
        let mut over = BTreeMap::new();
        over.insert("appearance.border_style".to_string(), "ascii".to_string());
        let s = Settings::resolve(&opts, &over, &mut ThemeCache::default());
        assert_eq!(s.border, BorderStyle::Ascii);
        assert_eq!(s.dock, Edge::Top);
        assert_eq!(s.max_fps, 30);
        assert_eq!(s.focused_color, Some([255, 0, 0]));
    }

    #[test]
    fn reference_spellings_apply() {
        let opts: BTreeMap<String, String> = [
            ("appearance.border_style", "outer-half-block"),
            ("appearance.show_clock", "on"),
            ("appearance.hide_clock", "yes"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let s = Settings::resolve(&opts, &BTreeMap::new(), &mut ThemeCache::default());
        assert_eq!(s.border, BorderStyle::Block);
        assert_eq!(s.border.glyphs().h, '█');
        assert!(!s.show_clock, "hide_clock wins over show_clock");
        let mut over = BTreeMap::new();
        over.insert("appearance.hide_clock".to_string(), "off".to_string());
        let s = Settings::resolve(&opts, &over, &mut ThemeCache::default());
        assert!(s.show_clock);
    }

    #[test]
    fn rail_options_and_their_flat_aliases() {
        let with = |pairs: &[(&str, &str)]| {
            let opts: BTreeMap<String, String> = pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            Settings::resolve(&opts, &BTreeMap::new(), &mut ThemeCache::default()).rail
        };
        let off = with(&[]);
        assert_eq!(off.edge, None, "off by default");
        assert_eq!(off.width, 28);
        assert!(off.show_windows && off.show_counts && off.session_colors);
        let on = with(&[
            ("appearance.sidebar.enabled", "true"),
            ("appearance.sidebar.position", "right"),
            ("appearance.sidebar.width", "20"),
            ("appearance.sidebar.show_counts", "false"),
        ]);
        assert_eq!(on.edge, Some(RailEdge::Right));
        assert_eq!(on.width, 20);
        assert!(!on.show_counts);
        let hidden = with(&[
            ("appearance.sidebar.enabled", "true"),
            ("appearance.sidebar.position", "hidden"),
        ]);
        assert_eq!(hidden.edge, None);
        // The deprecated flat names act as the new ones, unless the new one is set.
        let alias = with(&[
            ("appearance.sidebar_enabled", "true"),
            ("appearance.sidebar_width", "16"),
            ("appearance.sidebar_position", "right"),
            ("appearance.sidebar.position", "left"),
        ]);
        assert_eq!(alias.edge, Some(RailEdge::Left));
        assert_eq!(alias.width, 16);
    }

    #[test]
    fn templates_fill_known_fields_only() {
        let t = fill_template(
            "{index}: {title} ({cwd}) {other}",
            &[("index", "2"), ("title", "vim"), ("cwd", "")],
        );
        assert_eq!(t, "2: vim () {other}");
        assert_eq!(fill_template("{name}\u{1b}[2J", &[("name", "a")]), "a[2J");
        let opts: BTreeMap<String, String> =
            [("appearance.window_title_format", "#{index} {title}")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
        let s = Settings::resolve(&opts, &BTreeMap::new(), &mut ThemeCache::default());
        assert_eq!(s.title_format, "#{index} {title}");
        assert_eq!(s.tab_format, "");
    }

    #[test]
    fn notice_durations_by_level() {
        use protocol::attach::NoticeLevel;
        let s = Settings::default();
        assert_eq!(s.notice_secs_for(NoticeLevel::Warning), 3);
        assert_eq!(s.notice_secs_for(NoticeLevel::Error), 3);
        let opts: BTreeMap<String, String> = [
            ("notifications.duration", "4"),
            ("notifications.error_duration", "20"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let s = Settings::resolve(&opts, &BTreeMap::new(), &mut ThemeCache::default());
        assert_eq!(s.notice_secs_for(NoticeLevel::Info), 4);
        assert_eq!(
            s.notice_secs_for(NoticeLevel::Warning),
            4,
            "0 follows duration"
        );
        assert_eq!(s.notice_secs_for(NoticeLevel::Error), 20);
    }

    #[test]
    fn link_policy_defaults_file_values_and_bad_values() {
        let (p, w) = LinkPolicy::load(None);
        assert_eq!(p, LinkPolicy::default());
        assert_eq!(p.schemes, ["https", "http", "mailto"]);
        assert_eq!(p.opener, ["xdg-open"]);
        assert!(w.is_empty());

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("policy.toml");
        std::fs::write(
            &path,
            "[lumen]\nfocus_return_chord = \"ctrl+shift+escape\"\n[links]\nschemes = [\"HTTPS\", \"gemini\"]\nopener = \"/opt/open 'two words' --new\"\n",
        )
        .unwrap();
        let (p, w) = LinkPolicy::load(Some(&path));
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(p.schemes, ["https", "gemini"]);
        assert_eq!(p.opener, ["/opt/open", "two words", "--new"]);

        std::fs::write(
            &path,
            "[links]\nschemes = [\"java script\"]\nopener = \"  \"\n",
        )
        .unwrap();
        let (p, w) = LinkPolicy::load(Some(&path));
        assert_eq!(p, LinkPolicy::default());
        assert_eq!(w.len(), 2, "{w:?}");

        std::fs::write(&path, "[links]\nschemes = \"https\"\n").unwrap();
        let (p, w) = LinkPolicy::load(Some(&path));
        assert_eq!(p, LinkPolicy::default());
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("[links]"));
    }
}
