//! Option and theme verbs. The option registry and the themes live in the `config` crate; the
//! session records values, and the daemon-side options take effect in `Session` (new windows).
use config::options::{self, OptionSpec};
use config::themes::{self, ThemeRegistry};
use protocol::closest::{closest_match, echo_name};
use protocol::params::*;
use protocol::verbs::{get_option, list_options, list_themes, set_option};
use protocol::{ErrorCode, Hint, VerbError};
use serde_json::{json, Value};

use super::{mailbox, session, VerbEnv};
use crate::errors;
use crate::session::{self as sess};
use crate::session_manager::SessionRef;

/// The named session, or the most recently active one if there is any (options exist without
/// sessions, so "none yet" is not an error when no name was given).
async fn maybe_session(
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

fn all_paths() -> Vec<String> {
    options::options()
        .iter()
        .map(|o| o.path.to_string())
        .collect()
}

fn option_not_found(key: &str) -> VerbError {
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
fn trimmed_key(key: String) -> Result<String, VerbError> {
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

fn resolve(key: &str) -> Result<&'static OptionSpec, VerbError> {
    options::resolve(key).ok_or_else(|| option_not_found(key))
}

async fn load_themes() -> Result<ThemeRegistry, VerbError> {
    // Reading the themes directory is file I/O; keep it off the actor thread.
    actix_rt::task::spawn_blocking(|| ThemeRegistry::load(&themes::themes_dir()))
        .await
        .map_err(|e| errors::internal(format!("could not read the themes: {e}")))
}

fn option_row(spec: &OptionSpec, session_value: Option<&String>) -> Value {
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

pub(super) async fn list_options(
    env: &VerbEnv,
    p: ListOptionsParams,
) -> Result<list_options::Reply, VerbError> {
    let s = maybe_session(env, p.session).await?;
    let overrides = match &s {
        Some(s) => mailbox(s.addr.send(sess::GetOptions).await)?,
        None => Default::default(),
    };
    let section = p.section.filter(|x| !x.is_empty());
    let prefix = p.prefix.filter(|x| !x.is_empty());
    let rows: Vec<Value> = options::options()
        .iter()
        .filter(|o| section.as_deref().is_none_or(|sec| o.section == sec))
        .filter(|o| prefix.as_deref().is_none_or(|pre| o.path.starts_with(pre)))
        .map(|o| option_row(o, overrides.get(o.path)))
        .collect();
    let sections = options::sections();
    if rows.is_empty() {
        let filter = section.clone().or(prefix.clone()).unwrap_or_default();
        return Err(
            VerbError::new(ErrorCode::OptionNotFound, "no options match that filter").with_hint(
                Hint::new()
                    .param(if section.is_some() {
                        "section"
                    } else {
                        "prefix"
                    })
                    .did_you_mean(closest_match(&filter, sections.iter().copied()))
                    .available(sections.iter().map(|s| s.to_string()))
                    .detail("section is exact; prefix matches the start of a path."),
            ),
        );
    }
    Ok(list_options::Reply {
        total: rows.len(),
        options: rows,
        sections: sections.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    })
}

pub(super) async fn set_option(
    env: &VerbEnv,
    p: SetOptionParams,
) -> Result<set_option::Reply, VerbError> {
    let key = trimmed_key(p.key)?;
    let spec = resolve(&key)?;
    let raw = p.value.unwrap_or_default();
    let themes = load_themes().await?;
    let value = options::validate_value(spec, &raw, &themes).map_err(|e| {
        let mut hint = Hint::new()
            .param("value")
            .accepted(spec.accepted.iter().copied())
            .did_you_mean(e.did_you_mean.clone())
            .detail(e.detail.clone());
        if spec.kind == options::OptionKind::Theme {
            hint = hint
                .verb("list-themes")
                .command(format!("tuios list-themes --filter {}", raw.trim()));
        }
        VerbError::new(ErrorCode::InvalidParams, e.message).with_hint(hint)
    })?;
    let s = session(env, p.session).await?;
    mailbox(
        s.addr
            .send(sess::SetOption {
                path: spec.path.to_string(),
                value: value.clone(),
            })
            .await,
    )?;
    let (applied, reason) = match spec.applies {
        // The session's agent detector is re-timed on the spot.
        options::Applies::Daemon if spec.path.starts_with("daemon.agent_") => (true, String::new()),
        options::Applies::Daemon => (
            false,
            "recorded; the daemon uses it for windows created from now on".to_string(),
        ),
        // Accepted for scripts written for the reference TUIOS; nothing here acts on it.
        options::Applies::Inert(why) => (
            false,
            format!("recorded, but nothing in tuios acts on it: {why}"),
        ),
        options::Applies::Client => {
            let request = protocol::attach::RoutedRequest::SetOption {
                path: spec.path.to_string(),
                value: value.clone(),
            };
            match mailbox(s.addr.send(sess::Route(request)).await)? {
                Ok(_) => (true, String::new()),
                Err(None) => (false, "no client is attached, so nothing draws it yet; the value is recorded and applies when one attaches".to_string()),
                Err(Some(e)) => (false, format!("the attached client did not apply it: {}", e.message)),
            }
        }
    };
    Ok(set_option::Reply {
        key: spec.path.to_string(),
        value,
        applied,
        reason: (!applied).then_some(reason),
        deprecated: spec.deprecated.map(str::to_string),
        ..Default::default()
    })
}

pub(super) async fn get_option(
    env: &VerbEnv,
    p: GetOptionParams,
) -> Result<get_option::Reply, VerbError> {
    let key = trimmed_key(p.key)?;
    let s = session(env, p.session).await?;
    let spec = resolve(&key)?;
    let overrides = mailbox(s.addr.send(sess::GetOptions).await)?;
    let (value, source) = match overrides.get(spec.path) {
        Some(v) => (v.clone(), "session"),
        None => (spec.default.to_string(), "default"),
    };
    Ok(get_option::Reply {
        key: spec.path.to_string(),
        value,
        source: source.to_string(),
        default: spec.default.to_string(),
        option_type: spec.ty.as_str().to_string(),
        ..Default::default()
    })
}

pub(super) async fn list_themes(
    env: &VerbEnv,
    p: ListThemesParams,
) -> Result<list_themes::Reply, VerbError> {
    let s = maybe_session(env, p.session).await?;
    let registry = load_themes().await?;
    let theme = p.theme.filter(|t| !t.is_empty());
    let listing = themes::list_themes(&registry, theme.as_deref(), p.filter.as_deref()).map_err(
        |unknown| {
            VerbError::new(
                ErrorCode::OptionNotFound,
                format!("no theme named {}", echo_name(&unknown.id)),
            )
            .with_hint(
                Hint::new()
                    .param("theme")
                    .verb("list-themes")
                    .command(format!("tuios list-themes --filter {}", unknown.id))
                    .did_you_mean(unknown.did_you_mean.clone())
                    .detail(format!(
                        "It is neither built in nor a file in {}; write {}.json there to add it.",
                        registry.dir().display(),
                        unknown.id
                    )),
            )
        },
    )?;
    // The theme listing is built by the config crate as JSON; read it into the reply type, which
    // refuses a key the verb does not declare.
    let mut result: list_themes::Reply = serde_json::from_value(listing)
        .map_err(|e| errors::internal(format!("the theme listing has an unexpected shape: {e}")))?;
    if let Some(s) = s {
        let overrides = mailbox(s.addr.send(sess::GetOptions).await)?;
        let (active, source) = match overrides.get("appearance.theme") {
            Some(v) => (v.clone(), "session"),
            None => (String::new(), "default"),
        };
        result.session = Some(s.name);
        result.active = Some(active);
        result.active_source = Some(source.to_string());
    }
    Ok(result)
}
