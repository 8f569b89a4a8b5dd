//! `session-info`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

pub type Params = SessionParams;

reply_tag!(Tag = "session_info");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub session_name: String,
    pub session_id: String,
    pub display_name: String,
    pub accent: String,
    pub mode: String,
    pub current_workspace: i64,
    pub num_workspaces: i64,
    pub workspace_names: Map<String, Value>,
    pub workspace_order: Option<Vec<i64>>,
    pub layout_mode: String,
    pub window_count: usize,
    pub tiling_mode: String,
    pub master_ratio: f64,
    pub width: u16,
    pub height: u16,
    pub tui_attached: bool,
    pub clients: usize,
    pub created: u64,
    pub waiters: usize,
    /// One entry per attached client (extension; absent from older daemons).
    #[serde(default)]
    pub client_list: Vec<ClientInfo>,
}

/// An attached client as session-info lists it (the same object the client events carry).
pub use crate::events::ClientInfo;

pub const SPEC: VerbSpec = VerbSpec {
    name: "session-info",
    description: "Describe one session: its workspaces and their names, layout, size, window count, and whether a client is attached.",
    params: &[SESSION],
    returns: &[
        param("session_name", Str, "The session's name."),
        param("session_id", Str, "The session's id."),
        param("display_name", Str, "The display name, empty when none."),
        param("accent", Str, "The accent colour, empty when none."),
        param("mode", Str, "The input mode of an attached client: \"unknown\", the daemon does not track it."),
        param("current_workspace", Int, "The workspace shown now."),
        param("num_workspaces", Int, "How many workspaces a session has: 9."),
        param("workspace_names", Object, "Names of the named workspaces, keyed by number."),
        param("workspace_order", IntList, "The order workspaces are shown in, or null for 1, 2, 3 ..."),
        param("layout_mode", Str, "The current workspace's layout as the attached client reported it: \"bsp\", \"master-stack\" or \"scrolling\"; \"unknown\" when no client has reported one."),
        param("window_count", Int, "How many windows the session has."),
        param("tiling_mode", Str, "\"tiling\" or \"floating\"."),
        param("master_ratio", Float, "Share of the width the master pane takes."),
        param("width", Int, "Width in columns."),
        param("height", Int, "Height in rows."),
        param("tui_attached", Bool, "Whether a client is attached."),
        param("clients", Int, "How many clients are attached (extension)."),
        param("created", Int, "When the session was created, in Unix seconds (extension)."),
        param("waiters", Int, "wait-for calls waiting on this session now (extension)."),
        param("client_list", ObjectList, "The attached clients, each {kind: \"terminal\"|\"web\"|\"ssh\", read_only, since (Unix seconds), peer: \"uid=N pid=N\", an address or a key fingerprint} (extension)."),
    ],
    examples: &[
        r#"{"id":1,"verb":"session-info","params":{"session":"work"}}"#,
        r#"{"id":2,"verb":"session-info","params":{}}"#,
    ],
};
