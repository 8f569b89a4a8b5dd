//! Converting other terminals' colour schemes into tuios themes, for `tuios import-theme`.
//!
//! Pure functions only: the caller reads the file and writes the result. Formats read:
//! kitty (`color0 #rrggbb` lines), Ghostty (`palette = 0=#rrggbb` lines), Alacritty (TOML, and
//! the older YAML), WezTerm (TOML with a `[colors]` table) and iTerm2 (`.itermcolors`, an XML
//! property list). Only the colours a tuios theme has are taken: foreground, background,
//! cursor and the 16 ANSI colours; everything else in the file is ignored.

use std::fmt;

use crate::themes::{is_dark, parse_user_theme, Theme, ANSI_NAMES, DEFAULT_ANSI, MAX_ID_LEN};

/// The scheme formats `import-theme` understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Kitty,
    Ghostty,
    AlacrittyToml,
    AlacrittyYaml,
    Wezterm,
    Iterm2,
}

impl Format {
    /// The name printed in reports and accepted by `--format`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Kitty => "kitty",
            Format::Ghostty => "ghostty",
            Format::AlacrittyToml => "alacritty-toml",
            Format::AlacrittyYaml => "alacritty-yaml",
            Format::Wezterm => "wezterm",
            Format::Iterm2 => "iterm2",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The colours found in a scheme file, before gaps are filled.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scheme {
    /// A name the file gives itself (WezTerm's `[metadata] name`), if any.
    pub name: Option<String>,
    pub fg: Option<String>,
    pub bg: Option<String>,
    pub cursor: Option<String>,
    pub ansi: [Option<String>; 16],
}

impl Scheme {
    fn is_empty(&self) -> bool {
        self.fg.is_none()
            && self.bg.is_none()
            && self.cursor.is_none()
            && self.ansi.iter().all(Option::is_none)
    }
}

/// A converted theme and what had to be made up for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    pub format: Format,
    pub theme: Theme,
    /// ANSI colour names the file did not give, filled from the xterm defaults.
    pub defaulted: Vec<&'static str>,
    /// True when the file gave no cursor colour and the foreground stands in for it.
    pub cursor_from_fg: bool,
}

/// Convert the text of a scheme file. `file_name` (the name without directories) picks the
/// default id and helps tell formats apart; `name` overrides the id.
pub fn import_scheme(file_name: &str, name: Option<&str>, text: &str) -> Result<Imported, String> {
    let (stem, ext) = match file_name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem, Some(ext)),
        _ => (file_name, None),
    };
    let format = detect(ext, text)?;
    let scheme = parse(format, text)?;
    let raw_id = name.unwrap_or(stem);
    let id = sanitise_id(raw_id).ok_or_else(|| {
        format!(
            "\"{}\" leaves no usable theme id (letters, digits, '_', '-' and '.'); give one with --name",
            raw_id.escape_debug()
        )
    })?;
    let display_name = scheme
        .name
        .clone()
        .or_else(|| name.map(str::to_string))
        .unwrap_or_else(|| stem.to_string());
    to_theme(format, &id, &display_name, scheme)
}

/// Fill the gaps of a scheme and make it a theme. Foreground and background are required:
/// without them no palette can be judged, and a default would hide a wrong file.
pub fn to_theme(
    format: Format,
    id: &str,
    display_name: &str,
    scheme: Scheme,
) -> Result<Imported, String> {
    if scheme.is_empty() {
        return Err(format!(
            "no colours found: it looks like a {format} file but sets none of the foreground, background, cursor or ANSI colours"
        ));
    }
    let bg = scheme
        .bg
        .ok_or_else(|| format!("no background colour found in the {format} file"))?;
    let fg = scheme
        .fg
        .ok_or_else(|| format!("no foreground colour found in the {format} file"))?;
    let cursor_from_fg = scheme.cursor.is_none();
    let cursor = scheme.cursor.unwrap_or_else(|| fg.clone());
    let mut defaulted = Vec::new();
    let mut ansi: [String; 16] = DEFAULT_ANSI.map(str::to_string);
    for (i, colour) in scheme.ansi.into_iter().enumerate() {
        match colour {
            Some(c) => ansi[i] = c,
            None => defaulted.push(ANSI_NAMES[i]),
        }
    }
    let theme = Theme {
        id: id.to_string(),
        display_name: display_name.trim().to_string(),
        dark: is_dark(&bg),
        fg,
        bg,
        cursor,
        ansi,
    };
    // The written file must load as a user theme: check with the loader itself.
    let json = serde_json::to_string(&theme).map_err(|e| e.to_string())?;
    parse_user_theme(id, &json).map_err(|e| format!("the converted theme is not usable: {e}"))?;
    Ok(Imported {
        format,
        theme,
        defaulted,
        cursor_from_fg,
    })
}

/// A theme id from a file stem or a `--name`: lower case, every run of other characters
/// (spaces included) as one '_', cut to the longest id allowed. None when nothing is left.
pub fn sanitise_id(raw: &str) -> Option<String> {
    let mut out = String::new();
    for c in raw.trim().chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() || matches!(c, '-' | '.') {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    // A leading '.' would make a hidden file; edge '_' and '-' are leftovers of punctuation.
    let trimmed = out.trim_matches(['_', '-', '.']);
    let cut: String = trimmed.chars().take(MAX_ID_LEN).collect();
    let cut = cut.trim_end_matches(['_', '-', '.']);
    (!cut.is_empty()).then(|| cut.to_string())
}

/// Tell the format from the content, with the extension breaking ties (kitty and Ghostty both
/// use `.conf` or none; both TOML dialects use `.toml`).
pub fn detect(ext: Option<&str>, text: &str) -> Result<Format, String> {
    let ext = ext.map(str::to_ascii_lowercase);
    let head = text.trim_start();
    if ext.as_deref() == Some("itermcolors") || head.starts_with("<?xml") || head.contains("<plist")
    {
        return Ok(Format::Iterm2);
    }
    if let Ok(table) = text.parse::<toml::Table>() {
        if let Some(colors) = table.get("colors").and_then(toml::Value::as_table) {
            if colors.contains_key("primary")
                || colors.contains_key("normal")
                || colors.contains_key("bright")
            {
                return Ok(Format::AlacrittyToml);
            }
            return Ok(Format::Wezterm);
        }
        // A flat `key = "value"` file is valid TOML too; Ghostty's own lines are told below.
        if ext.as_deref() == Some("toml") {
            return Err(
                "a TOML file without a [colors] table: neither an Alacritty nor a WezTerm scheme"
                    .into(),
            );
        }
    }
    if matches!(ext.as_deref(), Some("yml" | "yaml"))
        || text.lines().any(|l| l.trim_end() == "colors:")
    {
        return Ok(Format::AlacrittyYaml);
    }
    let mut ghostty = 0;
    let mut kitty = 0;
    for line in config_lines(text) {
        if let Some((key, _)) = line.split_once('=') {
            if matches!(
                key.trim(),
                "palette" | "background" | "foreground" | "cursor-color"
            ) {
                ghostty += 1;
                continue;
            }
        }
        let key = line.split_whitespace().next().unwrap_or("");
        if matches!(key, "background" | "foreground" | "cursor")
            || kitty_colour_index(key).is_some()
        {
            kitty += 1;
        }
    }
    match (ghostty, kitty) {
        (0, 0) => Err("unknown format: not a kitty, Ghostty, Alacritty (TOML or YAML), WezTerm or iTerm2 (.itermcolors) colour scheme".into()),
        (g, k) if g >= k => Ok(Format::Ghostty),
        _ => Ok(Format::Kitty),
    }
}

/// Read a scheme in a known format.
pub fn parse(format: Format, text: &str) -> Result<Scheme, String> {
    match format {
        Format::Kitty => Ok(parse_kitty(text)),
        Format::Ghostty => Ok(parse_ghostty(text)),
        Format::AlacrittyToml | Format::Wezterm => {
            let table: toml::Table = text
                .parse()
                .map_err(|e| format!("it is not valid TOML: {e}"))?;
            Ok(if format == Format::Wezterm {
                parse_wezterm(&table)
            } else {
                alacritty(|path| toml_lookup(&table, path))
            })
        }
        Format::AlacrittyYaml => {
            let pairs = yaml_pairs(text);
            Ok(alacritty(|path| {
                pairs
                    .iter()
                    .find(|(p, _)| p.iter().map(String::as_str).eq(path.iter().copied()))
                    .map(|(_, v)| v.clone())
            }))
        }
        Format::Iterm2 => parse_iterm2(text),
    }
}

/// A colour as schemes write it: `#rrggbb`, `#rgb`, bare `rrggbb` (Ghostty) or `0xrrggbb`
/// (Alacritty), quoted or not. Anything else (colour names, `none`) is not taken.
pub fn parse_colour(raw: &str) -> Option<String> {
    let s = raw.trim().trim_matches(|c| c == '"' || c == '\'').trim();
    let hex = s
        .strip_prefix('#')
        .or_else(|| s.strip_prefix("0x"))
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    match hex.len() {
        6 => Some(format!("#{}", hex.to_ascii_lowercase())),
        3 => Some(
            hex.chars()
                .flat_map(|c| [c, c])
                .fold(String::from("#"), |mut out, c| {
                    out.push(c.to_ascii_lowercase());
                    out
                }),
        ),
        _ => None,
    }
}

/// Non-blank lines that are not `#` comments, trimmed.
fn config_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// `color0` .. `color15` -> the palette index.
fn kitty_colour_index(key: &str) -> Option<usize> {
    key.strip_prefix("color")?
        .parse::<usize>()
        .ok()
        .filter(|&i| i < 16)
}

fn parse_kitty(text: &str) -> Scheme {
    let mut s = Scheme::default();
    for line in config_lines(text) {
        let mut words = line.split_whitespace();
        let (Some(key), Some(value)) = (words.next(), words.next()) else {
            continue;
        };
        let colour = parse_colour(value);
        match key {
            "foreground" => s.fg = colour.or(s.fg),
            "background" => s.bg = colour.or(s.bg),
            "cursor" => s.cursor = colour.or(s.cursor),
            _ => {
                if let Some(i) = kitty_colour_index(key) {
                    s.ansi[i] = colour.or(s.ansi[i].take());
                }
            }
        }
    }
    s
}

fn parse_ghostty(text: &str) -> Scheme {
    let mut s = Scheme::default();
    for line in config_lines(text) {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        match key.trim() {
            "foreground" => s.fg = parse_colour(value).or(s.fg),
            "background" => s.bg = parse_colour(value).or(s.bg),
            "cursor-color" => s.cursor = parse_colour(value).or(s.cursor),
            "palette" => {
                // `palette = 4=#81a2be`: the index, then the colour.
                if let Some((index, colour)) = value.split_once('=') {
                    if let Ok(i) = index.trim().parse::<usize>() {
                        if i < 16 {
                            s.ansi[i] = parse_colour(colour).or(s.ansi[i].take());
                        }
                    }
                }
            }
            _ => {}
        }
    }
    s
}

/// The eight colour names Alacritty uses under `normal` and `bright`, in palette order.
const ALACRITTY_NAMES: [&str; 8] = [
    "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
];

/// Alacritty's layout, read through `lookup(path)` so TOML and YAML share it.
fn alacritty(lookup: impl Fn(&[&str]) -> Option<String>) -> Scheme {
    let colour = |path: &[&str]| lookup(path).as_deref().and_then(parse_colour);
    let mut s = Scheme {
        fg: colour(&["colors", "primary", "foreground"]),
        bg: colour(&["colors", "primary", "background"]),
        cursor: colour(&["colors", "cursor", "cursor"]),
        ..Scheme::default()
    };
    for (i, name) in ALACRITTY_NAMES.iter().enumerate() {
        s.ansi[i] = colour(&["colors", "normal", name]);
        s.ansi[i + 8] = colour(&["colors", "bright", name]);
    }
    s
}

fn toml_lookup(table: &toml::Table, path: &[&str]) -> Option<String> {
    let (last, parents) = path.split_last()?;
    let mut t = table;
    for key in parents {
        t = t.get(*key)?.as_table()?;
    }
    t.get(*last)?.as_str().map(str::to_string)
}

fn parse_wezterm(table: &toml::Table) -> Scheme {
    let colour = |path: &[&str]| toml_lookup(table, path).as_deref().and_then(parse_colour);
    let mut s = Scheme {
        name: toml_lookup(table, &["metadata", "name"]).filter(|n| !n.trim().is_empty()),
        fg: colour(&["colors", "foreground"]),
        bg: colour(&["colors", "background"]),
        cursor: colour(&["colors", "cursor_bg"]),
        ..Scheme::default()
    };
    let colors = table.get("colors").and_then(toml::Value::as_table);
    for (key, offset) in [("ansi", 0), ("brights", 8)] {
        let list = colors
            .and_then(|c| c.get(key))
            .and_then(toml::Value::as_array);
        for (i, v) in list.into_iter().flatten().take(8).enumerate() {
            s.ansi[offset + i] = v.as_str().and_then(parse_colour);
        }
    }
    s
}

/// The `key: value` leaves of a simple block-style YAML document, each with its full key path
/// (`colors.primary.background`). Enough for Alacritty's scheme files, which use nothing more;
/// flow collections, anchors and multi-line values are not read.
fn yaml_pairs(text: &str) -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    // (indent, key) of the mappings enclosing the current line.
    let mut stack: Vec<(usize, String)> = Vec::new();
    for line in text.lines() {
        let body = line.trim_start();
        if body.is_empty() || body.starts_with('#') || body == "---" {
            continue;
        }
        let indent = line.len() - body.len();
        let Some((key, value)) = body.split_once(':') else {
            continue;
        };
        while stack.last().is_some_and(|(i, _)| *i >= indent) {
            stack.pop();
        }
        let key = key
            .trim()
            .trim_matches(|c| c == '"' || c == '\'')
            .to_string();
        let value = yaml_scalar(value);
        if value.is_empty() {
            stack.push((indent, key));
        } else {
            let mut path: Vec<String> = stack.iter().map(|(_, k)| k.clone()).collect();
            path.push(key);
            out.push((path, value));
        }
    }
    out
}

/// A YAML scalar without its quotes or trailing comment.
fn yaml_scalar(raw: &str) -> String {
    let v = raw.trim();
    for q in ['\'', '"'] {
        if let Some(rest) = v.strip_prefix(q) {
            return rest.split(q).next().unwrap_or("").to_string();
        }
    }
    // Unquoted, a comment starts at " #"; a bare "#abc" value would itself be a comment.
    match v.find(" #") {
        Some(i) => v[..i].trim().to_string(),
        None if v.starts_with('#') => String::new(),
        None => v.to_string(),
    }
}

/// iTerm2's `.itermcolors`: a plist dictionary from names like "Ansi 4 Color" to dictionaries
/// of "Red/Green/Blue Component" reals between 0 and 1.
fn parse_iterm2(text: &str) -> Result<Scheme, String> {
    let mut s = Scheme::default();
    let mut depth = 0usize;
    let mut entry: Option<String> = None;
    let mut component: Option<String> = None;
    let mut rgb = [None::<f64>; 3];
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let close = after
            .find('>')
            .ok_or("it is not a well-formed property list (a tag is not closed)")?;
        let tag = after[..close].trim();
        rest = &after[close + 1..];
        // Element text runs to the next tag.
        let content = rest[..rest.find('<').unwrap_or(rest.len())].trim();
        match tag {
            "dict" => depth += 1,
            "/dict" => {
                if depth == 2 {
                    if let (Some(name), [Some(r), Some(g), Some(b)]) = (entry.take(), rgb) {
                        set_iterm_colour(&mut s, &name, [r, g, b]);
                    }
                    rgb = [None; 3];
                }
                depth = depth.saturating_sub(1);
            }
            "key" if depth == 1 => entry = Some(content.to_string()),
            "key" if depth == 2 => component = Some(content.to_string()),
            "real" | "integer" if depth == 2 => {
                let slot = match component.take().as_deref() {
                    Some("Red Component") => Some(0),
                    Some("Green Component") => Some(1),
                    Some("Blue Component") => Some(2),
                    _ => None,
                };
                if let (Some(i), Ok(v)) = (slot, content.parse::<f64>()) {
                    rgb[i] = Some(v);
                }
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err("it is not a well-formed property list (a <dict> is not closed)".into());
    }
    Ok(s)
}

fn set_iterm_colour(s: &mut Scheme, name: &str, rgb: [f64; 3]) {
    let byte = |v: f64| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    let hex = format!(
        "#{:02x}{:02x}{:02x}",
        byte(rgb[0]),
        byte(rgb[1]),
        byte(rgb[2])
    );
    match name {
        "Foreground Color" => s.fg = Some(hex),
        "Background Color" => s.bg = Some(hex),
        "Cursor Color" => s.cursor = Some(hex),
        _ => {
            let index = name
                .strip_prefix("Ansi ")
                .and_then(|n| n.strip_suffix(" Color"))
                .and_then(|n| n.parse::<usize>().ok());
            if let Some(i) = index.filter(|&i| i < 16) {
                s.ansi[i] = Some(hex);
            }
        }
    }
}

#[cfg(test)]
#[path = "theme_import_tests.rs"]
mod tests;
