//! `get-agent-state`: read the agent state the daemon holds for a window, with its message, when it
//! was set, who set it and the harness it is attributed to.
use super::{mailbox, session, VerbEnv};
use crate::session::GetAgentState;
use protocol::verbs::get_agent_state::{Params, Reply};
use protocol::VerbError;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let s = session(env, p.session).await?;
    let status = mailbox(s.addr.send(GetAgentState(p.window)).await)??;
    Ok(Reply {
        window_id: status.window_id,
        state: status.state.as_str().to_string(),
        message: status.message,
        agent_state_at: status.since_ns as i64,
        source: status.source.to_string(),
        harness_id: status.harness.unwrap_or_default(),
        ..Default::default()
    })
}
