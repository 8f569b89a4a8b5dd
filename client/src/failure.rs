//! How a command fails, and the exit status each kind of failure maps to.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Exit status for a generic failure.
pub const EXIT_FAILURE: i32 = 1;
/// Exit status when the daemon answers with the `timeout` code (a wait that did not match).
pub const EXIT_TIMEOUT: i32 = 2;
/// Exit status when a command needs a daemon and none is running.
pub const EXIT_NO_DAEMON: i32 = 3;

/// An error object from the daemon: `{code, message, hint?}`.
#[derive(Debug, Clone, PartialEq)]
pub struct DaemonError {
    pub code: String,
    pub message: String,
    pub hint: Option<Value>,
}

#[derive(Debug)]
pub enum Failure {
    /// Nothing answers on the socket (absent, or a stale socket file).
    NoDaemon(PathBuf),
    /// The daemon refused the request.
    Verb(DaemonError),
    /// A failure with a message and optional hint lines.
    Other { message: String, hints: Vec<String> },
}

impl Failure {
    pub fn msg(message: impl Into<String>) -> Self {
        Failure::Other {
            message: message.into(),
            hints: Vec::new(),
        }
    }

    pub fn with_hints(message: impl Into<String>, hints: Vec<String>) -> Self {
        Failure::Other {
            message: message.into(),
            hints,
        }
    }

    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::NoDaemon(_) => EXIT_NO_DAEMON,
            // Scripts tell "not yet" from "broken" by this status.
            Failure::Verb(e) if e.code == "timeout" => EXIT_TIMEOUT,
            Failure::Verb(_) | Failure::Other { .. } => EXIT_FAILURE,
        }
    }

    /// The lines printed on stderr: `error: ...` first, then `hint: ...` lines.
    pub fn lines(&self) -> Vec<String> {
        let (message, hints) = match self {
            Failure::NoDaemon(socket) => (
                format!("no tuios daemon is running on {}", socket.display()),
                no_daemon_hints(socket),
            ),
            Failure::Verb(e) => (e.message.clone(), hint_lines(e.hint.as_ref())),
            Failure::Other { message, hints } => (message.clone(), hints.clone()),
        };
        // Messages and hints may quote names and titles a program or another client chose.
        let mut out = vec![format!(
            "error: {}",
            crate::output::escape_controls(&message)
        )];
        out.extend(
            hints
                .into_iter()
                .map(|h| format!("hint: {}", crate::output::escape_controls(&h))),
        );
        out
    }

    /// The protocol's error envelope, `{"error": {code, message, hint?}}`, for `--json`: a
    /// daemon's refusal as it sent it; the client's own failures with codes of their own
    /// (`no_daemon`, `client_error`), the same the Python client uses for no daemon.
    pub fn to_json(&self) -> Value {
        let (code, message, hint) = match self {
            Failure::NoDaemon(socket) => (
                "no_daemon".to_string(),
                format!("no tuios daemon is running on {}", socket.display()),
                Some(serde_json::json!({
                    "command": "tuios new -d NAME",
                    "detail": no_daemon_hints(socket).join("; "),
                })),
            ),
            Failure::Verb(e) => (e.code.clone(), e.message.clone(), e.hint.clone()),
            Failure::Other { message, hints } => (
                "client_error".to_string(),
                message.clone(),
                (!hints.is_empty()).then(|| serde_json::json!({"detail": hints.join("; ")})),
            ),
        };
        let mut error = serde_json::json!({"code": code, "message": message});
        if let Some(h) = hint {
            error["hint"] = h;
        }
        serde_json::json!({ "error": error })
    }

    /// `--json`: the error envelope on stdout, one line, and nothing on stderr, so a script
    /// reads one format whatever happened.
    pub fn report_json(&self) {
        let mut out = io::stdout().lock();
        let _ = writeln!(out, "{}", self.to_json());
    }

    pub fn report(&self) {
        let mut err = io::stderr().lock();
        for line in self.lines() {
            // Nothing sensible is left to do if stderr itself is gone.
            let _ = writeln!(err, "{line}");
        }
    }
}

/// An error found on this side with the protocol's own checks reads like the daemon's.
impl From<protocol::VerbError> for Failure {
    fn from(e: protocol::VerbError) -> Self {
        let hint = e.to_json().get("hint").cloned();
        Failure::Verb(DaemonError {
            code: e.code.as_str().to_string(),
            message: e.message,
            hint,
        })
    }
}

fn no_daemon_hints(socket: &Path) -> Vec<String> {
    // Repeat --socket only when the default lookup would pick another socket, so the
    // suggested command starts a daemon where this one looked.
    let flag = if socket == daemon::paths::socket_path() {
        String::new()
    } else {
        format!(
            " --socket {}",
            crate::output::shell_quote(&socket.to_string_lossy())
        )
    };
    let mut hints = vec![
        format!("create a session (this starts the daemon): tuios{flag} new -d NAME"),
        format!("or run the daemon in the foreground: tuios{flag} daemon"),
    ];
    // The user units listen on $XDG_RUNTIME_DIR/tuios/tuios.sock only: for any other socket,
    // starting them would start a daemon somewhere this client does not look.
    if serves_unit_socket(socket, std::env::var_os("XDG_RUNTIME_DIR").as_deref()) {
        hints.push(
            "or, with the systemd user units installed (contrib/systemd), start them: \
             systemctl --user start tuios.socket"
                .to_string(),
        );
    }
    hints
}

/// Whether `socket` is where contrib/systemd/tuios.socket listens (`%t/tuios/tuios.sock`).
fn serves_unit_socket(socket: &Path, xdg_runtime_dir: Option<&std::ffi::OsStr>) -> bool {
    xdg_runtime_dir
        .map(Path::new)
        .filter(|d| d.is_absolute())
        .is_some_and(|d| socket == d.join("tuios").join("tuios.sock"))
}

/// Render a hint object as readable lines, most actionable first.
pub fn hint_lines(hint: Option<&Value>) -> Vec<String> {
    let Some(Value::Object(h)) = hint else {
        return Vec::new();
    };
    let text = |k: &str| h.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
    let list = |k: &str| -> Vec<String> {
        h.get(k)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|v| match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut out = Vec::new();
    if let Some(d) = text("did_you_mean") {
        out.push(format!("did you mean \"{d}\"?"));
    }
    let accepted = list("accepted");
    match (text("param"), accepted.is_empty()) {
        (Some(p), false) => out.push(format!("{p} accepts: {}", join_capped(&accepted))),
        (None, false) => out.push(format!("accepted: {}", join_capped(&accepted))),
        (Some(p), true) => out.push(format!("parameter: {p}")),
        (None, true) => {}
    }
    let available = list("available");
    if !available.is_empty() {
        out.push(format!("available: {}", join_capped(&available)));
    }
    if let Some(d) = text("detail") {
        out.push(d.to_string());
    }
    match (text("command"), text("verb")) {
        (Some(c), _) => out.push(format!("try: {c}")),
        (None, Some(v)) => out.push(format!("see the {v} verb (tuios list-verbs {v})")),
        (None, None) => {}
    }
    out
}

/// Long lists (every option path, every verb) stay readable on one line.
fn join_capped(items: &[String]) -> String {
    const CAP: usize = 40;
    if items.len() <= CAP {
        items.join(", ")
    } else {
        format!(
            "{}, ... ({} more)",
            items[..CAP].join(", "),
            items.len() - CAP
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hints_render_every_field() {
        let hint = json!({
            "verb": "list-windows", "command": "tuios list-windows --json", "param": "window",
            "accepted": ["a", "b"], "did_you_mean": "a", "available": ["x", "y"],
            "detail": "No such window."
        });
        assert_eq!(
            hint_lines(Some(&hint)),
            vec![
                "did you mean \"a\"?",
                "window accepts: a, b",
                "available: x, y",
                "No such window.",
                "try: tuios list-windows --json",
            ]
        );
        assert_eq!(
            hint_lines(Some(&json!({"verb": "list-verbs"}))),
            vec!["see the list-verbs verb (tuios list-verbs list-verbs)"]
        );
        assert!(hint_lines(None).is_empty());
    }

    #[test]
    fn no_daemon_failure_names_the_socket_and_exits_3() {
        let f = Failure::NoDaemon(PathBuf::from("/tmp/x/tuios.sock"));
        assert_eq!(f.exit_code(), 3);
        let lines = f.lines();
        assert_eq!(
            lines[0],
            "error: no tuios daemon is running on /tmp/x/tuios.sock"
        );
        assert!(lines.iter().any(|l| l.contains("new -d NAME")));
        assert!(lines.iter().any(|l| l.ends_with("daemon")));
    }

    #[test]
    fn the_systemd_hint_is_only_for_the_units_socket() {
        let run = std::ffi::OsStr::new("/run/user/7");
        assert!(serves_unit_socket(
            Path::new("/run/user/7/tuios/tuios.sock"),
            Some(run)
        ));
        assert!(!serves_unit_socket(
            Path::new("/tmp/tuios-7/tuios.sock"),
            Some(run)
        ));
        assert!(!serves_unit_socket(
            Path::new("/tmp/tuios-7/tuios.sock"),
            None
        ));
        // A socket elsewhere never gets advice that would start a daemon elsewhere.
        let lines = Failure::NoDaemon(PathBuf::from("/tmp/x/tuios.sock")).lines();
        assert!(!lines.iter().any(|l| l.contains("systemctl")), "{lines:?}");
    }

    #[test]
    fn only_the_timeout_code_exits_2() {
        let verb = |code: &str| {
            Failure::Verb(DaemonError {
                code: code.to_string(),
                message: "m".to_string(),
                hint: None,
            })
        };
        assert_eq!(verb("timeout").exit_code(), EXIT_TIMEOUT);
        assert_eq!(verb("window_not_found").exit_code(), EXIT_FAILURE);
        assert_eq!(Failure::msg("did not answer").exit_code(), EXIT_FAILURE);
    }

    #[test]
    fn json_errors_are_the_protocol_envelope() {
        let v = Failure::Verb(DaemonError {
            code: "window_not_found".into(),
            message: "no window 9".into(),
            hint: Some(json!({"param": "window"})),
        })
        .to_json();
        assert_eq!(
            v,
            json!({"error": {"code": "window_not_found", "message": "no window 9", "hint": {"param": "window"}}})
        );
        let v = Failure::NoDaemon(PathBuf::from("/tmp/x.sock")).to_json();
        assert_eq!(v["error"]["code"], "no_daemon");
        assert!(v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/tmp/x.sock"));
        assert_eq!(
            Failure::msg("m").to_json(),
            json!({"error": {"code": "client_error", "message": "m"}})
        );
    }

    #[test]
    fn long_lists_are_capped() {
        let items: Vec<String> = (0..50).map(|i| i.to_string()).collect();
        assert!(join_capped(&items).ends_with("... (10 more)"));
    }
}
