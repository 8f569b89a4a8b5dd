use super::*;

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).expect("write theme file");
}

const WANTED: [&str; 26] = [
    "dracula",
    "nord",
    "gruvbox_dark",
    "gruvbox_light",
    "solarized_dark",
    "solarized_light",
    "catppuccin_mocha",
    "catppuccin_macchiato",
    "catppuccin_frappe",
    "catppuccin_latte",
    "tokyo_night",
    "tokyo_night_storm",
    "one_dark",
    "one_half_light",
    "monokai",
    "github_dark",
    "github_light",
    "ayu_dark",
    "ayu_light",
    "rose_pine",
    "rose_pine_dawn",
    "kanagawa",
    "everforest_dark",
    "tomorrow_night",
    "zenburn",
    "iceberg_dark",
];

#[test]
fn builtins_parse_with_valid_colours_and_unique_sorted_ids() {
    let themes = builtin_themes();
    assert!(themes.len() >= 24, "only {} built-in themes", themes.len());
    for pair in themes.windows(2) {
        assert!(pair[0].id < pair[1].id, "{} / {}", pair[0].id, pair[1].id);
    }
    for t in themes {
        assert!(check_id(&t.id).is_ok(), "{}", t.id);
        assert!(
            t.id.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "{} is not snake_case",
            t.id
        );
        assert!(!t.display_name.is_empty(), "{}", t.id);
        for c in [&t.fg, &t.bg, &t.cursor].into_iter().chain(t.ansi.iter()) {
            assert!(is_hex_colour(c), "{}: {c}", t.id);
            assert_eq!(c, &c.to_ascii_lowercase(), "{}: {c}", t.id);
        }
        assert_eq!(
            t.dark,
            is_dark(&t.bg),
            "{}: dark flag disagrees with bg",
            t.id
        );
        // Schemes are shipped as their authors made them, so a few fall below the legibility
        // floor (list-themes flags those); none may draw text in its background colour.
        let fg = contrast_ratio(&t.fg, &t.bg).unwrap();
        assert!(fg > 1.5, "{}: fg contrast {fg:.2}", t.id);
    }
}

#[test]
fn builtins_include_the_well_known_set() {
    let ids: Vec<&str> = builtin_themes().iter().map(|t| t.id.as_str()).collect();
    for want in WANTED {
        assert!(ids.contains(&want), "missing built-in theme {want}");
    }
}

#[test]
fn builtin_spot_checks_match_published_palettes() {
    let get = |id: &str| builtin_themes().iter().find(|t| t.id == id).unwrap();
    let d = get("dracula");
    // As iTerm2-Color-Schemes publishes them.
    assert_eq!((d.bg.as_str(), d.fg.as_str()), ("#1e1f29", "#f8f8f2"));
    assert_eq!(d.ansi[4], "#bd93f9");
    assert_eq!(d.display_name, "Dracula");
    let n = get("nord");
    assert_eq!((n.bg.as_str(), n.ansi[1].as_str()), ("#2e3440", "#bf616a"));
    let m = get("catppuccin_mocha");
    assert_eq!((m.bg.as_str(), m.cursor.as_str()), ("#1e1e2e", "#f5e0dc"));
    let s = get("solarized_light");
    assert_eq!((s.bg.as_str(), s.ansi[3].as_str()), ("#fcf4dc", "#a57706"));
    let g = get("gruvbox_dark");
    assert_eq!((g.bg.as_str(), g.ansi[1].as_str()), ("#282828", "#cc241d"));
    // From the tuios palettes kept for ids the collections lack.
    let e = get("everforest_dark");
    assert!(e.dark);
}

#[test]
fn load_creates_missing_dir_and_has_only_builtins() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tuios").join("themes");
    let reg = ThemeRegistry::load(&dir);
    assert!(dir.is_dir());
    assert_eq!(reg.len(), builtin_themes().len());
    assert!(reg.problems().is_empty());
    assert_eq!(reg.dir_error(), None);
    assert_eq!(reg.dir(), dir.as_path());
}

#[test]
fn relative_dir_is_refused_with_builtins_kept() {
    let reg = ThemeRegistry::load(Path::new("relative/themes"));
    assert!(reg.dir_error().unwrap().contains("not an absolute path"));
    assert_eq!(reg.len(), builtin_themes().len());
}

#[test]
fn user_theme_appears_on_next_load_and_broken_ones_are_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let before = ThemeRegistry::load(dir);
    assert!(before.get("mine").is_none());

    write(dir, "mine.json", r##"{"fg": "#EEEEEE", "bg": "#101010"}"##);
    write(dir, "broken.json", "{ not json");
    write(dir, "nofg.json", r##"{"bg": "#101010"}"##);
    write(
        dir,
        "badcolour.json",
        r##"{"fg": "white", "bg": "#101010"}"##,
    );
    write(dir, "notes.txt", "not a theme");
    let reg = ThemeRegistry::load(dir);

    let mine = reg.get("mine").expect("user theme loaded");
    assert_eq!(mine.display_name, "mine");
    assert_eq!(mine.fg, "#eeeeee");
    assert_eq!(mine.cursor, "#eeeeee");
    assert!(mine.dark);
    assert_eq!(mine.ansi[1], DEFAULT_ANSI[1]);
    assert!(reg.is_user("mine"));
    assert!(!reg.is_user("dracula"));
    assert_eq!(reg.len(), builtin_themes().len() + 1);

    let problems = reg.problems().join("\n");
    assert_eq!(reg.problems().len(), 3, "{problems}");
    assert!(problems.contains("broken.json") && problems.contains("not valid JSON"));
    assert!(problems.contains("nofg.json") && problems.contains("\"fg\""));
    assert!(problems.contains("badcolour.json") && problems.contains("white"));
    assert!(!problems.contains("notes.txt"));
}

#[test]
fn user_theme_fields_named_colours_and_ansi_array() {
    let named = parse_user_theme(
        "file_name",
        r##"{"id": "paper", "display_name": "Paper", "fg": "#222222", "bg": "#fafafa",
            "cursor": "#ff0000", "red": "#aa0000", "magenta": "#aa00aa",
            "bright_white": "#ffffff", "brightBlack": "#555555", "about": "ignored"}"##,
    )
    .unwrap();
    assert_eq!(named.id, "paper");
    assert_eq!(named.display_name, "Paper");
    assert!(!named.dark);
    assert_eq!(named.cursor, "#ff0000");
    assert_eq!(named.ansi[1], "#aa0000");
    assert_eq!(named.ansi[5], "#aa00aa");
    assert_eq!(named.ansi[8], "#555555");
    assert_eq!(named.ansi[15], "#ffffff");
    assert_eq!(named.ansi[0], DEFAULT_ANSI[0]);

    let ansi: Vec<String> = (0..16).map(|i| format!("\"#0000{i:02x}\"")).collect();
    let text = format!(
        r##"{{"fg": "#ffffff", "bg": "#000000", "dark": false, "ansi": [{}]}}"##,
        ansi.join(",")
    );
    let listed = parse_user_theme("listed", &text).unwrap();
    assert_eq!(listed.id, "listed");
    assert!(!listed.dark, "an explicit dark flag wins");
    assert_eq!(listed.ansi[15], "#00000f");

    for (bad, why) in [
        (r##"{"fg": "#fff", "bg": "#000000"}"##, "fg"),
        (
            r##"{"fg": "#ffffff", "bg": "#000000", "ansi": ["#000000"]}"##,
            "ansi",
        ),
        (
            r##"{"fg": "#ffffff", "bg": "#000000", "id": "has space"}"##,
            "id",
        ),
        (
            r##"{"fg": "#ffffff", "bg": "#000000", "dark": "yes"}"##,
            "dark",
        ),
        (r##"["#ffffff"]"##, "object"),
    ] {
        let err = parse_user_theme("x", bad).unwrap_err();
        assert!(err.contains(why), "{bad}: {err}");
    }
}

#[test]
fn user_theme_overrides_builtin_and_duplicates_are_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(
        dir,
        "a.json",
        r##"{"id": "dracula", "fg": "#ffffff", "bg": "#000000"}"##,
    );
    write(
        dir,
        "b.json",
        r##"{"id": "dracula", "fg": "#eeeeee", "bg": "#000000"}"##,
    );
    let reg = ThemeRegistry::load(dir);
    assert_eq!(reg.get("dracula").unwrap().fg, "#ffffff");
    assert!(reg.is_user("dracula"));
    assert_eq!(reg.problems().len(), 1);
    assert!(reg.problems()[0].contains("b.json"));
    assert_eq!(reg.len(), builtin_themes().len());
}

#[test]
fn contrast_ratio_known_values() {
    assert_eq!(contrast_ratio("#000000", "#ffffff"), Some(21.0));
    assert_eq!(contrast_ratio("#123456", "#123456"), Some(1.0));
    let r = contrast_ratio("#777777", "#ffffff").unwrap();
    assert!((r - 4.48).abs() < 0.01, "{r}");
    assert_eq!(contrast_ratio("#fff", "#000000"), None);
    assert_eq!(parse_hex("#FF8000"), Some([255, 128, 0]));
}

#[test]
fn list_themes_without_arguments_lists_everything() {
    let tmp = tempfile::tempdir().unwrap();
    let reg = ThemeRegistry::load(tmp.path());
    let v = list_themes(&reg, None, Some("  ")).unwrap();
    assert_eq!(v["type"], "theme_list");
    assert_eq!(v["total"], reg.len());
    assert_eq!(v["matched"], reg.len());
    assert_eq!(v["themes_dir"], tmp.path().display().to_string());
    let ids: Vec<&str> = v["themes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    // The catalogue is larger than one answer holds: the first ids, and a flag saying so.
    assert!(reg.len() > THEME_LIST_CAP);
    assert_eq!(ids, reg.ids()[..THEME_LIST_CAP]);
    assert!(v.get("palette").is_none());
    assert_eq!(v["truncated"], true);
    assert!(v.get("problems").is_none());
    assert!(v.get("themes_dir_error").is_none());
}

#[test]
fn list_themes_filter_is_a_case_insensitive_substring() {
    let tmp = tempfile::tempdir().unwrap();
    let reg = ThemeRegistry::load(tmp.path());
    let v = list_themes(&reg, None, Some("CATPPUCCIN")).unwrap();
    assert_eq!(v["matched"], 4);
    assert_eq!(
        v["themes"],
        serde_json::json!([
            "catppuccin_frappe",
            "catppuccin_latte",
            "catppuccin_macchiato",
            "catppuccin_mocha"
        ])
    );
    let none = list_themes(&reg, None, Some("no-such-theme")).unwrap();
    assert_eq!(none["matched"], 0);
    assert_eq!(none["themes"], serde_json::json!([]));
}

#[test]
fn list_themes_palette_reports_contrast() {
    let tmp = tempfile::tempdir().unwrap();
    let reg = ThemeRegistry::load(tmp.path());
    let v = list_themes(&reg, Some("dracula"), None).unwrap();
    assert!(
        v.get("themes").is_none(),
        "no list when only a theme is asked for"
    );
    let p = &v["palette"];
    assert_eq!(p["id"], "dracula");
    assert_eq!(p["display_name"], "Dracula");
    assert_eq!(p["dark"], true);
    assert_eq!(p["bg"], "#1e1f29");
    let swatches = p["swatches"].as_array().unwrap();
    assert_eq!(swatches.len(), 18);
    let names: Vec<&str> = swatches
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(&names[..2], &["fg", "cursor"]);
    assert_eq!(&names[2..], &ANSI_NAMES[..]);
    assert_eq!(swatches[0]["floor"], 4.5);
    assert_eq!(swatches[1]["floor"], 3.0);
    // Dracula's black (#21222c) is nearly its background, so it is flagged.
    let black = &swatches[2];
    assert_eq!(black["passes"], false);
    assert!(black["ratio"].as_f64().unwrap() < 3.0);
    let illegible = p["illegible"].as_array().unwrap();
    assert!(illegible.contains(&serde_json::json!("black")));
    for s in swatches {
        let ratio = s["ratio"].as_f64().unwrap();
        assert_eq!(ratio, (ratio * 100.0).round() / 100.0, "two decimals");
        assert_eq!(s["passes"], ratio >= s["floor"].as_f64().unwrap());
    }

    let both = list_themes(&reg, Some("dracula"), Some("dra")).unwrap();
    assert_eq!(
        both["themes"],
        serde_json::json!(["base_2_tone_drawbridge_dark", "dracula", "dracula_plus"])
    );
    assert_eq!(both["palette"]["id"], "dracula");
}

#[test]
fn list_themes_unknown_theme_suggests_the_closest() {
    let tmp = tempfile::tempdir().unwrap();
    let reg = ThemeRegistry::load(tmp.path());
    let err = list_themes(&reg, Some("dracla"), None).unwrap_err();
    assert_eq!(err.id, "dracla");
    assert_eq!(err.did_you_mean.as_deref(), Some("dracula"));
    assert_eq!(err.to_string(), "no theme named dracla");
    let far = list_themes(&reg, Some("zzzzzzzzzzzz"), None).unwrap_err();
    assert_eq!(far.did_you_mean, None);
}

#[test]
fn list_themes_caps_the_list_and_reports_problems() {
    let tmp = tempfile::tempdir().unwrap();
    for i in 0..120 {
        write(
            tmp.path(),
            &format!("zz_user_{i:03}.json"),
            r##"{"fg": "#ffffff", "bg": "#000000"}"##,
        );
    }
    write(tmp.path(), "zz_broken.json", "[]");
    let reg = ThemeRegistry::load(tmp.path());
    let v = list_themes(&reg, None, Some("zz_user")).unwrap();
    assert_eq!(v["matched"], 120);
    assert_eq!(v["themes"].as_array().unwrap().len(), THEME_LIST_CAP);
    assert_eq!(v["themes"][0], "zz_user_000");
    assert_eq!(v["truncated"], true);
    let problems = v["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1);
    assert!(problems[0].as_str().unwrap().contains("zz_broken.json"));
}

#[test]
fn themes_dir_is_under_the_config_dir() {
    let dir = themes_dir();
    assert!(dir.ends_with("tuios/themes"), "{}", dir.display());
}

/// The reference TUIOS's 342 built-in ids (bubbletint's registry).
const GO_THEME_IDS: &str = include_str!("../themes/go-theme-ids.txt");

#[test]
fn catalogue_has_the_breadth_of_go_and_its_names() {
    let themes = builtin_themes();
    assert!(themes.len() >= 369, "only {} built-in themes", themes.len());
    let ids: std::collections::BTreeSet<&str> = themes.iter().map(|t| t.id.as_str()).collect();
    let go: Vec<&str> = GO_THEME_IDS.split_whitespace().collect();
    assert_eq!(go.len(), 342);
    // Every id the reference accepts for appearance.theme is accepted here too.
    let missing: Vec<&&str> = go.iter().filter(|id| !ids.contains(*id)).collect();
    assert!(missing.is_empty(), "Go theme ids missing here: {missing:?}");
    for id in [
        "3024_day",
        "adventure_time",
        "cobalt_2",
        "i_term_2_dark_background",
        "ha_x_0_r_gr_33_n",
        "solarized_dark___patched",
        "dark_plus",
        "tinacious_design_light",
        "jet_brains_darcula",
        "tokyonight_storm",
        "monokai_pro_filter_octagon",
        "h_4_rithd_com",
        "qb_64_super_dark_blue",
        "serendipity_sunset",
    ] {
        assert!(ids.contains(id), "{id} is spelled as Go spells it");
    }
}

#[test]
fn every_builtin_has_sixteen_colours_and_fg_bg() {
    // The data file is checked raw, not through the typed struct, so a short palette would
    // fail here rather than be refused at start-up.
    let raw: Vec<serde_json::Value> =
        serde_json::from_str(include_str!("../themes/builtin.json")).unwrap();
    assert_eq!(raw.len(), builtin_themes().len());
    for t in &raw {
        let id = t["id"].as_str().unwrap();
        assert_eq!(t["ansi"].as_array().map(Vec::len), Some(16), "{id}");
        for k in ["fg", "bg", "cursor"] {
            assert!(is_hex_colour(t[k].as_str().unwrap_or("")), "{id}: {k}");
        }
    }
}
