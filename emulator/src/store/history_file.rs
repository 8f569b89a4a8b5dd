//! A window's history file and the format of its records, shared by the blocks' index
//! (`disk`) and the writer thread (`writer`).
//!
//! Record format, integers little-endian: a 16-byte header (`rows` u32, `raw_len` u32,
//! `packed_len` u32 — 0 when the block is stored unpacked —, `table_len` u32), the row table
//! (LEB128: where the first row starts in the block's bytes — rows dropped from the block's
//! front leave theirs before it —, then per row its length field as in memory, `WRAPPED` bit
//! included, and its width), then the block's bytes. A row's offset in the block is that start
//! plus the lengths before it, as rows are appended to a block in order.
//!
//! Dropping the oldest block punches a hole where it was, so the file's disk usage follows
//! the bytes kept while offsets never move. All windows' files share one [`DiskBudget`].

use std::fs::File;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::varint::get_varint;
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
    pub(super) path: PathBuf,
    pub(super) budget: Arc<DiskBudget>,
    end: AtomicU64,
    /// Bytes of the records kept (holes punched for dropped ones are not counted).
    pub(super) bytes: AtomicU64,
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

    pub(super) fn read(&self, off: u64, len: u32) -> std::io::Result<Vec<u8>> {
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
    /// Where the first of those rows starts in the block's bytes: rows dropped from the
    /// block's front (past `scrollback_lines`) leave their bytes before it.
    pub base: u32,
    pub raw_len: usize,
    /// The packed bytes, or the raw block when `packed` is false.
    pub bytes: &'a [u8],
    pub packed: bool,
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
    let mut pos = 0;
    // The table starts with where the first row starts (see `Outgoing::base`).
    let mut off = u32::try_from(get_varint(table, &mut pos)).ok()?;
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
            let end = off.checked_add(u32::from(len))?;
            // A damaged table never points past the block.
            if end as usize > bytes.len() {
                return None;
            }
            out.push((off, u32::from(len), width, wrapped));
            off = end;
        }
    }
    Some(Loaded {
        first,
        rows: out,
        bytes,
    })
}
