//! `close-window`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

pub type Params = WindowParams;

pub type Reply = OkReply;

pub const SPEC: VerbSpec = VerbSpec {
    name: "close-window",
    description: "Close a window and end the process running in it.",
    params: &[SESSION, WINDOW],
    returns: &[],
    examples: &[
        r#"{"id":1,"verb":"close-window","params":{"session":"work","window":"build"}}"#,
        r#"{"id":2,"verb":"close-window","params":{}}"#,
    ],
};
