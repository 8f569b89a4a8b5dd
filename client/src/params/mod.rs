//! Pure mapping from parsed arguments to verb params. No I/O, so every mapping is unit tested.

use serde_json::{Map, Value};

use crate::verbs::target::{SessionTarget, WindowTarget};

mod agent;
mod commands;
mod input;
mod options;
mod sessions;
mod windows;
mod wire;
mod workspaces;

pub use agent::{explain_agent_detect, explain_agent_screen, get_agent_state, set_agent_state};
pub use commands::run_command;
pub use input::{capture_pane, run, send_keys, send_keys_tmux, send_text};
pub use options::{get_option, list_options, list_themes, set_option};
pub use windows::{
    close_window, focus_window, list_windows, move_window, new_window, resize, set_layout,
    set_window, split_window,
};
pub use wire::{call_params, request_line};
pub use workspaces::{list_workspaces, select_workspace, set_workspace_name, set_workspace_order};

/// A verb name and its params object, ready to be sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub verb: &'static str,
    pub params: Map<String, Value>,
}

impl Request {
    pub(crate) fn new(verb: &'static str) -> Self {
        Request {
            verb,
            params: Map::new(),
        }
    }

    fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.params.insert(key.to_string(), value.into());
    }

    fn set_opt(&mut self, key: &str, value: Option<impl Into<Value>>) {
        if let Some(v) = value {
            self.set(key, v);
        }
    }

    /// Booleans whose protocol default is false are only sent when set, so requests stay minimal.
    fn set_flag(&mut self, key: &str, on: bool) {
        if on {
            self.set(key, true);
        }
    }

    /// The params as a JSON value, or `None` when there are none (the envelope omits them).
    pub fn params_value(&self) -> Option<Value> {
        if self.params.is_empty() {
            None
        } else {
            Some(Value::Object(self.params.clone()))
        }
    }
}

fn session_target(req: &mut Request, t: &SessionTarget) {
    req.set_opt("session", t.session.clone());
}

fn window_target(req: &mut Request, t: &WindowTarget) {
    req.set_opt("session", t.session.clone());
    req.set_opt("window", t.window.clone());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::FromArgMatches;

    pub(super) fn parse(args: &[&str]) -> Command {
        let mut argv = vec!["tuios"];
        argv.extend_from_slice(args);
        // Through cli::command(), the same path main takes, registry help and all.
        let matches = crate::cli::command()
            .try_get_matches_from(argv)
            .expect("arguments parse");
        Cli::from_arg_matches(&matches)
            .expect("matches convert")
            .command
    }

    pub(super) fn build(args: &[&str]) -> Request {
        match parse(args) {
            Command::Verb(v) => {
                let (verb, params) = v.request();
                let params = match params {
                    Some(Value::Object(map)) => map,
                    _ => Map::new(),
                };
                Request { verb, params }
            }
            other => panic!("not a verb command: {other:?}"),
        }
    }

    pub(super) fn params(args: &[&str]) -> Value {
        Value::Object(build(args).params)
    }

    pub(super) fn refused(args: &[&str]) -> clap::error::ErrorKind {
        let mut argv = vec!["tuios"];
        argv.extend_from_slice(args);
        crate::cli::command()
            .try_get_matches_from(argv)
            .expect_err("arguments are refused")
            .kind()
    }

    #[test]
    fn every_sent_param_is_declared_by_the_registry() {
        let samples: &[&[&str]] = &[
            &["ls"],
            &["kill-session", "x"],
            &["list-verbs", "hello"],
            &["send-keys", "-s", "s", "-w", "w", "-l", "-r", "k"],
            &["send-text", "-s", "s", "-w", "w", "t"],
            &[
                "capture-pane",
                "-s",
                "s",
                "-w",
                "w",
                "--source",
                "recent",
                "--styled",
                "--lines",
                "1",
                "--start",
                "1",
                "--end",
                "2",
            ],
            &["list-windows", "-s", "s"],
            &[
                "new-window",
                "-s",
                "s",
                "n",
                "--workspace",
                "1",
                "--cwd",
                "/",
                "--no-focus",
                "--remain",
                "--",
                "true",
            ],
            &["session-info", "-s", "s"],
            &["resize", "-s", "s", "-w", "w", "1", "1"],
            &[
                "wait-for",
                "window-output",
                "-s",
                "s",
                "-w",
                "w",
                "--pattern",
                "x",
                "--source",
                "recent",
                "--fresh",
                "--idle",
                "1",
                "--timeout",
                "1",
            ],
            &[
                "subscribe",
                "-s",
                "s",
                "-w",
                "w",
                "--types",
                "bell",
                "--queue",
                "1",
            ],
            &["close-window", "-s", "s", "-w", "w"],
            &[
                "set-window",
                "-s",
                "s",
                "-w",
                "w",
                "--name",
                "n",
                "--minimize",
            ],
            &["focus-window", "-s", "s", "w"],
            &["focus-window", "--relative", "next"],
            &["focus-window", "--direction", "up"],
            &["move-window", "-s", "s", "-w", "w", "2", "--follow"],
            &[
                "split-window",
                "-s",
                "s",
                "-w",
                "w",
                "horizontal",
                "--name",
                "n",
            ],
            &[
                "set-layout",
                "-s",
                "s",
                "--tiling",
                "true",
                "--equalize",
                "--rotate",
            ],
            &["list-workspaces", "-s", "s"],
            &["select-workspace", "-s", "s", "1"],
            &["set-workspace-name", "-s", "s", "1", "n"],
            &["set-workspace-order", "-s", "s", "2", "1"],
            &["set-session-name", "-s", "s", "n"],
            &["set-session-accent", "-s", "s", "cyan"],
            &["run-command", "-s", "s", "Type", "x"],
            &["list-options", "-s", "s", "p", "--section", "x"],
            &["get-option", "-s", "s", "k"],
            &["set-option", "-s", "s", "k", "v"],
            &["list-themes", "-s", "s", "t", "--filter", "f"],
            &[
                "set-agent-state",
                "-s",
                "s",
                "-w",
                "w",
                "needs_input",
                "-m",
                "m",
                "--source",
                "osc",
                "--harness",
                "h",
            ],
            &["get-agent-state", "-s", "s", "-w", "w"],
            &["explain-agent-detect", "-s", "s", "-w", "w"],
            &[
                "explain-agent-screen",
                "-s",
                "s",
                "-w",
                "w",
                "--harness",
                "h",
                "--lines",
                "3",
            ],
            &["wait-for", "agent-state", "--until", "idle,done"],
            &["hello"],
            &["resurrect", "work"],
            &[
                "new", "-d", "n", "-c", "/tmp", "-e", "A=1", "--width", "90", "--height", "30",
                "--", "top",
            ],
            &[
                "run",
                "-s",
                "s",
                "-w",
                "w",
                "--timeout",
                "5",
                "--",
                "ls",
                "-l",
            ],
            &["upgrade"],
        ];
        let mut covered = Vec::new();
        for args in samples {
            let req = build(args);
            covered.push(req.verb);
            let verb = protocol::registry::find_verb(req.verb)
                .unwrap_or_else(|| panic!("{} is not a registry verb", req.verb));
            for key in req.params.keys() {
                assert!(
                    verb.params.iter().any(|p| p.name == key.as_str()),
                    "{} sends undeclared param {key}",
                    req.verb
                );
            }
            // And the request decodes into the verb's typed params, as the daemon decodes it:
            // types, required params and limits all hold.
            let line = protocol::envelope::parse_request(
                request_line(req.verb, req.params_value().as_ref()).trim_end(),
            )
            .expect("the request line parses");
            let typed = protocol::verbs::Request::parse(&line)
                .unwrap_or_else(|e| panic!("{args:?}: the daemon would refuse it: {e:?}"));
            assert_eq!(typed.verb(), req.verb);
        }
        // Every verb-backed subcommand is sampled, so a new one cannot skip this check.
        for sub in crate::cli::command().get_subcommands() {
            if let Some(verb) = Command::verb_of(sub.get_name()) {
                assert!(covered.contains(&verb), "no sample for {}", sub.get_name());
            }
        }
    }
}
