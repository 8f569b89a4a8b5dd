//! `tuios layout list|show|dir|delete`: the layout templates `SaveLayout` writes, looked at and
//! managed without a client attached.

use clap::{Args, Subcommand};
use serde_json::json;

use crate::failure::Failure;
use crate::tui::templates;

#[derive(Debug, Args)]
pub struct LayoutArgs {
    #[command(subcommand)]
    pub action: LayoutAction,
}

#[derive(Debug, Subcommand)]
pub enum LayoutAction {
    /// List the saved layout templates, with their window count and whether they tile.
    #[command(visible_alias = "ls")]
    List {
        /// Print them as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print one template as JSON (to keep, share, or copy into another machine's layouts
    /// directory).
    #[command(visible_alias = "show")]
    Export {
        /// The template's name (as given to SaveLayout).
        name: String,
    },
    /// Print the directory the templates are kept in.
    Dir,
    /// Delete a saved template.
    #[command(visible_alias = "rm")]
    Delete {
        /// The template's name.
        name: String,
    },
}

pub fn run(args: &LayoutArgs) -> Result<i32, Failure> {
    let dir = templates::layouts_dir().map_err(Failure::msg)?;
    let checked = |name: &str| {
        protocol::commands::layout_name(name)
            .map(|_| ())
            .map_err(|e| Failure::msg(format!("invalid layout name {name:?}: {e}")))
    };
    match &args.action {
        LayoutAction::Dir => crate::emit(&format!("{}\n", dir.display())),
        LayoutAction::List { json } => {
            let mut rows = Vec::new();
            for name in templates::list(&dir) {
                match templates::load(&dir, &name) {
                    Ok(t) => rows.push(json!({
                        "name": name,
                        "windows": t.windows.len(),
                        "tiling": t.tiling,
                    })),
                    Err(e) => rows.push(json!({"name": name, "error": e})),
                }
            }
            if *json {
                return crate::print_json(&json!({ "layouts": rows, "dir": dir }));
            }
            if rows.is_empty() {
                return crate::emit(&format!(
                    "no saved layouts in {} (save one with: tuios run-command SaveLayout NAME)\n",
                    dir.display()
                ));
            }
            let mut out = String::new();
            for r in rows {
                let name = r["name"].as_str().unwrap_or_default();
                match r.get("error") {
                    Some(e) => out.push_str(&format!(
                        "{name}  unreadable: {}\n",
                        e.as_str().unwrap_or_default()
                    )),
                    None => out.push_str(&format!(
                        "{name}  {} windows, {}\n",
                        r["windows"],
                        if r["tiling"] == true {
                            "tiled"
                        } else {
                            "floating"
                        }
                    )),
                }
            }
            crate::emit(&out)
        }
        LayoutAction::Export { name } => {
            checked(name)?;
            let t = templates::load(&dir, name).map_err(Failure::msg)?;
            let value = serde_json::to_value(&t)
                .map_err(|e| Failure::msg(format!("cannot render JSON: {e}")))?;
            crate::print_json(&value)
        }
        LayoutAction::Delete { name } => {
            checked(name)?;
            let path = templates::path_of(&dir, name);
            match std::fs::remove_file(&path) {
                Ok(()) => crate::emit(&format!("deleted {}\n", path.display())),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    // Loading names the templates there are.
                    Err(Failure::msg(
                        templates::load(&dir, name)
                            .err()
                            .unwrap_or_else(|| format!("no layout named {name}")),
                    ))
                }
                Err(e) => Err(Failure::msg(format!(
                    "cannot delete {}: {e}",
                    path.display()
                ))),
            }
        }
    }
}
