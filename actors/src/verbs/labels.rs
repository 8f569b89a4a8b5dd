//! Verbs that name things: the session's display name and accent, workspace names and order.
use protocol::params::*;
use protocol::verbs::{
    set_session_accent, set_session_name, set_workspace_name, set_workspace_order,
};
use protocol::{ErrorCode, Hint, VerbError};

use super::{mailbox, session, VerbEnv};
use crate::session as sess;

const ANSI_NAMES: [&str; 8] = [
    "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
];

/// An accent is an ANSI colour name (optionally "bright "), or `#rrggbb`, in any case. Returns
/// it normalised (lower case, single spaces); `None` when it is not a colour.
pub fn normalise_accent(accent: &str) -> Option<String> {
    let a = accent.trim().to_ascii_lowercase();
    if let Some(hex) = a.strip_prefix('#') {
        return (hex.len() == 6 && hex.bytes().all(|b| b.is_ascii_hexdigit())).then_some(a);
    }
    let words: Vec<&str> = a.split([' ', '_', '-']).filter(|w| !w.is_empty()).collect();
    match words.as_slice() {
        [name] if ANSI_NAMES.contains(name) => Some(name.to_string()),
        ["bright", name] if ANSI_NAMES.contains(name) => Some(format!("bright {name}")),
        _ => None,
    }
}

pub(super) async fn set_session_name(
    env: &VerbEnv,
    p: SetSessionNameParams,
) -> Result<set_session_name::Reply, VerbError> {
    let s = session(env, p.session).await?;
    mailbox(
        s.addr
            .send(sess::SetSessionName(p.name.unwrap_or_default()))
            .await,
    )
}

pub(super) async fn set_session_accent(
    env: &VerbEnv,
    p: SetSessionAccentParams,
) -> Result<set_session_accent::Reply, VerbError> {
    let raw = p.accent.unwrap_or_default();
    // Checked against the colours clients know, but recorded as sent (trimmed), as the
    // reference implementation records it.
    let accent = raw.trim().to_string();
    if !accent.is_empty() {
        normalise_accent(&raw).ok_or_else(|| {
            let mut accepted: Vec<String> = ANSI_NAMES.iter().map(|n| n.to_string()).collect();
            accepted.extend(ANSI_NAMES.iter().map(|n| format!("bright {n}")));
            accepted.push("#rrggbb".into());
            VerbError::new(
                ErrorCode::InvalidParams,
                format!("{raw:?} is not an accent colour"),
            )
            .with_hint(
                Hint::new()
                    .param("accent")
                    .accepted(accepted)
                    .detail("Use an ANSI colour name (optionally \"bright \"), a #rrggbb hex colour, or an empty string to clear it."),
            )
        })?;
    }
    let s = session(env, p.session).await?;
    mailbox(s.addr.send(sess::SetSessionAccent(accent)).await)
}

pub(super) async fn set_workspace_name(
    env: &VerbEnv,
    p: SetWorkspaceNameParams,
) -> Result<set_workspace_name::Reply, VerbError> {
    let n = p.workspace;
    let s = session(env, p.session).await?;
    mailbox(
        s.addr
            .send(sess::SetWorkspaceName {
                workspace: n,
                name: p.name.unwrap_or_default(),
            })
            .await,
    )?
}

pub(super) async fn set_workspace_order(
    env: &VerbEnv,
    p: SetWorkspaceOrderParams,
) -> Result<set_workspace_order::Reply, VerbError> {
    let order = p.order;
    let s = session(env, p.session).await?;
    mailbox(s.addr.send(sess::SetWorkspaceOrder(order)).await)?
}

#[cfg(test)]
mod tests {
    use super::normalise_accent;

    #[test]
    fn accents() {
        assert_eq!(normalise_accent("Cyan").as_deref(), Some("cyan"));
        assert_eq!(
            normalise_accent("bright  blue").as_deref(),
            Some("bright blue")
        );
        assert_eq!(
            normalise_accent("bright_red").as_deref(),
            Some("bright red")
        );
        assert_eq!(normalise_accent("#A0b1C2").as_deref(), Some("#a0b1c2"));
        assert_eq!(normalise_accent("#12345"), None);
        assert_eq!(normalise_accent("teal"), None);
        assert_eq!(normalise_accent("dark red"), None);
    }
}
