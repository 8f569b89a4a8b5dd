//! Settings that only the user policy file may hold, and where that file is.

use std::path::PathBuf;

const FOCUS_RETURN_ONLY: &str = "the focus-return chord can be changed only in the user policy file ($XDG_CONFIG_HOME/tuios/policy.toml, read by the client), so that nothing running inside a window can change it";
const POLICY_ONLY: &str = "this setting lives only in the user policy file ($XDG_CONFIG_HOME/tuios/policy.toml, read by the client), so that nothing running inside a window can change it";

/// `Some(explanation)` when `key` names a setting that only the user policy file may hold (the
/// focus-return chord and its fallback, link policy, anything under `lumen.` or `policy.`);
/// `set-option` must refuse it with a hint naming [`policy_file_path`]. The explanation is a
/// lower-case clause meant to follow "<key> is not a session option: ".
pub fn policy_only(key: &str) -> Option<&'static str> {
    let k = key.trim().to_ascii_lowercase().replace('-', "_");
    if k.contains("focus_return") {
        return Some(FOCUS_RETURN_ONLY);
    }
    let prefixed = ["lumen.", "policy.", "links.", "link."]
        .iter()
        .any(|p| k.starts_with(p));
    if prefixed || k == "lumen" || k == "policy" {
        return Some(POLICY_ONLY);
    }
    None
}

/// The user policy file: `$XDG_CONFIG_HOME/tuios/policy.toml`, else `~/.config/tuios/policy.toml`
/// (shown literally as `$XDG_CONFIG_HOME/tuios/policy.toml` when neither variable is usable).
pub fn policy_file_path() -> PathBuf {
    crate::config_dir()
        .map(|d| d.join("policy.toml"))
        .unwrap_or_else(|| PathBuf::from("$XDG_CONFIG_HOME/tuios/policy.toml"))
}
