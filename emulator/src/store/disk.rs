//! History on disk: sealed blocks that passed a window's memory budget (`history_bytes`),
//! appended to one file per window as they were in memory (packed when `compact` packed them);
//! the file and its record format are `history_file`'s, the writes the `writer` thread's.
//!
//! In memory each block on disk costs one `Spilled` entry (24 bytes): a 32 KiB block holds
//! ~600 lines of 30-80 bytes, so 10,000,000 lines cost ~17,000 entries (~400 KiB); at worst one
//! line per block (lines of 16 KiB and more), so entries never outnumber the lines kept.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::history_file::{decode_record, HistoryFile, Loaded, Outgoing};
pub(crate) use super::writer::{HistoryWriter, Pending};
use super::writer::{FAILED, WRITTEN};

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

pub(crate) struct Disk {
    file: Arc<HistoryFile>,
    writer: Option<HistoryWriter>,
    blocks: VecDeque<Spilled>,
    /// Rows at the start of `blocks[0]` no longer kept (past `scrollback_lines`).
    hidden: u64,
    /// Rows in `blocks`, hidden ones included.
    count: u64,
    cache: RefCell<Option<Arc<Loaded>>>,
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

    /// Blocks the writer finished become plain entries; returns the rows of those it failed
    /// to write (lost, reported once, here).
    fn settle(&mut self) -> u64 {
        let mut lost = 0;
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
                    lost += u64::from(b.rows);
                    b.loc = Loc::Lost;
                }
                _ => {}
            }
        }
        lost
    }

    /// Appends a block (through the writer thread when there is one, else here); then, while
    /// all windows together hold more than the budget, drops this window's oldest written
    /// blocks. Returns the rows dropped, or None (nothing done) when the writer is full and
    /// `wait` is false.
    pub fn write(&mut self, block: &Outgoing<'_>, wait: bool) -> Option<u64> {
        let mut dropped = self.settle();
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
                    dropped += block.rows.len() as u64;
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
            // Its rows were reported dropped when its write failed.
            Loc::Lost => return 0,
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

#[cfg(test)]
#[path = "disk_tests.rs"]
mod tests;
