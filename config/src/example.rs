//! The example `config.toml` printed by `tuios config example`: the `[daemon]` settings the
//! loader reads, each commented out at its default, and every session option of the registry
//! with its default, accepted values and description, so the file documents the whole surface.

use crate::options::{options, Applies, OptionKind, OptionType};
use crate::{ENV_KEYS, LOG_LEVELS};

/// One key of the `[daemon]` table, as the example shows it.
struct DaemonSetting {
    key: &'static str,
    /// The line after `# key = `: a TOML value the loader accepts.
    shown: String,
    /// What the value is when the key is left out.
    default_note: &'static str,
    description: &'static str,
}

fn daemon_settings() -> Vec<DaemonSetting> {
    // Destructured so a new DaemonConfig field fails to compile here until the example has it.
    let crate::DaemonConfig {
        log_level: _,
        scrollback_lines,
        shell: _,
    } = crate::DaemonConfig::default();
    vec![
        DaemonSetting {
            key: "log_level",
            shown: "\"info\"".into(),
            default_note: "TUIOS_LOG, else RUST_LOG, else info",
            description: "Log filter: a level, or a tracing filter directive such as \
                          \"tuios_actors=debug,info\".",
        },
        DaemonSetting {
            key: "scrollback_lines",
            shown: scrollback_lines.to_string(),
            default_note: "",
            description: "Scrollback lines kept per window.",
        },
        DaemonSetting {
            key: "shell",
            shown: "\"/bin/bash\"".into(),
            default_note: "unset: $SHELL, else /bin/sh; the value shown is only an example",
            description: "Shell run by new windows (a program path; no arguments).",
        },
    ]
}

/// The example configuration file, as TOML that [`crate::load_daemon_config_from`] accepts
/// unchanged (and with every daemon setting uncommented).
pub fn example_config() -> String {
    let mut out = String::new();
    let line = |out: &mut String, text: &str| {
        out.push_str(text);
        out.push('\n');
    };
    line(
        &mut out,
        "# tuios configuration file: $XDG_CONFIG_HOME/tuios/config.toml, else",
    );
    line(
        &mut out,
        "# ~/.config/tuios/config.toml (`tuios daemon --config FILE` names another).",
    );
    line(
        &mut out,
        &format!(
            "# Written by `tuios config example` (tuios {}). Every setting is commented out at",
            env!("CARGO_PKG_VERSION")
        ),
    );
    line(
        &mut out,
        "# its default: remove the `#` in front of a `key = value` line to change it.",
    );
    line(&mut out, "");
    line(&mut out, "[daemon]");
    line(
        &mut out,
        "# Read when the daemon starts: restart it (tuios kill-server) to apply a change. An",
    );
    line(
        &mut out,
        "# environment variable overrides each key; `tuios daemon --log-level` overrides both.",
    );
    for s in daemon_settings() {
        line(&mut out, "");
        line(&mut out, &format!("# {}", s.description));
        if s.key == "log_level" {
            line(&mut out, &format!("# Levels: {}.", LOG_LEVELS.join(", ")));
        }
        let env = ENV_KEYS
            .iter()
            .find(|(_, k)| *k == s.key)
            .map(|(name, _)| *name)
            .unwrap_or_default();
        let default = if s.default_note.is_empty() {
            String::new()
        } else {
            format!("; default: {}", s.default_note)
        };
        line(&mut out, &format!("# Environment: {env}{default}."));
        line(&mut out, &format!("# {} = {}", s.key, s.shown));
    }
    line(&mut out, "");
    for text in [
        "[hooks]",
        "# Read by `tuios attach`: a shell command (or a list of them) run with `sh -c` when",
        "# something happens in the attached session, with TUIOS_EVENT, TUIOS_SESSION_ID,",
        "# TUIOS_WINDOW_ID, TUIOS_WINDOW_NAME, TUIOS_WORKSPACE, TUIOS_PREV_WORKSPACE,",
        "# TUIOS_LAYOUT, TUIOS_WIDTH, TUIOS_HEIGHT, TUIOS_AGENT_STATE and TUIOS_AGENT_PREV_STATE",
        "# set where they apply. Each may run 10 s; output goes nowhere. Events:",
    ] {
        line(&mut out, text);
    }
    line(&mut out, &format!("# {}.", crate::HOOK_EVENTS.join(", ")));
    line(
        &mut out,
        "# after-new-window = \"notify-send tuios \\\"window $TUIOS_WINDOW_NAME\\\"\"",
    );
    line(&mut out, "");
    line(
        &mut out,
        "# ---------------------------------------------------------------------------------",
    );
    line(&mut out, "# Session options");
    line(
        &mut out,
        "# Each session holds its own values; they are NOT read from this file. Set one at run",
    );
    line(
        &mut out,
        "# time with the command shown (tuios list-options shows a session's current values;",
    );
    line(
        &mut out,
        "# -s NAME picks the session). Listed here so every option and its default is in one place.",
    );
    for o in options() {
        line(&mut out, "#");
        line(&mut out, &format!("# {}: {}.", o.path, o.description));
        let mut facts = vec![format!("type {}", o.ty)];
        facts.push(match o.default {
            "" => "default: empty".to_string(),
            d => format!("default: {d}"),
        });
        if !o.accepted.is_empty() {
            let extra = if o.kind == OptionKind::Colour {
                ", or #RRGGBB"
            } else {
                ""
            };
            facts.push(format!("accepted: {}{extra}", o.accepted.join(", ")));
        } else if o.kind == OptionKind::Colour {
            facts.push("accepted: #RRGGBB, or empty".to_string());
        } else if o.kind == OptionKind::Theme {
            facts.push("accepted: a theme id (tuios list-themes), or empty".to_string());
        } else if o.ty == OptionType::Bool {
            facts.push("accepted: true, false".to_string());
        }
        if let (Some(min), Some(max)) = (o.min, o.max) {
            facts.push(format!("range: {min} to {max}"));
        }
        facts.push(match o.applies {
            Applies::Client => "applied by the attached client".to_string(),
            Applies::Daemon => "applied by the daemon".to_string(),
            Applies::Inert(why) => format!("accepted and recorded, does nothing here: {why}"),
        });
        line(&mut out, &format!("#   {}", facts.join("; ")));
        let value = match o.default {
            "" => "''".to_string(),
            d => d.to_string(),
        };
        line(
            &mut out,
            &format!("#   tuios set-option {} {value}", o.path),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{load_daemon_config_from, DaemonConfig, DEFAULT_SCROLLBACK_LINES};

    fn load(text: &str) -> Result<DaemonConfig, crate::ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, text).unwrap();
        load_daemon_config_from(Some(&path), None, &[])
    }

    #[test]
    fn the_example_loads_as_the_defaults() {
        let text = example_config();
        assert_eq!(load(&text).unwrap(), DaemonConfig::default());
    }

    /// Uncommenting every `# key = value` line of the daemon table gives a file the loader
    /// accepts, with the values shown: the example never shows a key or value it would refuse.
    #[test]
    fn every_daemon_setting_uncommented_loads() {
        let text = example_config();
        let uncommented: String = text
            .lines()
            .map(|l| match l.strip_prefix("# ") {
                Some(rest)
                    if daemon_settings()
                        .iter()
                        .any(|s| rest.starts_with(&format!("{} = ", s.key))) =>
                {
                    rest.to_string()
                }
                _ => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        let cfg = load(&uncommented).unwrap();
        assert_eq!(cfg.log_level.as_deref(), Some("info"));
        assert_eq!(cfg.scrollback_lines, DEFAULT_SCROLLBACK_LINES);
        assert_eq!(cfg.shell.as_deref(), Some("/bin/bash"));
        for (env, key) in ENV_KEYS {
            assert!(text.contains(&format!("# {key} = ")), "{key} missing");
            assert!(text.contains(env), "{env} missing");
        }
    }

    #[test]
    fn every_registry_option_is_documented() {
        let text = example_config();
        for o in options() {
            assert!(
                text.contains(&format!("# {}: {}.", o.path, o.description)),
                "{} missing",
                o.path
            );
            assert!(
                text.contains(&format!("#   tuios set-option {} ", o.path)),
                "{} has no set-option line",
                o.path
            );
            for v in o.accepted {
                assert!(text.contains(v), "{}: accepted value {v} missing", o.path);
            }
        }
        let border = options()
            .iter()
            .find(|o| o.path == "appearance.border_style")
            .expect("the border style option");
        assert!(text.contains(&format!("accepted: {}", border.accepted.join(", "))));
        assert!(text.contains("range: 100 to 1000000"));
    }
}
