//! `set-option`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    /// Required.
    #[serde(default)]
    pub key: String,
    pub value: Option<String>,
}

reply_tag!(Tag = "option_set");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub key: String,
    pub value: String,
    pub applied: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecated: Option<String>,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "set-option",
    description: "Set an option for a session. The value is checked against the option's type and accepted values, recorded with the session, and applied at once by an attached client.",
    params: &[
        SESSION,
        required("key", Str, "Option path, e.g. \"appearance.border_style\". A path without a dot is looked up under appearance. list-options gives them all."),
        param("value", Str, "The new value, always as a string: \"true\", \"5\", \"rounded\". An empty string unsets a colour or the theme."),
    ],
    returns: &[
        param("key", Str, "The full option path that was set."),
        param("value", Str, "The value recorded, as it was sent."),
        param("applied", Bool, "True when an attached client applied the change."),
        param("reason", Str, "Why applied is false: no client attached, or what the client said."),
        param("deprecated", Str, "Present when the option is deprecated: what to use instead."),
    ],
    examples: &[
        r#"{"id":1,"verb":"set-option","params":{"session":"work","key":"appearance.border_style","value":"rounded"}}"#,
        r#"{"id":2,"verb":"set-option","params":{"key":"theme","value":"dracula"}}"#,
    ],
};
