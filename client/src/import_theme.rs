//! `tuios import-theme FILE [--name ID] [--force] [--json]`: convert another terminal's colour
//! scheme (kitty, Ghostty, Alacritty, WezTerm, iTerm2) into a tuios theme file in the user
//! themes directory. Needs no daemon: the daemon re-reads that directory on every
//! `list-themes` and theme lookup, so the theme is usable at once.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use config::theme_import::{import_scheme, Imported};
use config::themes::{builtin_themes, themes_dir};
use serde_json::{json, Value};

use crate::failure::Failure;

/// Scheme files are a few KiB; a bigger one is a wrong argument, not a theme.
const MAX_SCHEME_BYTES: u64 = 1024 * 1024;

#[derive(Debug, Args)]
#[command(
    about = "Convert a kitty, Ghostty, Alacritty, WezTerm or iTerm2 colour scheme into a tuios theme",
    after_help = "The format is told from the file's content (and its extension): kitty .conf \
(color0 #rrggbb lines), Ghostty (palette = 0=#rrggbb lines), Alacritty .toml or the older \
.yml, WezTerm .toml ([colors] with ansi and brights) and iTerm2 .itermcolors. The theme is \
written to $XDG_CONFIG_HOME/tuios/themes/<id>.json, where the daemon sees it at once; the id \
is --name or the file name, lower-cased, with other characters than letters, digits, '-' and \
'.' made '_'. An existing file of that id is kept unless --force. ANSI colours the scheme does \
not set get the xterm defaults, and are listed. Use it with: tuios set-option appearance.theme <id>"
)]
pub struct ImportThemeArgs {
    /// The scheme file to convert.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Theme id to save it under (default: the file name without its extension).
    #[arg(long, value_name = "ID")]
    pub name: Option<String>,
    /// Replace a theme file of the same id.
    #[arg(long)]
    pub force: bool,
    /// Print {id, display_name, format, path, dark, replaced, replaces_builtin, defaulted
    /// (ANSI names filled from defaults), cursor_from_fg}.
    #[arg(long)]
    pub json: bool,
}

/// Convert and write; the report as text or JSON for the caller to print.
pub fn run(args: &ImportThemeArgs) -> Result<String, Failure> {
    let text = read_scheme(&args.file)?;
    let file_name = args
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let imported = import_scheme(&file_name, args.name.as_deref(), &text)
        .map_err(|e| Failure::msg(format!("cannot import {}: {e}", args.file.display())))?;
    let dir = themes_dir();
    if !dir.is_absolute() {
        return Err(Failure::with_hints(
            "no themes directory: neither XDG_CONFIG_HOME nor HOME is an absolute directory",
            vec!["set XDG_CONFIG_HOME (or HOME) and run it again".to_string()],
        ));
    }
    let (path, replaced) = write_theme(&dir, &imported, args.force, &args.file)?;
    let report = Report {
        imported: &imported,
        path: &path,
        replaced,
        replaces_builtin: builtin_themes().iter().any(|t| t.id == imported.theme.id),
    };
    Ok(if args.json {
        format!("{}\n", report.json())
    } else {
        report.text()
    })
}

fn read_scheme(path: &Path) -> Result<String, Failure> {
    let cannot = |why: String| Failure::msg(format!("cannot read {}: {why}", path.display()));
    let file = std::fs::File::open(path).map_err(|e| cannot(e.to_string()))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(cannot("it is a directory".into()));
    }
    let mut raw = Vec::new();
    file.take(MAX_SCHEME_BYTES + 1)
        .read_to_end(&mut raw)
        .map_err(|e| cannot(e.to_string()))?;
    if raw.len() as u64 > MAX_SCHEME_BYTES {
        return Err(cannot(format!(
            "larger than {} MiB, which no colour scheme is",
            MAX_SCHEME_BYTES / (1024 * 1024)
        )));
    }
    String::from_utf8(raw).map_err(|_| cannot("it is not UTF-8 text".into()))
}

/// Write `<dir>/<id>.json`. Without `force` an existing file is left alone (created with
/// O_EXCL, so a file appearing meanwhile is not clobbered either); with it the new text goes
/// to a temporary name first and is renamed over, so the daemon never reads half a theme.
fn write_theme(
    dir: &Path,
    imported: &Imported,
    force: bool,
    source: &Path,
) -> Result<(PathBuf, bool), Failure> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure::msg(format!("cannot create {}: {e}", dir.display())))?;
    let id = &imported.theme.id;
    let path = dir.join(format!("{id}.json"));
    let mut body = serde_json::to_string_pretty(&imported.theme)
        .map_err(|e| Failure::msg(format!("cannot render the theme: {e}")))?;
    body.push('\n');
    let cannot_write =
        |p: &Path, e: std::io::Error| Failure::msg(format!("cannot write {}: {e}", p.display()));
    let existed = path.exists();
    let source = protocol::shell::quote_if_needed(&source.to_string_lossy());
    if !force {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path);
        let mut file = match file {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(Failure::with_hints(
                    format!("a theme named {id} already exists: {}", path.display()),
                    vec![
                        format!("replace it: tuios import-theme {source} --force"),
                        format!(
                            "or save it under another id: tuios import-theme {source} --name ID"
                        ),
                    ],
                ))
            }
            Err(e) => return Err(cannot_write(&path, e)),
        };
        file.write_all(body.as_bytes())
            .map_err(|e| cannot_write(&path, e))?;
        return Ok((path, false));
    }
    // Not *.json, so the registry never loads the half-written file.
    let tmp = dir.join(format!(".{id}.json.tmp-{}", std::process::id()));
    std::fs::write(&tmp, body.as_bytes()).map_err(|e| cannot_write(&tmp, e))?;
    if let Err(e) = std::fs::rename(&tmp, &path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(cannot_write(&path, e));
    }
    Ok((path, existed))
}

struct Report<'a> {
    imported: &'a Imported,
    path: &'a Path,
    replaced: bool,
    replaces_builtin: bool,
}

impl Report<'_> {
    fn json(&self) -> Value {
        let t = &self.imported.theme;
        json!({
            "id": t.id,
            "display_name": t.display_name,
            "format": self.imported.format.name(),
            "path": self.path.display().to_string(),
            "dark": t.dark,
            "replaced": self.replaced,
            "replaces_builtin": self.replaces_builtin,
            "defaulted": self.imported.defaulted,
            "cursor_from_fg": self.imported.cursor_from_fg,
        })
    }

    fn text(&self) -> String {
        let t = &self.imported.theme;
        let mut out = format!(
            "imported {} scheme \"{}\" as theme {} ({}): {}\n",
            self.imported.format,
            t.display_name,
            t.id,
            if t.dark { "dark" } else { "light" },
            self.path.display()
        );
        if self.replaced {
            out.push_str("  replaced the file that was there\n");
        }
        if self.replaces_builtin {
            out.push_str(&format!(
                "  takes the place of the built-in theme {}\n",
                t.id
            ));
        }
        if !self.imported.defaulted.is_empty() {
            out.push_str(&format!(
                "  not in the file, so xterm defaults: {}\n",
                self.imported.defaulted.join(", ")
            ));
        }
        if self.imported.cursor_from_fg {
            out.push_str("  no cursor colour in the file: the foreground is used\n");
        }
        out.push_str(&format!(
            "use it: tuios set-option appearance.theme {}\n",
            t.id
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn imported() -> Imported {
        import_scheme(
            "Night Owl.conf",
            None,
            "foreground #d6deeb\nbackground #011627\ncolor1 #ef5350\n",
        )
        .unwrap()
    }

    #[test]
    fn writes_once_and_replaces_only_with_force() {
        let dir = tempfile::tempdir().unwrap();
        let themes = dir.path().join("tuios").join("themes");
        let i = imported();
        let (path, replaced) = write_theme(&themes, &i, false, Path::new("x.conf")).unwrap();
        assert_eq!(path, themes.join("night_owl.json"));
        assert!(!replaced);
        let text = std::fs::read_to_string(&path).unwrap();
        let back = config::themes::parse_user_theme("night_owl", &text).unwrap();
        assert_eq!(back, i.theme);

        let err = write_theme(&themes, &i, false, Path::new("x.conf")).unwrap_err();
        let lines = err.lines().join("\n");
        assert!(lines.contains("already exists"), "{lines}");
        assert!(lines.contains("--force"), "{lines}");

        let (_, replaced) = write_theme(&themes, &i, true, Path::new("x.conf")).unwrap();
        assert!(replaced);
        let names: Vec<_> = std::fs::read_dir(&themes)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            names,
            vec![std::ffi::OsString::from("night_owl.json")],
            "no temp file left"
        );
    }

    #[test]
    fn report_lists_what_was_made_up() {
        let i = imported();
        let r = Report {
            imported: &i,
            path: Path::new("/t/night_owl.json"),
            replaced: false,
            replaces_builtin: false,
        };
        let text = r.text();
        assert!(text.starts_with("imported kitty scheme \"Night Owl\" as theme night_owl (dark): /t/night_owl.json\n"), "{text}");
        assert!(text.contains("xterm defaults: black, green"), "{text}");
        assert!(
            text.contains("set-option appearance.theme night_owl"),
            "{text}"
        );
        let j = r.json();
        assert_eq!(j["format"], "kitty");
        assert_eq!(j["defaulted"].as_array().unwrap().len(), 15);
        assert_eq!(j["cursor_from_fg"], true);
    }

    #[test]
    fn unreadable_and_directory_inputs_fail_clearly() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_scheme(&dir.path().join("nope.conf")).unwrap_err();
        assert!(err.lines().join(" ").contains("cannot read"), "{err:?}");
        let err = read_scheme(dir.path()).unwrap_err();
        assert!(err.lines().join(" ").contains("directory"), "{err:?}");
        let bin = dir.path().join("bin.conf");
        std::fs::write(&bin, [0xff, 0xfe, 0x00]).unwrap();
        let err = read_scheme(&bin).unwrap_err();
        assert!(err.lines().join(" ").contains("UTF-8"), "{err:?}");
    }
}
