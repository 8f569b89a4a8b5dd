//! `unsubscribe`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

pub type Params = NoParams;

reply_tag!(Tag = "unsubscribed");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "unsubscribe",
    description: "Close this connection's event stream; no event is written after the response.",
    params: &[],
    returns: &[],
    examples: &[r#"{"id":1,"verb":"unsubscribe"}"#],
};
