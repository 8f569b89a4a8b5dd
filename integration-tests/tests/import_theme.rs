//! `tuios import-theme` through the real binary: kitty and iTerm2 schemes converted into the
//! user themes directory of a running daemon, which lists, describes and accepts them at once.

use serde_json::{json, Value};
use std::path::PathBuf;
use tuios_integration_tests::*;

/// A kitty scheme, as kitty-themes ship them (comments, extra keys, aligned values).
const KITTY: &str = "\
## name: Harbour Dusk
## author: tuios tests
foreground   #d8dee9
background   #1b2330
cursor       #f0c674
selection_background #2e3a4e
color0  #1b2330
color1  #e06c75
color2  #98c379
color3  #e5c07b
color4  #61afef
color5  #c678dd
color6  #56b6c2
color7  #abb2bf
color8  #5c6370
color9  #ef7f88
color10 #a9d18a
color11 #f0cf8c
color12 #74bdf7
color13 #d68ce6
color14 #67c6d2
color15 #ffffff
";

/// One colour entry of an `.itermcolors` property list.
fn iterm_entry(name: &str, [r, g, b]: [u8; 3]) -> String {
    let c = |v: u8| f64::from(v) / 255.0;
    format!(
        "\t<key>{name}</key>\n\t<dict>\n\t\t<key>Blue Component</key>\n\t\t<real>{}</real>\n\
         \t\t<key>Color Space</key>\n\t\t<string>sRGB</string>\n\
         \t\t<key>Green Component</key>\n\t\t<real>{}</real>\n\
         \t\t<key>Red Component</key>\n\t\t<real>{}</real>\n\t</dict>\n",
        c(b),
        c(g),
        c(r)
    )
}

/// A light iTerm2 scheme: background #fdf6e3, foreground #586e75, red #dc322f, no cursor.
fn iterm_file() -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n",
    );
    let ansi: [[u8; 3]; 16] = [
        [0x07, 0x36, 0x42],
        [0xdc, 0x32, 0x2f],
        [0x85, 0x99, 0x00],
        [0xb5, 0x89, 0x00],
        [0x26, 0x8b, 0xd2],
        [0xd3, 0x36, 0x82],
        [0x2a, 0xa1, 0x98],
        [0xee, 0xe8, 0xd5],
        [0x00, 0x2b, 0x36],
        [0xcb, 0x4b, 0x16],
        [0x58, 0x6e, 0x75],
        [0x65, 0x7b, 0x83],
        [0x83, 0x94, 0x96],
        [0x6c, 0x71, 0xc4],
        [0x93, 0xa1, 0xa1],
        [0xfd, 0xf6, 0xe3],
    ];
    for (i, rgb) in ansi.iter().enumerate() {
        out += &iterm_entry(&format!("Ansi {i} Color"), *rgb);
    }
    out += &iterm_entry("Background Color", [0xfd, 0xf6, 0xe3]);
    out += &iterm_entry("Foreground Color", [0x58, 0x6e, 0x75]);
    out += "</dict>\n</plist>\n";
    out
}

fn write_scheme(daemon: &TestDaemon, name: &str, text: &str) -> PathBuf {
    let dir = daemon.dir().join("schemes");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn import(daemon: &TestDaemon, args: &[&str]) -> std::process::Output {
    let mut all = vec!["import-theme"];
    all.extend_from_slice(args);
    daemon.cli(&all)
}

fn swatch<'a>(palette: &'a Value, name: &str) -> &'a str {
    palette["swatches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .and_then(|s| s["hex"].as_str())
        .unwrap_or_else(|| panic!("no swatch {name}: {palette}"))
}

#[test]
fn imported_themes_are_listed_described_and_usable_at_once() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let themes_dir = daemon.dir().join("config").join("tuios").join("themes");

    // kitty, id from the file name, JSON report.
    let kitty = write_scheme(&daemon, "Harbour Dusk.conf", KITTY);
    let out = import(&daemon, &[kitty.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", describe(&out));
    let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(report["id"], "harbour_dusk", "{report}");
    assert_eq!(report["display_name"], "Harbour Dusk", "{report}");
    assert_eq!(report["format"], "kitty", "{report}");
    assert_eq!(report["dark"], true, "{report}");
    assert_eq!(report["defaulted"], json!([]), "{report}");
    assert_eq!(
        report["path"],
        themes_dir.join("harbour_dusk.json").display().to_string(),
        "{report}"
    );

    let listed = conn.ok("list-themes", json!({"filter": "harbour"}));
    assert_eq!(strings(&listed["themes"]), vec!["harbour_dusk"], "{listed}");
    let described = conn.ok("list-themes", json!({"theme": "harbour_dusk"}));
    let palette = &described["palette"];
    assert_eq!(palette["fg"], "#d8dee9", "{palette}");
    assert_eq!(palette["bg"], "#1b2330", "{palette}");
    assert_eq!(palette["cursor"], "#f0c674", "{palette}");
    assert_eq!(palette["dark"], true, "{palette}");
    assert_eq!(swatch(palette, "red"), "#e06c75");
    assert_eq!(swatch(palette, "bright_white"), "#ffffff");

    // iTerm2, id from --name, text report.
    let iterm = write_scheme(&daemon, "Solarized Light.itermcolors", &iterm_file());
    let out = import(&daemon, &[iterm.to_str().unwrap(), "--name", "Sunny Paper"]);
    assert!(out.status.success(), "{}", describe(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("as theme sunny_paper (light)") && text.contains("sunny_paper.json"),
        "{text}"
    );
    assert!(
        text.contains("the foreground is used"),
        "no cursor in the file: {text}"
    );
    let described = conn.ok("list-themes", json!({"theme": "sunny_paper"}));
    let palette = &described["palette"];
    assert_eq!(palette["bg"], "#fdf6e3", "{palette}");
    assert_eq!(palette["fg"], "#586e75", "{palette}");
    assert_eq!(palette["cursor"], "#586e75", "{palette}");
    assert_eq!(palette["dark"], false, "{palette}");
    assert_eq!(swatch(palette, "red"), "#dc322f");
    assert_eq!(swatch(palette, "purple"), "#d33682");

    // A session takes it as its theme straight away.
    let session = daemon.new_session("themed");
    let r = conn.ok(
        "set-option",
        json!({"session": session, "key": "appearance.theme", "value": "sunny_paper"}),
    );
    assert_eq!(r["value"], "sunny_paper", "{r}");

    // The same id again is refused, and the file kept, unless --force.
    let before = std::fs::read_to_string(themes_dir.join("harbour_dusk.json")).unwrap();
    let out = import(&daemon, &[kitty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("already exists") && err.contains("--force"),
        "{err}"
    );
    let out = import(&daemon, &[kitty.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let envelope: Value = serde_json::from_slice(&out.stdout).expect("error envelope");
    assert!(
        envelope["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("already exists")),
        "{envelope}"
    );
    let changed = KITTY.replace("color1  #e06c75", "color1  #ff0000");
    std::fs::write(&kitty, changed).unwrap();
    let out = import(&daemon, &[kitty.to_str().unwrap(), "--force", "--json"]);
    assert!(out.status.success(), "{}", describe(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["replaced"], true, "{report}");
    assert_ne!(
        before,
        std::fs::read_to_string(themes_dir.join("harbour_dusk.json")).unwrap()
    );
    let described = conn.ok("list-themes", json!({"theme": "harbour_dusk"}));
    assert_eq!(swatch(&described["palette"], "red"), "#ff0000");
    // Nothing the daemon would report as a broken theme file was left behind.
    let all = conn.ok("list-themes", json!({}));
    assert!(all.get("problems").is_none(), "{all}");
}

#[test]
fn unreadable_unknown_and_colourless_files_fail_with_status_1() {
    let env = TestEnv::new();
    let missing = env.dir().join("nope.conf");
    let out = env.cli(&["import-theme", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot read"),
        "{}",
        describe(&out)
    );

    let notes = env.dir().join("notes.txt");
    std::fs::write(&notes, "remember the milk\n").unwrap();
    let out = env.cli(&["import-theme", notes.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unknown format"),
        "{}",
        describe(&out)
    );

    let empty = env.dir().join("empty.toml");
    std::fs::write(&empty, "[colors]\n[colors.indexed]\n").unwrap();
    let out = env.cli(&["import-theme", empty.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let envelope: Value = serde_json::from_slice(&out.stdout).expect("error envelope");
    assert!(
        envelope["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("no colours")),
        "{envelope}"
    );
    // Nothing was written for any of them.
    let themes = env.dir().join("config").join("tuios").join("themes");
    let written = std::fs::read_dir(&themes).map(|d| d.count()).unwrap_or(0);
    assert_eq!(written, 0);
}
