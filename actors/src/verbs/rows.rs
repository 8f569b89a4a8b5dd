//! The wire form of a window, shared by list-windows, set-window, focus-window and run-command's
//! GetWindow: one conversion, so every verb describes a window alike.
use protocol::verbs::common::{ExitCode, WindowRow};

use crate::session::WindowInfo;

/// A window as list-windows sends it. Unset facts leave their keys out; a program that ended
/// without a status has `"exit_code": null` and its `exit_reason`.
pub(super) fn window_row(w: WindowInfo) -> WindowRow {
    let mut row = WindowRow {
        window_id: w.id,
        index: w.index,
        title: w.title,
        display_name: w.display_name,
        workspace: w.workspace,
        minimized: w.minimized,
        focused: w.focused,
        x: w.x,
        y: w.y,
        width: w.width,
        height: w.height,
        pty_id: w.pty_id,
        agent_state: w.agent.state.as_str().to_string(),
        alive: w.exited.is_none(),
        failed_frames: w.failed_frames,
        custom_name: w.custom_name,
        agent_message: w.agent.message,
        agent_state_at: w.agent.since_ns.map(|ns| ns as i64),
        agent_harness: w.agent.harness,
        foreground_cmd: w.agent.foreground_cmd,
        ..Default::default()
    };
    if let Some(exit) = w.exited {
        row.exit_code = exit.code.map(ExitCode::Code);
        row.signal = exit.signal;
        if let Some(reason) = exit.reason {
            row.exit_code = Some(ExitCode::Unknown);
            row.exit_reason = Some(reason.to_string());
        }
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::state::AgentFacts;
    use crate::pty::ExitInfo;
    use protocol::agent::AgentState;
    use serde_json::Value;

    fn window() -> WindowInfo {
        WindowInfo {
            id: "w1".into(),
            index: 0,
            title: "Terminal w1".into(),
            custom_name: None,
            display_name: "Terminal w1".into(),
            workspace: 1,
            minimized: false,
            focused: true,
            x: 0,
            y: 0,
            width: 80,
            height: 24,
            pty_id: "p1".into(),
            failed_frames: 0,
            agent: AgentFacts {
                state: AgentState::None,
                message: None,
                since_ns: None,
                harness: None,
                foreground_cmd: None,
            },
            exited: None,
        }
    }

    fn row_of(w: WindowInfo) -> Value {
        serde_json::to_value(window_row(w)).unwrap()
    }

    #[test]
    fn agent_keys_appear_only_when_set() {
        let row = row_of(window());
        assert_eq!(row["agent_state"], "none");
        for k in [
            "agent_message",
            "agent_state_at",
            "agent_harness",
            "foreground_cmd",
        ] {
            assert!(row.get(k).is_none(), "{k}");
        }
        let mut w = window();
        w.agent = AgentFacts {
            state: AgentState::NeedsInput,
            message: Some("approve".into()),
            since_ns: Some(7_000_000),
            harness: Some("codex".into()),
            foreground_cmd: Some("codex".into()),
        };
        let row = row_of(w);
        assert_eq!(row["agent_state"], "needs_input");
        assert_eq!(row["agent_message"], "approve");
        assert_eq!(row["agent_state_at"], 7_000_000);
        assert_eq!(row["agent_harness"], "codex");
        assert_eq!(row["foreground_cmd"], "codex");
    }

    #[test]
    fn an_exit_shows_its_code_or_a_null_code_with_the_reason() {
        let row = row_of(window());
        assert_eq!(row["alive"], true);
        for k in ["exit_code", "signal", "exit_reason", "custom_name"] {
            assert!(row.get(k).is_none(), "{k}");
        }
        let mut w = window();
        w.exited = Some(ExitInfo {
            code: Some(3),
            signal: None,
            reason: None,
        });
        let row = row_of(w);
        assert_eq!(
            (row["alive"].clone(), row["exit_code"].clone()),
            (false.into(), 3.into())
        );
        assert!(row.get("exit_reason").is_none());
        let mut w = window();
        w.exited = Some(ExitInfo {
            code: None,
            signal: None,
            reason: Some("taken over"),
        });
        let row = row_of(w);
        assert_eq!(row["exit_code"], Value::Null);
        assert_eq!(row["exit_reason"], "taken over");
    }
}
