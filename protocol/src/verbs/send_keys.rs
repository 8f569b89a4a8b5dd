//! `send-keys`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    pub window: Option<String>,
    #[serde(default)]
    pub keys: String,
    pub literal: Option<bool>,
    pub raw: Option<bool>,
}

pub type Reply = OkReply;

pub const SPEC: VerbSpec = VerbSpec {
    name: "send-keys",
    description: "Send keys to a window, e.g. \"ls,Enter\" or \"ctrl+c\". Tokens are separated by spaces or commas; key names (Enter, Tab, Escape, Up, PageDown, F1, ...), ctrl+<key> and alt+<key>, and tmux's names (C-c, M-x, S-Up, BSpace, BTab, DC, IC, NPage, PPage) become the bytes those keys send, and any other token is typed as written, except a capitalised one within a typo of a key name (Entr), which is refused with did_you_mean. Use literal, or send-text, for text that contains spaces or commas. With a client attached, keys holding its leader key (ctrl+b, C-b or PREFIX) go through that client, so the leader acts as if typed there (\"ctrl+b,n\" moves to the next window).",
    params: &[
        SESSION,
        WINDOW,
        required("keys", Str, "Key tokens separated by spaces or commas, e.g. \"ls,Enter\" or \"ctrl+c\"."),
        with_default("literal", Bool, "Send keys exactly as written instead of reading key names from it.", "false"),
        with_default(
            "raw",
            Bool,
            "Treat every character as a key of its own instead of splitting on spaces and commas.",
            "false",
        ),
    ],
    returns: &[],
    examples: &[
        r#"{"id":1,"verb":"send-keys","params":{"session":"work","keys":"ls,Enter"}}"#,
        r#"{"id":2,"verb":"send-keys","params":{"window":"build","keys":"ctrl+c"}}"#,
        r#"{"id":3,"verb":"send-keys","params":{"keys":"echo hi","literal":true}}"#,
    ],
};
