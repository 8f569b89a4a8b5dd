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

use super::varint::get_varint;
pub(crate) use super::writer::{HistoryWriter, Pending};
use super::writer::{FAILED, WRITTEN};
use super::{LEN_MASK, LEN_WHOLE, WRAPPED};

pub(crate) const HEADER: usize = 16;

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

    fn add(&self, n: u64) {
        self.used.fetch_add(n, Ordering::Relaxed);
    }

    fn sub(&self, n: u64) {
        self.used.fetch_sub(n, Ordering::Relaxed);
    }
}

/// A window's history file: created empty (mode 0600, never an existing file), removed when
/// the last holder (its window, or the writer finishing a block) lets it go. Records are
/// appended at offsets handed out in order, so a file's records lie in the order its window
/// sent them; the bytes it holds are counted here and in the shared budget.
pub struct HistoryFile {
    file: File,
    path: PathBuf,
    budget: Arc<DiskBudget>,
    end: AtomicU64,
    bytes: AtomicU64,
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
            end: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes one record at the end; its offset.
    pub(crate) fn append(&self, record: &[u8]) -> std::io::Result<u64> {
        let len = record.len() as u64;
        let off = self.end.fetch_add(len, Ordering::Relaxed);
        self.file.write_all_at(record, off)?;
        self.bytes.fetch_add(len, Ordering::Relaxed);
        self.budget.add(len);
        Ok(off)
    }

    /// Frees a record that is no longer kept. The hole is punched from the start of the file:
    /// records go oldest first, so everything before this one is gone too, and the file
    /// system blocks shared with earlier records are freed with it.
    pub(crate) fn release(&self, off: u64, len: u32) {
        self.bytes.fetch_sub(u64::from(len), Ordering::Relaxed);
        self.budget.sub(u64::from(len));
        use rustix::fs::{fallocate, FallocateFlags};
        let flags = FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE;
        if let Err(e) = fallocate(&self.file, flags, 0, off + u64::from(len)) {
            tracing::debug!(error = %e, "cannot free dropped history on disk");
        }
    }

    fn read(&self, off: u64, len: u32) -> std::io::Result<Vec<u8>> {
        let mut buf = vec![0; len as usize];
        self.file.read_exact_at(&mut buf, off)?;
        Ok(buf)
    }
}

impl Drop for HistoryFile {
    fn drop(&mut self) {
        self.budget.sub(*self.bytes.get_mut());
        if let Err(e) = std::fs::remove_file(&self.path) {
            tracing::warn!(path = %self.path.display(), error = %e, "cannot remove a history file");
        }
    }
}

/// Where a block on disk is.
#[derive(Clone, Debug)]
pub(crate) enum Loc {
    Written {
        off: u64,
        len: u32,
    },
    /// Handed to the writer thread; readable from memory until written.
    Queued(Arc<Pending>),
    /// Its write failed: its rows read as empty lines (numbers stay as they were).
    Lost,
}

/// One block on disk.
#[derive(Clone, Debug)]
pub(crate) struct Spilled {
    /// Number of its first row (numbered as `Store::pushed` counts).
    pub first: u64,
    pub rows: u32,
    pub loc: Loc,
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
    file: Arc<HistoryFile>,
    writer: Option<HistoryWriter>,
    blocks: VecDeque<Spilled>,
    /// Rows at the start of `blocks[0]` no longer kept (past `scrollback_lines`).
    hidden: u64,
    /// Rows in `blocks`, hidden ones included.
    count: u64,
    cache: RefCell<Option<Arc<Loaded>>>,
    /// Rows whose block could not be written, not yet reported.
    lost: u64,
}

impl Disk {
    pub fn new(file: HistoryFile, writer: Option<HistoryWriter>) -> Disk {
        Disk {
            file: Arc::new(file),
            writer,
            blocks: VecDeque::new(),
            hidden: 0,
            count: 0,
            cache: RefCell::new(None),
            lost: 0,
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

    /// Bytes of this window's history written to disk.
    pub fn bytes(&self) -> u64 {
        self.file.bytes.load(Ordering::Relaxed)
    }

    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Whether blocks go through a writer thread.
    pub fn has_writer(&self) -> bool {
        self.writer.is_some()
    }

    /// Blocks the writer finished become plain entries; failed ones are counted as lost.
    fn settle(&mut self) {
        for b in self.blocks.iter_mut() {
            let Loc::Queued(p) = &b.loc else { continue };
            match p.state() {
                WRITTEN => {
                    b.loc = Loc::Written {
                        off: p.off.load(Ordering::Acquire),
                        len: p.len.load(Ordering::Acquire),
                    }
                }
                FAILED => {
                    self.lost += u64::from(b.rows);
                    b.loc = Loc::Lost;
                }
                _ => {}
            }
        }
    }

    /// Appends a block (through the writer thread when there is one, else here); then, while
    /// all windows together hold more than the budget, drops this window's oldest written
    /// blocks. Returns the rows dropped, or None (nothing done) when the writer is full and
    /// `wait` is false.
    pub fn write(&mut self, block: &Outgoing<'_>, wait: bool) -> Option<u64> {
        self.settle();
        let pending = Arc::new(Pending::new(block));
        let loc = match &self.writer {
            Some(w) => Loc::Queued(w.submit(&self.file, pending, wait)?),
            None => match self.file.append(&pending.record(None)) {
                Ok(off) => Loc::Written {
                    off,
                    len: pending.record_len(),
                },
                Err(e) => {
                    // A full disk or a broken file never stops the window: the block is lost.
                    tracing::warn!(path = %self.file.path.display(), error = %e, rows = block.rows.len(), "cannot write history to disk; dropping the block");
                    self.lost += block.rows.len() as u64;
                    Loc::Lost
                }
            },
        };
        self.count += block.rows.len() as u64;
        self.blocks.push_back(Spilled {
            first: block.first,
            rows: block.rows.len() as u32,
            loc,
        });
        let mut dropped = std::mem::take(&mut self.lost);
        while self.file.budget.used() > self.file.budget.limit()
            && self
                .blocks
                .front()
                .is_some_and(|b| !matches!(b.loc, Loc::Queued(_)))
        {
            dropped += self.drop_oldest_block();
        }
        Some(dropped)
    }

    /// Forgets the oldest block and frees its space; returns the kept rows it held.
    fn drop_oldest_block(&mut self) -> u64 {
        let Some(b) = self.blocks.pop_front() else {
            return 0;
        };
        let rows = u64::from(b.rows) - self.hidden;
        self.hidden = 0;
        self.count -= u64::from(b.rows);
        if self
            .cache
            .get_mut()
            .as_ref()
            .is_some_and(|c| c.first == b.first)
        {
            *self.cache.get_mut() = None;
        }
        match b.loc {
            Loc::Written { off, len } => self.file.release(off, len),
            Loc::Queued(p) => {
                if let Some((off, len)) = p.cancel() {
                    self.file.release(off, len);
                }
            }
            Loc::Lost => {}
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
        let b = &self.blocks[i];
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
        let b = &self.blocks[i];
        let loaded = match &b.loc {
            Loc::Written { off, len } => match self.file.read(*off, *len) {
                Ok(buf) => decode_record(b.first, &buf),
                Err(e) => {
                    tracing::warn!(path = %self.file.path.display(), error = %e, "cannot read history from disk");
                    return None;
                }
            },
            Loc::Queued(p) => p.decode(b.first),
            Loc::Lost => Some(Loaded {
                first: b.first,
                rows: vec![(0, 0, 0, false); b.rows as usize],
                bytes: Vec::new(),
            }),
        };
        if loaded.is_none() {
            tracing::warn!(path = %self.file.path.display(), "a history block is damaged");
        }
        loaded
    }

    /// Indices of blocks holding rows `from..to`.
    pub fn block_range(&self, from: u64, to: u64) -> std::ops::Range<usize> {
        let lo = self
            .blocks
            .partition_point(|b| b.first + u64::from(b.rows) <= from);
        let hi = self.blocks.partition_point(|b| b.first < to);
        lo..hi.max(lo)
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
    let body = if packed_len > 0 {
        body.get(..packed_len)?
    } else {
        body.get(..raw_len)?
    };
    decode_parts(first, rows, raw_len, table, body, packed_len > 0)
}

/// A block from its row table and body (packed or not).
pub(crate) fn decode_parts(
    first: u64,
    rows: usize,
    raw_len: usize,
    table: &[u8],
    body: &[u8],
    packed: bool,
) -> Option<Loaded> {
    let bytes = if packed {
        zstd::bulk::decompress(body, raw_len).ok()?
    } else {
        body.to_vec()
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
