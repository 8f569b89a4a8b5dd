//! `tuios list-themes`: the theme ids, or one theme's palette and how legible each colour is.
use std::path::Path;

use protocol::verbs::list_themes::{Params, Reply, SPEC};
use serde::Deserialize;

use super::target::SessionTarget;
use crate::failure::Failure;
use crate::output::table;

pub const NAME: Option<&str> = Some("list-themes");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: SessionTarget,
    #[arg(value_name = "THEME")]
    pub theme: Option<String>,
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
}

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        theme: a.theme.clone(),
        filter: a.filter.clone(),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

/// What this command shows of a palette. The reply carries it as a free-form object, so it is
/// read here; keys that do not read show empty.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct PaletteContrast {
    id: String,
    display_name: String,
    dark: bool,
    bg: String,
    swatches: Vec<Swatch>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Swatch {
    name: String,
    hex: String,
    ratio: f64,
    floor: f64,
    passes: bool,
}

/// The palette of a named theme with each colour's contrast against the background, and/or
/// the matching ids one per line.
fn print(r: &Reply) -> String {
    let mut out = String::new();
    if let Some(p) = &r.palette {
        let p = PaletteContrast::deserialize(p).unwrap_or_default();
        let shade = if p.dark { "dark" } else { "light" };
        out.push_str(&format!(
            "{} ({}), {shade}, background {}\n",
            p.id, p.display_name, p.bg
        ));
        let rows: Vec<Vec<String>> = p
            .swatches
            .iter()
            .map(|c| {
                vec![
                    c.name.clone(),
                    c.hex.clone(),
                    format!("{:.2}", c.ratio),
                    format!("{:.1}", c.floor),
                    if c.passes { "yes" } else { "no" }.to_string(),
                ]
            })
            .collect();
        out.push_str(&table(
            &["COLOUR", "HEX", "CONTRAST", "MIN", "LEGIBLE"],
            &rows,
        ));
    }
    if let Some(ids) = &r.themes {
        if !out.is_empty() {
            out.push('\n');
        }
        if ids.is_empty() {
            out.push_str("no themes match\n");
        }
        for id in ids {
            out.push_str(id);
            out.push('\n');
        }
        if r.truncated == Some(true) {
            out.push_str(&format!(
                "(showing {} of {}; narrow the list with --filter)\n",
                ids.len(),
                r.matched
            ));
        }
    }
    for p in r.problems.iter().flatten() {
        out.push_str(&format!("note: {p}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::parse;
    use crate::verbs::VerbCommand;
    use serde_json::json;

    #[test]
    fn list_themes_maps_theme_and_filter() {
        let VerbCommand::ListThemes(a) = parse(&["list-themes", "dracula", "--filter", "dark"])
        else {
            panic!("list-themes")
        };
        assert_eq!(
            crate::verbs::params_value(&params(&a)),
            Some(json!({"theme": "dracula", "filter": "dark"}))
        );
    }

    fn columns(line: &str) -> Vec<&str> {
        line.split_whitespace().collect()
    }

    #[test]
    fn themes_list_ids_or_describe_a_palette() {
        let ids = |themes: &[&str], matched: usize, truncated: Option<bool>| Reply {
            themes: Some(themes.iter().map(|t| t.to_string()).collect()),
            matched,
            truncated,
            ..Default::default()
        };
        assert_eq!(print(&ids(&["a", "b"], 2, None)), "a\nb\n");
        assert!(print(&ids(&["a"], 150, Some(true)))
            .ends_with("(showing 1 of 150; narrow the list with --filter)\n"));
        assert_eq!(print(&ids(&[], 0, None)), "no themes match\n");
        let palette = print(&Reply {
            palette: Some(json!({
                "id": "d", "display_name": "D", "dark": true, "bg": "#000000",
                "swatches": [{"name": "fg", "hex": "#ffffff", "ratio": 21.0, "floor": 4.5,
                              "passes": true}]
            })),
            ..Default::default()
        });
        let lines: Vec<&str> = palette.lines().collect();
        assert_eq!(lines[0], "d (D), dark, background #000000");
        assert_eq!(
            columns(lines[1]),
            ["COLOUR", "HEX", "CONTRAST", "MIN", "LEGIBLE"]
        );
        assert_eq!(columns(lines[2]), ["fg", "#ffffff", "21.00", "4.5", "yes"]);
        let problems = print(&Reply {
            problems: Some(vec!["bad.json: not JSON".into()]),
            ..ids(&["a"], 1, None)
        });
        assert_eq!(problems, "a\nnote: bad.json: not JSON\n");
    }
}
