//! What the daemon is expected to publish: the spec's verbs, the extensions, the core set and the
//! error codes.

/// Verbs the daemon adds to the spec's, each marked as an extension in its description.
pub const EXTENSION_VERBS: [&str; 7] = [
    "new-session",
    "record-start",
    "record-stop",
    "resurrect",
    "run",
    "search",
    "upgrade",
];

/// `list-verbs` names without the extensions, for comparing with [`SPEC_VERBS`].
pub fn without_extensions(names: &[String]) -> Vec<String> {
    for ext in EXTENSION_VERBS {
        assert!(
            names.iter().any(|n| n == ext),
            "extension verb {ext} is not listed"
        );
    }
    names
        .iter()
        .filter(|n| !EXTENSION_VERBS.contains(&n.as_str()))
        .cloned()
        .collect()
}

/// The 35 verbs of the spec, sorted as `list-verbs` lists them. The daemon may implement a
/// subset while it grows, and adds only the [`EXTENSION_VERBS`].
pub const SPEC_VERBS: [&str; 35] = [
    "capture-pane",
    "close-window",
    "explain-agent-detect",
    "explain-agent-screen",
    "focus-window",
    "get-agent-state",
    "get-option",
    "hello",
    "kill-session",
    "list-options",
    "list-sessions",
    "list-themes",
    "list-verbs",
    "list-windows",
    "list-workspaces",
    "move-window",
    "new-window",
    "resize",
    "run-command",
    "select-workspace",
    "send-keys",
    "send-text",
    "session-info",
    "set-agent-state",
    "set-layout",
    "set-option",
    "set-session-accent",
    "set-session-name",
    "set-window",
    "set-workspace-name",
    "set-workspace-order",
    "split-window",
    "subscribe",
    "unsubscribe",
    "wait-for",
];

/// The verbs every build must answer (the first milestone's set).
pub const CORE_VERBS: [&str; 12] = [
    "capture-pane",
    "close-window",
    "hello",
    "kill-session",
    "list-sessions",
    "list-verbs",
    "list-windows",
    "new-window",
    "resize",
    "send-keys",
    "send-text",
    "session-info",
];

/// The stable error codes, in the catalog order `list-verbs` publishes.
pub const ERROR_CODES: [&str; 13] = [
    "invalid_request",
    "unknown_verb",
    "invalid_params",
    "session_not_found",
    "window_not_found",
    "no_windows",
    "pty_not_found",
    "needs_client",
    "option_not_found",
    "command_failed",
    "timeout",
    "protocol_mismatch",
    "internal",
];
