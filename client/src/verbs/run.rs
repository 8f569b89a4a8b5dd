//! `tuios run`: a command line run in a window's shell; its output and exit status are ours.
use std::path::Path;

use protocol::verbs::run::{Params, Reply, SPEC};

use super::target::WindowTarget;
use crate::failure::Failure;

pub const NAME: Option<&str> = Some("run");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
#[command(
    after_help = "The command's output is printed as the terminal showed it, and tuios exits with the command's exit status (2 if it did not finish within --timeout).\nExample: tuios run -w build -- make test"
)]
pub struct Args {
    #[command(flatten)]
    pub target: WindowTarget,
    #[arg(long, value_name = "MS")]
    pub timeout: Option<i64>,
    /// The command line; several words are joined with spaces. Put it after `--`.
    #[arg(
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "COMMAND"
    )]
    pub command: Vec<String>,
}

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        window: a.target.window.clone(),
        command: a.command.join(" "),
        timeout: a.timeout,
    }
}

/// The command's output on stdout, exactly as the daemon returned it, and its exit status as
/// ours.
pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    let result = super::send(socket, SPEC.name, &params(&a))?;
    // Decoded as sent: the output is the command's own, printed unescaped.
    let reply: Reply = serde_json::from_value(result.clone()).map_err(|e| {
        Failure::msg(format!(
            "the daemon's {} reply is not what this client reads: {e}",
            SPEC.name
        ))
    })?;
    if a.target.json {
        crate::print_json(&result)?;
    } else {
        crate::emit(&reply.output)?;
    }
    Ok(exit_status(&reply))
}

/// A status outside 0..=255 becomes 1, as a shell would see it truncated.
fn exit_status(r: &Reply) -> i32 {
    if (0..=255).contains(&r.exit_code) {
        r.exit_code as i32
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::parse;
    use crate::verbs::VerbCommand;
    use serde_json::json;

    #[test]
    fn run_joins_the_command_line_and_keeps_its_hyphens() {
        let VerbCommand::Run(a) = parse(&["run", "-w", "b", "--timeout", "5", "--", "ls", "-l"])
        else {
            panic!("run")
        };
        assert_eq!(
            crate::verbs::params_value(&params(&a)),
            Some(json!({"window": "b", "command": "ls -l", "timeout": 5}))
        );
        let VerbCommand::Run(a) = parse(&["run", "-w", "2", "--", "printf", "'%s\\n'", "-x"])
        else {
            panic!("run")
        };
        assert_eq!(
            crate::verbs::params_value(&params(&a)),
            Some(json!({"window": "2", "command": "printf '%s\\n' -x"}))
        );
    }

    #[test]
    fn the_exit_status_is_the_commands_within_a_byte() {
        let status = |exit_code| {
            exit_status(&Reply {
                exit_code,
                ..Default::default()
            })
        };
        assert_eq!(status(0), 0);
        assert_eq!(status(3), 3);
        assert_eq!(status(255), 255);
        assert_eq!(status(256), 1);
        assert_eq!(status(-1), 1);
    }
}
