//! The command line: clap definitions, plus the help text of verb-backed commands, which is
//! taken from the protocol's verb registry at run time so it can never drift from the daemon.

use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "tuios",
    version,
    about = "Terminal session daemon and its command-line client",
    arg_required_else_help = true,
    propagate_version = true,
    // Our own `help` (below) takes --all; clap's would only take command names.
    disable_help_subcommand = true
)]
pub struct Cli {
    /// Daemon socket to use (overrides TUIOS_SOCKET and the default location).
    #[arg(long, global = true, value_name = "PATH")]
    pub socket: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the daemon in the foreground.
    Daemon(crate::serve::daemon::DaemonArgs),
    /// Attach this terminal to a session: the full-screen client.
    #[command(visible_alias = "a")]
    Attach(AttachArgs),
    /// Every verb-backed command: one module each under `verbs/`.
    #[command(flatten)]
    Verb(crate::verbs::VerbCommand),
    /// Stop the daemon and every session it holds.
    KillServer,
    /// Send one raw verb request and print the daemon's response line.
    Call(CallArgs),
    PasteCheck(crate::paste_check::PasteCheckArgs),
    ImportTheme(crate::import_theme::ImportThemeArgs),
    /// Print the JSON Schema of each verb's params and reply, generated from the protocol types
    /// this binary was built with (no daemon needed).
    Schema(SchemaArgs),
    /// Print the shell completion script for bash, zsh or fish.
    #[command(after_help = COMPLETIONS_HELP)]
    Completions(CompletionsArgs),
    /// Write the man pages (tuios.1 and one per subcommand), or print tuios.1.
    Man(ManArgs),
    /// The configuration file: an example with every setting, where it is read from, editing
    /// it, or starting over from the example.
    Config(crate::local::config_file::ConfigArgs),
    /// Show the daemon's log (a file, the journal, or where it goes), or follow it.
    Logs(crate::local::logs::LogsArgs),
    /// List the key bindings an attach uses: the leader, the focus-return chord and what each
    /// key after the leader does.
    #[command(visible_aliases = ["keys", "kb"])]
    Keybinds(crate::local::keybinds::KeybindsArgs),
    /// Play an asciicast recording (v2 or v3) in this terminal, its output filtered of
    /// sequences that would make the terminal answer or write the clipboard.
    Play(crate::local::play::PlayArgs),
    /// The layout templates SaveLayout writes: list, export, delete, or their directory.
    Layout(crate::local::layouts::LayoutArgs),
    /// Run or check `.tape` scripts: text, keys, window commands and real waits, one per line.
    Tape(TapeArgs),
    /// Record windows to asciicast v2 files: `record start` (as record-start), `record stop`
    /// (as record-stop).
    Record(RecordArgs),
    /// Serve sessions over SSH: `ssh -p 2222 host` attaches (public keys only).
    Ssh(crate::serve::ssh::SshArgs),
    /// Serve the attach client to a web browser (xterm.js): 127.0.0.1 only unless
    /// --allow-remote, and nothing without the access token it prints.
    Web(crate::serve::web::WebArgs),
    /// Generate documentation from this binary (for the book; not a user command).
    #[command(hide = true)]
    Docs(DocsArgs),
    /// Print the grouped list of commands, every command (--all), or one command's full help.
    Help(HelpArgs),
}

#[derive(Debug, Args)]
pub struct DocsArgs {
    #[command(subcommand)]
    pub command: DocsCommand,
}

#[derive(Debug, Subcommand)]
pub enum DocsCommand {
    /// Write the book's protocol reference, from the verb registry, into DIR.
    Reference {
        /// The directory to write the pages into: docs/src/reference in the repository.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
}

#[derive(Debug, Args)]
pub struct HelpArgs {
    /// List every command, one line each, instead of the ones most people start with.
    #[arg(long)]
    pub all: bool,
    /// The command (and subcommand) whose full help to print.
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
}

const COMPLETIONS_HELP: &str = "Install (then open a new shell):
  bash: tuios completions bash > ~/.local/share/bash-completion/completions/tuios
  zsh:  tuios completions zsh > ~/.zfunc/_tuios   (with fpath+=~/.zfunc before compinit in ~/.zshrc)
  fish: tuios completions fish > ~/.config/fish/completions/tuios.fish";

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Only this verb: prints {"verb", "params", "reply"}. Leave it out for every verb.
    pub verb: Option<String>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to write the script for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// The shells `tuios completions` writes a script for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

#[derive(Debug, Args)]
#[command(after_help = "Install: tuios man --dir ~/.local/share/man/man1 (then: man tuios)")]
pub struct ManArgs {
    /// Write every page into this directory (created if missing) instead of printing tuios.1.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

impl Command {
    /// The protocol verb a subcommand is a thin front for, if any. Drives help text and tests.
    pub fn verb_of(subcommand: &str) -> Option<&'static str> {
        crate::verbs::VerbCommand::verb_of(subcommand)
    }
}

#[derive(Debug, Args)]
pub struct AttachArgs {
    /// Session name; omit for the most recently active session.
    pub session: Option<String>,
    /// Create the session if it does not exist.
    #[arg(short = 'c', long)]
    pub create: bool,
    /// Attach even to the session this terminal is a window of (it then shows itself).
    #[arg(long)]
    pub force: bool,
    /// Watch only: see and scroll the session, but the daemon refuses this client's keys,
    /// pastes and commands, and its terminal size never shrinks the session.
    #[arg(long)]
    pub read_only: bool,
}

#[derive(Debug, Args)]
pub struct CallArgs {
    /// Verb name, e.g. list-windows.
    pub verb: String,
    /// Params object as JSON; omit for none, or `-` to read it from stdin.
    #[arg(value_name = "PARAMS-JSON")]
    pub params: Option<String>,
}

#[derive(Debug, Args)]
pub struct RecordArgs {
    #[command(subcommand)]
    pub command: RecordCommand,
}

#[derive(Debug, Subcommand)]
pub enum RecordCommand {
    /// Record a window (-w), or every window of the session, to .cast files.
    Start(crate::verbs::record_start::Args),
    /// Stop recording and close the files.
    Stop(crate::verbs::record_stop::Args),
}

#[derive(Debug, Args)]
pub struct TapeArgs {
    #[command(subcommand)]
    pub command: TapeCommand,
}

#[derive(Debug, Subcommand)]
pub enum TapeCommand {
    /// Run a tape against a session: Type and keys go to the focused window, window commands
    /// through run-command, and Wait / WaitUntilRegex block until the window is quiet or its
    /// text matches (exit status 2 when one times out).
    Run(TapeRunArgs),
    /// Parse a tape (and the tapes it sources) without running it; errors name line and column.
    Validate(TapeValidateArgs),
    /// Run a tape through the session's attached client (as `run --attached`): keys and
    /// commands act as if typed there. Fails if no client is attached.
    Exec(TapeExecArgs),
    /// Watch a tape: a new session is made for it, this terminal attaches, and the tape runs
    /// through this client. Leaving it (leader d) ends the session unless --keep.
    Play(TapePlayArgs),
    /// Copy a tape into the library (checked first), to run it by name from anywhere.
    Add(TapeAddArgs),
    /// List the library's tapes: name, command count, first comment line.
    #[command(visible_alias = "ls")]
    List(TapeListArgs),
    /// Print a library tape.
    Show(TapeNameArgs),
    /// Delete a library tape.
    #[command(visible_alias = "rm")]
    Delete(TapeNameArgs),
    /// Print the library's directory.
    Dir,
}

#[derive(Debug, Args)]
pub struct TapeExecArgs {
    /// The .tape file, or the name of a library tape.
    #[arg(value_name = "FILE|NAME")]
    pub file: PathBuf,
    /// Session to run the tape in (default: the most recently active one).
    #[arg(short = 's', long, value_name = "NAME")]
    pub session: Option<String>,
    /// Print the run's summary as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct TapePlayArgs {
    /// The .tape file, or the name of a library tape.
    #[arg(value_name = "FILE|NAME")]
    pub file: PathBuf,
    /// Name of the session to make (default: tape-<file stem>).
    #[arg(short = 's', long, value_name = "NAME")]
    pub session: Option<String>,
    /// Keep the session after the client leaves.
    #[arg(long)]
    pub keep: bool,
}

#[derive(Debug, Args)]
pub struct TapeAddArgs {
    /// The .tape file to copy in.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Its name in the library (default: the file's stem).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Replace a library tape of the same name.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct TapeListArgs {
    /// Print them as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct TapeNameArgs {
    /// The library tape's name.
    pub name: String,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Example tape:\n  Type \"make test\"\n  Enter\n  WaitUntilRegex \"(?m)^(PASS|FAIL)\" 60000\n\nWithout --session the most recently active session is used (pinned when the run starts)."
)]
pub struct TapeRunArgs {
    /// The .tape file, or the name of a library tape.
    #[arg(value_name = "FILE|NAME")]
    pub file: PathBuf,
    /// Session to run the tape in.
    #[arg(short = 's', long, value_name = "NAME")]
    pub session: Option<String>,
    /// Drive the attached client instead of the window directly: keys and commands go through
    /// it, so the leader key and client-only commands act. Fails if no client is attached.
    #[arg(long)]
    pub attached: bool,
    /// Print the run's summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// Run only if the file's bytes have this SHA-256 (hex): how the attach client runs a
    /// project tape exactly as the user reviewed it.
    #[arg(long, value_name = "HEX", hide = true)]
    pub sha256: Option<String>,
}

#[derive(Debug, Args)]
pub struct TapeValidateArgs {
    /// The .tape file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Print the parsed commands as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The clap command with registry-sourced help applied: a verb-backed subcommand's about is
/// the verb's description, and each of its args named like a verb param gets that param's
/// description (only where the arg carries no hand-written help of its own). A string arg whose
/// param publishes an accepted set is restricted to it, so typos fail before any connection.
pub fn command() -> clap::Command {
    let mut cmd = Cli::command();
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    for name in names {
        if let Some(verb) = Command::verb_of(&name).and_then(protocol::registry::find_verb) {
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
                        let full = crate::help::without_provenance(verb.description);
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
    fn verb_commands_take_their_help_from_the_registry() {
        let cmd = command();
        cmd.clone().debug_assert();
        let mut seen = 0;
        for sub in cmd.get_subcommands() {
            let name = sub.get_name();
            let Some(verb_name) = Command::verb_of(name) else {
                continue;
            };
            seen += 1;
            let verb = protocol::registry::find_verb(verb_name)
                .unwrap_or_else(|| panic!("{name} fronts unknown verb {verb_name}"));
            assert_eq!(
                sub.get_long_about().map(|a| a.to_string()),
                Some(crate::help::without_provenance(verb.description)),
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
            .filter_map(|s| Command::verb_of(s.get_name()))
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
            let Some(verb) =
                Command::verb_of(sub.get_name()).and_then(protocol::registry::find_verb)
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

    #[test]
    fn no_subcommand_prints_help() {
        let err = Cli::try_parse_from(["tuios"]).unwrap_err();
        assert_eq!(
            err.kind(),
            clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
        );
    }
}
