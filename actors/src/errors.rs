//! Error constructors shared by the verb handlers, so each failure a client can cause carries the
//! same code, wording and hint wherever it is raised.
use protocol::closest::{closest_match, echo_name};
use protocol::{ErrorCode, Hint, VerbError};

pub fn no_sessions() -> VerbError {
    VerbError::new(ErrorCode::SessionNotFound, "no sessions exist").with_hint(
        Hint::new()
            .param("session")
            .command("tuios new --detach")
            .detail("The daemon is running but holds no sessions yet; create one first."),
    )
}

pub fn session_not_found(name: &str, available: &[String]) -> VerbError {
    VerbError::new(
        ErrorCode::SessionNotFound,
        format!("session {} not found", echo_name(name)),
    )
    .with_hint(
        Hint::new()
            .param("session")
            .command("tuios ls")
            .did_you_mean(closest_match(name, available.iter().map(String::as_str)))
            .available(available.iter().cloned())
            .detail("No live session has that name; session names are exact and case-sensitive."),
    )
}

pub fn no_windows(session: &str) -> VerbError {
    VerbError::new(
        ErrorCode::NoWindows,
        format!("session {} has no windows", echo_name(session)),
    )
    .with_hint(
        Hint::new()
            .verb("new-window")
            .command("tuios new-window")
            .detail(
                "The session exists but holds no windows; create one before addressing a window.",
            ),
    )
}

pub fn window_not_found(target: &str, available: &[String], why: &str) -> VerbError {
    VerbError::new(ErrorCode::WindowNotFound, why.to_string()).with_hint(
        Hint::new()
            .param("window")
            .verb("list-windows")
            .command("tuios list-windows --json")
            .did_you_mean(closest_match(target, available.iter().map(String::as_str)))
            .available(available.iter().cloned())
            .detail(
                "A window is addressed by its id, a unique id prefix, the index list-windows \
                 prints, or its exact name or title.",
            ),
    )
}

pub fn window_gone(window_id: &str) -> VerbError {
    VerbError::new(
        ErrorCode::WindowNotFound,
        format!("window {window_id} closed while the request was in flight"),
    )
    .with_hint(Hint::new().param("window").verb("list-windows"))
}

pub fn pty_not_found(window_id: &str) -> VerbError {
    VerbError::new(
        ErrorCode::PtyNotFound,
        format!("window {window_id} has no live PTY: its program has exited"),
    )
    .with_hint(Hint::new().verb("list-windows").detail(
        "The window is still listed but nothing reads its input any more. Close it, or open a new window.",
    ))
}

pub fn internal(message: impl Into<String>) -> VerbError {
    VerbError::new(ErrorCode::Internal, message)
}
