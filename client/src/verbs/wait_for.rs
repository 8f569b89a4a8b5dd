//! `tuios wait-for CONDITION`: block until the condition holds. A wait that does not hold in
//! time comes back as the daemon's `timeout` error, which exits with status 2
//! (`failure::EXIT_TIMEOUT`), so scripts can tell "not yet" from "failed".
use std::path::Path;

use protocol::verbs::wait_for::{Params, Reply, SPEC};

use super::target::CaptureSource;
use super::target::WindowTarget;
use crate::failure::Failure;
use crate::output::shell_quote;

pub const NAME: Option<&str> = Some("wait-for");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: WindowTarget,
    #[arg(value_name = "CONDITION")]
    pub condition: String,
    #[arg(long, value_name = "RE")]
    pub pattern: Option<String>,
    #[arg(long, value_enum)]
    pub source: Option<CaptureSource>,
    #[arg(long)]
    pub fresh: bool,
    #[arg(long, value_name = "MS")]
    pub idle: Option<i64>,
    #[arg(long, value_name = "MS")]
    pub timeout: Option<i64>,
    // Sent joined with commas, as the verb takes them; each state is checked on its own.
    #[arg(long, value_delimiter = ',', value_name = "STATE,...")]
    pub until: Vec<String>,
}

pub fn params(a: &Args) -> Params {
    Params {
        condition: a.condition.clone(),
        session: a.target.session.clone(),
        window: a.target.window.clone(),
        pattern: a.pattern.clone(),
        source: a.source.map(|s| s.as_str().to_string()),
        // Only sent when set: false is the verb's default.
        fresh: a.fresh.then_some(true),
        idle: a.idle,
        timeout: a.timeout,
        until: (!a.until.is_empty()).then(|| a.until.join(",")),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

/// "matched", plus what matched when the condition says more than yes.
fn print(r: &Reply) -> String {
    let detail = match r.condition.as_str() {
        "window-output" => r.r#match.as_ref().map(|m| format!("match {m:?}")),
        "window-exit" => match (r.exit_code, r.signal) {
            (Some(code), _) => Some(format!("exit code {code}")),
            (None, Some(sig)) => Some(format!("signal {sig}")),
            // Closed before its exit status was known.
            (None, None) => None,
        },
        "window-idle" => Some(format!("idle for {} ms", r.idle_ms.unwrap_or(0))),
        "agent-state" => r.state.as_ref().map(|st| format!("agent state {st}")),
        "screen-settled" => Some(format!(
            "settled for {} ms, hash {}",
            r.idle_ms.unwrap_or(0),
            r.hash.as_deref().unwrap_or("")
        )),
        "session-exists" => Some(format!(
            "session {}",
            shell_quote(r.session.as_deref().unwrap_or(""))
        )),
        _ => None,
    };
    match detail {
        Some(d) => format!("matched: {d}\n"),
        None => "matched\n".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// What `tuios wait-for ARGS` sends, parsed as main parses it (registry checks included).
    fn sent(args: &[&str]) -> Value {
        let argv = ["tuios", "wait-for"].iter().chain(args);
        let m = crate::help::command()
            .try_get_matches_from(argv)
            .expect("arguments parse");
        let cli = <crate::cli::Cli as clap::FromArgMatches>::from_arg_matches(&m).unwrap();
        let crate::cli::Command::Verb(super::super::VerbCommand::WaitFor(a)) = cli.command else {
            panic!("not wait-for");
        };
        super::super::params_value(&params(&a)).unwrap_or(json!({}))
    }

    #[test]
    fn wait_for_maps_every_flag() {
        assert_eq!(sent(&["window-idle"]), json!({"condition": "window-idle"}));
        assert_eq!(
            sent(&[
                "window-output",
                "-s",
                "w",
                "-w",
                "build",
                "--pattern",
                "MARK-[0-9]+",
                "--source",
                "visible",
                "--fresh",
                "--idle",
                "250",
                "--timeout",
                "10000",
                "--json"
            ]),
            json!({
                "condition": "window-output", "session": "w", "window": "build",
                "pattern": "MARK-[0-9]+", "source": "visible", "fresh": true,
                "idle": 250, "timeout": 10000
            })
        );
        assert_eq!(
            sent(&["agent-state", "--until", "idle,done", "--until", "errored"]),
            json!({"condition": "agent-state", "until": "idle,done,errored"})
        );
        let missing = crate::help::command().try_get_matches_from(["tuios", "wait-for"]);
        assert!(missing.is_err(), "CONDITION is required");
        // Each --until state is checked against the registry's set before anything is sent.
        assert_eq!(
            crate::verbs::testing::refused(&["wait-for", "agent-state", "--until", "idle,dnoe"]),
            clap::error::ErrorKind::InvalidValue
        );
    }

    #[test]
    fn wait_results_say_what_matched() {
        let reply = |condition: &str| Reply {
            condition: condition.into(),
            matched: true,
            ..Default::default()
        };
        assert_eq!(
            print(&Reply {
                r#match: Some("MARK-42\nx".into()),
                ..reply("window-output")
            }),
            "matched: match \"MARK-42\\nx\"\n"
        );
        assert_eq!(
            print(&Reply {
                exit_code: Some(0),
                ..reply("window-exit")
            }),
            "matched: exit code 0\n"
        );
        assert_eq!(
            print(&Reply {
                signal: Some(9),
                ..reply("window-exit")
            }),
            "matched: signal 9\n"
        );
        assert_eq!(print(&reply("window-exit")), "matched\n");
        assert_eq!(
            print(&Reply {
                idle_ms: Some(500),
                ..reply("window-idle")
            }),
            "matched: idle for 500 ms\n"
        );
        assert_eq!(
            print(&Reply {
                session: Some("my work".into()),
                ..reply("session-exists")
            }),
            "matched: session 'my work'\n"
        );
        assert_eq!(
            print(&Reply {
                state: Some("done".into()),
                ..reply("agent-state")
            }),
            "matched: agent state done\n"
        );
        assert_eq!(
            print(&Reply {
                idle_ms: Some(300),
                hash: Some("00000000000000ab".into()),
                ..reply("screen-settled")
            }),
            "matched: settled for 300 ms, hash 00000000000000ab\n"
        );
    }
}
