//! The tuios wire contract in types: the JSON verb protocol (envelopes, errors and hints, the verb
//! registry, typed parameters, key tokens) and the binary client protocol (frames and messages).
//!
//! Pure library: no I/O, no async runtime. Everything here can be exercised from unit tests.

// `VerbError` carries its hint inline (about 200 bytes). Errors are the cold path of every verb,
// and boxing would make the public shape awkward for every handler, so the size is accepted.
#![allow(clippy::result_large_err)]

pub mod agent;
pub mod attach;
pub mod binary;
pub mod closest;
pub mod commands;
pub mod envelope;
pub mod error;
pub mod events;
pub mod keys;
pub mod limits;
pub mod lumen;
mod msgpack_utf8;

pub mod registry;
pub mod shell;
pub mod verbs;

pub use error::{ErrorCode, Hint, VerbError};

/// Version of the JSON verb protocol this build speaks. Bumped only for incompatible changes to the
/// envelope or to existing verbs; adding verbs or optional parameters does not bump it.
pub const PROTOCOL_VERSION: i64 = 1;
/// Oldest JSON verb protocol version this build still serves.
pub const MIN_PROTOCOL_VERSION: i64 = 1;
/// Longest request line (and binary frame) either side accepts.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
