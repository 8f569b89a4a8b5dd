//! Messages of an attached client (`tuios attach`), carried in the binary protocol as
//! `ClientMessage::Op` / `DaemonMessage::Op`: MessagePack maps tagged by `op`, so either side can
//! add operations and fields without breaking the other.
//!
//! The daemon renders, the client draws: for each window a client shows, the daemon sends a full
//! screen once, then only the rows that changed, at most at the client's frame rate. The client
//! keeps no emulator.
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Operations a client sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ClientOp {
    /// Attach to `session` (None: the most recently active one; `create` makes it if missing).
    Attach {
        session: Option<String>,
        #[serde(default)]
        create: bool,
        width: u16,
        height: u16,
        /// Frames per second the client wants at most (0: the default, 60).
        #[serde(default)]
        max_fps: u16,
        /// Watch only: the daemon refuses this client's input, pastes, commands and layout
        /// reports, and its size never shrinks the session. Absent from older clients.
        #[serde(default)]
        read_only: bool,
        /// What carries the client: "" or "terminal", "web", "ssh" (shown by session-info),
        /// the latter two optionally followed by a space and who is at the far end (the
        /// browser's address, the SSH key's fingerprint).
        #[serde(default)]
        via: String,
    },
    Detach,
    /// Bytes for a window's PTY, already encoded for its modes by the client.
    Input {
        window: String,
        #[serde(with = "serde_bytes")]
        data: Vec<u8>,
    },
    /// A paste from the outer terminal, for the daemon to check and deliver (see `lumen`).
    Paste {
        window: String,
        #[serde(with = "serde_bytes")]
        data: Vec<u8>,
        /// How the user chose to deliver a held paste: "" (first try), "send", "one-line",
        /// "keep-controls".
        #[serde(default)]
        choice: String,
    },
    /// The client's terminal size.
    Resize {
        width: u16,
        height: u16,
    },
    /// The size the client's layout gives a window's terminal.
    WindowSize {
        window: String,
        cols: u16,
        rows: u16,
    },
    /// Which windows the client shows (screens are streamed for these only).
    View {
        windows: Vec<String>,
    },
    /// A run-command the daemon carries out for the client (NewWindow, FocusWindow, ...).
    Command {
        name: String,
        args: Vec<String>,
    },
    /// The client's layout (tiling flag and trees), opaque to the daemon, shared with the
    /// other clients of the session.
    Layout {
        layout: String,
    },
    /// Scrollback rows of a window for copy mode: `count` rows ending before row `before`
    /// (rows numbered as in `Emulator::capture_from`; None = the start of the screen).
    Scrollback {
        window: String,
        before: Option<u64>,
        count: u32,
    },
    /// Where the client's layout puts each window it shows: outer boxes, border included, in
    /// the client's screen cells. Sent only when a box changed; the daemon keeps the latest box
    /// per window per client (list-windows reports them).
    Geometry {
        boxes: Vec<WindowBox>,
    },
    /// The client's leader key (e.g. "ctrl+b"), so send-keys holding it goes through the client
    /// and the leader acts as the user's key would. Sent once after attaching.
    Leader {
        key: String,
    },
    /// The answer to a routed request.
    Reply {
        request: u64,
        ok: bool,
        #[serde(default)]
        message: String,
        /// JSON object with the request's data, if any.
        #[serde(default)]
        data: Option<String>,
    },
}

/// A window's outer box (border included) in a client's layout, in screen cells.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowBox {
    pub window: String,
    pub x: u16,
    pub y: u16,
    pub width: u16,
    pub height: u16,
}

/// Operations the daemon sends to an attached client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum DaemonOp {
    Attached {
        state: SessionView,
    },
    /// The session's state changed (any client's or verb's doing).
    State {
        state: SessionView,
    },
    Screen(ScreenUpdate),
    Scrollback {
        window: String,
        /// Number of the first row sent.
        first: u64,
        rows: Vec<Row>,
        /// Rows numbered below `first` that still exist.
        more: bool,
        /// The oldest row still kept, so a client can size its scrollbar; absent from older
        /// daemons.
        #[serde(default)]
        oldest: Option<u64>,
    },
    /// Work only a client can do; answer with `ClientOp::Reply`.
    Request {
        request: u64,
        kind: RoutedRequest,
    },
    /// Something to show in chrome (never inside a window).
    Notice {
        level: NoticeLevel,
        text: String,
    },
    /// A held paste waiting for the user: show `preview` (controls made visible) and offer the
    /// choices. Nothing has been written.
    PasteHeld {
        window: String,
        preview: String,
        one_line: String,
        has_controls: bool,
    },
    SessionEnded {
        session: String,
        reason: String,
    },
    Detached,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoticeLevel {
    Info,
    Warning,
    Error,
}

/// Verbs the daemon routes to an attached client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RoutedRequest {
    Split {
        window: Option<String>,
        direction: String,
        name: Option<String>,
    },
    Layout {
        tiling: Option<bool>,
        equalize: bool,
        rotate: bool,
        /// The layout to arrange the workspace in (set-layout's `layout`); `None` keeps it.
        #[serde(default)]
        layout: Option<String>,
    },
    FocusDirection {
        direction: String,
    },
    /// A client-side run-command.
    Command {
        name: String,
        args: Vec<String>,
    },
    /// send-keys with a client attached: key tokens as the user would type them.
    SendKeys {
        window: Option<String>,
        keys: String,
        literal: bool,
        raw: bool,
    },
    SetOption {
        path: String,
        value: String,
    },
}

/// What a client needs to draw a session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionView {
    pub name: String,
    #[serde(default)]
    pub display_name: String,
    #[serde(default)]
    pub accent: String,
    pub width: u16,
    pub height: u16,
    pub current_workspace: i64,
    pub num_workspaces: i64,
    pub focused: Option<String>,
    pub windows: Vec<WindowView>,
    #[serde(default)]
    pub workspace_names: BTreeMap<i64, String>,
    #[serde(default)]
    pub workspace_order: Option<Vec<i64>>,
    /// Option values in effect that differ from the defaults, by path.
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    /// The layout last pushed by a client, opaque to the daemon.
    #[serde(default)]
    pub layout: Option<String>,
    #[serde(default)]
    pub clients: u32,
    /// Bumped on every change, so a client can drop stale copies.
    #[serde(default)]
    pub version: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WindowView {
    pub id: String,
    pub title: String,
    pub display_name: String,
    /// The name a user or verb gave the window, absent when it has none (as Go's WindowState).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_name: Option<String>,
    pub workspace: i64,
    pub minimized: bool,
    pub alive: bool,
    pub cols: u16,
    pub rows: u16,
    #[serde(default)]
    pub modes: WindowModes,
    #[serde(default)]
    pub agent_state: String,
    /// The working directory of the window's foreground program (else its own), as last seen
    /// after output; empty when unknown. Clients look for project tapes there.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cwd: String,
}

/// The input-relevant modes a program enabled, so the client encodes keys and mouse for it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowModes {
    pub app_cursor: bool,
    pub bracketed_paste: bool,
    pub mouse: bool,
    pub sgr_mouse: bool,
    pub alt_screen: bool,
    pub kitty_flags: u8,
}

/// Changed rows of one window's screen.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScreenUpdate {
    pub window: String,
    pub cols: u16,
    pub rows: u16,
    pub cursor_x: u16,
    pub cursor_y: u16,
    pub cursor_visible: bool,
    /// Every row is included (first frame, resize).
    pub full: bool,
    /// (row index, content) for each row that changed.
    pub lines: Vec<(u16, Row)>,
}

/// One screen row as styled runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Row {
    pub runs: Vec<Run>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Run {
    pub text: String,
    #[serde(default)]
    pub style: Style,
    /// The OSC 8 hyperlink target of this text, if any; runs split where it changes. Display
    /// data only: a client activates a link only after its own policy check and confirmation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
}

/// Text attributes, as bits of `attrs`.
pub mod attr {
    pub const BOLD: u16 = 1;
    pub const DIM: u16 = 2;
    pub const ITALIC: u16 = 4;
    pub const UNDERLINE: u16 = 8;
    pub const INVERSE: u16 = 16;
    pub const HIDDEN: u16 = 32;
    pub const STRIKE: u16 = 64;
    pub const DOUBLE_UNDERLINE: u16 = 128;
    pub const CURLY_UNDERLINE: u16 = 256;
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Style {
    #[serde(default)]
    pub fg: Color,
    #[serde(default)]
    pub bg: Color,
    #[serde(default)]
    pub attrs: u16,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Color {
    #[default]
    Default,
    /// 0-15 are the ANSI colours (the theme's), 16-255 the xterm palette.
    Indexed(u8),
    Rgb(u8, u8, u8),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(v: T) {
        let bytes = rmp_serde::to_vec_named(&v).unwrap();
        let back: T = rmp_serde::from_slice(&bytes).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn ops_round_trip() {
        round_trip(ClientOp::Attach {
            session: Some("w".into()),
            create: false,
            width: 80,
            height: 24,
            max_fps: 0,
            read_only: true,
            via: "ssh".into(),
        });
        round_trip(ClientOp::Input {
            window: "a".into(),
            data: b"ls\r\x1b[A".to_vec(),
        });
        round_trip(DaemonOp::Screen(ScreenUpdate {
            window: "a".into(),
            cols: 80,
            rows: 24,
            cursor_x: 1,
            cursor_y: 2,
            cursor_visible: true,
            full: true,
            lines: vec![(
                0,
                Row {
                    runs: vec![Run {
                        text: "héllo".into(),
                        style: Style {
                            fg: Color::Indexed(2),
                            bg: Color::Rgb(1, 2, 3),
                            attrs: attr::BOLD,
                        },
                        link: None,
                    }],
                },
            )],
        }));
        round_trip(DaemonOp::Screen(ScreenUpdate {
            window: "a".into(),
            cols: 80,
            rows: 24,
            cursor_x: 0,
            cursor_y: 0,
            cursor_visible: true,
            full: false,
            lines: vec![(
                3,
                Row {
                    runs: vec![Run {
                        text: "link".into(),
                        style: Style::default(),
                        link: Some("https://example.com/".into()),
                    }],
                },
            )],
        }));
        round_trip(DaemonOp::Request {
            request: 7,
            kind: RoutedRequest::Split {
                window: None,
                direction: "vertical".into(),
                name: None,
            },
        });
        round_trip(DaemonOp::State {
            state: SessionView::default(),
        });
        round_trip(ClientOp::Geometry {
            boxes: vec![WindowBox {
                window: "a".into(),
                x: 0,
                y: 1,
                width: 40,
                height: 12,
            }],
        });
        round_trip(ClientOp::Leader {
            key: "ctrl+a".into(),
        });
        round_trip(DaemonOp::State {
            state: SessionView {
                windows: vec![WindowView {
                    id: "a".into(),
                    custom_name: Some("logs".into()),
                    ..Default::default()
                }],
                ..Default::default()
            },
        });
    }

    #[test]
    fn custom_name_is_absent_when_unset() {
        let bytes = rmp_serde::to_vec_named(&WindowView::default()).unwrap();
        let v: serde_json::Value = rmp_serde::from_slice(&bytes).unwrap();
        assert!(v.get("custom_name").is_none(), "{v}");
        // A daemon without the field still decodes.
        let back: WindowView = rmp_serde::from_slice(&bytes).unwrap();
        assert_eq!(back.custom_name, None);
    }

    #[test]
    fn input_bytes_are_binary_not_arrays() {
        let v = ClientOp::Input {
            window: "a".into(),
            data: vec![0u8; 1000],
        };
        // 1000 bytes as a bin field, not 1000 array elements with per-element overhead.
        assert!(rmp_serde::to_vec_named(&v).unwrap().len() < 1100);
    }
}
