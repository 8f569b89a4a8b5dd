//! Streaming a window's screen to the attached clients that show it. The daemon renders, the
//! client draws: a viewer gets every row once, then only rows whose content changed, at most
//! once per frame interval however much output arrives. Frames go into each client's bounded
//! queue; when it is full the viewer simply stays dirty and catches up on a later frame, so a slow
//! client costs a bounded amount of memory and never slows the window.
use std::hash::{Hash, Hasher};
use std::time::Duration;

use bytes::BytesMut;
use emulator::Emulator;
use protocol::attach::{DaemonOp, ScreenUpdate};
use protocol::binary::DaemonMessage;
use std::sync::Arc;

use crate::outbox::{NotTaken, Outbox};

/// One client showing this window.
pub struct Viewer {
    pub client: u64,
    pub sink: Arc<Outbox>,
    pub interval: Duration,
    /// Hash of each row as last sent; empty means "send everything".
    sent: Vec<u64>,
    /// The emulator's change count of each row when its hash was taken: a row whose count has
    /// not moved is not converted again.
    seen: Vec<u64>,
    sent_dims: (u16, u16),
    sent_cursor: (u16, u16, bool),
}

impl Viewer {
    pub fn new(client: u64, sink: Arc<Outbox>, fps: u16) -> Self {
        let fps = if fps == 0 { 60 } else { fps.clamp(1, 240) };
        Viewer {
            client,
            sink,
            interval: Duration::from_millis(1000 / fps as u64),
            sent: Vec::new(),
            seen: Vec::new(),
            sent_dims: (0, 0),
            sent_cursor: (0, 0, false),
        }
    }
}

fn row_hash(row: &protocol::attach::Row) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    row.hash(&mut h);
    h.finish()
}

/// Build and queue what changed for `viewer` since its last frame. Returns false when the
/// client's queue was full (the viewer stays behind and is retried).
pub fn flush(window: &str, emulator: &Emulator, viewer: &mut Viewer) -> bool {
    if viewer.sink.is_closed() {
        // The connection is going away and will remove the viewer.
        return true;
    }
    if viewer.sink.screens_full() {
        // A client that stopped reading costs a check per frame, not a render it cannot take.
        return false;
    }
    let (cols, rows) = (emulator.cols(), emulator.rows());
    let (cx, cy) = emulator.cursor();
    let cursor = (cx, cy, emulator.cursor_visible());
    let full = viewer.sent.len() != rows as usize || viewer.sent_dims != (cols, rows);
    let mut lines = Vec::new();
    let mut hashes = Vec::with_capacity(rows as usize);
    let mut seen = Vec::with_capacity(rows as usize);
    for r in 0..rows {
        let generation = emulator.row_generation(r);
        seen.push(generation);
        let i = r as usize;
        if !full && viewer.seen.get(i) == Some(&generation) {
            // Unchanged since its hash was taken (a typed key changes one row of many).
            hashes.push(viewer.sent[i]);
            continue;
        }
        let row = emulator.screen_row(r);
        let h = row_hash(&row);
        if full || viewer.sent.get(i) != Some(&h) {
            lines.push((r, row));
        }
        hashes.push(h);
    }
    if lines.is_empty() && !full && cursor == viewer.sent_cursor {
        viewer.seen = seen;
        return true;
    }
    let update = ScreenUpdate {
        window: window.to_string(),
        cols,
        rows,
        cursor_x: cx,
        cursor_y: cy,
        cursor_visible: cursor.2,
        full,
        lines,
    };
    let mut buf = BytesMut::new();
    DaemonMessage::Op(DaemonOp::Screen(update)).encode(&mut buf);
    match viewer.sink.send_screen(buf.freeze()) {
        Ok(()) => {
            viewer.sent = hashes;
            viewer.seen = seen;
            viewer.sent_dims = (cols, rows);
            viewer.sent_cursor = cursor;
            true
        }
        // Closed: the connection is going away and will remove the viewer.
        Err(NotTaken::Closed) => true,
        Err(NotTaken::Full) => false,
    }
}
