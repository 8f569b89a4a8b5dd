//! `set-session-accent`: set the accent colour clients use for a session, an ANSI colour name such
//! as "cyan" or "bright blue", or "#rrggbb" (any case; recorded as sent, without surrounding
//! spaces); an empty accent clears it.
use super::{mailbox, session, VerbEnv};
use crate::session as sess;
use protocol::verbs::set_session_accent::{Params, Reply};
use protocol::{ErrorCode, Hint, VerbError};

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
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
    let labels = mailbox(s.addr.send(sess::SetSessionAccent(accent)).await)?;
    Ok(Reply {
        session: labels.session,
        accent: labels.accent.unwrap_or_default(),
        ..Default::default()
    })
}
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
