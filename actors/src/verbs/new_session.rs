//! `new-session` over JSON, so a harness needs neither the binary protocol nor the CLI to start;
//! and the checks of a window's environment and directory it shares with `new-window`.
use protocol::verbs::new_session::{Params, Reply};
use std::path::PathBuf;

use protocol::binary::BinaryErrorCode;
use protocol::closest::echo_name;
use protocol::{ErrorCode, Hint, VerbError};

use super::{mailbox, session_list, VerbEnv};
use crate::errors;
use crate::session::{self as sess, NewWindowSpec};
use crate::session_manager::{CreateSession, KillSession};

const DEFAULT_SIZE: (i64, i64) = (80, 24);

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    // Everything the caller sent is checked before the session exists, so a refusal leaves
    // nothing behind.
    let (width, height) = protocol::limits::check_size(
        p.width.unwrap_or(DEFAULT_SIZE.0),
        p.height.unwrap_or(DEFAULT_SIZE.1),
    )?;
    let name = p.name.filter(|n| !n.is_empty());
    if let Some(n) = &name {
        protocol::binary::validate_session_name(n).map_err(|why| {
            VerbError::invalid_params(
                "name",
                format!("invalid session name {}: {why}", echo_name(n)),
            )
        })?;
    }
    let command = p.command.unwrap_or_default();
    if command.first().is_some_and(|c| c.is_empty()) {
        return Err(VerbError::invalid_params(
            "command",
            "command[0] is the program to run and cannot be empty",
        ));
    }
    let cwd = check_cwd(p.cwd)?;
    let extra_env = parse_env(p.env.unwrap_or_default())?;

    let created = mailbox(
        env.manager
            .send(CreateSession {
                name,
                width,
                height,
                with_window: false,
            })
            .await,
    )?;
    let name = match created {
        Ok((name, _)) => name,
        Err((code, message)) => return Err(create_error(code, message)),
    };
    let s = super::session(env, Some(name.clone())).await?;
    let remain = !command.is_empty();
    let spec = NewWindowSpec {
        focus: true,
        cwd,
        command,
        // A command session keeps its window when the program ends, so its output can be read.
        remain,
        env: extra_env,
        ..Default::default()
    };
    let window = match mailbox(s.addr.send(sess::NewWindow(spec)).await).and_then(|r| r) {
        Ok(w) => w,
        Err(e) => {
            // A session whose first window cannot start is not left behind half-made.
            let _ = env.manager.send(KillSession { name, tree: false }).await;
            return Err(e);
        }
    };
    let rows = session_list(&env.manager).await?;
    let row = rows
        .into_iter()
        .find(|r| r.name == name)
        .ok_or_else(|| errors::internal(format!("session {name} ended as it was created")))?;
    Ok(Reply {
        session: row,
        window_id: window.window_id,
        ..Default::default()
    })
}

fn create_error(code: BinaryErrorCode, message: String) -> VerbError {
    match code {
        BinaryErrorCode::SessionExists => VerbError::new(ErrorCode::InvalidParams, message)
            .with_hint(
                Hint::new()
                    .param("name")
                    .verb("list-sessions")
                    .detail("Session names are unique. Pick another name, or leave name out to let the daemon choose one."),
            ),
        BinaryErrorCode::InvalidName | BinaryErrorCode::InvalidParams => {
            VerbError::invalid_params("name", message)
        }
        _ => errors::internal(message),
    }
}

/// A directory a window may start in: it must exist and be a directory. Empty means none.
pub(super) fn check_cwd(cwd: Option<String>) -> Result<Option<PathBuf>, VerbError> {
    let Some(dir) = cwd.filter(|c| !c.is_empty()) else {
        return Ok(None);
    };
    let path = PathBuf::from(&dir);
    match std::fs::metadata(&path) {
        Err(e) => Err(VerbError::invalid_params(
            "cwd",
            format!("cannot start a window in {}: {e}", echo_name(&dir)),
        )),
        Ok(m) if !m.is_dir() => Err(VerbError::invalid_params(
            "cwd",
            format!("{} is not a directory", echo_name(&dir)),
        )),
        Ok(_) => Ok(Some(path)),
    }
}

/// `NAME=value` entries: a name that is not empty and holds no `=` or NUL; a value without NUL.
pub fn parse_env(entries: Vec<String>) -> Result<Vec<(String, String)>, VerbError> {
    entries
        .into_iter()
        .map(|entry| {
            let bad = |why: &str| {
                VerbError::new(
                    ErrorCode::InvalidParams,
                    format!("env entry {} {why}", echo_name(&entry)),
                )
                .with_hint(
                    Hint::new()
                        .param("env")
                        .detail("Each entry is NAME=value, e.g. RUST_LOG=debug; the name cannot be empty or hold = or NUL."),
                )
            };
            let Some((k, v)) = entry.split_once('=') else {
                return Err(bad("has no ="));
            };
            if k.is_empty() {
                return Err(bad("has an empty name"));
            }
            if entry.contains('\0') {
                return Err(bad("contains a NUL byte"));
            }
            Ok((k.to_string(), v.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_entries() {
        assert_eq!(
            parse_env(vec!["A=1".into(), "B=x=y".into(), "C=".into()]).unwrap(),
            vec![
                ("A".into(), "1".into()),
                ("B".into(), "x=y".into()),
                ("C".into(), String::new())
            ]
        );
        for bad in ["A", "=1", "A=\0"] {
            let e = parse_env(vec![bad.into()]).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidParams, "{bad}");
            assert_eq!(e.hint.param.as_deref(), Some("env"));
        }
    }

    #[test]
    fn cwd_must_be_a_directory() {
        assert_eq!(check_cwd(None).unwrap(), None);
        assert_eq!(check_cwd(Some(String::new())).unwrap(), None);
        assert!(check_cwd(Some("/".into())).unwrap().is_some());
        assert!(check_cwd(Some("/nonexistent-tuios-dir".into())).is_err());
        assert!(check_cwd(Some("/etc/passwd".into())).is_err());
    }
}
