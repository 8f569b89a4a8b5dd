//! History on disk: sealed blocks that passed a window's memory budget (`history_bytes`),
//! appended to one file per window as they were in memory (packed when `compact` packed them).
//!
//! Record format, integers little-endian: a 16-byte header (`rows` u32, `raw_len` u32,
//! `packed_len` u32 — 0 when the block is stored unpacked —, `table_len` u32), the row table
//! (per row, LEB128: its length field as in memory, `WRAPPED` bit included, then its width),
//! then the block's bytes. A row's offset in the block is the sum of the lengths before it, as
//! rows are appended to a block in order.
//!
//! In memory each block on disk costs one `Spilled` entry (24 bytes): a 32 KiB block holds
//! ~600 lines of 30-80 bytes, so 10,000,000 lines cost ~17,000 entries (~400 KiB); at worst one
//! line per block (lines of 16 KiB and more), so entries never outnumber the lines kept.
//!
//! Dropping the oldest block punches a hole where it was, so the file's disk usage follows
//! the bytes kept while offsets never move. All windows' files share one [`DiskBudget`].

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fs::File;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::varint::{get_varint, put_varint};
use super::{LEN_MASK, LEN_WHOLE, WRAPPED};

const HEADER: usize = 16;

/// The disk bytes all windows' history files may hold together (`history_disk_bytes`).
#[derive(Debug)]
pub struct DiskBudget {
    used: AtomicU64,
    limit: AtomicU64,
}

impl DiskBudget {
    pub fn new(limit: u64) -> Arc<DiskBudget> {
        Arc::new(DiskBudget {
            used: AtomicU64::new(0),
            limit: AtomicU64::new(limit),
        })
    }

    /// Bytes held on disk now by every window.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    pub fn limit(&self) -> u64 {
        self.limit.load(Ordering::Relaxed)
    }

    /// A new limit, applied from the next block written.
    pub fn set_limit(&self, limit: u64) {
        self.limit.store(limit, Ordering::Relaxed);
    }

    fn add(&self, n: u64) -> u64 {
        self.used.fetch_add(n, Ordering::Relaxed) + n
    }

    fn sub(&self, n: u64) {
        self.used.fetch_sub(n, Ordering::Relaxed);
    }
}

/// A window's history file: created empty (mode 0600, never an existing file), removed when
/// dropped.
pub struct HistoryFile {
    file: File,
    path: PathBuf,
    budget: Arc<DiskBudget>,
}

impl HistoryFile {
    pub fn create(path: &Path, budget: Arc<DiskBudget>) -> std::io::Result<HistoryFile> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)?;
        Ok(HistoryFile {
            file,
            path: path.to_owned(),
            budget,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for HistoryFile {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_file(&self.path) {
            tracing::warn!(path = %self.path.display(), error = %e, "cannot remove a history file");
        }
    }
}

/// One block on disk.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spilled {
    /// Number of its first row (numbered as `Store::pushed` counts).
    pub first: u64,
    pub rows: u32,
    pub len: u32,
    pub off: u64,
}

/// A block read back: each row's (offset, length, width, wrapped) and the unpacked bytes.
pub(crate) struct Loaded {
    pub first: u64,
    pub rows: Vec<(u32, u32, u16, bool)>,
    pub bytes: Vec<u8>,
}

impl Loaded {
    pub fn row(&self, i: usize) -> (&[u8], u16, bool) {
        let (off, len, width, wrapped) = self.rows[i];
        let bytes = self
            .bytes
            .get(off as usize..(off + len) as usize)
            .unwrap_or(&[]);
        (bytes, width, wrapped)
    }
}

/// What a block to be written holds.
pub(crate) struct Outgoing<'a> {
    pub first: u64,
    /// Per row: its length field (as `RowMeta::len`) and width.
    pub rows: &'a [(u16, u16)],
    pub raw_len: usize,
    /// The packed bytes, or the raw block when `packed` is false.
    pub bytes: &'a [u8],
    pub packed: bool,
}

pub(crate) struct Disk {
    file: HistoryFile,
    blocks: VecDeque<Spilled>,
    /// Rows at the start of `blocks[0]` no longer kept (past `scrollback_lines`).
    hidden: u64,
    /// Rows in `blocks`, hidden ones included.
    count: u64,
    end: u64,
    /// This window's bytes counted in the budget.
    bytes: u64,
    cache: RefCell<Option<Arc<Loaded>>>,
    scratch: Vec<u8>,
}

impl Disk {
    pub fn new(file: HistoryFile) -> Disk {
        Disk {
            file,
            blocks: VecDeque::new(),
            hidden: 0,
            count: 0,
            end: 0,
            bytes: 0,
            cache: RefCell::new(None),
            scratch: Vec::new(),
        }
    }

    /// Rows kept on disk.
    pub fn rows(&self) -> u64 {
        self.count - self.hidden
    }

    /// Number of the oldest row kept on disk (when any).
    pub fn first(&self) -> Option<u64> {
        self.blocks.front().map(|b| b.first + self.hidden)
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Appends a block; then, while all windows together hold more than the budget, drops
    /// this window's oldest blocks (the new one last). Returns the rows dropped, the new
    /// block's included when it could not be written.
    pub fn write(&mut self, block: &Outgoing<'_>) -> u64 {
        let buf = &mut self.scratch;
        buf.clear();
        buf.resize(HEADER, 0);
        for &(len, width) in block.rows {
            put_varint(buf, u64::from(len));
            put_varint(buf, u64::from(width));
        }
        let table_len = buf.len() - HEADER;
        let packed_len = if block.packed { block.bytes.len() } else { 0 };
        for (i, v) in [block.rows.len(), block.raw_len, packed_len, table_len]
            .into_iter()
            .enumerate()
        {
            buf[i * 4..i * 4 + 4].copy_from_slice(&(v as u32).to_le_bytes());
        }
        buf.extend_from_slice(block.bytes);
        let rows = block.rows.len() as u32;
        if let Err(e) = self.file.file.write_all_at(buf, self.end) {
            // A full disk or a broken file never stops the window: the block is lost.
            tracing::warn!(path = %self.file.path.display(), error = %e, rows, "cannot write history to disk; dropping the block");
            return u64::from(rows);
        }
        let len = buf.len() as u64;
        self.blocks.push_back(Spilled {
            first: block.first,
            rows,
            len: len as u32,
            off: self.end,
        });
        self.end += len;
        self.bytes += len;
        self.count += u64::from(rows);
        let mut total = self.file.budget.add(len);
        let mut dropped = 0;
        while total > self.file.budget.limit() && !self.blocks.is_empty() {
            let b = self.blocks[0];
            dropped += self.drop_oldest_block();
            total = total.saturating_sub(u64::from(b.len));
        }
        dropped
    }

    /// Forgets the oldest block and frees its space; returns the kept rows it held.
    fn drop_oldest_block(&mut self) -> u64 {
        let Some(b) = self.blocks.pop_front() else {
            return 0;
        };
        let rows = u64::from(b.rows) - self.hidden;
        self.hidden = 0;
        self.count -= u64::from(b.rows);
        self.bytes -= u64::from(b.len);
        self.file.budget.sub(u64::from(b.len));
        if self
            .cache
            .get_mut()
            .as_ref()
            .is_some_and(|c| c.first == b.first)
        {
            *self.cache.get_mut() = None;
        }
        use rustix::fs::{fallocate, FallocateFlags};
        let flags = FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE;
        // From the start of the file: blocks always go oldest first, so everything before this
        // one is gone too, and the file system blocks shared with earlier records get freed.
        let end = b.off + u64::from(b.len);
        if let Err(e) = fallocate(&self.file.file, flags, 0, end) {
            tracing::debug!(error = %e, "cannot free dropped history on disk");
        }
        if self.blocks.is_empty() {
            // Nothing left to read: start the file over.
            if self.file.file.set_len(0).is_ok() {
                self.end = 0;
            }
        }
        rows
    }

    /// Stops keeping the oldest row (past `scrollback_lines`).
    pub fn hide_oldest(&mut self) {
        let Some(b) = self.blocks.front() else {
            return;
        };
        self.hidden += 1;
        if self.hidden >= u64::from(b.rows) {
            self.drop_oldest_block();
        }
    }

    /// Drops every block (ED 3).
    pub fn clear(&mut self) {
        while !self.blocks.is_empty() {
            self.drop_oldest_block();
        }
    }

    /// Index of the block holding row `n`.
    fn find(&self, n: u64) -> Option<usize> {
        let i = self
            .blocks
            .partition_point(|b| b.first <= n)
            .checked_sub(1)?;
        let b = self.blocks[i];
        (n < b.first + u64::from(b.rows) && self.first().is_some_and(|f| n >= f)).then_some(i)
    }

    /// Row `n`'s bytes, width and wrap flag (through a one-block cache).
    pub fn row(&self, n: u64) -> Option<(Vec<u8>, u16, bool)> {
        let i = self.find(n)?;
        let cached = self
            .cache
            .borrow()
            .as_ref()
            .filter(|c| c.first == self.blocks[i].first)
            .cloned();
        let loaded = match cached {
            Some(l) => l,
            None => {
                let l = Arc::new(self.load(i)?);
                *self.cache.borrow_mut() = Some(l.clone());
                l
            }
        };
        let (bytes, width, wrapped) = loaded.row((n - loaded.first) as usize);
        Some((bytes.to_vec(), width, wrapped))
    }

    /// Block `i` read and unpacked; None (logged) when it cannot be.
    pub fn load(&self, i: usize) -> Option<Loaded> {
        let b = self.blocks[i];
        let mut buf = vec![0; b.len as usize];
        if let Err(e) = self.file.file.read_exact_at(&mut buf, b.off) {
            tracing::warn!(path = %self.file.path.display(), error = %e, "cannot read history from disk");
            return None;
        }
        let loaded = decode_record(b.first, &buf);
        if loaded.is_none() {
            tracing::warn!(path = %self.file.path.display(), off = b.off, "a history block on disk is damaged");
        }
        loaded
    }

    /// Indices of blocks holding rows `from..to`, and the first row kept.
    pub fn block_range(&self, from: u64, to: u64) -> std::ops::Range<usize> {
        let lo = self
            .blocks
            .partition_point(|b| b.first + u64::from(b.rows) <= from);
        let hi = self.blocks.partition_point(|b| b.first < to);
        lo..hi.max(lo)
    }
}

impl Drop for Disk {
    fn drop(&mut self) {
        // The file goes with the window: its bytes no longer count.
        self.file.budget.sub(self.bytes);
    }
}

fn u32_at(buf: &[u8], i: usize) -> Option<usize> {
    let b = buf.get(i * 4..i * 4 + 4)?;
    Some(u32::from_le_bytes(b.try_into().ok()?) as usize)
}

/// Reads one record back (see the module's documentation for the format).
pub(crate) fn decode_record(first: u64, buf: &[u8]) -> Option<Loaded> {
    let (rows, raw_len, packed_len, table_len) = (
        u32_at(buf, 0)?,
        u32_at(buf, 1)?,
        u32_at(buf, 2)?,
        u32_at(buf, 3)?,
    );
    let table = buf.get(HEADER..HEADER + table_len)?;
    let body = buf.get(HEADER + table_len..)?;
    let bytes = if packed_len > 0 {
        zstd::bulk::decompress(body.get(..packed_len)?, raw_len).ok()?
    } else {
        body.get(..raw_len)?.to_vec()
    };
    let mut out = Vec::with_capacity(rows);
    let (mut pos, mut off) = (0, 0u32);
    for _ in 0..rows {
        if pos >= table.len() {
            return None;
        }
        let field = get_varint(table, &mut pos) as u16;
        let width = get_varint(table, &mut pos) as u16;
        let len = field & LEN_MASK;
        let wrapped = field & WRAPPED != 0;
        if len == LEN_WHOLE {
            out.push((0, bytes.len() as u32, width, wrapped));
        } else {
            out.push((off, u32::from(len), width, wrapped));
            off += u32::from(len);
        }
    }
    Some(Loaded {
        first,
        rows: out,
        bytes,
    })
}

#[cfg(test)]
#[path = "disk_tests.rs"]
mod tests;
