//! `list-options`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    pub section: Option<String>,
    pub prefix: Option<String>,
}

reply_tag!(Tag = "option_list");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub options: Vec<Value>,
    pub sections: Vec<String>,
    pub total: usize,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "list-options",
    description: "List the options that can be set, with their type, section, default and accepted values, and the session's own value where it set one. Filter by section or path prefix.",
    params: &[
        param("session", Str, "Session whose values to show next to the defaults. Leave it out to use the session that was active most recently, if there is one."),
        param("section", Str, "Only options of this section, e.g. \"appearance\"."),
        param("prefix", Str, "Only options whose path starts with this, e.g. \"appearance.sidebar\"."),
    ],
    returns: &[
        param("options", ObjectList, "One row per option, sorted by path: path, type, section, description, default, applies (client, daemon or inert: an option of the reference TUIOS that is accepted and recorded but does nothing here), and accepted, min, max, inert (why it does nothing), deprecated and session_value where they apply."),
        param("sections", StringList, "Every section name, sorted."),
        param("total", Int, "How many rows were returned."),
    ],
    examples: &[
        r#"{"id":1,"verb":"list-options","params":{}}"#,
        r#"{"id":2,"verb":"list-options","params":{"session":"work","section":"appearance"}}"#,
        r#"{"id":3,"verb":"list-options","params":{"prefix":"appearance.sidebar"}}"#,
    ],
};
