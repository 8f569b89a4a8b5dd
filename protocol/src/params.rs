//! Each verb's params under the name handlers know them by (the types are declared with their
//! verbs in [`crate::verbs`]), and the helpers that read them: capture modes and slicing, and the
//! hello handshake check.

use crate::closest::{closest_match, echo_name};
use crate::error::{ErrorCode, Hint, VerbError};
use crate::registry::CAPTURE_SOURCES;
use crate::{MIN_PROTOCOL_VERSION, PROTOCOL_VERSION};

pub use crate::verbs::capture_pane::Params as CapturePaneParams;
pub use crate::verbs::common::{SessionParams, WindowParams};
pub use crate::verbs::explain_agent_screen::Params as ExplainAgentScreenParams;
pub use crate::verbs::focus_window::Params as FocusWindowParams;
pub use crate::verbs::get_option::Params as GetOptionParams;
pub use crate::verbs::hello::Params as HelloParams;
pub use crate::verbs::kill_session::Params as KillSessionParams;
pub use crate::verbs::list_options::Params as ListOptionsParams;
pub use crate::verbs::list_themes::Params as ListThemesParams;
pub use crate::verbs::list_verbs::Params as ListVerbsParams;
pub use crate::verbs::move_window::Params as MoveWindowParams;
pub use crate::verbs::new_session::Params as NewSessionParams;
pub use crate::verbs::new_window::Params as NewWindowParams;
pub use crate::verbs::resize::Params as ResizeParams;
pub use crate::verbs::run::Params as RunParams;
pub use crate::verbs::run_command::Params as RunCommandParams;
pub use crate::verbs::select_workspace::Params as SelectWorkspaceParams;
pub use crate::verbs::send_keys::Params as SendKeysParams;
pub use crate::verbs::send_text::Params as SendTextParams;
pub use crate::verbs::set_agent_state::Params as SetAgentStateParams;
pub use crate::verbs::set_layout::Params as SetLayoutParams;
pub use crate::verbs::set_option::Params as SetOptionParams;
pub use crate::verbs::set_session_accent::Params as SetSessionAccentParams;
pub use crate::verbs::set_session_name::Params as SetSessionNameParams;
pub use crate::verbs::set_window::Params as SetWindowParams;
pub use crate::verbs::set_workspace_name::Params as SetWorkspaceNameParams;
pub use crate::verbs::set_workspace_order::Params as SetWorkspaceOrderParams;
pub use crate::verbs::split_window::Params as SplitWindowParams;
pub use crate::verbs::subscribe::Params as SubscribeParams;
pub use crate::verbs::upgrade::Params as UpgradeParams;
pub use crate::verbs::wait_for::Params as WaitForParams;
/// Params of list-workspaces: only the session.
pub type ListWorkspacesParams = SessionParams;
/// Params of get-agent-state and explain-agent-detect: the window only.
pub type AgentWindowParams = WindowParams;

impl HelloParams {
    /// The handshake check: a caller that omits `protocol` (or sends 0 or less) is accepted; one
    /// outside `MIN_PROTOCOL_VERSION..=PROTOCOL_VERSION` gets `protocol_mismatch` saying which side
    /// is newer and what to do about it.
    pub fn check_protocol(&self, daemon_version: &str) -> Result<(), VerbError> {
        let theirs = self.protocol.unwrap_or(0);
        let client_version = self
            .version
            .as_deref()
            .filter(|v| !v.is_empty())
            .unwrap_or("unknown");
        let client_version = echo_name(client_version);
        if theirs > PROTOCOL_VERSION {
            return Err(VerbError::new(
                ErrorCode::ProtocolMismatch,
                format!(
                    "the client speaks control protocol {theirs}, newer than this daemon, which speaks up to {PROTOCOL_VERSION}"
                ),
            )
            .with_hint(Hint::new().command("tuios kill-server").detail(format!(
                "The daemon (version {daemon_version}) is older than the client (version {client_version}); it was most likely left running across an upgrade. Stop it and the newer client can start a current one."
            ))));
        }
        if theirs > 0 && theirs < MIN_PROTOCOL_VERSION {
            return Err(VerbError::new(
                ErrorCode::ProtocolMismatch,
                format!(
                    "the client speaks control protocol {theirs}, older than this daemon still serves (oldest {MIN_PROTOCOL_VERSION})"
                ),
            )
            .with_hint(Hint::new().detail(format!(
                "The client (version {client_version}) is older than the daemon (version {daemon_version}). Upgrade the client."
            ))));
        }
        Ok(())
    }
}

/// What a capture-pane call reads, once its aliases are folded in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaptureMode {
    /// Read the scrollback before the visible screen.
    pub scrollback: bool,
    /// Keep ANSI styling.
    pub styled: bool,
}

impl CaptureMode {
    /// The `source` to report in the result: the one actually read.
    pub fn source(&self) -> &'static str {
        if self.scrollback {
            "recent"
        } else {
            "visible"
        }
    }
}

/// The source name that was retired: the emulator does not record soft wraps, so "unwrapping"
/// rows could only guess.
pub const RETIRED_CAPTURE_SOURCE: &str = "recent-unwrapped";

impl CapturePaneParams {
    /// Checks `source` (capture-pane's first check, before the session is looked up) and folds the
    /// older spellings `scrollback` and `ansi` into the mode.
    pub fn mode(&self) -> Result<CaptureMode, VerbError> {
        let source = self.source.as_deref().unwrap_or("");
        if !source.is_empty() && !CAPTURE_SOURCES.contains(&source) {
            let message = format!("unknown capture source {:?}", echo_name(source));
            let hint = Hint::new()
                .param("source")
                .accepted(CAPTURE_SOURCES)
                .verb("list-verbs");
            let hint = if source == RETIRED_CAPTURE_SOURCE {
                hint.did_you_mean(Some("recent".to_owned())).detail(
                    "Unwrapped capture was retired: the emulator does not record which rows were soft-wrapped, so joining them would be guesswork. \"recent\" returns the same rows, split at the pane width.",
                )
            } else {
                hint.did_you_mean(closest_match(source, CAPTURE_SOURCES.iter().copied()))
            };
            return Err(VerbError::new(ErrorCode::InvalidParams, message).with_hint(hint));
        }
        Ok(CaptureMode {
            scrollback: source == "recent" || self.scrollback.unwrap_or(false),
            styled: self.styled.unwrap_or(false) || self.ansi.unwrap_or(false),
        })
    }
}

/// Narrows captured content to some of its rows.
///
/// - `start > 0 || end > 0`: rows `start..=end`, 1-based; `start <= 0` means 1, `end <= 0` or past
///   the last row means the last row; a range that is empty or starts past the end gives `""`.
/// - otherwise `lines > 0`: blank (whitespace-only) rows at the bottom are dropped, then the last
///   `lines` rows are kept.
/// - otherwise the content is returned unchanged.
///
/// A trailing newline on the input is not a row of its own, and is kept on a non-empty result.
pub fn slice_capture(content: &str, lines: i64, start: i64, end: i64) -> String {
    if start <= 0 && end <= 0 && lines <= 0 {
        return content.to_owned();
    }
    let trailing = content.ends_with('\n');
    let body = content.strip_suffix('\n').unwrap_or(content);
    let rows: Vec<&str> = body.split('\n').collect();
    let count = rows.len() as i64;

    let selected: &[&str] = if start > 0 || end > 0 {
        let lo = start.max(1);
        let hi = if end <= 0 || end > count { count } else { end };
        if lo > count || lo > hi {
            return String::new();
        }
        &rows[(lo - 1) as usize..hi as usize]
    } else {
        // A capture ends at the bottom of the pane, usually below the cursor in a run of empty
        // rows; "the last N lines" means the last N with something on them.
        let mut kept = rows.len();
        while kept > 0 && rows[kept - 1].trim().is_empty() {
            kept -= 1;
        }
        let from = kept.saturating_sub(lines as usize);
        &rows[from..kept]
    };
    let mut out = selected.join("\n");
    if trailing && !out.is_empty() {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::decode;
    use serde_json::json;

    #[test]
    fn slicing() {
        let c = "a\nb\nc\nd\ne";
        assert_eq!(slice_capture(c, 0, 0, 0), c);
        assert_eq!(slice_capture(c, -1, -5, 0), c);
        assert_eq!(slice_capture(c, 2, 0, 0), "d\ne");
        assert_eq!(slice_capture(c, 10, 0, 0), c);
        assert_eq!(slice_capture(c, 0, 2, 3), "b\nc");
        assert_eq!(slice_capture(c, 0, 2, 0), "b\nc\nd\ne");
        assert_eq!(slice_capture(c, 0, 0, 2), "a\nb");
        assert_eq!(slice_capture(c, 0, 4, 99), "d\ne");
        assert_eq!(slice_capture(c, 0, 6, 0), "");
        assert_eq!(slice_capture(c, 0, 3, 2), "");
        assert_eq!(slice_capture(c, 0, 5, 5), "e");
        // start/end win over lines.
        assert_eq!(slice_capture(c, 1, 1, 1), "a");
        // Trailing blank rows are not counted by lines, but are by start/end.
        let screen = "$ ls\nfile\n$ \n   \n\n";
        assert_eq!(slice_capture(screen, 2, 0, 0), "file\n$ \n");
        assert_eq!(slice_capture(screen, 0, 3, 0), "$ \n   \n\n");
        // A trailing newline is kept on a non-empty result only.
        assert_eq!(slice_capture("x\ny\n", 1, 0, 0), "y\n");
        assert_eq!(slice_capture("x\ny\n", 0, 3, 0), "");
        assert_eq!(slice_capture("\n\n\n", 2, 0, 0), "");
        assert_eq!(slice_capture("", 3, 0, 0), "");
        assert_eq!(slice_capture("", 0, 1, 1), "");
        assert_eq!(slice_capture("only", 0, 1, 1), "only");
    }

    #[test]
    fn capture_mode() {
        let p = |v: serde_json::Value| decode::<CapturePaneParams>(&v).unwrap().mode();
        assert_eq!(
            p(json!({})).unwrap(),
            CaptureMode {
                scrollback: false,
                styled: false
            }
        );
        assert_eq!(p(json!({"source": ""})).unwrap().source(), "visible");
        assert_eq!(p(json!({"source": "recent"})).unwrap().source(), "recent");
        // The older spellings fold in, and the reported source is the one actually read.
        assert_eq!(
            p(json!({"source": "visible", "scrollback": true}))
                .unwrap()
                .source(),
            "recent"
        );
        assert!(p(json!({"ansi": true})).unwrap().styled);
        assert!(p(json!({"styled": true})).unwrap().styled);

        let err = p(json!({"source": "recnet"})).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParams);
        assert_eq!(err.hint.param.as_deref(), Some("source"));
        assert_eq!(err.hint.accepted, ["visible", "recent"]);
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("recent"));

        let err = p(json!({"source": "recent-unwrapped"})).unwrap_err();
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("recent"));
        assert!(err.hint.detail.is_some());
    }

    #[test]
    fn hello_protocol_check() {
        let hello = |protocol: Option<i64>| HelloParams {
            protocol,
            version: Some("9.9".into()),
            client: None,
        };
        assert!(hello(None).check_protocol("1.0").is_ok());
        assert!(hello(Some(0)).check_protocol("1.0").is_ok());
        assert!(hello(Some(-4)).check_protocol("1.0").is_ok());
        assert!(hello(Some(PROTOCOL_VERSION)).check_protocol("1.0").is_ok());
        let err = hello(Some(9999)).check_protocol("1.0").unwrap_err();
        assert_eq!(err.code, ErrorCode::ProtocolMismatch);
        assert_eq!(err.hint.command.as_deref(), Some("tuios kill-server"));
        let detail = err.hint.detail.unwrap();
        assert!(detail.contains("1.0") && detail.contains("9.9"), "{detail}");
        assert!(err.message.contains("9999"));
    }

    #[test]
    fn params_decode_from_null_and_values() {
        let p: NewWindowParams = decode(&serde_json::Value::Null).unwrap();
        assert_eq!(p, NewWindowParams::default());
        let p: NewWindowParams =
            decode(&json!({"session": "s", "command": ["a", "b"], "remain": true, "focus": null, "workspace": 2.0}))
                .unwrap();
        assert_eq!(p.command, Some(vec!["a".to_owned(), "b".to_owned()]));
        assert_eq!(p.remain, Some(true));
        assert_eq!(p.focus, None);
        assert_eq!(p.workspace, Some(2));
        let p: SendKeysParams = decode(&json!({"keys": "ls,Enter", "literal": false})).unwrap();
        assert_eq!(p.keys, "ls,Enter");
        // A typed request serializes its left-out params as null, which decodes back the same.
        assert_eq!(
            serde_json::to_value(&p).unwrap(),
            json!({"session": null, "window": null, "keys": "ls,Enter", "literal": false, "raw": null})
        );
        assert_eq!(
            decode::<SendKeysParams>(&serde_json::to_value(&p).unwrap()).unwrap(),
            p
        );
        let _: HelloParams = decode(&json!({"protocol": 1})).unwrap();
        let _: ListVerbsParams = decode(&json!({"verb": "hello"})).unwrap();
        let _: SessionParams = decode(&json!({"session": "s"})).unwrap();
        let _: WindowParams = decode(&json!({"window": "w"})).unwrap();
        let _: SendTextParams = decode(&json!({"text": "t"})).unwrap();
        let r: ResizeParams = decode(&json!({"width": 80, "height": 24})).unwrap();
        assert_eq!((r.width, r.height), (80, 24));
    }

    #[test]
    fn issue4_params_decode() {
        let p: SetWindowParams = decode(&json!({"window": "w", "name": null})).unwrap();
        assert_eq!(p.name, None);
        assert_eq!(p.minimized, None);
        let p: SetWindowParams = decode(&json!({"name": "", "minimized": true})).unwrap();
        assert_eq!(p.name.as_deref(), Some(""));
        assert_eq!(p.minimized, Some(true));

        let p: RunCommandParams =
            decode(&json!({"command": "SwitchWorkspace", "args": ["2"]})).unwrap();
        assert_eq!(p.command, "SwitchWorkspace");
        assert_eq!(p.args, Some(vec!["2".to_owned()]));
        let typed = RunCommandParams {
            command: "ListWindows".into(),
            ..Default::default()
        };
        let line = crate::envelope::Request::new(
            Some(json!(1)),
            "run-command",
            serde_json::to_value(&typed).unwrap(),
        );
        assert_eq!(
            crate::verbs::Request::parse(&line).unwrap(),
            crate::verbs::Request::RunCommand(typed)
        );

        let p: SetWorkspaceOrderParams = decode(&json!({"order": [3, 1.0, 2]})).unwrap();
        assert_eq!(p.order, vec![3, 1, 2]);
        let p: MoveWindowParams = decode(&json!({"workspace": 2.0, "follow": true})).unwrap();
        assert_eq!((p.workspace, p.follow), (2, Some(true)));
        let p: SetLayoutParams = decode(&json!({"tiling": null, "rotate": true})).unwrap();
        assert_eq!((p.tiling, p.equalize, p.rotate), (None, None, Some(true)));

        let _: ListWorkspacesParams = decode(&json!({"session": "s"})).unwrap();
        let _: SelectWorkspaceParams = decode(&json!({"workspace": 1})).unwrap();
        let _: FocusWindowParams = decode(&json!({"relative": "next"})).unwrap();
        let _: SplitWindowParams = decode(&json!({"direction": "vertical", "name": "n"})).unwrap();
        let _: SetSessionNameParams = decode(&json!({"name": "x"})).unwrap();
        let _: SetSessionAccentParams = decode(&json!({"accent": "cyan"})).unwrap();
        let _: SetWorkspaceNameParams = decode(&json!({"workspace": 2, "name": "x"})).unwrap();
        let _: ListOptionsParams = decode(&json!({"section": "a", "prefix": "b"})).unwrap();
        let _: SetOptionParams = decode(&json!({"key": "k", "value": "v"})).unwrap();
        let _: GetOptionParams = decode(&json!({"key": "k"})).unwrap();
        let _: ListThemesParams = decode(&json!({"theme": "t", "filter": "f"})).unwrap();
        // A JSON literal where a string is declared does not decode.
        assert!(decode::<SetOptionParams>(&json!({"key": "k", "value": 5})).is_err());
    }
}
