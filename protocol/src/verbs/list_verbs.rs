//! `list-verbs`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub verb: Option<String>,
}

reply_tag!(Tag = "verb_list");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub version: i64,
    pub min_version: i64,
    pub daemon_version: String,
    pub verbs: Vec<Value>,
    pub error_codes: Vec<Value>,
    pub envelope: Value,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "list-verbs",
    description: "Describe the protocol: every verb with its parameters, accepted values, defaults and example requests, plus the error codes and envelope shapes. Name a verb to describe only that one.",
    params: &[param("verb", Str, "Describe only this verb.")],
    returns: &[
        param("version", Int, "Control protocol version the daemon speaks."),
        param("min_version", Int, "Oldest control protocol version the daemon still serves."),
        param("daemon_version", Str, "The daemon's release."),
        param("verbs", ObjectList, "Each verb: verb, description, params (name, type, required, description, accepted, default), returns (the keys of its reply) and examples."),
        param("error_codes", ObjectList, "Every error code with its description."),
        param("envelope", Object, "The shapes of requests, responses and hints: transport, request, success, failure, hint."),
    ],
    examples: &[
        r#"{"id":1,"verb":"list-verbs","params":{}}"#,
        r#"{"id":2,"verb":"list-verbs","params":{"verb":"capture-pane"}}"#,
    ],
};
