//! The history writer: one thread per daemon that packs the blocks windows move out of memory
//! and appends them to their files, so a flooding window's thread only parses. Its queue holds
//! at most `QUEUE` blocks (32 KiB each at most) for all windows together; a window whose
//! block finds it full keeps the block in memory and tries again at its next check, and waits
//! for room only once its memory passed twice its budget (see `spill`).
//!
//! A queued block is shared between its window (which reads it from memory until it is
//! written) and the writer. Its state says who frees it when the window drops it meanwhile:
//! queued → cancelled (never written); taken → cancel requested (the writer frees what it
//! wrote); written → the window frees it.

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::Arc;

use super::history_file::{decode_parts, HistoryFile, Loaded, Outgoing, HEADER};
use super::varint::put_varint;

/// Blocks queued for the writer, all windows together.
const QUEUE: usize = 64;

pub(crate) const QUEUED: u8 = 0;
pub(crate) const TAKEN: u8 = 1;
pub(crate) const WRITTEN: u8 = 2;
pub(crate) const CANCELLED: u8 = 3;
pub(crate) const CANCEL_LATE: u8 = 4;
pub(crate) const FAILED: u8 = 5;

/// A block on its way to disk.
#[derive(Debug)]
pub struct Pending {
    state: AtomicU8,
    rows: usize,
    raw_len: usize,
    table: Vec<u8>,
    body: Vec<u8>,
    packed: bool,
    pub(crate) off: AtomicU64,
    pub(crate) len: AtomicU32,
}

impl Pending {
    pub(crate) fn new(block: &Outgoing<'_>) -> Pending {
        let mut table = Vec::with_capacity(block.rows.len() * 2 + 1);
        put_varint(&mut table, u64::from(block.base));
        for &(len, width) in block.rows {
            put_varint(&mut table, u64::from(len));
            put_varint(&mut table, u64::from(width));
        }
        Pending {
            state: AtomicU8::new(QUEUED),
            rows: block.rows.len(),
            raw_len: block.raw_len,
            table,
            body: block.bytes.to_vec(),
            packed: block.packed,
            off: AtomicU64::new(0),
            len: AtomicU32::new(0),
        }
    }

    pub(crate) fn state(&self) -> u8 {
        self.state.load(Ordering::Acquire)
    }

    /// The record as written: the body packed here when it is not yet and `compressor` is
    /// given (a body that does not shrink by an eighth stays as it is).
    pub(crate) fn record(&self, compressor: Option<&mut zstd::bulk::Compressor<'_>>) -> Vec<u8> {
        let packed_body = match (self.packed, compressor) {
            (false, Some(c)) => c
                .compress(&self.body)
                .ok()
                .filter(|p| p.len() <= self.body.len() - self.body.len() / 8),
            _ => None,
        };
        let (body, packed) = match &packed_body {
            Some(p) => (&p[..], true),
            None => (&self.body[..], self.packed),
        };
        let mut out = Vec::with_capacity(HEADER + self.table.len() + body.len());
        let packed_len = if packed { body.len() } else { 0 };
        for v in [self.rows, self.raw_len, packed_len, self.table.len()] {
            out.extend_from_slice(&(v as u32).to_le_bytes());
        }
        out.extend_from_slice(&self.table);
        out.extend_from_slice(body);
        out
    }

    /// The length of `record(None)`.
    pub(crate) fn record_len(&self) -> u32 {
        (HEADER + self.table.len() + self.body.len()) as u32
    }

    /// The block read from memory.
    pub(crate) fn decode(&self, first: u64) -> Option<Loaded> {
        decode_parts(
            first,
            self.rows,
            self.raw_len,
            &self.table,
            &self.body,
            self.packed,
        )
    }

    /// The window no longer keeps the block. Returns where it was written when the window
    /// must free it.
    pub(crate) fn cancel(&self) -> Option<(u64, u32)> {
        let s = &self.state;
        let swap = |from, to| s.compare_exchange(from, to, Ordering::AcqRel, Ordering::Acquire);
        match swap(QUEUED, CANCELLED) {
            Ok(_) => None,
            Err(TAKEN) => match swap(TAKEN, CANCEL_LATE) {
                Ok(_) => None,
                Err(WRITTEN) => Some(self.written()),
                Err(_) => None,
            },
            Err(WRITTEN) => Some(self.written()),
            Err(_) => None,
        }
    }

    fn written(&self) -> (u64, u32) {
        (
            self.off.load(Ordering::Acquire),
            self.len.load(Ordering::Acquire),
        )
    }
}

struct Job {
    file: Arc<HistoryFile>,
    block: Arc<Pending>,
}

/// Where windows send blocks for the writer thread.
#[derive(Clone, Debug)]
pub struct HistoryWriter {
    tx: SyncSender<Job>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Job")
    }
}

impl HistoryWriter {
    /// Starts the writer thread; it ends when every sender is gone.
    pub fn start() -> std::io::Result<HistoryWriter> {
        let (tx, rx) = sync_channel(QUEUE);
        std::thread::Builder::new()
            .name("tuios-history".into())
            .spawn(move || run(rx))?;
        Ok(HistoryWriter { tx })
    }

    /// Queues a block; None when the queue is full and `wait` is false.
    pub(crate) fn submit(
        &self,
        file: &Arc<HistoryFile>,
        block: Arc<Pending>,
        wait: bool,
    ) -> Option<Arc<Pending>> {
        let job = Job {
            file: file.clone(),
            block: block.clone(),
        };
        let sent = if wait {
            self.tx.send(job).map_err(|_| ())
        } else {
            self.tx.try_send(job).map_err(|e| match e {
                TrySendError::Full(_) | TrySendError::Disconnected(_) => (),
            })
        };
        match sent {
            Ok(()) => Some(block),
            Err(()) => None,
        }
    }
}

/// zstd level for blocks going to disk: one of zstd's fast levels. Every byte of a long flood
/// passes through here, on a machine where the flood's own threads want the cores; level 1
/// packs terminal text tighter (235 against 330 MiB for bench/history.py's 560 MB) for more
/// CPU time, and -10 looser (453 MiB) without a faster flood.
const DISK_PACK_LEVEL: i32 = -3;

fn run(rx: Receiver<Job>) {
    let mut compressor = match zstd::bulk::Compressor::new(DISK_PACK_LEVEL) {
        Ok(c) => Some(c),
        Err(e) => {
            tracing::warn!(error = %e, "history writer: cannot pack; blocks are written as they are");
            None
        }
    };
    for Job { file, block } in rx {
        let s = &block.state;
        if s.compare_exchange(QUEUED, TAKEN, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            continue;
        }
        let record = block.record(compressor.as_mut());
        match file.append(&record) {
            Ok(off) => {
                block.off.store(off, Ordering::Release);
                block.len.store(record.len() as u32, Ordering::Release);
                if s.compare_exchange(TAKEN, WRITTEN, Ordering::AcqRel, Ordering::Acquire)
                    .is_err()
                {
                    // Dropped by its window while being written: free it here.
                    file.release(off, record.len() as u32);
                }
            }
            Err(e) => {
                tracing::warn!(path = %file.path().display(), error = %e, rows = block.rows, "cannot write history to disk; dropping the block");
                s.store(FAILED, Ordering::Release);
            }
        }
    }
}
