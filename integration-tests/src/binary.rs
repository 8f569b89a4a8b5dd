//! The binary protocol's frames, for tests that play an attached client on the socket itself.

use serde_json::Value;
use std::io::Read;
use std::os::unix::net::UnixStream;

/// A binary-protocol frame: `[u32 big-endian length][u8 kind][MessagePack payload]`, the length
/// counting the kind byte and the payload.
pub fn frame(kind: u8, payload: &Value) -> Vec<u8> {
    let body = rmp_serde::to_vec_named(payload).expect("MessagePack encoding");
    let mut out = Vec::with_capacity(body.len() + 5);
    out.extend_from_slice(&(body.len() as u32 + 1).to_be_bytes());
    out.push(kind);
    out.extend_from_slice(&body);
    out
}

pub fn read_frame(stream: &mut UnixStream) -> std::io::Result<(u8, Vec<u8>)> {
    let mut len = [0u8; 4];
    stream.read_exact(&mut len)?;
    let len = u32::from_be_bytes(len) as usize;
    assert!(len >= 1, "a frame without a kind byte");
    let mut body = vec![0u8; len];
    stream.read_exact(&mut body)?;
    let kind = body.remove(0);
    Ok((kind, body))
}
