//! `tuios list-options`: the options that can be set, with their defaults and the session's
//! own values.
use std::path::Path;

use protocol::verbs::list_options::{Params, Reply, SPEC};
use serde::Deserialize;

use super::target::SessionTarget;
use crate::failure::Failure;
use crate::output::table;

pub const NAME: Option<&str> = Some("list-options");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: SessionTarget,
    #[arg(value_name = "PREFIX")]
    pub prefix: Option<String>,
    #[arg(long, value_name = "SECTION")]
    pub section: Option<String>,
}

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        section: a.section.clone(),
        prefix: a.prefix.clone(),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

/// The keys of an option row this command shows. The reply carries the rows as free-form
/// objects, so they are read here; a row that does not read shows empty rather than failing
/// the whole listing.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct OptionRow {
    path: String,
    #[serde(rename = "type")]
    ty: String,
    default: String,
    description: String,
    accepted: Vec<String>,
    min: Option<i64>,
    max: Option<i64>,
    deprecated: Option<String>,
    session_value: Option<String>,
}

/// An empty value as `""`, so the column never looks missing.
fn shown(value: &str) -> String {
    match value {
        "" => "\"\"".to_string(),
        v => v.to_string(),
    }
}

/// PATH TYPE DEFAULT [SESSION] DESCRIPTION. The SESSION column appears only when the session
/// set something; the description carries accepted values and ranges.
fn print(r: &Reply) -> String {
    let options: Vec<OptionRow> = r
        .options
        .iter()
        .map(|o| OptionRow::deserialize(o).unwrap_or_default())
        .collect();
    let with_session = options.iter().any(|o| o.session_value.is_some());
    let rows: Vec<Vec<String>> = options
        .iter()
        .map(|o| {
            let mut desc = o.description.clone();
            if !o.accepted.is_empty() {
                desc.push_str(&format!(" [{}]", o.accepted.join("|")));
            }
            match (o.min, o.max) {
                (Some(min), Some(max)) => desc.push_str(&format!(" [{min}..{max}]")),
                (Some(min), None) => desc.push_str(&format!(" [min {min}]")),
                (None, Some(max)) => desc.push_str(&format!(" [max {max}]")),
                (None, None) => {}
            }
            if let Some(dep) = &o.deprecated {
                desc = format!("DEPRECATED ({dep}): {desc}");
            }
            let mut row = vec![o.path.clone(), o.ty.clone(), shown(&o.default)];
            if with_session {
                row.push(o.session_value.as_deref().map_or("-".to_string(), shown));
            }
            row.push(desc);
            row
        })
        .collect();
    if with_session {
        table(
            &["PATH", "TYPE", "DEFAULT", "SESSION", "DESCRIPTION"],
            &rows,
        )
    } else {
        table(&["PATH", "TYPE", "DEFAULT", "DESCRIPTION"], &rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::params_sent as sent;

    use serde_json::{json, Value};

    #[test]
    fn list_options_maps_prefix_and_section() {
        assert_eq!(
            sent(&["list-options", "appearance.sidebar", "--section", "sidebar"]),
            Some(json!({"prefix": "appearance.sidebar", "section": "sidebar"}))
        );
        assert_eq!(sent(&["list-options"]), None);
    }

    fn columns(line: &str) -> Vec<&str> {
        line.split_whitespace().collect()
    }

    #[test]
    fn options_table_adds_the_session_column_only_when_set() {
        let row = |path: &str, session: Option<&str>| {
            let mut r = json!({"path": path, "type": "string", "default": "",
                "description": "D.", "accepted": ["a", "b"]});
            if let Some(v) = session {
                r["session_value"] = json!(v);
            }
            r
        };
        let listing = |options: Vec<Value>| Reply {
            options,
            ..Default::default()
        };
        let plain_t = print(&listing(vec![row("x.y", None)]));
        assert_eq!(
            plain_t,
            "PATH  TYPE    DEFAULT  DESCRIPTION\nx.y   string  \"\"       D. [a|b]\n"
        );
        let with = print(&listing(vec![row("x.y", Some("b")), row("x.z", None)]));
        let lines: Vec<Vec<&str>> = with.lines().map(columns).collect();
        assert_eq!(
            lines[0],
            ["PATH", "TYPE", "DEFAULT", "SESSION", "DESCRIPTION"]
        );
        assert_eq!(lines[1], ["x.y", "string", "\"\"", "b", "D.", "[a|b]"]);
        assert_eq!(lines[2], ["x.z", "string", "\"\"", "-", "D.", "[a|b]"]);
    }

    #[test]
    fn ranges_and_deprecations_are_part_of_the_description() {
        let reply = Reply {
            options: vec![json!({"path": "a.n", "type": "int", "default": "3",
                "description": "N.", "min": 1, "max": 9, "deprecated": "use a.m"})],
            ..Default::default()
        };
        assert_eq!(
            print(&reply).lines().nth(1),
            Some("a.n   int   3        DEPRECATED (use a.m): N. [1..9]")
        );
    }
}
