//! `tuios run-command`: one command of the vocabulary, by name, with its arguments; `--list`
//! prints the vocabulary itself.
use std::path::Path;

use protocol::commands::{CommandSpec, Runner};
use protocol::verbs::run_command::{Params, Reply, SPEC};
use serde_json::Value;

use super::target::SessionTarget;
use crate::failure::Failure;
use crate::output::table;

pub const NAME: Option<&str> = Some("run-command");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Arguments that start with '-' go after '--': tuios run-command NewWindow logs -- tail -f app.log"
)]
pub struct Args {
    #[command(flatten)]
    pub target: SessionTarget,
    #[arg(value_name = "COMMAND", required_unless_present = "list")]
    pub command: Option<String>,
    #[arg(value_name = "ARGS", requires = "command")]
    pub args: Vec<String>,
    /// Print the command vocabulary: usage, whether it runs without an attached client, and
    /// what it does. Needs no daemon.
    #[arg(long, conflicts_with = "command")]
    pub list: bool,
}

/// The typed params this command sends (with `--list` it sends nothing: these are empty).
pub fn params(a: &Args) -> Params {
    let Some(command) = &a.command else {
        return Params::default();
    };
    Params {
        session: a.target.session.clone(),
        command: command.clone(),
        args: (!a.args.is_empty()).then(|| a.args.clone()),
    }
}

/// `--list` answers from the vocabulary this build carries; otherwise the name (already
/// restricted by clap) and argument count are checked here first, so a wrong count fails
/// without a daemon, with the same message the daemon would give.
pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    // clap makes COMMAND required unless --list, and refuses the two together.
    if a.list {
        let commands = protocol::commands::commands();
        return if a.target.json {
            crate::print_json(&vocabulary_json(commands))
        } else {
            crate::emit(&vocabulary(commands))
        };
    }
    let p = params(&a);
    protocol::commands::check(&p.command, &a.args).map_err(Failure::from)?;
    super::verb(socket, SPEC.name, &p, a.target.json, print)
}

/// `--list`: the vocabulary, one command per row.
fn vocabulary(commands: &[CommandSpec]) -> String {
    let rows: Vec<Vec<String>> = commands
        .iter()
        .map(|c| {
            vec![
                c.usage(),
                if c.runner == Runner::Daemon {
                    "yes"
                } else {
                    "no"
                }
                .to_string(),
                c.description.to_string(),
            ]
        })
        .collect();
    table(&["COMMAND", "HEADLESS", "DESCRIPTION"], &rows)
}

/// The vocabulary as JSON, for `--list --json`.
fn vocabulary_json(commands: &[CommandSpec]) -> Value {
    Value::Array(
        commands
            .iter()
            .map(|c| {
                serde_json::json!({
                    "name": c.name,
                    "usage": c.usage(),
                    "min_args": c.min_args,
                    "max_args": c.max_args,
                    "headless": c.runner == Runner::Daemon,
                    "description": c.description,
                })
            })
            .collect(),
    )
}

/// The data a command returned (a window table for ListWindows, else `key: value` lines in
/// key order), or one line saying it ran. The data is the read-only command's own answer, a
/// free-form map in the reply: it is read as JSON here.
fn print(r: &Reply) -> String {
    let mut data = r.data.clone();
    for (key, value) in [("window_id", &r.window_id), ("name", &r.name)] {
        if let Some(v) = value {
            data.insert(key.to_string(), Value::from(v.as_str()));
        }
    }
    if data.is_empty() {
        let by = if r.routed {
            " in the attached client"
        } else {
            ""
        };
        return format!("ran {}{by}\n", r.command);
    }
    if data.get("windows").is_some_and(Value::is_array) {
        return crate::output::windows_table(&Value::Object(data));
    }
    data.iter()
        .map(|(k, v)| match v {
            Value::String(t) => format!("{k}: {t}\n"),
            other => format!("{k}: {other}\n"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::{parse, refused};
    use crate::verbs::VerbCommand;
    use serde_json::json;

    fn args(argv: &[&str]) -> Args {
        match parse(argv) {
            VerbCommand::RunCommand(a) => a,
            other => panic!("{other:?}"),
        }
    }

    fn sent(argv: &[&str]) -> Option<Value> {
        crate::verbs::params_value(&params(&args(argv)))
    }

    #[test]
    fn run_command_sends_name_and_string_args() {
        assert_eq!(
            sent(&["run-command", "-s", "w", "SwitchWorkspace", "2"]),
            Some(json!({"session": "w", "command": "SwitchWorkspace", "args": ["2"]}))
        );
        assert_eq!(
            sent(&[
                "run-command",
                "NewWindow",
                "logs",
                "--",
                "tail",
                "-f",
                "app.log"
            ]),
            Some(json!({"command": "NewWindow", "args": ["logs", "tail", "-f", "app.log"]}))
        );
        assert_eq!(
            sent(&["run-command", "ListWindows"]),
            Some(json!({"command": "ListWindows"}))
        );
        let list = args(&["run-command", "--list"]);
        assert!(list.list && list.command.is_none(), "--list sends nothing");
        assert_eq!(params(&list), Params::default());
        assert_eq!(
            refused(&["run-command"]),
            clap::error::ErrorKind::MissingRequiredArgument
        );
        assert_eq!(
            refused(&["run-command", "switchworkspace", "2"]),
            clap::error::ErrorKind::InvalidValue
        );
    }

    /// A reply as the daemon sends it, decoded the way `run` decodes it.
    fn reply(result: Value) -> Reply {
        crate::verbs::typed_reply(SPEC.name, &result).expect("the reply decodes")
    }

    #[test]
    fn command_results_show_their_data() {
        assert_eq!(
            print(&reply(
                json!({"type": "command_result", "command": "NextWindow",
                "routed": false})
            )),
            "ran NextWindow\n"
        );
        assert_eq!(
            print(&reply(
                json!({"type": "command_result", "command": "NewWindow",
                "routed": false, "window_id": "w1", "name": "logs"})
            )),
            "name: logs\nwindow_id: w1\n"
        );
        let t = print(&reply(
            json!({"type": "command_result", "command": "ListWindows",
            "routed": false,
            "windows": [{"window_id": "0123456789", "index": 0, "workspace": 1}]}),
        ));
        assert!(t.starts_with("INDEX"), "{t}");
        let vocab = vocabulary(protocol::commands::commands());
        let split = vocab
            .lines()
            .find(|l| l.starts_with("SwitchWorkspace "))
            .expect("SwitchWorkspace is listed");
        assert!(split.contains(" yes "), "{split}");
        assert_eq!(
            vocab.lines().count(),
            protocol::commands::commands().len() + 1
        );
        let json = vocabulary_json(protocol::commands::commands());
        assert_eq!(json[0]["name"], protocol::commands::commands()[0].name);
    }
}
