use super::*;
use crate::themes::ThemeRegistry;

fn registry() -> (tempfile::TempDir, ThemeRegistry) {
    let tmp = tempfile::tempdir().unwrap();
    let reg = ThemeRegistry::load(tmp.path());
    (tmp, reg)
}

fn check(path: &str, value: &str) -> Result<String, OptionValueError> {
    let (_tmp, reg) = registry();
    validate_value(resolve(path).unwrap(), value, &reg)
}

#[test]
fn registry_is_sorted_unique_and_exactly_the_honoured_set() {
    let all = paths();
    for pair in all.windows(2) {
        assert!(pair[0] < pair[1], "{} / {}", pair[0], pair[1]);
    }
    assert_eq!(
        all,
        [
            "appearance.border_focused_color",
            "appearance.border_style",
            "appearance.border_unfocused_color",
            "appearance.dock_workspace_tabs",
            "appearance.dockbar_position",
            "appearance.max_fps",
            "appearance.preferred_shell",
            "appearance.scroll_lines",
            "appearance.scrollback_lines",
            "appearance.show_clock",
            "appearance.theme",
            "appearance.window_title_position",
            "daemon.agent_autodetect",
            "daemon.agent_detect_seconds",
            "daemon.resurrect_commands",
            "notifications.duration",
        ]
    );
    assert_eq!(
        sections(),
        ["appearance", "daemon", "dock", "notifications"]
    );
    for spec in options() {
        assert!(!spec.description.is_empty(), "{}", spec.path);
        assert!(!spec.description.ends_with('.'), "{}", spec.path);
        assert_eq!(
            spec.min.is_some(),
            spec.ty == OptionType::Int,
            "{}",
            spec.path
        );
        if let (Some(min), Some(max)) = (spec.min, spec.max) {
            assert!(min <= max, "{}", spec.path);
        }
        assert!(
            spec.kind == OptionKind::Plain || spec.ty == OptionType::String,
            "{}",
            spec.path
        );
    }
}

#[test]
fn shapes_of_the_specific_options() {
    let dock = resolve("appearance.dockbar_position").unwrap();
    assert_eq!(dock.section, "dock");
    assert_eq!(dock.default, "bottom");
    assert_eq!(dock.accepted, ["bottom", "top", "hidden"]);
    let theme = resolve("appearance.theme").unwrap();
    assert_eq!(theme.kind, OptionKind::Theme);
    assert_eq!(theme.default, "");
    let sb = resolve("appearance.scrollback_lines").unwrap();
    assert_eq!(sb.applies, Applies::Daemon);
    assert_eq!(
        as_int(sb.default),
        Some(crate::DEFAULT_SCROLLBACK_LINES as i64)
    );
    assert_eq!(
        resolve("appearance.preferred_shell").unwrap().applies,
        Applies::Daemon
    );
    assert_eq!(
        resolve("appearance.border_style").unwrap().applies,
        Applies::Client
    );
    assert_eq!(OptionType::Int.as_str(), "int");
    assert_eq!(OptionType::Bool.to_string(), "bool");
    assert_eq!(OptionType::String.as_str(), "string");
}

#[test]
fn resolve_exact_and_bare_keys() {
    assert_eq!(
        resolve("appearance.border_style").unwrap().path,
        "appearance.border_style"
    );
    assert_eq!(
        resolve("border_style").unwrap().path,
        "appearance.border_style"
    );
    assert_eq!(
        resolve("dockbar_position").unwrap().path,
        "appearance.dockbar_position"
    );
    assert!(
        resolve("duration").is_none(),
        "bare keys only reach appearance.*"
    );
    assert_eq!(
        resolve("notifications.duration").unwrap().ty,
        OptionType::Int
    );
    assert!(resolve("appearance.nope").is_none());
    assert!(resolve("nope").is_none());
    assert!(resolve("").is_none());
    assert!(
        resolve("Appearance.border_style").is_none(),
        "paths are case-sensitive"
    );
}

#[test]
fn did_you_mean_handles_full_and_bare_keys() {
    assert_eq!(
        did_you_mean("appearance.border_styel").as_deref(),
        Some("appearance.border_style")
    );
    assert_eq!(
        did_you_mean("border_styel").as_deref(),
        Some("appearance.border_style")
    );
    assert_eq!(
        did_you_mean("dockbar_positon").as_deref(),
        Some("appearance.dockbar_position")
    );
    assert_eq!(did_you_mean("something.else.entirely"), None);
}

#[test]
fn every_default_validates_as_itself() {
    let (_tmp, reg) = registry();
    for spec in options() {
        assert_eq!(
            validate_value(spec, spec.default, &reg).as_deref(),
            Ok(spec.default),
            "{}",
            spec.path
        );
    }
}

#[test]
fn closed_sets_are_exact_and_suggest() {
    assert_eq!(
        check("appearance.border_style", "double").as_deref(),
        Ok("double")
    );
    assert_eq!(
        check("appearance.border_style", " ascii ").as_deref(),
        Ok("ascii")
    );
    let err = check("appearance.border_style", "Double").unwrap_err();
    assert!(
        err.message
            .starts_with("appearance.border_style: \"Double\""),
        "{}",
        err.message
    );
    assert!(err
        .message
        .contains("rounded, normal, thick, double, ascii, hidden"));
    assert_eq!(err.did_you_mean.as_deref(), Some("double"));
    assert!(
        err.detail.starts_with("type string, default rounded. "),
        "{}",
        err.detail
    );
    let err = check("appearance.dockbar_position", "left").unwrap_err();
    assert!(err.message.contains("bottom, top, hidden"));
    assert!(check("appearance.dockbar_position", "").is_err());
    assert_eq!(
        check("appearance.window_title_position", "hidden").as_deref(),
        Ok("hidden")
    );
    assert!(check("appearance.window_title_position", "").is_err());
}

#[test]
fn bool_words() {
    for word in TRUE_WORDS.iter().chain(FALSE_WORDS.iter()) {
        assert_eq!(check("appearance.show_clock", word).as_deref(), Ok(*word));
        let upper = word.to_uppercase();
        assert_eq!(check("appearance.show_clock", &upper), Ok(upper.clone()));
    }
    assert_eq!(check("appearance.show_clock", "  on ").as_deref(), Ok("on"));
    let err = check("appearance.dock_workspace_tabs", "maybe").unwrap_err();
    assert!(err.message.contains("\"maybe\""), "{}", err.message);
    assert!(check("appearance.show_clock", "").is_err());
    assert_eq!(as_bool(" Enabled "), Some(true));
    assert_eq!(as_bool("OFF"), Some(false));
    assert_eq!(as_bool("2"), None);
}

#[test]
fn int_parsing_and_ranges() {
    assert_eq!(check("appearance.scroll_lines", "1").as_deref(), Ok("1"));
    assert_eq!(check("appearance.scroll_lines", "50").as_deref(), Ok("50"));
    assert_eq!(check("appearance.scroll_lines", "+5").as_deref(), Ok("+5"));
    let err = check("appearance.scroll_lines", "0").unwrap_err();
    assert_eq!(
        err.message,
        "appearance.scroll_lines: 0 is outside the range 1..50"
    );
    assert!(err.detail.contains("range 1..50"), "{}", err.detail);
    assert!(check("appearance.scroll_lines", "51").is_err());
    assert!(check("appearance.scroll_lines", "-3").is_err());
    let err = check("appearance.scroll_lines", "3.5").unwrap_err();
    assert!(
        err.message.contains("not a whole number"),
        "{}",
        err.message
    );
    assert!(check("appearance.scroll_lines", "").is_err());
    let err = check("appearance.scrollback_lines", "99999999999999999999999").unwrap_err();
    assert!(
        err.message.contains("outside the range 100..1000000"),
        "{}",
        err.message
    );
    assert!(check("appearance.scrollback_lines", "99").is_err());
    assert!(check("appearance.scrollback_lines", "1000000").is_ok());
    assert!(check("appearance.max_fps", "240").is_ok());
    assert!(check("appearance.max_fps", "241").is_err());
    assert!(check("notifications.duration", "3600").is_ok());
    assert!(check("notifications.duration", "3601").is_err());
    assert_eq!(as_int(" -7 "), Some(-7));
    assert_eq!(as_int("x"), None);
}

#[test]
fn colours() {
    for ok in ["", "#89b4fa", "#89B4FA", " #585b70 "] {
        assert_eq!(
            check("appearance.border_focused_color", ok).as_deref(),
            Ok(ok.trim()),
            "{ok}"
        );
    }
    for bad in ["89b4fa", "#89b4f", "#89b4fa0", "red", "#ggggggg", "#gggggg"] {
        let err = check("appearance.border_unfocused_color", bad).unwrap_err();
        assert!(
            err.message.contains("is not a colour"),
            "{bad}: {}",
            err.message
        );
    }
}

#[test]
fn theme_must_exist_and_new_files_are_seen() {
    let (tmp, reg) = registry();
    let spec = resolve("theme").unwrap();
    assert_eq!(validate_value(spec, "", &reg).as_deref(), Ok(""));
    assert_eq!(
        validate_value(spec, "dracula", &reg).as_deref(),
        Ok("dracula")
    );
    let err = validate_value(spec, "dracla", &reg).unwrap_err();
    assert_eq!(err.did_you_mean.as_deref(), Some("dracula"));
    assert!(
        err.message.contains("no theme called \"dracla\""),
        "{}",
        err.message
    );
    assert!(err.message.contains("dracla.json"), "{}", err.message);

    // Written after the registry was loaded: validation reads the directory again.
    std::fs::write(
        tmp.path().join("fresh.json"),
        r##"{"fg": "#ffffff", "bg": "#000000"}"##,
    )
    .unwrap();
    assert!(reg.get("fresh").is_none());
    assert_eq!(validate_value(spec, "fresh", &reg).as_deref(), Ok("fresh"));
}

#[test]
fn strings_refuse_control_characters() {
    assert_eq!(
        check("appearance.preferred_shell", "/bin/zsh").as_deref(),
        Ok("/bin/zsh")
    );
    assert_eq!(check("appearance.preferred_shell", "").as_deref(), Ok(""));
    assert!(check("appearance.preferred_shell", "/bin/sh\nrm").is_err());
}

#[test]
fn long_values_are_cut_in_messages() {
    let long = "x".repeat(500);
    let err = check("appearance.border_style", &long).unwrap_err();
    assert!(err.message.len() < 300, "{}", err.message);
}

#[test]
fn policy_only_keys() {
    for key in [
        "lumen.focus_return_chord",
        "keybindings.focus_return",
        "focus_return_chord",
        "appearance.focus_return_chord",
        "Focus-Return",
    ] {
        let why = policy_only(key).unwrap_or_else(|| panic!("{key} should be policy-only"));
        assert!(why.contains("policy.toml"), "{why}");
        assert!(why.contains("focus-return"), "{why}");
    }
    assert!(policy_only("lumen.link_schemes")
        .unwrap()
        .contains("policy.toml"));
    assert!(policy_only("links.opener").is_some());
    for spec in options() {
        assert_eq!(policy_only(spec.path), None, "{}", spec.path);
    }
    assert_eq!(policy_only("border_style"), None);
    assert!(policy_file_path().ends_with("tuios/policy.toml"));
}
