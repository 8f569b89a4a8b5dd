//! `run-command`: a command of the vocabulary, by name, with its arguments.

use crate::cli::RunCommandArgs;

use super::{session_target, Request};

/// `None` for `--list`, which is answered locally without a request.
pub fn run_command(a: &RunCommandArgs) -> Option<Request> {
    let command = a.command.clone()?;
    let mut req = Request::new("run-command");
    session_target(&mut req, &a.target);
    req.set("command", command);
    if !a.args.is_empty() {
        req.set("args", a.args.clone());
    }
    Some(req)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Command;
    use crate::params::tests::{params, parse, refused};
    use crate::verbs::VerbCommand;
    use serde_json::json;

    #[test]
    fn run_command_sends_name_and_string_args() {
        assert_eq!(
            params(&["run-command", "-s", "w", "SwitchWorkspace", "2"]),
            json!({"session": "w", "command": "SwitchWorkspace", "args": ["2"]})
        );
        assert_eq!(
            params(&[
                "run-command",
                "NewWindow",
                "logs",
                "--",
                "tail",
                "-f",
                "app.log"
            ]),
            json!({"command": "NewWindow", "args": ["logs", "tail", "-f", "app.log"]})
        );
        assert_eq!(
            params(&["run-command", "ListWindows"]),
            json!({"command": "ListWindows"})
        );
        match parse(&["run-command", "--list"]) {
            Command::Verb(VerbCommand::RunCommand(a)) => assert_eq!(run_command(&a), None),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            refused(&["run-command"]),
            clap::error::ErrorKind::MissingRequiredArgument
        );
        assert_eq!(
            refused(&["run-command", "switchworkspace", "2"]),
            clap::error::ErrorKind::InvalidValue
        );
    }
}
