//! `send-keys`: send keys (names like `ctrl+c`, `enter`, or text) to a window, or through an
//! attached client when they hold its leader key.
use super::{live_window, mailbox, ok, session, VerbEnv};
use crate::errors;
use crate::pty_input::{self};
use crate::window as win;
use protocol::verbs::common::OkReply;
use protocol::verbs::send_keys::Params;
use protocol::VerbError;

pub(super) async fn handle(env: &VerbEnv, params: Params) -> Result<OkReply, VerbError> {
    let keys = params.keys;
    let s = session(env, params.session).await?;
    if !params.literal.unwrap_or(false) && !params.raw.unwrap_or(false) {
        let (leaders, pending) = mailbox(s.addr.send(crate::session::ClientLeaders).await)?;
        if let Some((client, routed)) = leader_route(&keys, &leaders, pending)? {
            // The target is resolved here, so a bad one fails as it would headless.
            let window = match params.window.as_deref().filter(|w| !w.is_empty()) {
                Some(t) => Some(live_window(&s, Some(t.to_string())).await?.id),
                None => None,
            };
            let request = protocol::attach::RoutedRequest::SendKeys {
                window,
                keys: routed,
                literal: false,
                raw: false,
            };
            let res = mailbox(
                s.addr
                    .send(crate::session::RouteTo { client, request })
                    .await,
            )?;
            match res {
                Ok(data) => {
                    // A leader with no key after it waits for the next send-keys, as it would
                    // for the user's next key.
                    let armed = data["leader_armed"] == true;
                    s.addr
                        .do_send(crate::session::LeaderPending(armed.then_some(client)));
                    return Ok(ok());
                }
                Err(Some(e)) => return Err(e),
                // The client left meanwhile: the keys go to the PTY as without one.
                Err(None) => {}
            }
        }
    }
    let w = live_window(&s, params.window).await?;
    let bytes = protocol::keys::keys_to_bytes(
        &keys,
        params.literal.unwrap_or(false),
        params.raw.unwrap_or(false),
    )
    .map_err(|e| e.to_verb_error())?;
    refuse_frames_in(env, &w.id, "keys", &bytes)?;
    // Encoded again in the window, with the cursor-key mode in force when they are written.
    mailbox(
        w.addr
            .send(win::SendKeys {
                keys,
                literal: params.literal.unwrap_or(false),
                raw: params.raw.unwrap_or(false),
                ticket: pty_input::ticket(&env.services.inputs, &w.id),
            })
            .await,
    )
    .map_err(|_| errors::window_gone(&w.id))??;
    Ok(ok())
}
/// With clients attached, whether `keys` hold a leader key (a client's leader, however it is
/// spelt: `ctrl+b`, `C-b`; or `PREFIX`/`$PREFIX`), or follow one left `pending` in a client by
/// the previous send-keys: then they go through that client, so the leader acts as the user's
/// key would (`ctrl+b,n` switches window). Answers the client and the keys for it, the leader
/// tokens written `PREFIX`. Every other token is checked here first, so a bad one is
/// `invalid_params` before anything is routed. None: the keys go to the PTY.
fn leader_route(
    keys: &str,
    leaders: &[(u64, String)],
    pending: Option<u64>,
) -> Result<Option<(u64, String)>, VerbError> {
    if leaders.is_empty() {
        return Ok(None);
    }
    let tokens: Vec<&str> = keys
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.is_empty() {
        // Nothing to send: refused on the PTY path like any such keys.
        return Ok(None);
    }
    let bytes_of = |t: &str| protocol::keys::keys_to_bytes(t, false, false).ok();
    let is_prefix = |t: &str| {
        t.strip_prefix('$')
            .unwrap_or(t)
            .eq_ignore_ascii_case("prefix")
    };
    let is_leader = |t: &str, leader: &str| {
        t.eq_ignore_ascii_case(leader)
            || matches!((bytes_of(t), bytes_of(leader)), (Some(a), Some(b)) if a == b && !b.is_empty())
    };
    let client = leaders
        .iter()
        .find(|(id, _)| Some(*id) == pending)
        .or_else(|| {
            leaders
                .iter()
                .find(|(_, leader)| tokens.iter().any(|t| is_leader(t, leader)))
        })
        .or_else(|| {
            leaders
                .first()
                .filter(|_| tokens.iter().any(|t| is_prefix(t)))
        });
    let Some((client, leader)) = client else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(tokens.len());
    let mut bytes = Vec::new();
    for t in tokens {
        if is_prefix(t) || is_leader(t, leader) {
            out.push("PREFIX".to_string());
            continue;
        }
        let b = protocol::keys::keys_to_bytes(t, false, false).map_err(|e| e.to_verb_error())?;
        bytes.extend_from_slice(&b);
        out.push(t.to_string());
    }
    refuse_frames("keys", &bytes)?;
    Ok(Some((*client, out.join(" "))))
}

/// [`refuse_frames`], and the same across requests: input that would complete an introducer
/// the window's previous verb input began is refused too.
pub(super) fn refuse_frames_in(
    env: &VerbEnv,
    window: &str,
    param: &str,
    bytes: &[u8],
) -> Result<(), VerbError> {
    refuse_frames(param, bytes)?;
    if crate::pty_input::verb_input_ok(&env.services.inputs, window, bytes) {
        return Ok(());
    }
    Err(VerbError::invalid_params(
        param,
        format!("{param} would complete a Lumen frame introducer (APC \"lumen;\") begun by the previous input to this window, which is never written to a program's input"),
    )
    .with_hint(protocol::Hint::new().param(param).detail(
        "The previous request ended with the start of an introducer (ESC, or ESC _); nothing of this one was written.",
    )))
}

/// Lumen: the terminal never writes a frame to a program's input, so input that holds a frame
/// introducer (in any spelling, however it was assembled) is refused before anything is written.
pub(super) fn refuse_frames(param: &str, bytes: &[u8]) -> Result<(), VerbError> {
    if protocol::lumen::contains_frame_introducer(bytes) {
        return Err(VerbError::invalid_params(
            param,
            format!("{param} contains a Lumen frame introducer (APC \"lumen;\"), which is never written to a program's input"),
        )
        .with_hint(protocol::Hint::new().param(param).detail(
            "Frames come only from programs' output; input that could be read as one is refused whole, so nothing was written.",
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaders(l: &[(u64, &str)]) -> Vec<(u64, String)> {
        l.iter().map(|(id, k)| (*id, k.to_string())).collect()
    }

    #[test]
    fn keys_with_a_leader_go_to_the_client_whose_leader_it_is() {
        let one = leaders(&[(1, "ctrl+b")]);
        // However the leader is spelt, it becomes PREFIX for the client.
        for keys in ["ctrl+b,n", "C-b n", "Ctrl+B n", "PREFIX n", "$prefix,n"] {
            assert_eq!(
                leader_route(keys, &one, None).unwrap(),
                Some((1, "PREFIX n".to_string())),
                "{keys}"
            );
        }
        // No leader: the PTY, as without a client.
        assert_eq!(leader_route("ls,Enter", &one, None).unwrap(), None);
        assert_eq!(leader_route("ctrl+a n", &one, None).unwrap(), None);
        assert_eq!(leader_route("PREFIX n", &[], None).unwrap(), None);
        // Two clients: the one whose leader the keys hold.
        let two = leaders(&[(1, "ctrl+b"), (2, "ctrl+a")]);
        assert_eq!(
            leader_route("C-a c", &two, None).unwrap(),
            Some((2, "PREFIX c".to_string()))
        );
        assert_eq!(
            leader_route("PREFIX c", &two, None).unwrap(),
            Some((1, "PREFIX c".to_string()))
        );
    }

    #[test]
    fn keys_after_a_pending_leader_follow_it() {
        let two = leaders(&[(1, "ctrl+b"), (2, "ctrl+a")]);
        assert_eq!(
            leader_route("n", &two, Some(2)).unwrap(),
            Some((2, "n".to_string()))
        );
        // The pending client's own leader is still the leader; another's is a key.
        assert_eq!(
            leader_route("C-a C-b", &two, Some(2)).unwrap(),
            Some((2, "PREFIX C-b".to_string()))
        );
        // A client that left is no longer followed.
        assert_eq!(leader_route("n", &two, Some(3)).unwrap(), None);
        // Keys that hold no key are refused where all such keys are, not routed.
        assert_eq!(leader_route(" , ", &two, Some(2)).unwrap(), None);
    }

    #[test]
    fn other_tokens_are_checked_before_routing() {
        let one = leaders(&[(1, "ctrl+b")]);
        let e = leader_route("ctrl+b ctrl+1", &one, None).unwrap_err();
        assert_eq!(e.code, protocol::ErrorCode::InvalidParams);
        assert_eq!(e.hint.param.as_deref(), Some("keys"));
        // A frame introducer assembled from tokens is refused whole.
        let e = leader_route("ctrl+b Escape _lumen;", &one, None).unwrap_err();
        assert_eq!(e.hint.param.as_deref(), Some("keys"));
        assert!(e.message.contains("Lumen"), "{}", e.message);
    }
}
