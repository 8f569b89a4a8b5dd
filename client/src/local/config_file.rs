//! `tuios config example|path|edit|reset`: the configuration file, without a daemon.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::{Args, Subcommand};

use crate::failure::Failure;

#[derive(Debug, Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    pub action: ConfigAction,
}

#[derive(Debug, Subcommand)]
pub enum ConfigAction {
    /// Print an example config.toml: every daemon setting at its default, every session option
    /// with its default, accepted values and description.
    #[command(
        after_help = "Start from it: tuios config example > \"$(tuios config path)\" (only if you have no file yet)"
    )]
    Example,
    /// Print the path of the configuration file the daemon reads.
    Path,
    /// Open the configuration file in $VISUAL or $EDITOR (else vi), creating it from the
    /// example first if there is none; then check what was saved.
    Edit,
    /// Replace the configuration file with the example (every setting at its default). The
    /// file it replaces is kept beside it as config.toml.bak.
    Reset,
}

pub fn run(args: &ConfigArgs) -> Result<i32, Failure> {
    match args.action {
        ConfigAction::Example => crate::emit(&config::example_config()),
        ConfigAction::Path => crate::emit(&format!("{}\n", path()?.display())),
        ConfigAction::Edit => edit(&path()?),
        ConfigAction::Reset => reset(&path()?),
    }
}

fn path() -> Result<PathBuf, Failure> {
    config::default_config_path().ok_or_else(|| {
        Failure::with_hints(
            "no configuration file path: neither XDG_CONFIG_HOME nor HOME is an absolute directory",
            vec!["name a file for the daemon: tuios daemon --config FILE".to_string()],
        )
    })
}

/// Writes the example to `path` (its directory made private if new), never through a link.
fn write_example(path: &Path) -> Result<(), Failure> {
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    if let Some(dir) = path.parent() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| Failure::msg(format!("cannot create {}: {e}", dir.display())))?;
    }
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path)
        .map_err(|e| Failure::msg(format!("cannot create {}: {e}", path.display())))?;
    f.write_all(config::example_config().as_bytes())
        .map_err(|e| Failure::msg(format!("cannot write {}: {e}", path.display())))
}

fn edit(path: &Path) -> Result<i32, Failure> {
    if !path.exists() {
        write_example(path)?;
        eprintln!("created {} from the example", path.display());
    }
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|e| !e.trim().is_empty())
        .unwrap_or_else(|| "vi".into());
    // Through the shell, as git and crontab do: EDITOR may carry arguments ("code --wait").
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(path)
        .status()
        .map_err(|e| Failure::msg(format!("cannot start the editor {editor:?}: {e}")))?;
    if !status.success() {
        return Err(Failure::msg(format!(
            "the editor {editor:?} failed ({status}); {} is as it left it",
            path.display()
        )));
    }
    check(path)
}

fn reset(path: &Path) -> Result<i32, Failure> {
    let mut backup = path.as_os_str().to_owned();
    backup.push(".bak");
    let backup = PathBuf::from(backup);
    let kept = if path.exists() {
        std::fs::rename(path, &backup)
            .map_err(|e| Failure::msg(format!("cannot move {} aside: {e}", path.display())))?;
        true
    } else {
        false
    };
    write_example(path)?;
    let mut said = format!(
        "{} now holds the example (every setting at its default)\n",
        path.display()
    );
    if kept {
        said.push_str(&format!("the previous file is {}\n", backup.display()));
    }
    said.push_str("a running daemon reads [daemon] at start: tuios kill-server applies it\n");
    crate::emit(&said)
}

/// Says whether the daemon would accept the file, and what else reads it.
fn check(path: &Path) -> Result<i32, Failure> {
    config::load_daemon_config_from(Some(path), None, &[])
        .map_err(|e| Failure::msg(format!("{} has a problem: {e}", path.display())))?;
    let keys = crate::tui::keys_in_effect(Some(path), None);
    let mut said = format!("{} is valid", path.display());
    for w in keys.warnings {
        said.push_str(&format!("\nwarning: {w}"));
    }
    said.push_str("\n[daemon] applies when the daemon starts (tuios kill-server); the rest at the next attach\n");
    crate::emit(&said)
}
