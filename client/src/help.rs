//! What `tuios --help` and `tuios help` show: the commands people start with, grouped as git
//! groups its own, one short line each; `tuios help --all` lists every command the same way.
//! The full description of each command stays on `tuios COMMAND --help` and in its man page.
//! Here too the clap command as users see it ([`command`]): `cli`'s types with the verb
//! registry's descriptions and accepted values applied.

use std::fmt::Write as _;

use clap::CommandFactory;

/// The widest a help line may be (the README and the issue promise it, a test checks it).
pub const MAX_WIDTH: usize = 100;

/// What a verb's registry description starts with when the verb is not in the control-protocol
/// spec. That is provenance for `list-verbs` and the book, not for someone reading help.
const PROVENANCE: &str = "Extension (not in the control-protocol spec): ";

/// A group of commands: its title, whether `tuios --help` shows it, and its commands.
struct Group {
    title: &'static str,
    in_short_help: bool,
    commands: &'static [&'static str],
}

/// The groups, in the order they are shown. The first five are `tuios --help`; the rest only
/// appear in `tuios help --all`, which also lists any command no group names (under "Other").
const GROUPS: &[Group] = &[
    Group {
        title: "Sessions",
        in_short_help: true,
        commands: &["new", "attach", "ls", "session-info", "kill-session"],
    },
    Group {
        title: "Windows",
        in_short_help: true,
        commands: &[
            "new-window",
            "split-window",
            "list-windows",
            "focus-window",
            "resize",
            "close-window",
        ],
    },
    Group {
        title: "Input and output",
        in_short_help: true,
        commands: &[
            "send-keys",
            "send-text",
            "run",
            "capture-pane",
            "record",
            "play",
        ],
    },
    Group {
        title: "Waiting and scripting",
        in_short_help: true,
        commands: &["wait-for", "subscribe", "tape"],
    },
    Group {
        title: "Servers",
        in_short_help: true,
        commands: &["daemon", "kill-server", "upgrade", "logs", "web", "ssh"],
    },
    Group {
        title: "Workspaces and layout",
        in_short_help: false,
        commands: &[
            "list-workspaces",
            "select-workspace",
            "move-window",
            "set-layout",
            "layout",
            "set-window",
            "set-workspace-name",
            "set-workspace-order",
            "set-session-name",
            "set-session-accent",
        ],
    },
    Group {
        title: "Options and appearance",
        in_short_help: false,
        commands: &[
            "config",
            "get-option",
            "set-option",
            "list-options",
            "list-themes",
            "import-theme",
            "keybinds",
        ],
    },
    Group {
        title: "More sessions and windows",
        in_short_help: false,
        commands: &["resurrect", "record-start", "record-stop", "run-command"],
    },
    Group {
        title: "Agents",
        in_short_help: false,
        commands: &[
            "get-agent-state",
            "set-agent-state",
            "explain-agent-detect",
            "explain-agent-screen",
        ],
    },
    Group {
        title: "The protocol",
        in_short_help: false,
        commands: &["hello", "call", "list-verbs", "schema", "paste-check"],
    },
    Group {
        title: "Setup",
        in_short_help: false,
        commands: &["completions", "man", "help"],
    },
];

/// One line per command, short enough for a row of help; the command's `--help` has the rest.
/// A command not listed here is summarised from the first sentence of its description.
const SUMMARIES: &[(&str, &str)] = &[
    (
        "attach",
        "Attach this terminal to a session (the full-screen client)",
    ),
    (
        "call",
        "Send one raw verb request and print the daemon's reply",
    ),
    (
        "capture-pane",
        "Print the text of a window: its screen or its scrollback",
    ),
    (
        "search",
        "Search a window's whole history (on disk too) for a pattern",
    ),
    ("close-window", "Close a window and end the program in it"),
    (
        "completions",
        "Print the completion script for bash, zsh or fish",
    ),
    (
        "config",
        "The configuration file: example, path, edit, reset",
    ),
    ("daemon", "Run the daemon in the foreground"),
    (
        "explain-agent-detect",
        "Explain why a window was or was not taken for an agent",
    ),
    (
        "explain-agent-screen",
        "Show what a harness's screen rules make of a window",
    ),
    ("focus-window", "Focus a window"),
    ("get-agent-state", "Read the agent state held for a window"),
    ("get-option", "Read one option of a session"),
    ("hello", "Compare protocol versions with the daemon"),
    (
        "help",
        "Print this help, every command (--all), or a command's help",
    ),
    (
        "import-theme",
        "Convert another terminal's colour scheme into a tuios theme",
    ),
    ("keybinds", "List the key bindings an attach uses"),
    ("kill-server", "Stop the daemon and every session it holds"),
    ("kill-session", "End a session and every program in it"),
    ("layout", "The saved layout templates: list, export, delete"),
    (
        "list-options",
        "List the options there are, with type, default and description",
    ),
    ("list-themes", "List the colour themes there are"),
    (
        "list-verbs",
        "Describe the protocol: every verb, its params and where it comes from",
    ),
    ("list-windows", "List the windows of a session"),
    ("list-workspaces", "List the workspaces of a session"),
    ("logs", "Show or follow the daemon's log"),
    ("ls", "List the sessions, running or saved"),
    ("man", "Write the man pages, or print tuios.1"),
    ("move-window", "Move a window to another workspace"),
    ("new", "Create a session with its first window"),
    ("new-window", "Open a window in a session"),
    (
        "paste-check",
        "Show what pasting a file would do under the Lumen rules",
    ),
    ("play", "Play an asciicast recording in this terminal"),
    (
        "record",
        "Record windows to asciicast files: record start, record stop",
    ),
    ("record-start", "Start recording windows (as record start)"),
    ("record-stop", "Stop recording windows (as record stop)"),
    ("resize", "Change the size of a window's terminal"),
    ("resurrect", "Restore saved sessions that are not running"),
    (
        "run",
        "Type a command into a window's shell and return its output and status",
    ),
    (
        "run-command",
        "Run one named tuios command, as the command palette does",
    ),
    (
        "schema",
        "Print the JSON Schema of each verb's params and reply",
    ),
    ("select-workspace", "Show another workspace"),
    (
        "send-keys",
        "Send keys to a window, e.g. \"ls,Enter\" or \"ctrl+c\"",
    ),
    ("send-text", "Write text to a window exactly as given"),
    (
        "session-info",
        "Describe one session: workspaces, layout, size, clients",
    ),
    (
        "set-agent-state",
        "Report the state of the agent running in a window",
    ),
    (
        "set-layout",
        "Change the tiling layout of the current workspace",
    ),
    ("set-option", "Set an option for a session"),
    (
        "set-session-accent",
        "Set the accent colour clients show for a session",
    ),
    (
        "set-session-name",
        "Set the name clients show for a session",
    ),
    ("set-window", "Rename, minimize or restore a window"),
    ("set-workspace-name", "Name a workspace, or clear its name"),
    (
        "set-workspace-order",
        "Choose the order a session's workspaces are shown in",
    ),
    (
        "split-window",
        "Split a tiled pane in two, with a new window in the new half",
    ),
    ("ssh", "Serve sessions over SSH (public keys only)"),
    (
        "subscribe",
        "Print events as they happen: output, windows, agents, ...",
    ),
    ("tape", "Run, check or keep .tape scripts"),
    (
        "upgrade",
        "Replace the running daemon with the binary on disk, keeping every program",
    ),
    (
        "wait-for",
        "Block until a condition holds: output, a regex, quiet, exit, ...",
    ),
    ("web", "Serve the attach client to a web browser"),
];

/// The help of a registry verb, as a user reads it: without the provenance prefix.
pub fn without_provenance(description: &str) -> String {
    match description.strip_prefix(PROVENANCE) {
        Some(rest) => {
            let mut chars = rest.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect(),
                None => String::new(),
            }
        }
        None => description.to_string(),
    }
}

/// The one-line summary of a subcommand: the hand-written one, else the first sentence (or
/// clause) of its description, cut at a word to fit `width` columns.
pub fn summary(name: &str, description: &str, width: usize) -> String {
    if let Some((_, s)) = SUMMARIES.iter().find(|(n, _)| *n == name) {
        return (*s).to_string();
    }
    let text = without_provenance(description);
    let end = text.find(['.', ':', ';', '\n']).unwrap_or(text.len());
    let first = text[..end].trim();
    if first.chars().count() <= width {
        return first.to_string();
    }
    let mut out = String::new();
    for word in first.split_whitespace() {
        if out.chars().count() + word.chars().count() + 4 > width {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    // ASCII, so a man page rendered for a plain terminal (groff -Tascii) shows it too.
    out.push_str("...");
    out
}

/// Give every subcommand of `cmd` its one-line summary as its short help (`-h`, listings, the
/// man page's NAME line), keeping its full description as the long help (`--help`, the man
/// page's DESCRIPTION), with the provenance prefix left to `list-verbs`.
pub fn apply_summaries(mut cmd: clap::Command) -> clap::Command {
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    for name in names {
        cmd = cmd.mut_subcommand(&name, |sub| {
            // A verb's description is the registry's; any other command's is its doc comment.
            let verb = crate::cli::Command::verb_of(&name).and_then(protocol::registry::find_verb);
            let full = match verb {
                Some(verb) => verb.description.to_string(),
                None => sub
                    .get_long_about()
                    .or(sub.get_about())
                    .map(|s| s.to_string())
                    .unwrap_or_default(),
            };
            let full = without_provenance(&full);
            let short = summary(&name, &full, MAX_WIDTH - NAME_COLUMN - 2);
            sub.about(short).long_about(full)
        });
    }
    cmd
}

/// Column the summaries start at: two spaces of indent, the longest shown name, two spaces.
const NAME_COLUMN: usize = 24;

/// The help template of `tuios` itself: the grouped short list instead of clap's full one.
pub fn root_template(cmd: &clap::Command) -> String {
    let mut out = String::from("{about-with-newline}\n{usage-heading} {usage}\n");
    out.push_str(&listing(cmd, false));
    out.push_str("\nOptions:\n{options}\n\n");
    out.push_str("See `tuios help --all` for every command, `tuios help COMMAND` for one.");
    out
}

/// The groups as text: each title, then its commands one per line. `all` adds the groups
/// `tuios --help` leaves out, and a last group for any command no group names.
pub fn listing(cmd: &clap::Command, all: bool) -> String {
    let mut out = String::new();
    let mut listed: Vec<&str> = Vec::new();
    for group in GROUPS.iter().filter(|g| all || g.in_short_help) {
        let rows: Vec<&clap::Command> = group
            .commands
            .iter()
            .filter_map(|n| cmd.find_subcommand(n))
            .collect();
        listed.extend(group.commands);
        write_group(&mut out, group.title, &rows);
    }
    if all {
        let rest: Vec<&clap::Command> = cmd
            .get_subcommands()
            .filter(|s| !s.is_hide_set() && !listed.contains(&s.get_name()))
            .collect();
        write_group(&mut out, "Other", &rest);
    }
    out
}

fn write_group(out: &mut String, title: &str, rows: &[&clap::Command]) {
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{title}:");
    for sub in rows {
        let about = sub.get_about().map(|s| s.to_string()).unwrap_or_default();
        let name = sub.get_name();
        let line = format!("  {name:<width$}{about}", width = NAME_COLUMN - 2);
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

const FULL_HELP: &str = "Each command's full help: tuios help COMMAND, or tuios COMMAND --help.";

/// `tuios help`: the grouped list, every command (`--all`), or one command's full help (as
/// its `--help` prints it). The text to print.
pub fn run(args: &crate::cli::HelpArgs) -> Result<String, crate::failure::Failure> {
    let mut cmd = crate::help::command();
    cmd.build();
    if args.all {
        let about = cmd.get_about().map(|s| s.to_string()).unwrap_or_default();
        let usage = cmd.render_usage().to_string();
        return Ok(format!(
            "{about}\n\n{usage}\n{}\n{FULL_HELP}\n",
            listing(&cmd, true)
        ));
    }
    let mut current = &mut cmd;
    for name in &args.command {
        current = current.find_subcommand_mut(name).ok_or_else(|| {
            crate::failure::Failure::with_hints(
                format!("there is no command `{}`", args.command.join(" ")),
                vec!["every command: tuios help --all".to_string()],
            )
        })?;
    }
    let help = if args.command.is_empty() {
        current.render_help()
    } else {
        current.render_long_help()
    };
    Ok(help.to_string())
}

/// The clap command with registry-sourced help applied: a verb-backed subcommand's about is
/// the verb's description, and each of its args named like a verb param gets that param's
/// description (only where the arg carries no hand-written help of its own). A string arg whose
/// param publishes an accepted set is restricted to it, so typos fail before any connection.
pub fn command() -> clap::Command {
    let mut cmd = crate::cli::Cli::command();
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    for name in names {
        if let Some(verb) =
            crate::cli::Command::verb_of(&name).and_then(protocol::registry::find_verb)
        {
            cmd = cmd.mut_subcommand(&name, |sub| {
                with_param_help(sub.about(verb.description), verb)
            });
            continue;
        }
        // A verb spelt as two words (`record start` for record-start) gets the same help.
        cmd = cmd.mut_subcommand(&name, |group| {
            let nested: Vec<String> = group
                .get_subcommands()
                .map(|c| c.get_name().to_string())
                .collect();
            nested.into_iter().fold(group, |group, word| {
                match protocol::registry::find_verb(&format!("{name}-{word}")) {
                    // Its own short about stays for the group's listing.
                    Some(verb) => group.mut_subcommand(word, |sub| {
                        let full = without_provenance(verb.description);
                        with_param_help(sub.long_about(full), verb)
                    }),
                    None => group,
                }
            })
        });
    }
    // Short lines for listings and `-h`, the full text for `--help` (see help.rs).
    let cmd = crate::help::apply_summaries(cmd);
    let template = crate::help::root_template(&cmd);
    cmd.help_template(template)
}

/// A verb command's params' help, from the registry (mut_args edits in place: mut_arg would
/// re-append the arg and so renumber positionals).
fn with_param_help(
    sub: clap::Command,
    verb: &'static protocol::registry::VerbSpec,
) -> clap::Command {
    sub.mut_args(|arg| {
        let Some(param) = verb.param(arg.get_id().as_str()) else {
            return arg;
        };
        let arg = if arg.get_help().is_some() {
            arg
        } else {
            arg.help(param.description)
        };
        restrict_to_accepted(arg, param.accepted)
    })
}

/// Only for args that hold plain strings and have no value set of their own (a value enum keeps
/// its variants); swapping the parser of any other type would break the typed accessors.
fn restrict_to_accepted(arg: clap::Arg, accepted: &'static [&'static str]) -> clap::Arg {
    let plain_string = arg.get_value_parser().type_id() == std::any::TypeId::of::<String>();
    if accepted.is_empty()
        || !arg.get_action().takes_values()
        || !plain_string
        || !arg.get_possible_values().is_empty()
    {
        return arg;
    }
    arg.value_parser(clap::builder::PossibleValuesParser::new(
        accepted.iter().copied(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provenance_is_stripped_and_the_sentence_recapitalised() {
        assert_eq!(
            without_provenance("Extension (not in the control-protocol spec): replace it."),
            "Replace it."
        );
        assert_eq!(without_provenance("Focus a window."), "Focus a window.");
    }

    #[test]
    fn an_unlisted_command_is_summarised_from_its_first_sentence() {
        assert_eq!(summary("zz", "Do a thing. Then more.", 60), "Do a thing");
        assert_eq!(summary("zz", "Show it: all of it", 60), "Show it");
        let long = "word ".repeat(40);
        let s = summary("zz", &long, 30);
        assert!(s.chars().count() <= 30 && s.ends_with("..."), "{s}");
    }

    #[test]
    fn every_command_is_in_the_full_listing_and_none_twice() {
        let cmd = crate::help::command();
        let all = listing(&cmd, true);
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let rows = all
                .lines()
                .filter(|l| l.split_whitespace().next() == Some(sub.get_name()))
                .count();
            assert_eq!(rows, 1, "{} in:\n{all}", sub.get_name());
        }
        for group in GROUPS {
            for name in group.commands {
                assert!(cmd.find_subcommand(name).is_some(), "{name} is no command");
            }
        }
        for (name, _) in SUMMARIES {
            assert!(cmd.find_subcommand(name).is_some(), "{name} is no command");
        }
    }

    #[test]
    fn summaries_fit_their_column() {
        for (name, s) in SUMMARIES {
            assert!(name.len() < NAME_COLUMN - 2, "{name}");
            assert!(s.chars().count() <= MAX_WIDTH - NAME_COLUMN, "{name}: {s}");
        }
    }

    #[test]
    fn verb_commands_take_their_help_from_the_registry() {
        let cmd = command();
        cmd.clone().debug_assert();
        let mut seen = 0;
        for sub in cmd.get_subcommands() {
            let name = sub.get_name();
            let Some(verb_name) = crate::cli::Command::verb_of(name) else {
                continue;
            };
            seen += 1;
            let verb = protocol::registry::find_verb(verb_name)
                .unwrap_or_else(|| panic!("{name} fronts unknown verb {verb_name}"));
            assert_eq!(
                sub.get_long_about().map(|a| a.to_string()),
                Some(without_provenance(verb.description)),
                "{name}"
            );
            for arg in sub.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" || id == "socket" {
                    continue;
                }
                assert!(arg.get_help().is_some(), "{name} --{id} has no help text");
            }
        }
        assert_eq!(
            seen,
            protocol::registry::verbs().len() - NO_SUBCOMMAND.len()
        );
    }

    /// Registry verbs deliberately left without a subcommand.
    const NO_SUBCOMMAND: &[&str] = &[
        // It ends the event stream of the connection it is sent on; each CLI invocation opens a
        // connection of its own, so there is never a stream of ours to end (`tuios subscribe`
        // ends on Ctrl+C or when its reader goes away).
        "unsubscribe",
    ];

    #[test]
    fn every_registry_verb_has_a_subcommand() {
        let cmd = command();
        let mut fronted: Vec<&str> = cmd
            .get_subcommands()
            .filter_map(|s| crate::cli::Command::verb_of(s.get_name()))
            .collect();
        fronted.sort_unstable();
        let before = fronted.len();
        fronted.dedup();
        assert_eq!(before, fronted.len(), "a verb is fronted twice");
        for verb in protocol::registry::verbs() {
            assert_eq!(
                fronted.contains(&verb.name),
                !NO_SUBCOMMAND.contains(&verb.name),
                "verb {}: a subcommand must front it, unless it is a listed exception",
                verb.name
            );
        }
        for exception in NO_SUBCOMMAND {
            assert!(
                protocol::registry::find_verb(exception).is_some(),
                "{exception} is no longer a verb"
            );
        }
    }

    /// A param the verb requires is a required arg of the same name, so clap refuses its
    /// absence before anything is sent.
    #[test]
    fn required_params_are_required_args() {
        // run-command's COMMAND may be left out for --list, which sends nothing; split-window's
        // DIRECTION may be given as tmux's -h or -v instead (one of the three is required).
        let exceptions = [("run-command", "command"), ("split-window", "direction")];
        let cmd = command();
        for sub in cmd.get_subcommands() {
            let Some(verb) = crate::cli::Command::verb_of(sub.get_name())
                .and_then(protocol::registry::find_verb)
            else {
                continue;
            };
            for p in verb.params.iter().filter(|p| p.required) {
                let arg = sub
                    .get_arguments()
                    .find(|a| a.get_id() == p.name)
                    .unwrap_or_else(|| panic!("{} has no arg for {}", sub.get_name(), p.name));
                if exceptions.contains(&(verb.name, p.name)) {
                    continue;
                }
                assert!(arg.is_required_set(), "{} {}", sub.get_name(), p.name);
            }
        }
    }

    fn possible_values(sub: &str, arg: &str) -> Vec<String> {
        let cmd = command();
        let sub = cmd.find_subcommand(sub).expect("subcommand exists");
        let arg = sub
            .get_arguments()
            .find(|a| a.get_id() == arg)
            .expect("arg exists");
        arg.get_possible_values()
            .iter()
            .map(|v| v.get_name().to_string())
            .collect()
    }

    #[test]
    fn accepted_sets_come_from_the_registry() {
        assert_eq!(
            possible_values("wait-for", "condition"),
            protocol::registry::accepted_of("wait-for", "condition")
        );
        assert_eq!(
            possible_values("subscribe", "types"),
            protocol::registry::accepted_of("subscribe", "types")
        );
        for (sub, arg, verb, param) in [
            ("run-command", "command", "run-command", "command"),
            ("focus-window", "relative", "focus-window", "relative"),
            ("focus-window", "direction", "focus-window", "direction"),
            ("split-window", "direction", "split-window", "direction"),
        ] {
            assert_eq!(
                possible_values(sub, arg),
                protocol::registry::accepted_of(verb, param),
                "{sub} {arg}"
            );
        }
        assert_eq!(possible_values("wait-for", "source"), ["visible", "recent"]);
        let err = command()
            .try_get_matches_from(["tuios", "wait-for", "window-outptu"])
            .unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::InvalidValue);
        assert!(err.to_string().contains("window-output"), "{err}");
    }
}
