use super::*;

/// The Tomorrow Night palette, written by each terminal's own conventions below.
const FG: &str = "#c5c8c6";
const BG: &str = "#1d1f21";
const CURSOR: &str = "#aeafad";
const ANSI: [&str; 16] = [
    "#000000", "#cc6666", "#b5bd68", "#f0c674", "#81a2be", "#b294bb", "#8abeb7", "#ffffff",
    "#666666", "#d54e53", "#b9ca4a", "#e7c547", "#7aa6da", "#c397d8", "#70c0b1", "#eaeaea",
];

fn assert_full(imported: &Imported, format: Format) {
    assert_eq!(imported.format, format);
    let t = &imported.theme;
    assert_eq!((t.fg.as_str(), t.bg.as_str()), (FG, BG));
    assert_eq!(t.cursor, CURSOR);
    assert_eq!(t.ansi.each_ref().map(String::as_str), ANSI);
    assert!(t.dark);
    assert!(imported.defaulted.is_empty(), "{:?}", imported.defaulted);
    assert!(!imported.cursor_from_fg);
}

const KITTY: &str = "\
# vim:ft=kitty
## name: Tomorrow Night
## license: MIT

foreground            #c5c8c6
background            #1d1f21
selection_foreground  #1d1f21
selection_background  #373b41
cursor                #aeafad
cursor_text_color     background

# black
color0  #000000
color8  #666666
# red
color1  #cc6666
color9  #d54e53
color2  #b5bd68
color10 #b9ca4a
color3  #f0c674
color11 #e7c547
color4  #81a2be
color12 #7aa6da
color5  #b294bb
color13 #c397d8
color6  #8abeb7
color14 #70c0b1
color7  #ffffff
color15 #eaeaea
";

#[test]
fn kitty_theme_converts() {
    let i = import_scheme("Tomorrow Night.conf", None, KITTY).unwrap();
    assert_full(&i, Format::Kitty);
    assert_eq!(i.theme.id, "tomorrow_night");
    assert_eq!(i.theme.display_name, "Tomorrow Night");
}

const GHOSTTY: &str = "\
palette = 0=#000000
palette = 1=#cc6666
palette = 2=#b5bd68
palette = 3=#f0c674
palette = 4=#81a2be
palette = 5=#b294bb
palette = 6=#8abeb7
palette = 7=#ffffff
palette = 8=#666666
palette = 9=#d54e53
palette = 10=#b9ca4a
palette = 11=#e7c547
palette = 12=#7aa6da
palette = 13=#c397d8
palette = 14=#70c0b1
palette = 15=#eaeaea
background = 1d1f21
foreground = c5c8c6
cursor-color = aeafad
cursor-text = 1d1f21
selection-background = 373b41
selection-foreground = c5c8c6
";

#[test]
fn ghostty_theme_without_extension_converts() {
    let i = import_scheme("Tomorrow Night", None, GHOSTTY).unwrap();
    assert_full(&i, Format::Ghostty);
    assert_eq!(i.theme.id, "tomorrow_night");
}

const ALACRITTY_TOML: &str = "\
# Colors (Tomorrow Night)
[colors.primary]
background = '#1d1f21'
foreground = '#c5c8c6'

[colors.cursor]
text = '#1d1f21'
cursor = '#aeafad'

[colors.normal]
black   = '#000000'
red     = '#cc6666'
green   = '#b5bd68'
yellow  = '#f0c674'
blue    = '#81a2be'
magenta = '#b294bb'
cyan    = '#8abeb7'
white   = '#ffffff'

[colors.bright]
black   = '0x666666'
red     = '0xd54e53'
green   = '0xb9ca4a'
yellow  = '0xe7c547'
blue    = '0x7aa6da'
magenta = '0xc397d8'
cyan    = '0x70c0b1'
white   = '0xeaeaea'
";

#[test]
fn alacritty_toml_theme_converts() {
    let i = import_scheme("tomorrow_night.toml", None, ALACRITTY_TOML).unwrap();
    assert_full(&i, Format::AlacrittyToml);
}

const ALACRITTY_YAML: &str = "\
# Colors (Tomorrow Night)
colors:
  # Default colors
  primary:
    background: '0x1d1f21'
    foreground: '0xc5c8c6'

  cursor:
    text: '0x1d1f21'
    cursor: \"#aeafad\"   # a comment after the value

  normal:
    black:   '#000000'
    red:     '#cc6666'
    green:   '#b5bd68'
    yellow:  '#f0c674'
    blue:    '#81a2be'
    magenta: '#b294bb'
    cyan:    '#8abeb7'
    white:   '#ffffff'

  bright:
    black:   0x666666
    red:     0xd54e53
    green:   0xb9ca4a
    yellow:  0xe7c547
    blue:    0x7aa6da
    magenta: 0xc397d8
    cyan:    0x70c0b1
    white:   0xeaeaea
";

#[test]
fn alacritty_yaml_theme_converts() {
    let i = import_scheme("tomorrow_night.yml", None, ALACRITTY_YAML).unwrap();
    assert_full(&i, Format::AlacrittyYaml);
}

const WEZTERM: &str = "\
[colors]
ansi = [
    \"#000000\",
    \"#cc6666\",
    \"#b5bd68\",
    \"#f0c674\",
    \"#81a2be\",
    \"#b294bb\",
    \"#8abeb7\",
    \"#ffffff\",
]
background = \"#1d1f21\"
brights = [
    \"#666666\",
    \"#d54e53\",
    \"#b9ca4a\",
    \"#e7c547\",
    \"#7aa6da\",
    \"#c397d8\",
    \"#70c0b1\",
    \"#eaeaea\",
]
cursor_bg = \"#aeafad\"
cursor_border = \"#aeafad\"
cursor_fg = \"#1d1f21\"
foreground = \"#c5c8c6\"
selection_bg = \"#373b41\"
selection_fg = \"#c5c8c6\"

[colors.indexed]

[metadata]
aliases = []
author = \"Chris Kempson\"
name = \"Tomorrow Night\"
origin_url = \"https://github.com/chriskempson/tomorrow-theme\"
";

#[test]
fn wezterm_theme_converts_and_keeps_its_name() {
    let i = import_scheme("tomorrow-night.toml", None, WEZTERM).unwrap();
    assert_full(&i, Format::Wezterm);
    assert_eq!(i.theme.id, "tomorrow-night");
    assert_eq!(i.theme.display_name, "Tomorrow Night");
}

/// One `<key>NAME</key><dict>...</dict>` entry of an .itermcolors file.
fn iterm_entry(name: &str, hex: &str) -> String {
    let rgb = crate::themes::parse_hex(hex).unwrap();
    let c = |b: u8| f64::from(b) / 255.0;
    format!(
        "\t<key>{name}</key>\n\t<dict>\n\t\t<key>Alpha Component</key>\n\t\t<real>1</real>\n\
         \t\t<key>Blue Component</key>\n\t\t<real>{}</real>\n\
         \t\t<key>Color Space</key>\n\t\t<string>sRGB</string>\n\
         \t\t<key>Green Component</key>\n\t\t<real>{}</real>\n\
         \t\t<key>Red Component</key>\n\t\t<real>{}</real>\n\t</dict>\n",
        c(rgb[2]),
        c(rgb[1]),
        c(rgb[0])
    )
}

fn iterm_file(with_ansi: bool) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \
         \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n<dict>\n",
    );
    if with_ansi {
        for (i, hex) in ANSI.iter().enumerate() {
            out += &iterm_entry(&format!("Ansi {i} Color"), hex);
        }
    }
    out += &iterm_entry("Background Color", BG);
    out += &iterm_entry("Bold Color", "#ffffff");
    out += &iterm_entry("Cursor Color", CURSOR);
    out += &iterm_entry("Foreground Color", FG);
    out += &iterm_entry("Selection Color", "#373b41");
    out += "</dict>\n</plist>\n";
    out
}

#[test]
fn iterm2_theme_converts() {
    let i = import_scheme("Tomorrow Night.itermcolors", None, &iterm_file(true)).unwrap();
    assert_full(&i, Format::Iterm2);
}

#[test]
fn iterm2_components_round_to_the_nearest_byte() {
    // Files exported by iTerm2 carry long fractions such as 0.77254902 for 197.
    let text = "<plist><dict><key>Background Color</key><dict>\
        <key>Red Component</key><real>0.11372549</real>\
        <key>Green Component</key><real>0.12156863</real>\
        <key>Blue Component</key><real>0.12941177</real></dict>\
        <key>Foreground Color</key><dict><key>Blue Component</key><real>0.77647059</real>\
        <key>Green Component</key><real>0.78431373</real>\
        <key>Red Component</key><real>0.77254902</real></dict></dict></plist>";
    let s = parse(Format::Iterm2, text).unwrap();
    assert_eq!(s.bg.as_deref(), Some(BG));
    assert_eq!(s.fg.as_deref(), Some(FG));
}

#[test]
fn missing_ansi_colours_are_filled_and_reported() {
    let i = import_scheme("partial.itermcolors", None, &iterm_file(false)).unwrap();
    assert_eq!(i.defaulted.len(), 16);
    assert_eq!(i.theme.ansi[1], "#cd0000", "the xterm default red");
    let text = "foreground #ffffff\nbackground #000000\ncolor1 #ff0000\n";
    let i = import_scheme("x.conf", None, text).unwrap();
    assert_eq!(i.theme.ansi[1], "#ff0000");
    assert_eq!(i.defaulted.len(), 15);
    assert!(!i.defaulted.contains(&"red"));
    assert!(i.cursor_from_fg);
    assert_eq!(i.theme.cursor, "#ffffff");
}

#[test]
fn a_light_background_makes_a_light_theme() {
    let text = "foreground #383a42\nbackground #fafafa\n";
    let i = import_scheme("one-light.conf", None, text).unwrap();
    assert!(!i.theme.dark);
}

#[test]
fn files_without_colours_or_format_are_refused() {
    let err = import_scheme("notes.txt", None, "hello world\nnothing here\n").unwrap_err();
    assert!(err.contains("unknown format"), "{err}");
    let err = import_scheme("empty.toml", None, "[colors]\nindexed = {}\n").unwrap_err();
    assert!(err.contains("no colours"), "{err}");
    let err = import_scheme("fg-only.conf", None, "foreground #ffffff\n").unwrap_err();
    assert!(err.contains("no background"), "{err}");
    let err = import_scheme("other.toml", None, "[window]\nopacity = 0.9\n").unwrap_err();
    assert!(err.contains("[colors]"), "{err}");
    let err = import_scheme("bad.itermcolors", None, "<plist><dict><key>x</key>").unwrap_err();
    assert!(err.contains("property list"), "{err}");
}

#[test]
fn ids_are_sanitised_and_name_overrides_the_file_stem() {
    assert_eq!(
        sanitise_id("Tomorrow Night (Eighties)").as_deref(),
        Some("tomorrow_night_eighties")
    );
    assert_eq!(sanitise_id("..hidden").as_deref(), Some("hidden"));
    assert_eq!(
        sanitise_id("Catppuccin-Mocha").as_deref(),
        Some("catppuccin-mocha")
    );
    assert_eq!(sanitise_id("\u{e9}t\u{e9}").as_deref(), Some("t"));
    assert_eq!(sanitise_id("???"), None);
    assert_eq!(
        sanitise_id(&"a".repeat(100)).map(|s| s.len()),
        Some(MAX_ID_LEN)
    );
    let i = import_scheme("x.conf", Some("My Theme"), KITTY).unwrap();
    assert_eq!(i.theme.id, "my_theme");
    assert_eq!(i.theme.display_name, "My Theme");
    assert!(import_scheme("x.conf", Some("!!"), KITTY).is_err());
}

#[test]
fn colours_are_read_in_every_spelling() {
    assert_eq!(parse_colour("#ABCDEF").as_deref(), Some("#abcdef"));
    assert_eq!(parse_colour("'0x1D1F21'").as_deref(), Some("#1d1f21"));
    assert_eq!(parse_colour(" fff ").as_deref(), Some("#ffffff"));
    assert_eq!(parse_colour("\"#abc\"").as_deref(), Some("#aabbcc"));
    assert_eq!(parse_colour("red"), None);
    assert_eq!(parse_colour("none"), None);
    assert_eq!(parse_colour("#12345"), None);
}

#[test]
fn the_converted_json_loads_as_a_user_theme() {
    let i = import_scheme("Tomorrow Night.conf", None, KITTY).unwrap();
    let json = serde_json::to_string_pretty(&i.theme).unwrap();
    let back = parse_user_theme("ignored", &json).unwrap();
    assert_eq!(back, i.theme);
}
