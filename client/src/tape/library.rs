//! The tape library: `.tape` files kept by name in `$XDG_STATE_HOME/tuios/tapes/` (beside the
//! saved sessions), so `tuios tape run NAME` works from any directory. `tape add` copies a
//! checked tape in; `list`, `show`, `delete` and `dir` manage it.

use std::path::{Path, PathBuf};

use crate::failure::Failure;

/// A library tape larger than this is not a script anyone wrote by hand.
const MAX_TAPE_BYTES: u64 = 256 * 1024;

/// `<state>/tuios/tapes`.
pub fn dir() -> Result<PathBuf, Failure> {
    daemon::paths::sessions_dir()
        .and_then(|s| s.parent().map(|p| p.join("tapes")))
        .ok_or_else(|| {
            Failure::msg("no state directory: set XDG_STATE_HOME or HOME to an absolute path")
        })
}

/// A library name: 1 to 64 letters, digits, `.`, `_` or `-`, not starting with a dot (the
/// layout templates' rule), so a name never reaches outside the directory.
pub fn check_name(name: &str) -> Result<(), Failure> {
    protocol::commands::layout_name(name)
        .map(|_| ())
        .map_err(|e| Failure::msg(format!("invalid tape name {name:?}: {}", e.message)))
}

pub fn path_of(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.tape"))
}

/// What `tape run|exec|play` was given: an existing file as it is, else a library name.
pub fn resolve(given: &Path) -> Result<PathBuf, Failure> {
    if given.exists() {
        return Ok(given.to_path_buf());
    }
    let name = given.to_string_lossy();
    let as_name = given.components().count() == 1 && check_name(&name).is_ok();
    if as_name {
        let dir = dir()?;
        let path = path_of(&dir, &name);
        if path.exists() {
            return Ok(path);
        }
        let known = names(&dir);
        let hint = if known.is_empty() {
            format!(
                "the library ({}) is empty: tuios tape add FILE",
                dir.display()
            )
        } else {
            format!("library tapes: {}", known.join(", "))
        };
        return Err(Failure::with_hints(
            format!("no tape file {name} here and no library tape named {name}"),
            vec![hint],
        ));
    }
    Err(Failure::msg(format!(
        "cannot read the tape {}: no such file",
        given.display()
    )))
}

/// The library's tape names, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    n.strip_suffix(".tape")
                        .filter(|s| check_name(s).is_ok())
                        .map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// One library tape as `tape list` shows it.
#[derive(Debug, serde::Serialize)]
pub struct Entry {
    pub name: String,
    pub path: String,
    /// Commands in it (with what it sources), or why it does not parse.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commands: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Its first comment line, as a description.
    pub about: String,
}

pub fn entries(dir: &Path) -> Vec<Entry> {
    names(dir)
        .into_iter()
        .map(|name| {
            let path = path_of(dir, &name);
            let about = std::fs::read_to_string(&path)
                .unwrap_or_default()
                .lines()
                .find_map(|l| l.trim().strip_prefix('#').map(|c| c.trim().to_string()))
                .unwrap_or_default();
            let (commands, error) = match super::load(&path) {
                Ok(steps) => (Some(steps.len()), None),
                Err(e) => (None, Some(e.lines().join(" "))),
            };
            Entry {
                path: path.display().to_string(),
                name,
                commands,
                error,
                about,
            }
        })
        .collect()
}

/// Copies `file` into the library as `name` (default: its stem) after checking it parses;
/// refuses to replace a tape unless `force`.
pub fn add(file: &Path, name: Option<&str>, force: bool) -> Result<PathBuf, Failure> {
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = name.map(str::to_string).unwrap_or(stem);
    check_name(&name)?;
    let len = std::fs::metadata(file)
        .map_err(|e| Failure::msg(format!("cannot read {}: {e}", file.display())))?
        .len();
    if len > MAX_TAPE_BYTES {
        return Err(Failure::msg(format!(
            "{} is larger than {} KiB: not a tape",
            file.display(),
            MAX_TAPE_BYTES / 1024
        )));
    }
    super::load(file)?;
    let dir = dir()?;
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(|e| Failure::msg(format!("cannot create {}: {e}", dir.display())))?;
    }
    let target = path_of(&dir, &name);
    if target.exists() && !force {
        return Err(Failure::with_hints(
            format!("the library already has a tape named {name}"),
            vec![format!(
                "replace it: tuios tape add {} --name {name} --force",
                file.display()
            )],
        ));
    }
    let text = std::fs::read(file)
        .map_err(|e| Failure::msg(format!("cannot read {}: {e}", file.display())))?;
    let tmp = dir.join(format!(".{name}.tape.tmp-{}", std::process::id()));
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, &target))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            Failure::msg(format!("cannot write {}: {e}", target.display()))
        })?;
    Ok(target)
}

/// The path of library tape `name`, which must exist; the error names the ones there are.
pub fn existing(name: &str) -> Result<PathBuf, Failure> {
    check_name(name)?;
    let dir = dir()?;
    let path = path_of(&dir, name);
    if path.exists() {
        return Ok(path);
    }
    let known = names(&dir);
    Err(Failure::msg(if known.is_empty() {
        format!("no library tape named {name}: the library is empty")
    } else {
        format!(
            "no library tape named {name}; there are: {}",
            known.join(", ")
        )
    }))
}
