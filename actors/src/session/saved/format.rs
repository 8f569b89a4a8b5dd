//! The file format.
use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The format this daemon writes; it reads every version up to this one.
pub const FORMAT_VERSION: u64 = 1;

/// One saved session, as written to `<name>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedSession {
    pub version: u64,
    /// Unix seconds of the write.
    #[serde(default)]
    pub saved_at: u64,
    pub name: String,
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub created: u64,
    #[serde(default)]
    pub display_name: Option<String>,
    #[serde(default)]
    pub accent: Option<String>,
    pub width: u16,
    pub height: u16,
    pub current_workspace: i64,
    #[serde(default)]
    pub workspace_names: BTreeMap<i64, String>,
    #[serde(default)]
    pub workspace_order: Option<Vec<i64>>,
    /// The window each workspace last had focused.
    #[serde(default)]
    pub workspace_focus: BTreeMap<i64, String>,
    #[serde(default)]
    pub focused: Option<String>,
    /// Option values the session set, by full path.
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    /// The attached client's layout blob, opaque to the daemon.
    #[serde(default)]
    pub layout: Option<String>,
    /// In window order.
    #[serde(default)]
    pub windows: Vec<SavedWindow>,
}

/// One saved window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedWindow {
    pub id: String,
    /// The name the user gave it, if any.
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub workspace: i64,
    #[serde(default)]
    pub minimized: bool,
    /// Working directory of the window's foreground process when last saved.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// The argv the window was created with; empty for a shell window.
    #[serde(default)]
    pub command: Vec<String>,
    #[serde(default)]
    pub remain: bool,
    /// The visible screen as replay bytes (`Emulator::replay` without scrollback), so a window
    /// taken over after a crash shows something until its program draws again. Only the screen:
    /// scrollback is never saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen: Option<String>,
}

/// Parse a saved file, migrating older formats. The error is a reason for a person to read.
pub fn parse(bytes: &[u8]) -> Result<SavedSession, String> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        if e.is_eof() {
            format!("the file ends early (truncated?): {e}")
        } else {
            format!("not valid JSON: {e}")
        }
    })?;
    let Some(version) = value.get("version").and_then(Value::as_u64) else {
        return Err("no \"version\" field: not a tuios session file".to_string());
    };
    let current = migrate(value, version)?;
    serde_json::from_value(current)
        .map_err(|e| format!("format version {version} but a field is wrong: {e}"))
}

/// Bring a file of format `version` up to [`FORMAT_VERSION`], one step at a time. When the
/// format changes, bump the constant and add the step from the previous version here, so that
/// every older file keeps loading.
pub(super) fn migrate(value: Value, version: u64) -> Result<Value, String> {
    match version {
        0 => Err("format version 0 does not exist".to_string()),
        FORMAT_VERSION => Ok(value),
        n if n > FORMAT_VERSION => Err(format!(
            "written by a newer tuios (format version {n}; this one reads up to \
             {FORMAT_VERSION}); upgrade tuios, or remove the file to forget the session"
        )),
        // Unreachable while FORMAT_VERSION is 1; the place for `1 => migrate(v1_to_v2(value), 2)`.
        n => Err(format!("format version {n} is not supported")),
    }
}
