//! `send-text`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    pub window: Option<String>,
    #[serde(default)]
    pub text: String,
}

pub type Reply = OkReply;

pub const SPEC: VerbSpec = VerbSpec {
    name: "send-text",
    description: "Write text to a window's terminal exactly as given, as if it were typed or pasted.",
    params: &[SESSION, WINDOW, required("text", Str, "The text to write. It must not be empty.")],
    returns: &[],
    examples: &[r#"{"id":1,"verb":"send-text","params":{"session":"work","text":"make test\n"}}"#],
};
