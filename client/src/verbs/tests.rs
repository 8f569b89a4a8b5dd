//! Tests across every verb command: what each sends is declared by the registry and decodes
//! as the daemon decodes it, and a few flag mappings checked side by side.

use serde_json::{json, Value};

use super::testing::parse;
use crate::request_line::request_line;

/// The verb and params object `tuios ARGS...` sends.
fn request(args: &[&str]) -> (&'static str, Option<Value>) {
    parse(args).request()
}

/// The params object alone (`{}` when none).
fn params(args: &[&str]) -> Value {
    request(args).1.unwrap_or_else(|| json!({}))
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
            "new", "-d", "n", "-c", "/tmp", "-e", "A=1", "--width", "90", "--height", "30", "--",
            "top",
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
        &[
            "record-start",
            "-s",
            "s",
            "-w",
            "w",
            "-o",
            "/tmp/casts",
            "--input",
            "--max-bytes",
            "4096",
        ],
        &["record-stop", "-s", "s", "-w", "w"],
        &[
            "search", "-s", "s", "-w", "w", "x", "--limit", "3", "--oldest", "--from", "9",
        ],
    ];
    let mut covered = Vec::new();
    for args in samples {
        let (verb_name, params) = request(args);
        covered.push(verb_name);
        let verb = protocol::registry::find_verb(verb_name)
            .unwrap_or_else(|| panic!("{verb_name} is not a registry verb"));
        for key in params
            .iter()
            .flat_map(|p| p.as_object())
            .flat_map(|m| m.keys())
        {
            assert!(
                verb.params.iter().any(|p| p.name == key.as_str()),
                "{verb_name} sends undeclared param {key}"
            );
        }
        // And the request decodes into the verb's typed params, as the daemon decodes it:
        // types, required params and limits all hold.
        let line =
            protocol::envelope::parse_request(request_line(verb_name, params.as_ref()).trim_end())
                .expect("the request line parses");
        let typed = protocol::verbs::Request::parse(&line)
            .unwrap_or_else(|e| panic!("{args:?}: the daemon would refuse it: {e:?}"));
        assert_eq!(typed.verb(), verb_name);
    }
    // Every verb-backed subcommand is sampled, so a new one cannot skip this check.
    for sub in crate::help::command().get_subcommands() {
        if let Some(verb) = crate::cli::Command::verb_of(sub.get_name()) {
            assert!(covered.contains(&verb), "no sample for {}", sub.get_name());
        }
    }
}

#[test]
fn targets_and_sizes_map_from_their_flags() {
    assert_eq!(
        params(&["list-windows", "-s", "a"]),
        json!({"session": "a"})
    );
    assert_eq!(
        params(&["resize", "-w", "1", "100", "30"]),
        json!({"window": "1", "width": 100, "height": 30})
    );
    assert_eq!(
        params(&["run", "-w", "2", "--", "printf", "'%s\\n'", "-x"]),
        json!({"window": "2", "command": "printf '%s\\n' -x"})
    );
    assert_eq!(
        params(&["new-window", "-c", "/srv", "-e", "X=y"]),
        json!({"cwd": "/srv", "env": ["X=y"]})
    );
}
