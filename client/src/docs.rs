//! Shell completions, man pages and the example configuration: all generated from what this
//! binary defines (the clap command with its registry-sourced help, the options registry), so
//! none of them can drift from the tool they describe.

use std::io;
use std::path::{Path, PathBuf};

use crate::cli::Shell;

/// The completion script for `shell`, completing subcommands, flags and the accepted values
/// the registry publishes (wait-for conditions, subscribe types, ...).
pub fn completions(shell: Shell) -> Vec<u8> {
    let mut cmd = crate::help::command();
    let generator = match shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    let mut out = Vec::new();
    clap_complete::generate(generator, &mut cmd, "tuios", &mut out);
    out
}

/// The command as the man pages describe it: no `help` subcommand (every page documents
/// `--help` already), built so each subcommand knows its `tuios-NAME` display name.
fn man_command() -> clap::Command {
    let mut cmd = crate::help::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// `tuios.1` as roff.
pub fn main_page() -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    clap_mangen::Man::new(man_command()).render(&mut out)?;
    Ok(out)
}

/// Write `tuios.1` and one `tuios-SUBCOMMAND.1` per subcommand (nested ones too) into `dir`,
/// creating it if missing. Returns the files written, the main page first.
pub fn write_man_pages(dir: &Path) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot create the directory {}: {e}", dir.display()),
        )
    })?;
    let mut written = Vec::new();
    write_tree(&man_command(), dir, &mut written)?;
    Ok(written)
}

fn write_tree(cmd: &clap::Command, dir: &Path, written: &mut Vec<PathBuf>) -> io::Result<()> {
    let path = clap_mangen::Man::new(cmd.clone())
        .generate_to(dir)
        .map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot write a man page into {}: {e}", dir.display()),
            )
        })?;
    written.push(path);
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_tree(sub, dir, written)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subcommand_names() -> Vec<String> {
        crate::help::command()
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
            .map(|s| s.get_name().to_string())
            .collect()
    }

    #[test]
    fn every_script_names_every_subcommand() {
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let script = String::from_utf8(completions(shell)).unwrap();
            for name in subcommand_names() {
                assert!(script.contains(&name), "{shell:?} script lacks {name}");
            }
            // Registry-published values are completed too.
            assert!(script.contains("window-output"), "{shell:?}");
        }
    }

    #[test]
    fn the_main_page_is_roff_with_every_subcommand() {
        let page = String::from_utf8(main_page().unwrap()).unwrap();
        assert!(page.starts_with(".ie \\n(.g .ds Aq"), "{}", &page[..80]);
        assert!(page.contains(".TH tuios 1"), "no title header");
        // Roff writes a hyphen as `\-`; each subcommand is listed as `tuios-NAME(1)`.
        for name in subcommand_names() {
            let listed = format!("tuios\\-{}(1)", name.replace('-', "\\-"));
            assert!(page.contains(&listed), "tuios.1 lacks {listed}");
        }
    }

    #[test]
    fn one_page_per_subcommand() {
        let dir = tempfile::tempdir().unwrap();
        let written = write_man_pages(&dir.path().join("man1")).unwrap();
        assert_eq!(
            written[0].file_name().unwrap(),
            "tuios.1",
            "the main page comes first"
        );
        for name in subcommand_names() {
            let page = dir.path().join("man1").join(format!("tuios-{name}.1"));
            let text = std::fs::read_to_string(&page)
                .unwrap_or_else(|e| panic!("{}: {e}", page.display()));
            assert!(text.contains(&format!(".TH tuios-{name} 1")), "{name}");
        }
        assert!(dir.path().join("man1/tuios-config-example.1").is_file());
    }
}
