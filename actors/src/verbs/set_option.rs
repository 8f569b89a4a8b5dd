//! `set-option`: set an option for a session.
use super::option_lookup::*;
use super::{mailbox, session, VerbEnv};
use crate::session::{self as sess};
use config::options::{self};
use protocol::verbs::set_option::{Params, Reply};
use protocol::{ErrorCode, Hint, VerbError};

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
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
        // Daemon-wide: the running daemon's log filter changes now, whichever session set it.
        options::Applies::Daemon if spec.path == "daemon.log_level" => {
            let directive = config::log_level_directive(&value).unwrap_or("info");
            match &env.services.log_filter {
                Some(set) => match set(directive) {
                    Ok(()) => {
                        tracing::info!(level = %value, "log filter changed by set-option");
                        (true, String::new())
                    }
                    Err(e) => (false, format!("the log filter was not changed: {e}")),
                },
                None => (
                    false,
                    "recorded; this daemon runs inside another tuios process, whose log it shares"
                        .to_string(),
                ),
            }
        }
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
    Ok(Reply {
        key: spec.path.to_string(),
        value,
        applied,
        reason: (!applied).then_some(reason),
        deprecated: spec.deprecated.map(str::to_string),
        ..Default::default()
    })
}
