//! `tuios new [NAME] [-d]`: start the daemon if needed, create the session (its first window in
//! this directory), then attach unless detached.
use std::io::{self, IsTerminal, Write};
use std::path::Path;

use protocol::verbs::new_session::{Params, Reply, SPEC};

use crate::failure::Failure;
use crate::output::{escape_controls, shell_quote};

pub const NAME: Option<&str> = Some("new");
pub const ALIASES: &[&str] = &["n", "new-session"];

/// Size of a session created by `tuios new` before any client gives it one.
const NEW_SESSION_SIZE: (u16, u16) = (80, 24);

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Without -d it then attaches this terminal to the session. The first window starts in this directory unless -c names another."
)]
pub struct Args {
    /// Session name; omit to let the daemon pick one (session-0, session-1, ...).
    pub name: Option<String>,
    /// Create the session without attaching to it.
    #[arg(short = 'd', long)]
    pub detach: bool,
    /// Directory the first window starts in (default: this one).
    #[arg(short = 'c', long, value_name = "DIR")]
    pub cwd: Option<String>,
    /// Extra environment for the first window, NAME=value; repeat for more.
    #[arg(short = 'e', long, value_name = "NAME=VALUE")]
    pub env: Vec<String>,
    #[arg(long, value_name = "COLS")]
    pub width: Option<i64>,
    #[arg(long, value_name = "ROWS")]
    pub height: Option<i64>,
    /// Program and arguments to run instead of a shell (after `--`); no shell parsing.
    #[arg(last = true, value_name = "ARGV")]
    pub command: Vec<String>,
}

/// What the command line asks for; `run` adds this directory and the default size.
pub fn params(a: &Args) -> Params {
    Params {
        name: a.name.clone(),
        width: a.width,
        height: a.height,
        command: (!a.command.is_empty()).then(|| a.command.clone()),
        cwd: a.cwd.clone(),
        env: (!a.env.is_empty()).then(|| a.env.clone()),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    if let Some(n) = &a.name {
        // Refuse a bad name before starting a daemon just to hear it refused.
        protocol::binary::validate_session_name(n)
            .map_err(|e| Failure::msg(format!("invalid session name {n:?}: {e}")))?;
    }
    crate::autostart::ensure_daemon(socket)?;
    let mut p = params(&a);
    // The first window begins where the command runs (tmux's rule), unless -c names a place.
    if p.cwd.is_none() {
        p.cwd = std::env::current_dir()
            .ok()
            .map(|dir| dir.to_string_lossy().into_owned());
    }
    p.width.get_or_insert(NEW_SESSION_SIZE.0.into());
    p.height.get_or_insert(NEW_SESSION_SIZE.1.into());
    let result = super::send(socket, SPEC.name, &p)?;
    // Not escaped (print escapes what it shows): the name is also what attach asks for.
    let created: Reply = serde_json::from_value(result).map_err(|e| {
        Failure::msg(format!(
            "the daemon's {} reply is not what this client reads: {e}",
            SPEC.name
        ))
    })?;
    if a.detach {
        return crate::emit(&print(&created));
    }
    if !io::stdin().is_terminal() || !io::stdout().is_terminal() {
        // Nothing to attach to: the session stays, driven like a detached one.
        crate::emit(&print(&created))?;
        let _ = writeln!(
            io::stderr(),
            "note: not attaching, because stdin and stdout are not both a terminal"
        );
        return Ok(0);
    }
    crate::tui::attach(socket, Some(created.session.name), false)
}

/// The new session's name and the commands that drive it.
fn print(r: &Reply) -> String {
    let name = &r.session.name;
    let q = shell_quote(name);
    let mut out = format!("created session {}\n", escape_controls(name));
    out.push_str(&format!(
        "drive it with:\n\
         \x20 tuios send-text -s {q} 'echo hello'\n\
         \x20 tuios send-keys -s {q} Enter\n\
         \x20 tuios capture-pane -s {q}\n\
         \x20 tuios list-windows -s {q}\n\
         stop it with: tuios kill-session {q}\n"
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn created_session_message_quotes_names() {
        let mut reply = Reply::default();
        reply.session.name = "my work".into();
        let text = print(&reply);
        assert!(text.starts_with("created session my work\n"));
        assert!(text.contains("tuios capture-pane -s 'my work'"));
    }

    #[test]
    fn new_session_maps_its_flags() {
        let argv = [
            "tuios", "new", "-d", "ci", "-c", "/tmp", "-e", "A=1", "-e", "B=2", "--", "top", "-b",
        ];
        let m = crate::help::command()
            .try_get_matches_from(argv)
            .expect("arguments parse");
        let cli = <crate::cli::Cli as clap::FromArgMatches>::from_arg_matches(&m).unwrap();
        let crate::cli::Command::Verb(super::super::VerbCommand::NewSession(a)) = cli.command
        else {
            panic!("not new");
        };
        assert!(a.detach);
        assert_eq!(
            super::super::params_value(&params(&a)),
            Some(
                json!({"name": "ci", "cwd": "/tmp", "env": ["A=1", "B=2"], "command": ["top", "-b"]})
            )
        );
    }
}
