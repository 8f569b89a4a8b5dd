//! `get-option`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    /// Required.
    #[serde(default)]
    pub key: String,
}

reply_tag!(Tag = "option");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub key: String,
    pub value: String,
    pub source: String,
    pub default: String,
    pub option_type: String,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "get-option",
    description: "Read one option: the session's own value if it set one, otherwise the built-in default.",
    params: &[
        SESSION,
        required("key", Str, "Option path, e.g. \"appearance.border_style\". A path without a dot is looked up under appearance."),
    ],
    returns: &[
        param("key", Str, "The full option path that was read."),
        param("value", Str, "The value in effect, as a string."),
        param("source", Str, "\"session\" when the session set the value, \"default\" when it is the built-in default."),
        param("default", Str, "The built-in default, when the option is a known one."),
        param("option_type", Str, "bool, int or string, when the option is a known one."),
    ],
    examples: &[
        r#"{"id":1,"verb":"get-option","params":{"session":"work","key":"appearance.border_style"}}"#,
        r#"{"id":2,"verb":"get-option","params":{"key":"theme"}}"#,
    ],
};
