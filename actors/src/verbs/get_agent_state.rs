//! `get-agent-state`: read the agent state the daemon holds for a window, with its message, when it
//! was set, who set it and the harness it is attributed to.
use protocol::verbs::get_agent_state::Reply;
use protocol::params::AgentWindowParams;
use protocol::VerbError;
use crate::session::GetAgentState;
use super::{mailbox, session, VerbEnv};

pub(super) async fn handle(
    env: &VerbEnv,
    p: AgentWindowParams,
) -> Result<Reply, VerbError> {
    let s = session(env, p.session).await?;
    mailbox(s.addr.send(GetAgentState(p.window)).await)?
}
