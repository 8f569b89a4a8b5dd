//! `set-agent-state`: report the state of the agent running in a window.
use protocol::verbs::set_agent_state::{Params, Reply};
use protocol::agent::{parse_source_param, parse_state_param};
use protocol::VerbError;
use crate::session::SetAgentState;
use super::{mailbox, session, VerbEnv};

pub(super) async fn handle(
    env: &VerbEnv,
    p: Params,
) -> Result<Reply, VerbError> {
    let state = parse_state_param(Some(p.state.as_str()))?;
    let source = parse_source_param(p.source.as_deref())?;
    let s = session(env, p.session).await?;
    mailbox(
        s.addr
            .send(SetAgentState {
                window: p.window,
                state,
                source,
                message: p.message,
                harness: p.harness,
            })
            .await,
    )?
}
