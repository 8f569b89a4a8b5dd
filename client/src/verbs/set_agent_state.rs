//! `tuios set-agent-state`: report the state of the agent in a window.
use std::path::Path;

use protocol::verbs::set_agent_state::{Params, Reply, SPEC};

use super::target::WindowTarget;
use crate::failure::Failure;

pub const NAME: Option<&str> = Some("set-agent-state");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: WindowTarget,
    #[arg(value_name = "STATE")]
    pub state: String,
    #[arg(short = 'm', long, value_name = "TEXT")]
    pub message: Option<String>,
    #[arg(long, value_name = "SOURCE")]
    pub source: Option<String>,
    #[arg(long, value_name = "ID")]
    pub harness: Option<String>,
}

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        window: a.target.window.clone(),
        state: a.state.clone(),
        message: a.message.clone(),
        source: a.source.clone(),
        harness: a.harness.clone(),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

/// The state now, or why the report changed nothing.
fn print(r: &Reply) -> String {
    if r.applied {
        format!("agent state {} (source {})\n", r.state, r.source)
    } else {
        format!(
            "not applied: a source ranked above {} holds the window; its state stays {}\n",
            r.source, r.state
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::params_sent as sent;
    use crate::verbs::testing::refused;

    use serde_json::json;

    #[test]
    fn set_agent_state_maps_its_flags() {
        assert_eq!(
            sent(&["set-agent-state", "done"]),
            Some(json!({"state": "done"}))
        );
        assert_eq!(
            sent(&[
                "set-agent-state",
                "-s",
                "w",
                "-w",
                "%3",
                "needs_input",
                "-m",
                "approve the edit",
                "--source",
                "screen",
                "--harness",
                "claude-code"
            ]),
            Some(json!({
                "session": "w", "window": "%3", "state": "needs_input",
                "message": "approve the edit", "source": "screen", "harness": "claude-code"
            }))
        );
        assert_eq!(
            refused(&["set-agent-state", "busy"]),
            clap::error::ErrorKind::InvalidValue
        );
        assert_eq!(
            refused(&["set-agent-state", "done", "--source", "detect"]),
            clap::error::ErrorKind::InvalidValue,
            "detect is a source the daemon sets, not one a caller may claim"
        );
    }

    #[test]
    fn a_report_says_whether_it_applied() {
        let reply = |state: &str, source: &str, applied: bool| Reply {
            state: state.into(),
            source: source.into(),
            applied,
            ..Default::default()
        };
        assert_eq!(
            print(&reply("done", "report", true)),
            "agent state done (source report)\n"
        );
        assert!(print(&reply("working", "stall", false)).starts_with("not applied: "));
    }
}
