//! `set-agent-state`: report the state of the agent running in a window.
use super::{mailbox, session, VerbEnv};
use crate::session::SetAgentState;
use protocol::agent::{parse_source_param, parse_state_param};
use protocol::verbs::set_agent_state::{Params, Reply};
use protocol::VerbError;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let state = parse_state_param(Some(p.state.as_str()))?;
    let source = parse_source_param(p.source.as_deref())?;
    let s = session(env, p.session).await?;
    // The reply echoes the message as sent, empty included.
    let sent = p.message.clone().unwrap_or_default();
    let outcome = mailbox(
        s.addr
            .send(SetAgentState {
                window: p.window,
                state,
                source,
                message: p.message,
                harness: p.harness,
            })
            .await,
    )??;
    Ok(Reply {
        window_id: outcome.window_id,
        state: outcome.state.as_str().to_string(),
        message: sent,
        source: source.as_str().to_string(),
        applied: outcome.applied,
        ..Default::default()
    })
}
