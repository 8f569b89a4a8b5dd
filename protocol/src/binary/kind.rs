//! Message kinds, the byte after a frame's length. Client messages are numbered from 1, daemon
//! messages from 64, so a kind byte alone says which direction it belongs to.
//!
//! A leaf of its own so `limits.rs` can size frames by kind without importing the rest of
//! the binary protocol, which imports the limits.

pub const HELLO: u8 = 1;
pub const NEW_SESSION: u8 = 2;
pub const LIST_SESSIONS: u8 = 3;
pub const KILL_SESSION: u8 = 4;
pub const KILL_SERVER: u8 = 5;
/// An attached client's operation (`attach::ClientOp`).
pub const CLIENT_OP: u8 = 6;

pub const WELCOME: u8 = 64;
pub const SESSION_LIST: u8 = 65;
pub const SESSION_CREATED: u8 = 66;
pub const OK: u8 = 67;
pub const ERROR: u8 = 68;
/// An operation for an attached client (`attach::DaemonOp`).
pub const DAEMON_OP: u8 = 69;
