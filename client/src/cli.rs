//! The command line: clap definitions. The help users read (registry descriptions, the grouped
//! root help) is applied to them in `help.rs`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_subcommand_prints_help() {
        let err = Cli::try_parse_from(["tuios"]).unwrap_err();
        assert_eq!(
            err.kind(),
            clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
        );
    }
}
