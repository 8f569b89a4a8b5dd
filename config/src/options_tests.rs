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

/// The reference TUIOS's 86 options: path, type, section, default, accepted (comma-joined),
/// enforced range.
const GO_OPTIONS: [(&str, &str, &str, &str, &str, &str); 86] = [
    (
        "appearance.border_style",
        "string",
        "appearance",
        "rounded",
        "rounded, normal, thick, double, block, outer-half-block, inner-half-block, ascii, hidden",
        "",
    ),
    (
        "appearance.zen_mode",
        "string",
        "appearance",
        "disabled",
        "disabled, always, mouse",
        "",
    ),
    (
        "appearance.hide_window_buttons",
        "bool",
        "appearance",
        "false",
        "",
        "",
    ),
    (
        "appearance.window_button_style",
        "string",
        "appearance",
        "pill",
        "pill, dots",
        "",
    ),
    (
        "appearance.window_button_position",
        "string",
        "appearance",
        "right",
        "right, left",
        "",
    ),
    (
        "appearance.hide_scrollbar",
        "bool",
        "appearance",
        "false",
        "",
        "",
    ),
    (
        "appearance.scrollback_lines",
        "int",
        "appearance",
        "10000",
        "",
        // The reference stops at 1000000; history on disk lets tuios keep far more.
        "100..100000000",
    ),
    (
        "appearance.scroll_lines",
        "int",
        "appearance",
        "3",
        "",
        "1..50",
    ),
    (
        "appearance.copy_on_select",
        "bool",
        "appearance",
        "true",
        "",
        "",
    ),
    (
        "appearance.focus_follows_mouse",
        "bool",
        "appearance",
        "false",
        "",
        "",
    ),
    ("appearance.alt_drag", "bool", "appearance", "true", "", ""),
    (
        "appearance.click_to_type",
        "string",
        "appearance",
        "single",
        "single, double, off",
        "",
    ),
    (
        "appearance.word_characters",
        "string",
        "appearance",
        "@-./_~?&=%+#",
        "",
        "",
    ),
    (
        "appearance.preferred_shell",
        "string",
        "appearance",
        "",
        "",
        "",
    ),
    (
        "appearance.animations_enabled",
        "bool",
        "appearance",
        "true",
        "",
        "",
    ),
    (
        "appearance.confirm_quit",
        "bool",
        "appearance",
        "false",
        "",
        "",
    ),
    (
        "appearance.whichkey_enabled",
        "bool",
        "appearance",
        "true",
        "",
        "",
    ),
    (
        "appearance.whichkey_position",
        "string",
        "appearance",
        "",
        "bottom-right, bottom-left, top-right, top-left, center",
        "",
    ),
    (
        "appearance.window_title_position",
        "string",
        "appearance",
        "",
        "bottom, top, hidden",
        "",
    ),
    ("appearance.theme", "string", "appearance", "", "", ""),
    (
        "appearance.shared_borders",
        "bool",
        "appearance",
        "false",
        "",
        "",
    ),
    (
        "appearance.border_focused_color",
        "string",
        "appearance",
        "",
        "",
        "",
    ),
    (
        "appearance.border_unfocused_color",
        "string",
        "appearance",
        "",
        "",
        "",
    ),
    (
        "appearance.window_title_format",
        "string",
        "appearance",
        "",
        "",
        "",
    ),
    (
        "appearance.zoom_max_width",
        "int",
        "appearance",
        "0",
        "",
        "",
    ),
    (
        "appearance.niri_reverse_scroll",
        "bool",
        "appearance",
        "false",
        "",
        "",
    ),
    ("appearance.max_fps", "int", "appearance", "0", "", "0..240"),
    (
        "appearance.session_colors",
        "bool",
        "appearance",
        "true",
        "",
        "",
    ),
    (
        "appearance.sidebar_enabled",
        "bool",
        "appearance",
        "false",
        "",
        "",
    ),
    (
        "appearance.sidebar_position",
        "string",
        "appearance",
        "",
        "left, right, hidden",
        "",
    ),
    ("appearance.sidebar_width", "int", "appearance", "0", "", ""),
    (
        "appearance.sidebar_show_windows",
        "bool",
        "appearance",
        "true",
        "",
        "",
    ),
    (
        "appearance.sidebar_show_glyphs",
        "bool",
        "appearance",
        "true",
        "",
        "",
    ),
    (
        "appearance.sidebar_show_counts",
        "bool",
        "appearance",
        "true",
        "",
        "",
    ),
    (
        "appearance.dockbar_position",
        "string",
        "dock",
        "bottom",
        "bottom, top, hidden",
        "",
    ),
    (
        "appearance.dock_workspace_tabs",
        "bool",
        "dock",
        "true",
        "",
        "",
    ),
    (
        "appearance.dock_workspace_tab_format",
        "string",
        "dock",
        "",
        "",
        "",
    ),
    (
        "appearance.dock_workspace_tooltip",
        "bool",
        "dock",
        "true",
        "",
        "",
    ),
    ("appearance.dock_pill_caps", "bool", "dock", "false", "", ""),
    ("appearance.show_clock", "bool", "dock", "false", "", ""),
    ("appearance.hide_clock", "bool", "dock", "false", "", ""),
    ("appearance.show_cpu", "bool", "dock", "false", "", ""),
    ("appearance.show_ram", "bool", "dock", "false", "", ""),
    (
        "appearance.scrollbar.style",
        "string",
        "scrollbar",
        "thin",
        "thin, track",
        "",
    ),
    (
        "appearance.scrollbar.thumb",
        "string",
        "scrollbar",
        "",
        "",
        "",
    ),
    (
        "appearance.scrollbar.track",
        "string",
        "scrollbar",
        "",
        "",
        "",
    ),
    (
        "appearance.scrollbar.tint",
        "string",
        "scrollbar",
        "quiet",
        "quiet, border, muted",
        "",
    ),
    (
        "appearance.sidebar.enabled",
        "bool",
        "sidebar",
        "false",
        "",
        "",
    ),
    (
        "appearance.sidebar.position",
        "string",
        "sidebar",
        "left",
        "left, right, hidden",
        "",
    ),
    ("appearance.sidebar.width", "int", "sidebar", "28", "", ""),
    (
        "appearance.sidebar.show_windows",
        "bool",
        "sidebar",
        "true",
        "",
        "",
    ),
    (
        "appearance.sidebar.show_glyphs",
        "bool",
        "sidebar",
        "true",
        "",
        "",
    ),
    (
        "appearance.sidebar.show_counts",
        "bool",
        "sidebar",
        "true",
        "",
        "",
    ),
    (
        "appearance.sidebar.show_agents",
        "bool",
        "sidebar",
        "true",
        "",
        "",
    ),
    (
        "appearance.sidebar.marquee",
        "bool",
        "sidebar",
        "true",
        "",
        "",
    ),
    (
        "appearance.sidebar.tooltips",
        "bool",
        "sidebar",
        "true",
        "",
        "",
    ),
    (
        "appearance.sidebar.workspaces",
        "string",
        "sidebar",
        "",
        "",
        "",
    ),
    (
        "startup.open_default_window",
        "bool",
        "startup",
        "false",
        "",
        "",
    ),
    ("startup.tiled", "bool", "startup", "false", "", ""),
    (
        "startup.start_in_terminal_mode",
        "bool",
        "startup",
        "false",
        "",
        "",
    ),
    ("startup.daemon", "bool", "startup", "false", "", ""),
    (
        "daemon.log_level",
        "string",
        "daemon",
        "off",
        "off, errors, basic, messages, verbose, trace",
        "",
    ),
    ("daemon.agent_autodetect", "bool", "daemon", "true", "", ""),
    ("daemon.agent_detect_seconds", "int", "daemon", "0", "", ""),
    (
        "notifications.duration",
        "int",
        "notifications",
        "0",
        "",
        "0..3600",
    ),
    (
        "notifications.warning_duration",
        "int",
        "notifications",
        "0",
        "",
        "0..3600",
    ),
    (
        "notifications.error_duration",
        "int",
        "notifications",
        "0",
        "",
        "0..3600",
    ),
    (
        "notifications.error_sticky",
        "bool",
        "notifications",
        "true",
        "",
        "",
    ),
    (
        "notifications.agent.enabled",
        "bool",
        "notifications",
        "true",
        "",
        "",
    ),
    (
        "notifications.agent.notify",
        "bool",
        "notifications",
        "true",
        "",
        "",
    ),
    (
        "notifications.agent.sound",
        "bool",
        "notifications",
        "false",
        "",
        "",
    ),
    (
        "notifications.agent.sound_mode",
        "string",
        "notifications",
        "",
        "audio, bell, both",
        "",
    ),
    (
        "notifications.agent.sound_cooldown_seconds",
        "int",
        "notifications",
        "3",
        "",
        "0..3600",
    ),
    (
        "notifications.agent.dock",
        "bool",
        "notifications",
        "true",
        "",
        "",
    ),
    (
        "notifications.agent.command",
        "string",
        "notifications",
        "",
        "",
        "",
    ),
    (
        "notifications.agent.settle_seconds",
        "int",
        "notifications",
        "2",
        "",
        "0..3600",
    ),
    (
        "notifications.agent.suppress_focused",
        "bool",
        "notifications",
        "true",
        "",
        "",
    ),
    (
        "notifications.agent.quiet_hours",
        "string",
        "notifications",
        "",
        "",
        "",
    ),
    (
        "notifications.agent.states.needs_input",
        "bool",
        "notifications",
        "true",
        "",
        "",
    ),
    (
        "notifications.agent.states.errored",
        "bool",
        "notifications",
        "true",
        "",
        "",
    ),
    (
        "notifications.agent.states.done",
        "bool",
        "notifications",
        "true",
        "",
        "",
    ),
    (
        "notifications.agent.states.idle",
        "bool",
        "notifications",
        "false",
        "",
        "",
    ),
    (
        "notifications.agent.states.working",
        "bool",
        "notifications",
        "false",
        "",
        "",
    ),
    (
        "tape.autorun",
        "string",
        "tape",
        "ask",
        "off, ask, auto",
        "",
    ),
    ("tape.auto_review", "bool", "tape", "false", "", ""),
    ("debug.show_key_events", "bool", "debug", "false", "", ""),
];

/// Paths whose default is empty but whose closed set lacks "" (as in the reference): they
/// cannot be set back to their default.
const EMPTY_DEFAULT_OUTSIDE_SET: [&str; 4] = [
    "appearance.sidebar_position",
    "appearance.whichkey_position",
    "appearance.window_title_position",
    "notifications.agent.sound_mode",
];

#[test]
fn registry_is_sorted_unique_and_holds_every_reference_option() {
    let all = paths();
    for pair in all.windows(2) {
        assert!(pair[0] < pair[1], "{} / {}", pair[0], pair[1]);
    }
    assert_eq!(
        all.len(),
        90,
        "86 of the reference plus daemon.resurrect_commands, recording.auto and the two history budgets"
    );
    for (path, ty, section, default, accepted, range) in GO_OPTIONS {
        let spec = resolve(path).unwrap_or_else(|| panic!("{path} is missing"));
        assert_eq!(spec.path, path);
        assert_eq!(spec.ty.as_str(), ty, "{path}");
        assert_eq!(spec.section, section, "{path}");
        assert_eq!(spec.default, default, "{path}");
        assert_eq!(spec.accepted.join(", "), accepted, "{path}");
        let ours = match (spec.min, spec.max) {
            (Some(min), Some(max)) => format!("{min}..{max}"),
            _ => String::new(),
        };
        assert_eq!(ours, range, "{path}");
    }
    assert!(resolve("daemon.resurrect_commands").is_some());
    assert!(resolve("recording.auto").is_some());
    assert!(resolve("appearance.history_bytes").is_some());
    assert!(resolve("appearance.history_disk_bytes").is_some());
    assert_eq!(
        sections(),
        [
            "appearance",
            "daemon",
            "debug",
            "dock",
            "notifications",
            "recording",
            "scrollbar",
            "sidebar",
            "startup",
            "tape"
        ]
    );
    for spec in options() {
        assert!(!spec.description.is_empty(), "{}", spec.path);
        assert!(!spec.description.ends_with('.'), "{}", spec.path);
        assert_eq!(spec.min.is_some(), spec.max.is_some(), "{}", spec.path);
        if spec.min.is_some() {
            assert_eq!(spec.ty, OptionType::Int, "{}", spec.path);
        }
        if let (Some(min), Some(max)) = (spec.min, spec.max) {
            assert!(min <= max, "{}", spec.path);
        }
        assert!(
            spec.kind == OptionKind::Plain || spec.ty == OptionType::String,
            "{}",
            spec.path
        );
        if let Applies::Inert(why) = spec.applies {
            assert!(!why.is_empty() && !why.ends_with('.'), "{}", spec.path);
        }
    }
}

#[test]
fn what_applies_and_what_is_only_recorded() {
    let applied = |p: &str| !matches!(resolve(p).unwrap().applies, Applies::Inert(_));
    for p in [
        "appearance.border_style",
        "appearance.hide_clock",
        "appearance.theme",
        "appearance.scrollback_lines",
        "daemon.agent_detect_seconds",
        "daemon.resurrect_commands",
        "notifications.duration",
        "notifications.error_duration",
        "appearance.show_ram",
        "notifications.agent.command",
        "notifications.agent.states.idle",
        "tape.autorun",
        "tape.auto_review",
        "appearance.scrollbar.tint",
        "appearance.hide_window_buttons",
        "appearance.shared_borders",
        "appearance.dock_pill_caps",
        "appearance.dock_workspace_tooltip",
        "appearance.sidebar.enabled",
        "appearance.sidebar_enabled",
        "appearance.sidebar.workspaces",
        "appearance.session_colors",
        "appearance.copy_on_select",
        "appearance.focus_follows_mouse",
        "appearance.word_characters",
        "appearance.animations_enabled",
        "notifications.error_sticky",
        "startup.open_default_window",
        "startup.daemon",
    ] {
        assert!(applied(p), "{p}");
    }
    let inert = options()
        .iter()
        .filter(|o| matches!(o.applies, Applies::Inert(_)))
        .count();
    assert_eq!(inert, 0);
    assert_eq!(Applies::Inert("x").as_str(), "inert");
    let dep = resolve("appearance.hide_clock")
        .unwrap()
        .deprecated
        .unwrap();
    assert!(dep.contains("appearance.show_clock"), "{dep}");
    assert_eq!(
        options().iter().filter(|o| o.deprecated.is_some()).count(),
        8
    );
}

#[test]
fn reference_kinds_and_unbounded_ints() {
    assert_eq!(
        resolve("appearance.scrollbar.tint").unwrap().kind,
        OptionKind::Colour
    );
    assert!(
        resolve("scrollbar.tint").is_none(),
        "a dotted key is never put under appearance"
    );
    assert_eq!(
        check("appearance.scrollbar.tint", "muted").as_deref(),
        Ok("muted")
    );
    assert_eq!(
        check("appearance.scrollbar.tint", "#a0b0c0").as_deref(),
        Ok("#a0b0c0")
    );
    let err = check("appearance.scrollbar.tint", "loud").unwrap_err();
    assert!(
        err.message.contains("quiet, border, muted"),
        "{}",
        err.message
    );
    // No enforced range: any whole number goes, negatives included.
    assert_eq!(
        check("appearance.zoom_max_width", "-4").as_deref(),
        Ok("-4")
    );
    assert_eq!(
        check("daemon.agent_detect_seconds", "-30").as_deref(),
        Ok("-30")
    );
    assert_eq!(
        check("appearance.sidebar.width", "900").as_deref(),
        Ok("900")
    );
    assert!(check("notifications.agent.settle_seconds", "3601").is_err());
    assert!(check("tape.autorun", "always").is_err());
    assert_eq!(check("debug.show_key_events", "on").as_deref(), Ok("on"));
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
        if EMPTY_DEFAULT_OUTSIDE_SET.contains(&spec.path) {
            assert!(
                validate_value(spec, spec.default, &reg).is_err(),
                "{}",
                spec.path
            );
            continue;
        }
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
    assert!(err.message.contains(
        "rounded, normal, thick, double, block, outer-half-block, inner-half-block, ascii, hidden"
    ));
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
        err.message.contains("outside the range 100..100000000"),
        "{}",
        err.message
    );
    assert!(check("appearance.scrollback_lines", "99").is_err());
    assert!(check("appearance.scrollback_lines", "10000000").is_ok());
    assert!(check("appearance.history_bytes", "65535").is_err());
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
