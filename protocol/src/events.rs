//! Events of the `subscribe` stream and the conditions of `wait-for`.
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Every event type a subscriber can ask for, in the order `list-verbs` publishes them.
pub const EVENT_TYPES: &[&str] = &[
    "window-created",
    "window-closed",
    "window-exit",
    "window-retitled",
    "window-focused",
    "window-moved",
    "window-minimized",
    "window-restored",
    "workspace-switched",
    "output",
    "bell",
    "mode-changed",
    "session-created",
    "session-closed",
    "agent-state",
    "gap",
    // Extensions: a window's recording (record-start) began or ended.
    "recording-started",
    "recording-stopped",
    // Extensions: a terminal, browser or SSH client attached to a session or left it.
    "client-attached",
    "client-detached",
    // Extension: lines left a window's history for a byte budget (`lines` says how many).
    "history-dropped",
];

/// Conditions `wait-for` understands.
pub const WAIT_CONDITIONS: &[&str] = &[
    "session-exists",
    "window-output",
    "window-exit",
    "window-idle",
    "agent-state",
    // The visible screen's text and styles stayed the same for `idle` ms.
    "screen-settled",
];

/// One event line. Empty and zero fields are left out, except where a zero means something
/// (`enabled: false` on `mode-changed`, `exit_code: 0`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Event {
    #[serde(skip_serializing_if = "is_zero")]
    pub seq: u64,
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub session: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub window: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub pty_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "is_zero")]
    pub bytes: u64,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub mode: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub state: String,
    #[serde(skip_serializing_if = "is_zero_i64")]
    pub workspace: i64,
    #[serde(skip_serializing_if = "is_zero")]
    pub dropped: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// `window-exit` of a program whose status cannot be known (taken over after a crash, not
    /// our child): why neither `exit_code` nor `signal` is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_reason: Option<String>,
    /// `recording-started` / `recording-stopped`: the .cast file.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub path: String,
    /// `recording-stopped`: stopped, max_bytes, disk_full, overflow or window_closed.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// `client-attached` / `client-detached`: who.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientInfo>,
    /// `history-dropped`: how many lines left the history.
    #[serde(skip_serializing_if = "is_zero")]
    pub lines: u64,
    /// Unix time in nanoseconds.
    #[serde(skip_serializing_if = "is_zero")]
    pub time: u64,
}

/// An attached client, as `session-info` lists it and the client events carry it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClientInfo {
    /// "terminal", "web" or "ssh".
    pub kind: String,
    pub read_only: bool,
    /// When it attached, in Unix seconds.
    pub since: u64,
    /// Who is at the other end: "uid=N pid=N" for a terminal, the browser's address for web,
    /// the key's fingerprint for SSH; empty when unknown.
    pub peer: String,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}
fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}

impl Event {
    pub fn new(kind: &'static str) -> Self {
        Event {
            kind,
            ..Default::default()
        }
    }

    /// The `gap` marker a subscriber gets before its next event when it fell behind.
    pub fn gap(dropped: u64, time: u64) -> Self {
        Event {
            kind: "gap",
            dropped,
            time,
            ..Default::default()
        }
    }
}

/// What a subscription receives. Empty fields match everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventFilter {
    pub session: Option<String>,
    /// A window id (targets are resolved to ids when the subscription is made).
    pub window: Option<String>,
    pub types: Vec<String>,
}

impl EventFilter {
    pub fn matches(&self, event: &Event) -> bool {
        if let Some(s) = &self.session {
            if &event.session != s {
                return false;
            }
        }
        if let Some(w) = &self.window {
            if &event.window != w {
                return false;
            }
        }
        self.types.is_empty() || self.types.iter().any(|t| t == event.kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_fields_are_left_out_but_meaningful_zeros_stay() {
        let mut e = Event::new("mode-changed");
        e.seq = 3;
        e.session = "work".into();
        e.mode = "bracketed-paste".into();
        e.enabled = Some(false);
        let line = serde_json::to_string(&e).unwrap();
        assert_eq!(
            line,
            r#"{"seq":3,"type":"mode-changed","session":"work","mode":"bracketed-paste","enabled":false}"#
        );
        let mut exit = Event::new("window-exit");
        exit.exit_code = Some(0);
        assert!(serde_json::to_string(&exit)
            .unwrap()
            .contains(r#""exit_code":0"#));
    }

    #[test]
    fn filters_by_session_window_and_type() {
        let mut e = Event::new("output");
        e.session = "a".into();
        e.window = "w1".into();
        assert!(EventFilter::default().matches(&e));
        let f = EventFilter {
            session: Some("a".into()),
            window: Some("w1".into()),
            types: vec!["output".into()],
        };
        assert!(f.matches(&e));
        assert!(!EventFilter {
            session: Some("b".into()),
            ..Default::default()
        }
        .matches(&e));
        assert!(!EventFilter {
            types: vec!["bell".into()],
            ..Default::default()
        }
        .matches(&e));
    }

    #[test]
    fn every_event_type_is_unique() {
        let mut v = EVENT_TYPES.to_vec();
        v.sort();
        v.dedup();
        assert_eq!(v.len(), EVENT_TYPES.len());
    }
}
