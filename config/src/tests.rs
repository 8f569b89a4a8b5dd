use super::*;
use std::io::Write;

fn file_with(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new()
        .suffix(".toml")
        .tempfile()
        .expect("temp file");
    f.write_all(text.as_bytes()).expect("write temp file");
    f
}

fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn defaults_without_file_or_env() {
    let cfg = load_daemon_config_from(None, None, &[]).unwrap();
    assert_eq!(cfg, DaemonConfig::default());
    assert_eq!(cfg.scrollback_lines, 10_000);
    assert_eq!(cfg.log_level, None);
    assert_eq!(cfg.shell, None);
}

#[test]
fn missing_default_file_is_fine() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("tuios").join("config.toml");
    let cfg = load_daemon_config_from(None, Some(&missing), &[]).unwrap();
    assert_eq!(cfg, DaemonConfig::default());
}

#[test]
fn missing_explicit_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.toml");
    let err = load_daemon_config_from(Some(&missing), None, &[]).unwrap_err();
    assert!(err.0.contains("nope.toml"), "{err}");
}

#[test]
fn file_daemon_table_is_read_and_other_tables_ignored() {
    let f = file_with(
        "[daemon]\nscrollback_lines = 500\nshell = \"/bin/zsh\"\nlog_level = \"debug\"\n\n\
         [keybindings]\nleader = \"ctrl+a\"\n[appearance]\nwhatever = 3\n",
    );
    let cfg = load_daemon_config_from(Some(f.path()), None, &[]).unwrap();
    assert_eq!(
        cfg,
        DaemonConfig {
            log_level: Some("debug".into()),
            scrollback_lines: 500,
            shell: Some("/bin/zsh".into()),
        }
    );
}

#[test]
fn file_without_daemon_table_gives_defaults() {
    let f = file_with("[appearance]\nborder = \"rounded\"\n");
    let cfg = load_daemon_config_from(Some(f.path()), None, &[]).unwrap();
    assert_eq!(cfg, DaemonConfig::default());
}

#[test]
fn default_file_is_used_when_no_explicit_one() {
    let f = file_with("[daemon]\nscrollback_lines = 42\n");
    let cfg = load_daemon_config_from(None, Some(f.path()), &[]).unwrap();
    assert_eq!(cfg.scrollback_lines, 42);
}

#[test]
fn explicit_file_replaces_default_file() {
    let default = file_with("[daemon]\nscrollback_lines = 42\nshell = \"/bin/fish\"\n");
    let explicit = file_with("[daemon]\nscrollback_lines = 7\n");
    let cfg = load_daemon_config_from(Some(explicit.path()), Some(default.path()), &[]).unwrap();
    assert_eq!(cfg.scrollback_lines, 7);
    assert_eq!(cfg.shell, None, "the default file must not be read at all");
}

#[test]
fn env_beats_file_beats_defaults() {
    let f = file_with("[daemon]\nscrollback_lines = 500\nshell = \"/bin/zsh\"\n");
    let e = env(&[("TUIOS_SCROLLBACK_LINES", "42")]);
    let cfg = load_daemon_config_from(Some(f.path()), None, &e).unwrap();
    assert_eq!(cfg.scrollback_lines, 42);
    assert_eq!(cfg.shell.as_deref(), Some("/bin/zsh"));

    let e = env(&[("TUIOS_SHELL", "/bin/bash"), ("TUIOS_LOG_LEVEL", "warn")]);
    let cfg = load_daemon_config_from(Some(f.path()), None, &e).unwrap();
    assert_eq!(cfg.scrollback_lines, 500);
    assert_eq!(cfg.shell.as_deref(), Some("/bin/bash"));
    assert_eq!(cfg.log_level.as_deref(), Some("warn"));
}

#[test]
fn other_tuios_variables_are_ignored() {
    let e = env(&[
        ("TUIOS_SOCKET", "/tmp/x.sock"),
        ("TUIOS_SESSION", "main"),
        ("TUIOS_WINDOW_ID", "abc"),
        ("TUIOS_ENV", "1"),
        ("TUIOS_LOG", "debug"),
        ("TUIOS_SCROLLBACK", "lots"),
    ]);
    let cfg = load_daemon_config_from(None, None, &e).unwrap();
    assert_eq!(cfg, DaemonConfig::default());
}

#[test]
fn empty_env_values_count_as_unset() {
    let e = env(&[
        ("TUIOS_SHELL", ""),
        ("TUIOS_SCROLLBACK_LINES", ""),
        ("TUIOS_LOG_LEVEL", ""),
    ]);
    let cfg = load_daemon_config_from(None, None, &e).unwrap();
    assert_eq!(cfg, DaemonConfig::default());
}

#[test]
fn env_strings_stay_strings() {
    let e = env(&[("TUIOS_SHELL", "123"), ("TUIOS_LOG_LEVEL", "info")]);
    let cfg = load_daemon_config_from(None, None, &e).unwrap();
    assert_eq!(cfg.shell.as_deref(), Some("123"));
}

#[test]
fn bad_env_value_names_the_variable() {
    let e = env(&[("TUIOS_SCROLLBACK_LINES", "lots")]);
    let err = load_daemon_config_from(None, None, &e).unwrap_err();
    assert!(err.0.contains("TUIOS_SCROLLBACK_LINES"), "{err}");
    assert!(err.0.contains("scrollback_lines"), "{err}");

    let e = env(&[("TUIOS_SCROLLBACK_LINES", "-5")]);
    let err = load_daemon_config_from(None, None, &e).unwrap_err();
    assert!(err.0.contains("TUIOS_SCROLLBACK_LINES"), "{err}");
}

#[test]
fn bad_file_value_names_key_and_file() {
    let f = file_with("[daemon]\nscrollback_lines = \"many\"\n");
    let err = load_daemon_config_from(Some(f.path()), None, &[]).unwrap_err();
    let path = f.path().display().to_string();
    assert!(err.0.contains("scrollback_lines"), "{err}");
    assert!(err.0.contains(&path), "{err}");
    assert!(
        !err.0.contains("default."),
        "no figment profile prefix: {err}"
    );
}

#[test]
fn unknown_key_is_an_error_with_did_you_mean() {
    let f = file_with("[daemon]\nscrolback_lines = 5\n");
    let err = load_daemon_config_from(Some(f.path()), None, &[]).unwrap_err();
    let path = f.path().display().to_string();
    assert!(err.0.contains("scrolback_lines"), "{err}");
    assert!(err.0.contains("did you mean `scrollback_lines`"), "{err}");
    assert!(err.0.contains(&path), "{err}");
}

#[test]
fn unknown_key_far_from_everything_has_no_suggestion() {
    let f = file_with("[daemon]\nagent_binaries = [\"claude\"]\n");
    let err = load_daemon_config_from(Some(f.path()), None, &[]).unwrap_err();
    assert!(err.0.contains("agent_binaries"), "{err}");
    assert!(!err.0.contains("did you mean"), "{err}");
}

#[test]
fn syntax_error_names_the_file() {
    let f = file_with("[daemon\nscrollback_lines = 5\n");
    let err = load_daemon_config_from(Some(f.path()), None, &[]).unwrap_err();
    assert!(err.0.contains(&f.path().display().to_string()), "{err}");
}

#[test]
fn daemon_key_that_is_not_a_table_is_refused() {
    let f = file_with("daemon = 5\n");
    let err = load_daemon_config_from(Some(f.path()), None, &[]).unwrap_err();
    assert!(err.0.contains("must be a table"), "{err}");
}

#[test]
fn bad_log_level_is_refused_with_its_source() {
    let f = file_with("[daemon]\nlog_level = \"debg\"\n");
    let err = load_daemon_config_from(Some(f.path()), None, &[]).unwrap_err();
    assert!(err.0.contains("log_level"), "{err}");
    assert!(err.0.contains("did you mean `debug`"), "{err}");
    assert!(err.0.contains(&f.path().display().to_string()), "{err}");

    let e = env(&[("TUIOS_LOG_LEVEL", "loud")]);
    let err = load_daemon_config_from(None, None, &e).unwrap_err();
    assert!(err.0.contains("TUIOS_LOG_LEVEL"), "{err}");
}

#[test]
fn log_level_validation() {
    for ok in [
        "info",
        "DEBUG",
        "off",
        "tuios_actors=debug",
        "warn,tuios=trace",
    ] {
        assert!(validate_log_level(ok).is_ok(), "{ok}");
    }
    for bad in ["", "  ", "loud", "verbose"] {
        assert!(validate_log_level(bad).is_err(), "{bad}");
    }
}

#[test]
fn empty_shell_in_file_is_refused() {
    let f = file_with("[daemon]\nshell = \"\"\n");
    let err = load_daemon_config_from(Some(f.path()), None, &[]).unwrap_err();
    assert!(err.0.contains("shell"), "{err}");
}

#[test]
fn default_path_rules() {
    use std::ffi::OsStr;
    let p = default_config_path_from(Some(OsStr::new("/x/cfg")), Some(OsStr::new("/home/u")));
    assert_eq!(p, Some(PathBuf::from("/x/cfg/tuios/config.toml")));
    let p = default_config_path_from(None, Some(OsStr::new("/home/u")));
    assert_eq!(p, Some(PathBuf::from("/home/u/.config/tuios/config.toml")));
    // Empty or relative XDG values are ignored, as the XDG spec asks.
    let p = default_config_path_from(Some(OsStr::new("")), Some(OsStr::new("/home/u")));
    assert_eq!(p, Some(PathBuf::from("/home/u/.config/tuios/config.toml")));
    let p = default_config_path_from(Some(OsStr::new("rel")), Some(OsStr::new("/home/u")));
    assert_eq!(p, Some(PathBuf::from("/home/u/.config/tuios/config.toml")));
    assert_eq!(default_config_path_from(None, None), None);
}

#[test]
fn closest_follows_the_protocol_rule() {
    assert_eq!(
        closest("scrolback_lines", &["scrollback_lines", "shell"]),
        Some("scrollback_lines")
    );
    assert_eq!(closest("SHELL", &["log_level", "shell"]), Some("shell"));
    assert_eq!(closest("xyz", &["log_level", "shell"]), None);
    // Tie at equal distance goes to the lexicographically smallest candidate.
    assert_eq!(closest("ab", &["ac", "aa"]), Some("aa"));
}
