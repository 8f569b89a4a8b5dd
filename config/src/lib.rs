//! Configuration for tuios, layered with figment: built-in defaults, then the configuration file,
//! then `TUIOS_*` environment variables. Command-line flags are applied by the caller on top.
//!
//! The daemon reads only the `[daemon]` table of the file; other tables belong to the client and
//! are left alone here.
//!
//! [`options`] holds the registry of session options (`set-option` and friends) and [`themes`] the
//! colour themes, built-in and user-supplied.

mod example;
pub mod options;
pub mod theme_import;
pub mod themes;

pub use example::example_config;

use std::fmt;
use std::path::{Path, PathBuf};

use figment::providers::{Format, Serialized, Toml};
use figment::value::{Dict, Map, Value};
use figment::{Figment, Metadata, Profile, Provider};
use serde::{Deserialize, Serialize};

/// The table of the configuration file that holds the daemon's settings.
const DAEMON_TABLE: &str = "daemon";

/// The environment variables the daemon reads, and the key each one sets. Panes carry other
/// `TUIOS_*` variables (`TUIOS_SOCKET`, `TUIOS_SESSION`, ...) that must never reach the config.
const ENV_KEYS: [(&str, &str); 3] = [
    ("TUIOS_LOG_LEVEL", "log_level"),
    ("TUIOS_SCROLLBACK_LINES", "scrollback_lines"),
    ("TUIOS_SHELL", "shell"),
];

/// Figment metadata name of the environment layer; used to recognise it in errors.
const ENV_SOURCE_NAME: &str = "tuios environment variables";

/// Log levels accepted as a bare word. Anything else must be a full filter directive
/// (`target=level`, comma-separated) to be accepted.
pub const LOG_LEVELS: [&str; 6] = ["trace", "debug", "info", "warn", "error", "off"];

/// The events `[hooks]` can run a command for (the Go TUIOS's names); read by the attach
/// client, which runs them.
pub const HOOK_EVENTS: [&str; 9] = [
    "after-new-window",
    "after-close-window",
    "after-focus-change",
    "after-workspace-switch",
    "after-attach",
    "after-detach",
    "after-layout-change",
    "after-resize",
    "after-agent-state",
];

/// Scrollback lines kept per window when nothing else is configured.
pub const DEFAULT_SCROLLBACK_LINES: usize = 10_000;

/// Settings of the daemon, from the `[daemon]` table of the configuration file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DaemonConfig {
    /// Log filter: a level (`info`) or a tracing filter directive (`tuios_actors=debug,info`).
    pub log_level: Option<String>,
    /// Scrollback lines kept per window.
    pub scrollback_lines: usize,
    /// Shell for new windows; `None` means `$SHELL`, else `/bin/sh`.
    pub shell: Option<String>,
}

impl Default for DaemonConfig {
    fn default() -> Self {
        DaemonConfig {
            log_level: None,
            scrollback_lines: DEFAULT_SCROLLBACK_LINES,
            shell: None,
        }
    }
}

/// A configuration that could not be loaded. The message names the bad key and where it came
/// from (a file path or an environment variable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// The configuration file used when none is named: `$XDG_CONFIG_HOME/tuios/config.toml`, else
/// `~/.config/tuios/config.toml`. `None` when neither variable gives an absolute directory.
pub fn default_config_path() -> Option<PathBuf> {
    default_config_path_from(
        std::env::var_os("XDG_CONFIG_HOME").as_deref(),
        std::env::var_os("HOME").as_deref(),
    )
}

/// [`default_config_path`] with the environment passed in.
pub fn default_config_path_from(
    xdg_config_home: Option<&std::ffi::OsStr>,
    home: Option<&std::ffi::OsStr>,
) -> Option<PathBuf> {
    config_dir_from(xdg_config_home, home).map(|d| d.join("config.toml"))
}

/// The tuios configuration directory: `$XDG_CONFIG_HOME/tuios`, else `~/.config/tuios`. `None`
/// when neither variable gives an absolute directory.
pub fn config_dir() -> Option<PathBuf> {
    config_dir_from(
        std::env::var_os("XDG_CONFIG_HOME").as_deref(),
        std::env::var_os("HOME").as_deref(),
    )
}

/// [`config_dir`] with the environment passed in.
pub fn config_dir_from(
    xdg_config_home: Option<&std::ffi::OsStr>,
    home: Option<&std::ffi::OsStr>,
) -> Option<PathBuf> {
    // The XDG base-directory spec says relative values are invalid and must be ignored.
    let absolute = |v: Option<&std::ffi::OsStr>| {
        v.map(PathBuf::from)
            .filter(|p| !p.as_os_str().is_empty() && p.is_absolute())
    };
    if let Some(dir) = absolute(xdg_config_home) {
        return Some(dir.join("tuios"));
    }
    absolute(home).map(|h| h.join(".config").join("tuios"))
}

/// Load the daemon's configuration from the process environment.
///
/// Layers, later ones winning: defaults; the `[daemon]` table of `explicit` (which must exist) or
/// else of the default file (see [`default_config_path`]; a missing default file is fine); the
/// environment variables `TUIOS_LOG_LEVEL`, `TUIOS_SCROLLBACK_LINES` and `TUIOS_SHELL`.
pub fn load_daemon_config(explicit: Option<&Path>) -> Result<DaemonConfig, ConfigError> {
    let mut env = Vec::new();
    for (name, _) in ENV_KEYS {
        if let Some(value) = std::env::var_os(name) {
            // A value that is not UTF-8 cannot be a valid setting: say so rather than drop it.
            let value = value.into_string().map_err(|_| {
                ConfigError(format!("environment variable {name} is not valid UTF-8"))
            })?;
            env.push((name.to_string(), value));
        }
    }
    load_daemon_config_from(explicit, default_config_path().as_deref(), &env)
}

/// [`load_daemon_config`] with the default file path and the environment passed in, so tests need
/// not touch the process environment. `env` may hold any variables; only the three the daemon
/// reads are used, and an empty value counts as unset.
pub fn load_daemon_config_from(
    explicit: Option<&Path>,
    default_path: Option<&Path>,
    env: &[(String, String)],
) -> Result<DaemonConfig, ConfigError> {
    let mut figment = Figment::from(Serialized::default(DAEMON_TABLE, DaemonConfig::default()));
    let file = match (explicit, default_path) {
        (Some(path), _) => Some(path),
        (None, Some(path)) if path.exists() => Some(path),
        _ => None,
    };
    if let Some(path) = file {
        let toml = Figment::from(Toml::file_exact(path));
        // A `daemon` key that is not a table would otherwise be silently skipped by extraction
        // of the other layers; say what is wrong with it instead.
        match toml.find_value(DAEMON_TABLE) {
            Ok(Value::Dict(..)) => {}
            Ok(other) => {
                return Err(ConfigError(format!(
                    "bad value for `{DAEMON_TABLE}` in {}: it must be a table ([{DAEMON_TABLE}]), found {}",
                    path.display(),
                    other.to_actual()
                )))
            }
            // Missing table is fine; a file that cannot be read or parsed is reported below,
            // when the merged figment is extracted.
            Err(_) => {}
        }
        figment = figment.merge(toml);
    }
    figment = figment.merge(EnvLayer::new(env));

    let config: DaemonConfig = figment
        .extract_inner(DAEMON_TABLE)
        .map_err(|e| describe(e, file))?;
    if let Some(level) = &config.log_level {
        validate_log_level(level).map_err(|why| {
            let origin = figment
                .find_metadata(&format!("{DAEMON_TABLE}.log_level"))
                .map(|m| origin_of(Some(m), &["log_level".to_string()], file))
                .unwrap_or_default();
            ConfigError(format!("bad value for `log_level`{origin}: {why}"))
        })?;
    }
    if config.shell.as_deref() == Some("") {
        return Err(ConfigError(
            "bad value for `shell`: it must not be empty (leave it out to use $SHELL)".into(),
        ));
    }
    Ok(config)
}

/// The tracing filter a `daemon.log_level` value (the reference TUIOS's words) stands for.
pub fn log_level_directive(level: &str) -> Option<&'static str> {
    Some(match level {
        "off" => "off",
        "errors" => "error",
        "basic" => "warn",
        "messages" => "info",
        "verbose" => "debug",
        "trace" => "trace",
        _ => return None,
    })
}

/// Check a log filter: a bare level name (case-insensitive), or a filter directive holding `=`
/// or `,` (`tuios_actors=debug,info`). A bare word that is not a level is refused, because a
/// tracing filter would read it as a target name and silently hide every log line.
pub fn validate_log_level(level: &str) -> Result<(), String> {
    let trimmed = level.trim();
    if trimmed.is_empty() {
        return Err("a log level must not be empty".into());
    }
    if trimmed.contains(['=', ',']) {
        return Ok(());
    }
    let lower = trimmed.to_ascii_lowercase();
    if LOG_LEVELS.contains(&lower.as_str()) {
        return Ok(());
    }
    let mut why = format!(
        "`{trimmed}` is not a log level (accepted: {})",
        LOG_LEVELS.join(", ")
    );
    if let Some(best) = closest(trimmed, &LOG_LEVELS) {
        why.push_str(&format!("; did you mean `{best}`?"));
    }
    Err(why)
}

/// The environment layer: only the daemon's three variables, with empty values ignored.
struct EnvLayer {
    dict: Dict,
}

impl EnvLayer {
    fn new(env: &[(String, String)]) -> Self {
        let mut dict = Dict::new();
        for (name, value) in env {
            let Some((_, key)) = ENV_KEYS.iter().find(|(n, _)| n == name) else {
                continue;
            };
            if value.is_empty() {
                continue;
            }
            // Only the number is parsed; names such as a shell of `true` stay strings.
            let value = if *key == "scrollback_lines" {
                value
                    .trim()
                    .parse::<Value>()
                    .unwrap_or_else(|never| match never {})
            } else {
                Value::from(value.clone())
            };
            dict.insert((*key).to_string(), value);
        }
        EnvLayer { dict }
    }
}

impl Provider for EnvLayer {
    fn metadata(&self) -> Metadata {
        Metadata::named(ENV_SOURCE_NAME)
    }

    fn data(&self) -> Result<Map<Profile, Dict>, figment::Error> {
        let mut outer = Dict::new();
        outer.insert(DAEMON_TABLE.to_string(), Value::from(self.dict.clone()));
        Ok(Profile::Default.collect(outer))
    }
}

/// Turn figment's errors into one message per problem, each naming the key and its source.
fn describe(err: figment::Error, file: Option<&Path>) -> ConfigError {
    let lines: Vec<String> = err
        .into_iter()
        .map(|e| {
            // figment 0.10 appends the extracted table's name to the key path (`x.daemon`)
            // rather than prefixing it; drop it wherever it landed.
            let mut path = e.path.clone();
            if path.last().map(String::as_str) == Some(DAEMON_TABLE) {
                path.pop();
            } else if path.first().map(String::as_str) == Some(DAEMON_TABLE) {
                path.remove(0);
            }
            let origin = origin_of(e.metadata.as_ref(), &path, file);
            match &e.kind {
                figment::error::Kind::UnknownField(found, expected) => {
                    let mut msg =
                        format!("unknown key `{found}` in the [{DAEMON_TABLE}] table{origin}");
                    if let Some(best) = closest(found, expected) {
                        msg.push_str(&format!("; did you mean `{best}`?"));
                    }
                    msg.push_str(&format!(" (known keys: {})", expected.join(", ")));
                    msg
                }
                kind if path.is_empty() => {
                    format!(
                        "cannot load configuration{origin}: {}",
                        kind.to_string().trim_end()
                    )
                }
                kind => format!("bad value for `{}`{origin}: {kind}", path.join(".")),
            }
        })
        .collect();
    ConfigError(lines.join("\n"))
}

/// " in <file>" or " in environment variable TUIOS_X", or "" when the source is unknown.
fn origin_of(metadata: Option<&Metadata>, path: &[String], file: Option<&Path>) -> String {
    match metadata {
        Some(m) if m.name == ENV_SOURCE_NAME => {
            let key = path.last().map(String::as_str).unwrap_or_default();
            match ENV_KEYS.iter().find(|(_, k)| *k == key) {
                Some((name, _)) => format!(" in environment variable {name}"),
                None => " in the environment".to_string(),
            }
        }
        Some(m) => match m.source.as_ref().and_then(|s| s.file_path()) {
            Some(p) => format!(" in {}", p.display()),
            None if m.name.contains("TOML") => file
                .map(|p| format!(" in {}", p.display()))
                .unwrap_or_default(),
            None => String::new(),
        },
        None => file
            .map(|p| format!(" in {}", p.display()))
            .unwrap_or_default(),
    }
}

/// The closest candidate by case-insensitive Levenshtein distance, within
/// `min(len / 4 + 1, 3)` edits; ties go to the lexicographically smallest candidate.
fn closest<'a>(input: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lower = input.to_lowercase();
    let limit = (lower.chars().count() / 4 + 1).min(3);
    candidates
        .iter()
        .map(|c| (strsim::levenshtein(&lower, &c.to_lowercase()), *c))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests;
