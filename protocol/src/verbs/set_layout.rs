//! `set-layout`: its params, its reply, and what `list-verbs` publishes about it (`SPEC`).

use super::prelude::*;

/// Params of set-layout. `tiling: None` means "do not change the tiling mode".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub session: Option<String>,
    pub tiling: Option<bool>,
    /// Default false.
    pub equalize: Option<bool>,
    /// Default false.
    pub rotate: Option<bool>,
    /// One of [`LAYOUT_MODES`]; `None` keeps the workspace's tiling layout.
    pub layout: Option<String>,
}

/// The tiling layouts a client arranges a workspace in.
pub const LAYOUT_MODES: &[&str] = &["bsp", "master-stack", "scrolling"];

reply_tag!(Tag = "layout");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    #[serde(rename = "type")]
    pub kind: Tag,
    pub tiling_mode: String,
    pub layout_mode: String,
    pub master_ratio: f64,
}

pub const SPEC: VerbSpec = VerbSpec {
    name: "set-layout",
    description: "Change the tiling layout of the current workspace: turn tiling on or off, pick the layout (bsp, master-stack or scrolling; layout is an extension), turn the focused split the other way, or make the splits even. Needs an attached client, which does the layout.",
    params: &[
        SESSION,
        param("tiling", Bool, "true to tile the windows, false to let them float. Leave it out to keep the mode."),
        with_default("equalize", Bool, "Give every pane an equal share of its split.", "false"),
        with_default("rotate", Bool, "Turn the focused pane's split the other way.", "false"),
        param("layout", Str, "How tiled windows are arranged: \"bsp\" (split tree), \"master-stack\" (one pane on the left, the rest stacked on the right) or \"scrolling\" (a strip of columns scrolled to the focused one). Picking one turns tiling on unless tiling says otherwise; leave it out to keep the layout (extension).").accepting(LAYOUT_MODES),
    ],
    returns: &[
        param("tiling_mode", Str, "\"tiling\" or \"floating\"."),
        param("layout_mode", Str, "\"bsp\", \"master-stack\", \"scrolling\", or \"unknown\" when no client has reported one."),
        param("master_ratio", Float, "Share of the width the master pane takes."),
    ],
    examples: &[
        r#"{"id":1,"verb":"set-layout","params":{"session":"work","tiling":true}}"#,
        r#"{"id":2,"verb":"set-layout","params":{"equalize":true,"rotate":true}}"#,
        r#"{"id":3,"verb":"set-layout","params":{"layout":"master-stack"}}"#,
    ],
};
