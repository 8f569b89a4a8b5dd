//! The binary client protocol: length-prefixed frames carrying MessagePack payloads.
//!
//! A frame is `[u32 big-endian length][u8 kind][payload]`, where the length counts the kind byte
//! and the payload and is at most 16 MiB. The first byte of a connection is therefore `0x00` or
//! `0x01`, never `{` or whitespace, which is how the daemon tells binary peers from JSON ones.
//!
//! Control payloads are MessagePack maps with named fields, so either side can add fields without
//! breaking the other: unknown fields are ignored when decoding.

use std::fmt;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Binary protocol version this build speaks.
pub const BINARY_VERSION: u32 = 1;
/// Oldest binary protocol version this build accepts from a peer.
pub const MIN_BINARY_VERSION: u32 = 1;
/// Largest frame length (kind byte + payload): the bound [`crate::limits`] sets.
pub const MAX_FRAME_LEN: usize = crate::limits::MAX_FRAME_BYTES;
/// Bytes of the length prefix.
pub const FRAME_HEADER_LEN: usize = 4;
/// Longest session name accepted, in bytes. Names become file names of saved state, and file
/// systems cap those at 255 bytes including the extension.
pub const MAX_SESSION_NAME_BYTES: usize = 200;

/// A frame header that cannot be honoured; the connection has lost sync and must be closed.
#[derive(Debug)]
pub enum FrameError {
    /// The declared length exceeds [`MAX_FRAME_LEN`].
    TooLarge(usize),
    /// The declared length cannot even hold the kind byte.
    TooSmall(usize),
    /// The declared length exceeds the cap of the frame's message type
    /// ([`crate::limits::client_frame_cap`]).
    TooLargeForType { kind: u8, len: usize, cap: usize },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::TooLarge(n) => write!(
                f,
                "frame of {n} bytes is over the {MAX_FRAME_LEN}-byte limit"
            ),
            FrameError::TooSmall(n) => {
                write!(f, "frame of {n} bytes is too short to hold a message type")
            }
            FrameError::TooLargeForType { kind, len, cap } => write!(
                f,
                "frame of {len} bytes is over the {cap}-byte limit for message type {kind}"
            ),
        }
    }
}

impl std::error::Error for FrameError {}

/// Splits one complete frame off the front of `src`: `Ok(Some((kind, payload)))`, or `Ok(None)`
/// when more bytes are needed. Any frame up to [`MAX_FRAME_LEN`] is taken: this is the reader
/// for frames the daemon sends. The daemon reads client frames with [`split_client_frame`].
pub fn split_frame(src: &mut BytesMut) -> Result<Option<(u8, Bytes)>, FrameError> {
    split_frame_capped(src, |_| MAX_FRAME_LEN)
}

/// [`split_frame`] for frames a client sends: each message type has its own cap
/// ([`crate::limits::client_frame_cap`]), checked as soon as the type byte has arrived, so a
/// peer cannot make the daemon wait for (and buffer) a body the type could never need.
pub fn split_client_frame(src: &mut BytesMut) -> Result<Option<(u8, Bytes)>, FrameError> {
    split_frame_capped(src, crate::limits::client_frame_cap)
}

fn split_frame_capped(
    src: &mut BytesMut,
    cap: impl Fn(u8) -> usize,
) -> Result<Option<(u8, Bytes)>, FrameError> {
    if src.len() < FRAME_HEADER_LEN {
        return Ok(None);
    }
    let len = u32::from_be_bytes([src[0], src[1], src[2], src[3]]) as usize;
    if len > MAX_FRAME_LEN {
        return Err(FrameError::TooLarge(len));
    }
    if len < 1 {
        return Err(FrameError::TooSmall(len));
    }
    if let Some(&kind) = src.get(FRAME_HEADER_LEN) {
        let cap = cap(kind).min(MAX_FRAME_LEN);
        if len > cap {
            return Err(FrameError::TooLargeForType { kind, len, cap });
        }
    }
    if src.len() < FRAME_HEADER_LEN + len {
        // Room for the next stretch of the body only: the declared length is a promise, and a
        // peer that never keeps it must not have reserved megabytes.
        let missing = FRAME_HEADER_LEN + len - src.len();
        src.reserve(missing.min(crate::limits::FRAME_RESERVE_STEP));
        return Ok(None);
    }
    src.advance(FRAME_HEADER_LEN);
    let mut frame = src.split_to(len);
    let kind = frame.get_u8();
    Ok(Some((kind, frame.freeze())))
}

/// Appends one frame to `dst`. The payload must keep the frame within [`MAX_FRAME_LEN`]; a peer
/// refuses a longer one.
pub fn write_frame(kind: u8, payload: &[u8], dst: &mut BytesMut) {
    dst.reserve(FRAME_HEADER_LEN + 1 + payload.len());
    dst.put_u32((payload.len() + 1) as u32);
    dst.put_u8(kind);
    dst.put_slice(payload);
}

/// Appends a frame whose payload is `value` as a MessagePack map, serialized in place.
fn write_msgpack_frame<T: Serialize>(kind: u8, value: &T, dst: &mut BytesMut) {
    let start = dst.len();
    dst.put_u32(0);
    dst.put_u8(kind);
    // The payload types are plain structs of strings, integers, booleans and lists; MessagePack
    // can encode every one of them, and writing to memory cannot fail.
    let mut writer = (&mut *dst).writer();
    rmp_serde::encode::write_named(&mut writer, value)
        .expect("MessagePack encoding of a protocol payload cannot fail");
    let len = (dst.len() - start - FRAME_HEADER_LEN) as u32;
    dst[start..start + FRAME_HEADER_LEN].copy_from_slice(&len.to_be_bytes());
}

/// A payload that cannot be decoded.
#[derive(Debug)]
pub enum DecodeError {
    /// A message kind this build does not know.
    UnknownType(u8),
    /// The payload is not what the kind calls for.
    Payload(String),
    /// The payload decodes, but a value is outside its limit ([`crate::limits`]).
    Limit(crate::VerbError),
}

impl DecodeError {
    /// The code to answer with: `invalid_params` for a value over a limit, else
    /// `invalid_message`.
    pub fn code(&self) -> BinaryErrorCode {
        match self {
            DecodeError::Limit(_) => BinaryErrorCode::InvalidParams,
            _ => BinaryErrorCode::InvalidMessage,
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::UnknownType(k) => write!(f, "unknown message type {k}"),
            DecodeError::Payload(e) => write!(f, "malformed message payload: {e}"),
            DecodeError::Limit(e) => write!(f, "{}", e.message),
        }
    }
}

impl std::error::Error for DecodeError {}

fn decode_payload<T: DeserializeOwned>(kind: u8, payload: &[u8]) -> Result<T, DecodeError> {
    rmp_serde::from_slice(payload).map_err(|e| {
        // serde's own message does not say where; a string that is not UTF-8 is named by its
        // field, so the sender can tell which value it mangled.
        match crate::msgpack_utf8::first_invalid_string(payload) {
            Some(field) => DecodeError::Payload(format!(
                "message type {kind}: field {field} is not valid UTF-8"
            )),
            None => DecodeError::Payload(format!("message type {kind}: {e}")),
        }
    })
}

/// One session as listed to binary clients.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSummary {
    pub name: String,
    pub id: String,
    /// Unix seconds.
    pub created: u64,
    /// Unix seconds.
    pub last_active: u64,
    pub window_count: usize,
    pub attached: bool,
    pub width: u16,
    pub height: u16,
}

/// Error codes of the binary protocol's `Error` message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryErrorCode {
    /// Also what a code from a newer peer that this build does not know decodes to.
    Unknown,
    SessionNotFound,
    SessionExists,
    InvalidMessage,
    VersionMismatch,
    Internal,
    InvalidName,
    /// A value outside its limit (a size, a length): the message names the limit and the value.
    InvalidParams,
}

impl BinaryErrorCode {
    pub const ALL: [BinaryErrorCode; 8] = [
        BinaryErrorCode::Unknown,
        BinaryErrorCode::SessionNotFound,
        BinaryErrorCode::SessionExists,
        BinaryErrorCode::InvalidMessage,
        BinaryErrorCode::VersionMismatch,
        BinaryErrorCode::Internal,
        BinaryErrorCode::InvalidName,
        BinaryErrorCode::InvalidParams,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            BinaryErrorCode::Unknown => "unknown",
            BinaryErrorCode::SessionNotFound => "session_not_found",
            BinaryErrorCode::SessionExists => "session_exists",
            BinaryErrorCode::InvalidMessage => "invalid_message",
            BinaryErrorCode::VersionMismatch => "version_mismatch",
            BinaryErrorCode::Internal => "internal",
            BinaryErrorCode::InvalidName => "invalid_name",
            BinaryErrorCode::InvalidParams => "invalid_params",
        }
    }

    /// Unrecognised strings map to `Unknown`, so a newer peer's codes still decode.
    pub fn parse(s: &str) -> BinaryErrorCode {
        BinaryErrorCode::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .unwrap_or(BinaryErrorCode::Unknown)
    }
}

impl fmt::Display for BinaryErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// On the wire as its string name, which stays readable and tolerates codes added later.
impl Serialize for BinaryErrorCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for BinaryErrorCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        Ok(BinaryErrorCode::parse(&s))
    }
}

/// Message kinds. Client messages are numbered from 1, daemon messages from 64, so a kind byte
/// alone says which direction it belongs to.
pub mod kind;

/// Messages a client sends.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientMessage {
    /// First message of a connection.
    Hello {
        version: u32,
        client_version: String,
    },
    /// Create a session; `name: None` lets the daemon pick one. `detach` creates its first window
    /// without a client.
    NewSession {
        name: Option<String>,
        width: u16,
        height: u16,
        detach: bool,
    },
    ListSessions,
    KillSession {
        name: String,
    },
    /// Ask the daemon to save every session and exit.
    KillServer,
    /// Everything an attached client does.
    Op(crate::attach::ClientOp),
}

/// Messages the daemon sends.
#[derive(Debug, Clone, PartialEq)]
pub enum DaemonMessage {
    /// Reply to `Hello` when the versions are compatible.
    Welcome {
        version: u32,
        min_version: u32,
        daemon_version: String,
        pid: u32,
        sessions: Vec<String>,
    },
    SessionList {
        sessions: Vec<SessionSummary>,
    },
    SessionCreated {
        name: String,
        window_id: Option<String>,
    },
    Ok,
    Error {
        code: BinaryErrorCode,
        message: String,
    },
    /// Everything the daemon tells an attached client.
    Op(crate::attach::DaemonOp),
}

// Per-message payload structs. Optional and defaultable fields carry `serde(default)` so a peer
// that leaves them out (an older one) still decodes.

#[derive(Serialize, Deserialize)]
struct HelloPayload {
    version: u32,
    #[serde(default)]
    client_version: String,
}

#[derive(Serialize, Deserialize)]
struct NewSessionPayload {
    #[serde(default)]
    name: Option<String>,
    width: u16,
    height: u16,
    #[serde(default)]
    detach: bool,
}

#[derive(Serialize, Deserialize)]
struct KillSessionPayload {
    name: String,
}

#[derive(Serialize, Deserialize)]
struct WelcomePayload {
    version: u32,
    min_version: u32,
    #[serde(default)]
    daemon_version: String,
    #[serde(default)]
    pid: u32,
    #[serde(default)]
    sessions: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct SessionListPayload {
    #[serde(default)]
    sessions: Vec<SessionSummary>,
}

#[derive(Serialize, Deserialize)]
struct SessionCreatedPayload {
    name: String,
    #[serde(default)]
    window_id: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct ErrorPayload {
    code: BinaryErrorCode,
    #[serde(default)]
    message: String,
}

impl ClientMessage {
    pub fn kind(&self) -> u8 {
        match self {
            ClientMessage::Hello { .. } => kind::HELLO,
            ClientMessage::NewSession { .. } => kind::NEW_SESSION,
            ClientMessage::ListSessions => kind::LIST_SESSIONS,
            ClientMessage::KillSession { .. } => kind::KILL_SESSION,
            ClientMessage::KillServer => kind::KILL_SERVER,
            ClientMessage::Op(_) => kind::CLIENT_OP,
        }
    }

    /// Appends the whole frame to `dst`.
    pub fn encode(&self, dst: &mut BytesMut) {
        let k = self.kind();
        match self {
            ClientMessage::Hello {
                version,
                client_version,
            } => write_msgpack_frame(
                k,
                &HelloPayload {
                    version: *version,
                    client_version: client_version.clone(),
                },
                dst,
            ),
            ClientMessage::NewSession {
                name,
                width,
                height,
                detach,
            } => write_msgpack_frame(
                k,
                &NewSessionPayload {
                    name: name.clone(),
                    width: *width,
                    height: *height,
                    detach: *detach,
                },
                dst,
            ),
            ClientMessage::KillSession { name } => {
                write_msgpack_frame(k, &KillSessionPayload { name: name.clone() }, dst)
            }
            ClientMessage::ListSessions | ClientMessage::KillServer => write_frame(k, &[], dst),
            ClientMessage::Op(op) => write_msgpack_frame(k, op, dst),
        }
    }

    /// Decodes a payload of the given kind. A payload on a message that has none is ignored, so a
    /// later version may add fields to it. A message that decodes but carries a value outside
    /// its limit (see [`ClientMessage::check_limits`]) is refused with [`DecodeError::Limit`].
    pub fn decode(kind: u8, payload: &[u8]) -> Result<Self, DecodeError> {
        let msg = Self::decode_unchecked(kind, payload)?;
        msg.check_limits().map_err(DecodeError::Limit)?;
        Ok(msg)
    }

    /// Checks every value that has a limit: terminal sizes (0 allowed where it means "unknown"),
    /// names, layouts and scrollback requests.
    pub fn check_limits(&self) -> Result<(), crate::VerbError> {
        use crate::attach::ClientOp;
        use crate::limits::{self, check_binary_size, check_len};
        match self {
            ClientMessage::NewSession {
                name,
                width,
                height,
                ..
            } => {
                check_binary_size("width", *width, "height", *height)?;
                if let Some(name) = name {
                    check_len(
                        "name",
                        name,
                        MAX_SESSION_NAME_BYTES,
                        "MAX_SESSION_NAME_BYTES",
                    )?;
                }
            }
            ClientMessage::KillSession { name } => check_len(
                "name",
                name,
                MAX_SESSION_NAME_BYTES,
                "MAX_SESSION_NAME_BYTES",
            )?,
            ClientMessage::Op(op) => match op {
                ClientOp::Attach {
                    session,
                    width,
                    height,
                    ..
                } => {
                    check_binary_size("width", *width, "height", *height)?;
                    if let Some(name) = session {
                        check_len(
                            "session",
                            name,
                            MAX_SESSION_NAME_BYTES,
                            "MAX_SESSION_NAME_BYTES",
                        )?;
                    }
                }
                ClientOp::Resize { width, height } => {
                    check_binary_size("width", *width, "height", *height)?
                }
                ClientOp::WindowSize { cols, rows, .. } => {
                    check_binary_size("cols", *cols, "rows", *rows)?
                }
                ClientOp::Layout { layout } => check_len(
                    "layout",
                    layout,
                    limits::MAX_LAYOUT_BYTES,
                    "MAX_LAYOUT_BYTES",
                )?,
                ClientOp::Scrollback { count, .. } => {
                    limits::check_scrollback_page("count", *count)?
                }
                _ => {}
            },
            ClientMessage::Hello { .. }
            | ClientMessage::ListSessions
            | ClientMessage::KillServer => {}
        }
        Ok(())
    }

    /// [`ClientMessage::decode`] without the limit checks (for tools and tests).
    pub fn decode_unchecked(kind: u8, payload: &[u8]) -> Result<Self, DecodeError> {
        Ok(match kind {
            kind::HELLO => {
                let p: HelloPayload = decode_payload(kind, payload)?;
                ClientMessage::Hello {
                    version: p.version,
                    client_version: p.client_version,
                }
            }
            kind::NEW_SESSION => {
                let p: NewSessionPayload = decode_payload(kind, payload)?;
                ClientMessage::NewSession {
                    name: p.name,
                    width: p.width,
                    height: p.height,
                    detach: p.detach,
                }
            }
            kind::LIST_SESSIONS => ClientMessage::ListSessions,
            kind::KILL_SESSION => {
                let p: KillSessionPayload = decode_payload(kind, payload)?;
                ClientMessage::KillSession { name: p.name }
            }
            kind::KILL_SERVER => ClientMessage::KillServer,
            kind::CLIENT_OP => ClientMessage::Op(decode_payload(kind, payload)?),
            other => return Err(DecodeError::UnknownType(other)),
        })
    }
}

impl DaemonMessage {
    pub fn kind(&self) -> u8 {
        match self {
            DaemonMessage::Welcome { .. } => kind::WELCOME,
            DaemonMessage::SessionList { .. } => kind::SESSION_LIST,
            DaemonMessage::SessionCreated { .. } => kind::SESSION_CREATED,
            DaemonMessage::Ok => kind::OK,
            DaemonMessage::Error { .. } => kind::ERROR,
            DaemonMessage::Op(_) => kind::DAEMON_OP,
        }
    }

    /// Appends the whole frame to `dst`.
    pub fn encode(&self, dst: &mut BytesMut) {
        let k = self.kind();
        match self {
            DaemonMessage::Welcome {
                version,
                min_version,
                daemon_version,
                pid,
                sessions,
            } => write_msgpack_frame(
                k,
                &WelcomePayload {
                    version: *version,
                    min_version: *min_version,
                    daemon_version: daemon_version.clone(),
                    pid: *pid,
                    sessions: sessions.clone(),
                },
                dst,
            ),
            DaemonMessage::SessionList { sessions } => write_msgpack_frame(
                k,
                &SessionListPayload {
                    sessions: sessions.clone(),
                },
                dst,
            ),
            DaemonMessage::SessionCreated { name, window_id } => write_msgpack_frame(
                k,
                &SessionCreatedPayload {
                    name: name.clone(),
                    window_id: window_id.clone(),
                },
                dst,
            ),
            DaemonMessage::Ok => write_frame(k, &[], dst),
            DaemonMessage::Error { code, message } => write_msgpack_frame(
                k,
                &ErrorPayload {
                    code: *code,
                    message: message.clone(),
                },
                dst,
            ),
            DaemonMessage::Op(op) => write_msgpack_frame(k, op, dst),
        }
    }

    /// Decodes a payload of the given kind (see [`ClientMessage::decode`]).
    pub fn decode(kind: u8, payload: &[u8]) -> Result<Self, DecodeError> {
        Ok(match kind {
            kind::WELCOME => {
                let p: WelcomePayload = decode_payload(kind, payload)?;
                DaemonMessage::Welcome {
                    version: p.version,
                    min_version: p.min_version,
                    daemon_version: p.daemon_version,
                    pid: p.pid,
                    sessions: p.sessions,
                }
            }
            kind::SESSION_LIST => {
                let p: SessionListPayload = decode_payload(kind, payload)?;
                DaemonMessage::SessionList {
                    sessions: p.sessions,
                }
            }
            kind::SESSION_CREATED => {
                let p: SessionCreatedPayload = decode_payload(kind, payload)?;
                DaemonMessage::SessionCreated {
                    name: p.name,
                    window_id: p.window_id,
                }
            }
            kind::OK => DaemonMessage::Ok,
            kind::ERROR => {
                let p: ErrorPayload = decode_payload(kind, payload)?;
                DaemonMessage::Error {
                    code: p.code,
                    message: p.message,
                }
            }
            kind::DAEMON_OP => DaemonMessage::Op(decode_payload(kind, payload)?),
            other => return Err(DecodeError::UnknownType(other)),
        })
    }
}

/// The refusal text for a binary peer whose version is out of range, from the daemon's side:
/// `ours` is the daemon's binary protocol version, `theirs` the client's. It says which side is
/// newer and what to do.
pub fn version_mismatch_message(ours: u32, theirs: u32, daemon_version: &str) -> String {
    if theirs > ours {
        format!(
            "The client speaks binary protocol {theirs}, but this daemon (version {daemon_version}) only speaks up to {ours}: the client is newer. \
             The daemon was most likely left running across an upgrade. Run 'tuios kill-server' and start tuios again; sessions are saved and restored across the restart."
        )
    } else {
        format!(
            "The client speaks binary protocol {theirs}, which this daemon (version {daemon_version}, protocol {ours}) no longer serves: the client is older. \
             Upgrade tuios, or run 'tuios kill-server' and start the daemon of the version you want."
        )
    }
}

/// Checks a name given for a new session. The empty name is allowed (the daemon then picks one).
/// Refused: leading or trailing whitespace, `.` and `..`, `/` or `\`, control characters, and
/// names over [`MAX_SESSION_NAME_BYTES`] bytes, because the name is also a file name.
pub fn validate_session_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Ok(());
    }
    if name.starts_with(char::is_whitespace) || name.ends_with(char::is_whitespace) {
        return Err(format!(
            "session name {name:?} starts or ends with whitespace"
        ));
    }
    if name == "." || name == ".." {
        return Err(format!(
            "{name:?} cannot be a session name, since it is also a directory name"
        ));
    }
    if name.contains(['/', '\\']) {
        return Err(format!(
            "session name {name:?} contains a path separator (/ or \\)"
        ));
    }
    if name.chars().any(|c| (c as u32) < 0x20 || c == '\u{7f}') {
        return Err(format!(
            "session name {name:?} contains a control character"
        ));
    }
    if name.len() > MAX_SESSION_NAME_BYTES {
        return Err(format!(
            "session name is {} bytes long; the limit is {MAX_SESSION_NAME_BYTES}",
            name.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client_messages() -> Vec<ClientMessage> {
        vec![
            ClientMessage::Hello {
                version: BINARY_VERSION,
                client_version: "0.1.0".into(),
            },
            ClientMessage::NewSession {
                name: Some("work".into()),
                width: 80,
                height: 24,
                detach: true,
            },
            ClientMessage::NewSession {
                name: None,
                width: 0,
                height: 0,
                detach: false,
            },
            ClientMessage::ListSessions,
            ClientMessage::KillSession {
                name: "wörk space".into(),
            },
            ClientMessage::KillServer,
        ]
    }

    fn daemon_messages() -> Vec<DaemonMessage> {
        vec![
            DaemonMessage::Welcome {
                version: BINARY_VERSION,
                min_version: MIN_BINARY_VERSION,
                daemon_version: "0.1.0".into(),
                pid: 4242,
                sessions: vec!["a".into(), "b".into()],
            },
            DaemonMessage::SessionList {
                sessions: vec![SessionSummary {
                    name: "work".into(),
                    id: "6f1c".into(),
                    created: 1_700_000_000,
                    last_active: 1_700_000_100,
                    window_count: 3,
                    attached: true,
                    width: 120,
                    height: 40,
                }],
            },
            DaemonMessage::SessionList { sessions: vec![] },
            DaemonMessage::SessionCreated {
                name: "session-0".into(),
                window_id: Some("w1".into()),
            },
            DaemonMessage::SessionCreated {
                name: "x".into(),
                window_id: None,
            },
            DaemonMessage::Ok,
            DaemonMessage::Error {
                code: BinaryErrorCode::SessionExists,
                message: "taken".into(),
            },
        ]
    }

    #[test]
    fn every_message_round_trips() {
        let mut buf = BytesMut::new();
        for m in client_messages() {
            m.encode(&mut buf);
        }
        for want in client_messages() {
            let (k, payload) = split_frame(&mut buf).unwrap().unwrap();
            assert_eq!(k, want.kind());
            assert_eq!(ClientMessage::decode(k, &payload).unwrap(), want);
        }
        assert!(buf.is_empty());

        for want in daemon_messages() {
            want.encode(&mut buf);
            let (k, payload) = split_frame(&mut buf).unwrap().unwrap();
            assert_eq!(k, want.kind());
            assert_eq!(DaemonMessage::decode(k, &payload).unwrap(), want);
        }
        for code in BinaryErrorCode::ALL {
            let m = DaemonMessage::Error {
                code,
                message: String::new(),
            };
            m.encode(&mut buf);
            let (k, payload) = split_frame(&mut buf).unwrap().unwrap();
            assert_eq!(DaemonMessage::decode(k, &payload).unwrap(), m);
        }
    }

    #[test]
    fn unit_messages_have_empty_payloads() {
        let mut buf = BytesMut::new();
        ClientMessage::ListSessions.encode(&mut buf);
        assert_eq!(&buf[..], &[0, 0, 0, 1, kind::LIST_SESSIONS]);
        buf.clear();
        DaemonMessage::Ok.encode(&mut buf);
        assert_eq!(&buf[..], &[0, 0, 0, 1, kind::OK]);
    }

    #[test]
    fn first_byte_is_never_json() {
        for m in client_messages() {
            let mut buf = BytesMut::new();
            m.encode(&mut buf);
            assert!(buf[0] <= 1, "{m:?}");
            let len = u32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]) as usize;
            assert_eq!(len, buf.len() - 4);
        }
    }

    #[test]
    fn partial_frames_wait_for_more() {
        let mut whole = BytesMut::new();
        ClientMessage::Hello {
            version: 1,
            client_version: "x".into(),
        }
        .encode(&mut whole);
        ClientMessage::KillServer.encode(&mut whole);
        let bytes = whole.freeze();
        // Feed one byte at a time: nothing comes out until a frame is complete.
        let mut buf = BytesMut::new();
        let mut got = Vec::new();
        for b in bytes.iter() {
            buf.put_u8(*b);
            while let Some((k, p)) = split_frame(&mut buf).unwrap() {
                got.push(ClientMessage::decode(k, &p).unwrap());
            }
        }
        assert_eq!(
            got,
            vec![
                ClientMessage::Hello {
                    version: 1,
                    client_version: "x".into()
                },
                ClientMessage::KillServer
            ]
        );
        assert!(split_frame(&mut BytesMut::new()).unwrap().is_none());
    }

    #[test]
    fn bad_frame_lengths() {
        let mut buf = BytesMut::from(&[0u8, 0, 0, 0][..]);
        assert!(matches!(
            split_frame(&mut buf),
            Err(FrameError::TooSmall(0))
        ));
        let too_big = (MAX_FRAME_LEN + 1) as u32;
        let mut buf = BytesMut::from(&too_big.to_be_bytes()[..]);
        assert!(
            matches!(split_frame(&mut buf), Err(FrameError::TooLarge(n)) if n == MAX_FRAME_LEN + 1)
        );
        // A JSON client speaking to the binary side is refused on its header, not waited on.
        let mut buf = BytesMut::from(&b"{\"id\":1}"[..]);
        assert!(matches!(
            split_frame(&mut buf),
            Err(FrameError::TooLarge(_))
        ));
        // Exactly the limit is fine (only the header is checked until the body arrives).
        let mut buf = BytesMut::from(&(MAX_FRAME_LEN as u32).to_be_bytes()[..]);
        assert!(split_frame(&mut buf).unwrap().is_none());
        assert!(FrameError::TooSmall(0).to_string().contains('0'));
    }

    #[test]
    fn decoding_tolerates_extra_fields_and_rejects_garbage() {
        #[derive(Serialize)]
        struct HelloFromTheFuture {
            version: u32,
            client_version: String,
            shiny_new_field: Vec<u32>,
        }
        let payload = rmp_serde::to_vec_named(&HelloFromTheFuture {
            version: 2,
            client_version: "9".into(),
            shiny_new_field: vec![1, 2],
        })
        .unwrap();
        assert_eq!(
            ClientMessage::decode(kind::HELLO, &payload).unwrap(),
            ClientMessage::Hello {
                version: 2,
                client_version: "9".into()
            }
        );

        #[derive(Serialize)]
        struct ErrorFromTheFuture {
            code: &'static str,
            message: &'static str,
        }
        let payload = rmp_serde::to_vec_named(&ErrorFromTheFuture {
            code: "quota_exceeded",
            message: "m",
        })
        .unwrap();
        assert_eq!(
            DaemonMessage::decode(kind::ERROR, &payload).unwrap(),
            DaemonMessage::Error {
                code: BinaryErrorCode::Unknown,
                message: "m".into()
            }
        );

        // Unit messages ignore a payload a later version might attach.
        assert_eq!(
            ClientMessage::decode(kind::KILL_SERVER, &payload).unwrap(),
            ClientMessage::KillServer
        );

        assert!(matches!(
            ClientMessage::decode(kind::HELLO, b"\xc1garbage"),
            Err(DecodeError::Payload(_))
        ));
        assert!(matches!(
            ClientMessage::decode(kind::KILL_SESSION, &[]),
            Err(DecodeError::Payload(_))
        ));
        assert!(matches!(
            ClientMessage::decode(200, &[]),
            Err(DecodeError::UnknownType(200))
        ));
        assert!(matches!(
            DaemonMessage::decode(kind::HELLO, &[]),
            Err(DecodeError::UnknownType(1))
        ));
    }

    #[test]
    fn mismatch_message_says_who_is_newer() {
        let newer_client = version_mismatch_message(1, 2, "0.3.0");
        assert!(newer_client.contains("client is newer") && newer_client.contains("kill-server"));
        assert!(newer_client.contains("0.3.0"));
        let older_client = version_mismatch_message(3, 1, "0.3.0");
        assert!(older_client.contains("client is older") && older_client.contains("Upgrade"));
    }

    #[test]
    fn session_names() {
        for ok in [
            "",
            "work",
            "my session",
            "débogage",
            "a.b",
            "...",
            "-x",
            "名前",
        ] {
            assert!(validate_session_name(ok).is_ok(), "{ok:?}");
        }
        let long = "n".repeat(MAX_SESSION_NAME_BYTES + 1);
        for bad in [
            " work",
            "work ",
            "\twork",
            ".",
            "..",
            "a/b",
            "a\\b",
            "a\nb",
            "a\x07b",
            "a\x7fb",
            long.as_str(),
        ] {
            assert!(validate_session_name(bad).is_err(), "{bad:?}");
        }
    }
}
