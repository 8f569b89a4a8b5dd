//! `list-themes`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    pub theme: Option<String>,
    pub filter: Option<String>,
}

reply_tag!(Tag = "theme_list");

/// Strict: the daemon reads the config crate's listing into this type, and a key it does not
/// declare is an error rather than a silent drift from `returns`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub total: usize,
    pub themes_dir: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub themes_dir_error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problems: Option<Vec<String>>,
    pub matched: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub themes: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub palette: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_source: Option<String>,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "list-themes",
    description: "List the colour themes there are (built in, plus JSON files in the themes directory), or describe one theme's palette with the contrast of each colour against its background.",
    params: &[
        param("session", Str, "Session whose theme to report as active. Leave it out to use the session that was active most recently, if there is one."),
        param("theme", Str, "Describe this theme's palette."),
        param("filter", Str, "Only theme ids containing this text, ignoring case."),
    ],
    returns: &[
        param("total", Int, "How many themes there are in all."),
        param("themes_dir", Str, "Directory custom theme files are read from."),
        param("themes_dir_error", Str, "Why the themes directory could not be read, when it could not."),
        param("problems", StringList, "One line per custom theme file that was skipped, and why."),
        param("matched", Int, "How many theme ids match the filter."),
        param("themes", StringList, "The matching ids, sorted, at most 100. Given when no theme is named, or when a filter is."),
        param("truncated", Bool, "True when themes was cut at 100."),
        param("palette", Object, "The named theme's colours: background, foreground, cursor and the 16 ANSI colours, each with its contrast ratio and whether it is legible."),
        param("session", Str, "The session the active theme was read from, when there is one."),
        param("active", Str, "The session's theme, empty for the default."),
        param("active_source", Str, "\"session\" or \"default\": where active comes from."),
    ],
    examples: &[
        r#"{"id":1,"verb":"list-themes","params":{}}"#,
        r#"{"id":2,"verb":"list-themes","params":{"filter":"dark"}}"#,
        r#"{"id":3,"verb":"list-themes","params":{"session":"work","theme":"dracula"}}"#,
    ],
};
