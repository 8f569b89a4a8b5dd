//! Colour themes: a built-in set shipped as data with the crate, plus user themes read from
//! `*.json` files in the themes directory (`$XDG_CONFIG_HOME/tuios/themes`). The directory is
//! re-read by every [`ThemeRegistry::load`], so a theme dropped there is visible on the next call.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Names of the 16 ANSI colours, in palette order (the order of [`Theme::ansi`]).
pub const ANSI_NAMES: [&str; 16] = [
    "black",
    "red",
    "green",
    "yellow",
    "blue",
    "purple",
    "cyan",
    "white",
    "bright_black",
    "bright_red",
    "bright_green",
    "bright_yellow",
    "bright_blue",
    "bright_purple",
    "bright_cyan",
    "bright_white",
];

/// Most theme ids `list-themes` returns in one answer.
pub const THEME_LIST_CAP: usize = 100;

/// Minimum contrast against the background for the foreground (WCAG AA for body text).
pub const FG_CONTRAST_FLOOR: f64 = 4.5;
/// Minimum contrast against the background for the cursor and the ANSI colours.
pub const COLOUR_CONTRAST_FLOOR: f64 = 3.0;

/// A theme file larger than this is refused rather than read: a real one is under 1 KiB.
const MAX_THEME_FILE_BYTES: u64 = 64 * 1024;
/// At most this many user theme files are read, so a huge directory cannot stall a call.
const MAX_THEME_FILES: usize = 1000;
/// Longest accepted theme id.
const MAX_ID_LEN: usize = 64;

/// Colours a user theme gets for any ANSI colour it leaves out (the xterm defaults).
const DEFAULT_ANSI: [&str; 16] = [
    "#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
    "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
];

/// The built-in palettes, one JSON array of [`Theme`] objects.
const BUILTIN_JSON: &str = include_str!("../themes/builtin.json");

/// A colour theme. Every colour is `#rrggbb` (lower case).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Theme {
    pub id: String,
    pub display_name: String,
    pub dark: bool,
    pub fg: String,
    pub bg: String,
    pub cursor: String,
    /// black red green yellow blue purple cyan white, then the bright variants (see [`ANSI_NAMES`]).
    pub ansi: [String; 16],
}

/// The built-in themes, sorted by id; parsed once from the data file shipped in the crate.
pub fn builtin_themes() -> &'static [Theme] {
    static BUILTINS: OnceLock<Vec<Theme>> = OnceLock::new();
    BUILTINS.get_or_init(|| {
        let mut themes: Vec<Theme> = serde_json::from_str(BUILTIN_JSON)
            .expect("themes/builtin.json is valid (checked by the crate's tests)");
        themes.sort_by(|a, b| a.id.cmp(&b.id));
        themes
    })
}

/// The user themes directory: `$XDG_CONFIG_HOME/tuios/themes`, else `~/.config/tuios/themes`.
/// When neither variable names an absolute directory the result is relative, and
/// [`ThemeRegistry::load`] reports it as unusable instead of reading it.
pub fn themes_dir() -> PathBuf {
    crate::config_dir()
        .map(|d| d.join("themes"))
        .unwrap_or_else(|| PathBuf::from("tuios").join("themes"))
}

/// Built-in themes plus the user themes found in one directory, as of one read.
#[derive(Debug, Clone)]
pub struct ThemeRegistry {
    themes: BTreeMap<String, Theme>,
    user: Vec<String>,
    problems: Vec<String>,
    dir: PathBuf,
    dir_error: Option<String>,
}

impl ThemeRegistry {
    /// Built-ins plus every `*.json` in `dir` (created if missing). A user theme with the id of a
    /// built-in replaces it. `problems` lists files that were skipped and why; a directory that
    /// cannot be created or listed is reported by [`ThemeRegistry::dir_error`].
    pub fn load(dir: &Path) -> ThemeRegistry {
        let mut reg = ThemeRegistry {
            themes: builtin_themes()
                .iter()
                .map(|t| (t.id.clone(), t.clone()))
                .collect(),
            user: Vec::new(),
            problems: Vec::new(),
            dir: dir.to_path_buf(),
            dir_error: None,
        };
        if !dir.is_absolute() {
            // A relative path would be resolved against whatever directory the daemon runs in.
            reg.dir_error = Some(format!(
                "{} is not an absolute path (set XDG_CONFIG_HOME or HOME); only built-in themes are available",
                dir.display()
            ));
            return reg;
        }
        if let Err(e) = std::fs::create_dir_all(dir) {
            reg.dir_error = Some(format!("cannot create {}: {e}", dir.display()));
            return reg;
        }
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => {
                reg.dir_error = Some(format!("cannot read {}: {e}", dir.display()));
                return reg;
            }
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension()
                    .is_some_and(|ext| ext.eq_ignore_ascii_case("json"))
            })
            .collect();
        // Sorted, so which of two files claiming one id wins does not depend on the file system.
        files.sort();
        if files.len() > MAX_THEME_FILES {
            reg.problems.push(format!(
                "{} theme files found; only the first {MAX_THEME_FILES} (by name) were read",
                files.len()
            ));
            files.truncate(MAX_THEME_FILES);
        }
        for path in files {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            match read_user_theme(&path) {
                Ok(theme) if reg.user.contains(&theme.id) => reg.problems.push(format!(
                    "ignored user theme {name}: another file already defines the id \"{}\"",
                    theme.id
                )),
                Ok(theme) => {
                    reg.user.push(theme.id.clone());
                    reg.themes.insert(theme.id.clone(), theme);
                }
                Err(why) => reg
                    .problems
                    .push(format!("ignored user theme {name}: {why}")),
            }
        }
        reg
    }

    /// Every theme id, sorted.
    pub fn ids(&self) -> Vec<String> {
        self.themes.keys().cloned().collect()
    }

    /// The theme with exactly this id.
    pub fn get(&self, id: &str) -> Option<&Theme> {
        self.themes.get(id)
    }

    /// Number of themes (built-in and user).
    pub fn len(&self) -> usize {
        self.themes.len()
    }

    /// True when there are no themes at all (never, given the built-ins).
    pub fn is_empty(&self) -> bool {
        self.themes.is_empty()
    }

    /// True when the theme with this id came from a file in the themes directory.
    pub fn is_user(&self, id: &str) -> bool {
        self.user.iter().any(|u| u == id)
    }

    /// One line per skipped theme file, saying which and why.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// The directory user themes were read from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Why the directory could not be used, when it could not.
    pub fn dir_error(&self) -> Option<&str> {
        self.dir_error.as_deref()
    }
}

/// Read and parse one user theme file.
fn read_user_theme(path: &Path) -> Result<Theme, String> {
    if !path.is_file() {
        return Err("not a regular file".into());
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open it: {e}"))?;
    let mut text = String::new();
    file.take(MAX_THEME_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read it as UTF-8 text: {e}"))?;
    if text.len() as u64 > MAX_THEME_FILE_BYTES {
        return Err(format!(
            "larger than {} KiB, which no theme needs",
            MAX_THEME_FILE_BYTES / 1024
        ));
    }
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    parse_user_theme(&stem, &text)
}

/// Parse the text of a user theme file named `<stem>.json`.
///
/// Format: an object with `fg` and `bg` (required), and optionally `id` (default: the file
/// name), `display_name` (default: the id), `dark` (default: judged from `bg`), `cursor`
/// (default: `fg`), and the ANSI colours either as an `ansi` array of 16 or as named keys
/// (`black`, `red`, ..., `bright_white`; `magenta` is taken for `purple`). Colours left out come
/// from the xterm defaults. Unknown keys are ignored, so bubbletint tint files load as they are.
pub fn parse_user_theme(stem: &str, text: &str) -> Result<Theme, String> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("it is not valid JSON: {e}"))?;
    let obj = value
        .as_object()
        .ok_or_else(|| "it must hold a JSON object".to_string())?;

    let id = match optional_string(obj, "id")? {
        Some(id) => id,
        None => stem.to_string(),
    };
    check_id(&id)?;
    let display_name = optional_string(obj, "display_name")?.unwrap_or_else(|| id.clone());
    let fg = optional_colour(obj, "fg")?.ok_or("it has no \"fg\" (foreground) colour")?;
    let bg = optional_colour(obj, "bg")?.ok_or("it has no \"bg\" (background) colour")?;
    let cursor = optional_colour(obj, "cursor")?.unwrap_or_else(|| fg.clone());
    let dark = match obj.get("dark") {
        None | Some(Value::Null) => is_dark(&bg),
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err("\"dark\" must be true or false".into()),
    };

    let mut ansi: [String; 16] = DEFAULT_ANSI.map(str::to_string);
    match obj.get("ansi") {
        None | Some(Value::Null) => {}
        Some(Value::Array(list)) if list.len() == 16 => {
            for (i, item) in list.iter().enumerate() {
                ansi[i] = item
                    .as_str()
                    .and_then(normalise_colour)
                    .ok_or_else(|| format!("\"ansi\" item {i} is not a #rrggbb colour"))?;
            }
        }
        Some(_) => return Err("\"ansi\" must be an array of 16 #rrggbb colours".into()),
    }
    for (i, name) in ANSI_NAMES.iter().enumerate() {
        let alias = name.replace("purple", "magenta");
        let camel = camel_case(name);
        for key in [name.to_string(), alias, camel] {
            if let Some(c) = optional_colour(obj, &key)? {
                ansi[i] = c;
            }
        }
    }

    Ok(Theme {
        id,
        display_name,
        dark,
        fg,
        bg,
        cursor,
        ansi,
    })
}

/// `bright_black` -> `brightBlack`.
fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn optional_string(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_string())),
        Some(Value::String(_)) => Err(format!("\"{key}\" is empty")),
        Some(_) => Err(format!("\"{key}\" must be a string")),
    }
}

fn optional_colour(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => normalise_colour(s)
            .map(Some)
            .ok_or_else(|| format!("\"{key}\" is \"{}\", not a #rrggbb colour", s.trim())),
        Some(_) => Err(format!("\"{key}\" must be a #rrggbb string")),
    }
}

/// Ids become option values and file names: keep them to a plain, printable set.
fn check_id(id: &str) -> Result<(), String> {
    if id.is_empty() || id.len() > MAX_ID_LEN {
        return Err(format!("the id must be 1 to {MAX_ID_LEN} characters long"));
    }
    if !id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        return Err(format!(
            "the id \"{}\" may only use letters, digits, '_', '-' and '.'",
            id.escape_debug()
        ));
    }
    Ok(())
}

/// True for exactly `#` followed by six hex digits.
pub fn is_hex_colour(s: &str) -> bool {
    s.len() == 7 && s.starts_with('#') && s[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

/// `#RRGGBB` (any case, surrounding blanks ignored) as lower-case `#rrggbb`.
fn normalise_colour(s: &str) -> Option<String> {
    let s = s.trim();
    is_hex_colour(s).then(|| s.to_ascii_lowercase())
}

/// The red, green and blue bytes of a `#rrggbb` colour.
pub fn parse_hex(s: &str) -> Option<[u8; 3]> {
    if !is_hex_colour(s) {
        return None;
    }
    let byte = |i: usize| u8::from_str_radix(&s[i..i + 2], 16).ok();
    Some([byte(1)?, byte(3)?, byte(5)?])
}

/// WCAG relative luminance of a `#rrggbb` colour.
fn luminance(rgb: [u8; 3]) -> f64 {
    let channel = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.040_45 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * channel(rgb[0]) + 0.7152 * channel(rgb[1]) + 0.0722 * channel(rgb[2])
}

/// WCAG contrast ratio (1 to 21) between two `#rrggbb` colours.
pub fn contrast_ratio(a: &str, b: &str) -> Option<f64> {
    let (la, lb) = (luminance(parse_hex(a)?), luminance(parse_hex(b)?));
    let (hi, lo) = if la >= lb { (la, lb) } else { (lb, la) };
    Some((hi + 0.05) / (lo + 0.05))
}

/// A background is dark when black text on it would contrast less than white text does.
fn is_dark(bg: &str) -> bool {
    parse_hex(bg).is_some_and(|rgb| {
        let l = luminance(rgb);
        (1.05 / (l + 0.05)) > ((l + 0.05) / 0.05)
    })
}

/// An id given to `list-themes` that no theme has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownTheme {
    pub id: String,
    pub did_you_mean: Option<String>,
}

impl fmt::Display for UnknownTheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no theme named {}", self.id)
    }
}

impl std::error::Error for UnknownTheme {}

/// The `list-themes` result body, without the session keys (`session`, `active`,
/// `active_source`), which the caller adds.
///
/// Keys: `type` (`theme_list`), `total`, `themes_dir`, `themes_dir_error?`, `problems?`,
/// `matched` (ids matching `filter`, a case-insensitive substring), `themes` (those ids sorted,
/// at most [`THEME_LIST_CAP`], with `truncated: true` when cut; present when no `theme` was
/// asked for or a `filter` was given) and `palette` (when `theme` was given). Blank `theme` and
/// `filter` count as absent.
pub fn list_themes(
    reg: &ThemeRegistry,
    theme: Option<&str>,
    filter: Option<&str>,
) -> Result<Value, UnknownTheme> {
    let theme = theme.map(str::trim).filter(|s| !s.is_empty());
    let filter = filter.map(str::trim).filter(|s| !s.is_empty());

    let palette = match theme {
        Some(id) => Some(palette_json(reg.get(id).ok_or_else(|| UnknownTheme {
            id: id.to_string(),
            did_you_mean: protocol::closest::closest_match(
                id,
                reg.themes.keys().map(String::as_str),
            ),
        })?)),
        None => None,
    };

    let needle = filter.map(str::to_lowercase);
    let matched: Vec<&String> = reg
        .themes
        .keys()
        .filter(|id| {
            needle
                .as_deref()
                .is_none_or(|n| id.to_lowercase().contains(n))
        })
        .collect();

    let mut out = Map::new();
    out.insert("type".into(), "theme_list".into());
    out.insert("total".into(), reg.len().into());
    out.insert("themes_dir".into(), reg.dir.display().to_string().into());
    if let Some(err) = &reg.dir_error {
        out.insert("themes_dir_error".into(), err.clone().into());
    }
    if !reg.problems.is_empty() {
        out.insert("problems".into(), reg.problems.clone().into());
    }
    out.insert("matched".into(), matched.len().into());
    if theme.is_none() || filter.is_some() {
        let shown: Vec<Value> = matched
            .iter()
            .take(THEME_LIST_CAP)
            .map(|id| Value::from(id.as_str()))
            .collect();
        out.insert("themes".into(), Value::Array(shown));
        if matched.len() > THEME_LIST_CAP {
            out.insert("truncated".into(), true.into());
        }
    }
    if let Some(palette) = palette {
        out.insert("palette".into(), palette);
    }
    Ok(Value::Object(out))
}

/// One theme described for `list-themes`: its colours, and how each one contrasts with the
/// background. `passes` compares the rounded ratio, so it agrees with the number shown.
fn palette_json(theme: &Theme) -> Value {
    let mut swatches = Vec::with_capacity(18);
    let mut illegible = Vec::new();
    let named = [
        ("fg", theme.fg.as_str(), FG_CONTRAST_FLOOR),
        ("cursor", theme.cursor.as_str(), COLOUR_CONTRAST_FLOOR),
    ]
    .into_iter()
    .chain(
        ANSI_NAMES
            .iter()
            .zip(theme.ansi.iter())
            .map(|(name, hex)| (*name, hex.as_str(), COLOUR_CONTRAST_FLOOR)),
    );
    for (name, hex, floor) in named {
        let ratio = contrast_ratio(hex, &theme.bg)
            .map(|r| (r * 100.0).round() / 100.0)
            .unwrap_or(1.0);
        let passes = ratio >= floor;
        if !passes {
            illegible.push(Value::from(name));
        }
        let mut swatch = Map::new();
        swatch.insert("name".into(), name.into());
        swatch.insert("hex".into(), hex.into());
        swatch.insert("ratio".into(), ratio.into());
        swatch.insert("floor".into(), floor.into());
        swatch.insert("passes".into(), passes.into());
        swatches.push(Value::Object(swatch));
    }
    let mut out = Map::new();
    out.insert("id".into(), theme.id.clone().into());
    out.insert("display_name".into(), theme.display_name.clone().into());
    out.insert("dark".into(), theme.dark.into());
    out.insert("bg".into(), theme.bg.clone().into());
    out.insert("fg".into(), theme.fg.clone().into());
    out.insert("cursor".into(), theme.cursor.clone().into());
    out.insert("swatches".into(), Value::Array(swatches));
    if !illegible.is_empty() {
        out.insert("illegible".into(), Value::Array(illegible));
    }
    Value::Object(out)
}

#[cfg(test)]
#[path = "themes_tests.rs"]
mod tests;
