//! Option and theme verbs. The option registry and the themes live in the `config` crate; the
//! session records values, and the daemon-side options take effect in `Session` (new windows).
use config::options::{self, OptionSpec};
use config::themes::{self, ThemeRegistry};
use protocol::closest::echo_name;
use protocol::{ErrorCode, Hint, VerbError};
use serde_json::{json, Value};

use super::{session, VerbEnv};
use crate::errors;
use crate::session_manager::SessionRef;

/// The named session, or the most recently active one if there is any (options exist without
/// sessions, so "none yet" is not an error when no name was given).
pub(super) async fn maybe_session(
    env: &VerbEnv,
    name: Option<String>,
) -> Result<Option<SessionRef>, VerbError> {
    let named = name.as_deref().is_some_and(|n| !n.is_empty());
    match session(env, name).await {
        Ok(s) => Ok(Some(s)),
        Err(e) if !named && e.code == ErrorCode::SessionNotFound => Ok(None),
        Err(e) => Err(e),
    }
}

pub(super) fn all_paths() -> Vec<String> {
    options::options()
        .iter()
        .map(|o| o.path.to_string())
        .collect()
}

pub(super) fn option_not_found(key: &str) -> VerbError {
    if let Some(why) = options::policy_only(key) {
        return VerbError::new(
            ErrorCode::OptionNotFound,
            format!("{} is not a session option: {why}", echo_name(key)),
        )
        .with_hint(Hint::new().param("key").detail(format!(
            "It can be changed only in the user policy file, {}, never over the socket.",
            options::policy_file_path().display()
        )));
    }
    let paths = all_paths();
    VerbError::new(
        ErrorCode::OptionNotFound,
        format!("no such option {}", echo_name(key)),
    )
    .with_hint(
        Hint::new()
            .param("key")
            .verb("list-options")
            .command("tuios list-options")
            .did_you_mean(options::did_you_mean(key))
            .available(paths.iter().cloned())
            .detail(
                "list-options describes every path with its type, default and accepted values.",
            ),
    )
}

/// The key without surrounding spaces. The registry refuses a missing or empty key; one of
/// spaces only is refused here, the same way.
pub(super) fn trimmed_key(key: String) -> Result<String, VerbError> {
    let key = key.trim();
    if key.is_empty() {
        return Err(VerbError::invalid_params(
            "key",
            "key is required, e.g. \"appearance.dockbar_position\"",
        )
        .with_hint(Hint::new().param("key").verb("list-options")));
    }
    Ok(key.to_string())
}

pub(super) fn resolve(key: &str) -> Result<&'static OptionSpec, VerbError> {
    options::resolve(key).ok_or_else(|| option_not_found(key))
}

pub(super) async fn load_themes() -> Result<ThemeRegistry, VerbError> {
    // Reading the themes directory is file I/O; keep it off the actor thread.
    actix_rt::task::spawn_blocking(|| ThemeRegistry::load(&themes::themes_dir()))
        .await
        .map_err(|e| errors::internal(format!("could not read the themes: {e}")))
}

pub(super) fn option_row(spec: &OptionSpec, session_value: Option<&String>) -> Value {
    let mut row = json!({
        "path": spec.path,
        "type": spec.ty.as_str(),
        "section": spec.section,
        "description": spec.description,
        "default": spec.default,
        "applies": spec.applies.as_str(),
    });
    if let options::Applies::Inert(why) = spec.applies {
        row["inert"] = json!(why);
    }
    if let Some(why) = spec.deprecated {
        row["deprecated"] = json!(why);
    }
    if !spec.accepted.is_empty() {
        row["accepted"] = json!(spec.accepted);
    }
    if let Some(min) = spec.min {
        row["min"] = json!(min);
    }
    if let Some(max) = spec.max {
        row["max"] = json!(max);
    }
    if let Some(v) = session_value {
        row["session_value"] = json!(v);
    }
    row
}
