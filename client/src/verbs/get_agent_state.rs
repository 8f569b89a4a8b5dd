//! `tuios get-agent-state`: the agent state a window holds, and who set it when.
use std::path::Path;

use protocol::verbs::get_agent_state::{Params, Reply, SPEC};

use crate::failure::Failure;
use crate::output::format_local_time;
use crate::output::short_id;

pub const NAME: Option<&str> = Some("get-agent-state");
pub const ALIASES: &[&str] = &[];

pub type Args = super::target::WindowOnly;

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    a.params()
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

/// One line, with when and by whom the state was set.
fn print(r: &Reply) -> String {
    let mut out = format!(
        "window {}: {} (source {}",
        short_id(&r.window_id),
        r.state,
        r.source
    );
    if !r.harness_id.is_empty() {
        out.push_str(&format!(", harness {}", r.harness_id));
    }
    // Nanoseconds on the wire; the time is shown to the minute.
    if r.agent_state_at > 0 {
        out.push_str(&format!(
            ", since {}",
            format_local_time(r.agent_state_at / 1_000_000_000)
        ));
    }
    out.push(')');
    if !r.message.is_empty() {
        out.push_str(&format!(": {}", r.message));
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::parse;
    use crate::verbs::VerbCommand;
    use serde_json::json;

    #[test]
    fn get_agent_state_sends_the_target() {
        let VerbCommand::GetAgentState(a) = parse(&["get-agent-state", "-w", "a"]) else {
            panic!("get-agent-state")
        };
        assert_eq!(
            crate::verbs::params_value(&params(&a)),
            Some(json!({"window": "a"}))
        );
    }

    #[test]
    fn the_state_reads_as_one_line() {
        let reply = Reply {
            window_id: "abcdef0123".into(),
            state: "needs_input".into(),
            source: "report".into(),
            harness_id: "claude-code".into(),
            agent_state_at: 0,
            message: "approve".into(),
            ..Default::default()
        };
        assert_eq!(
            print(&reply),
            "window abcdef01: needs_input (source report, harness claude-code): approve\n"
        );
    }
}
