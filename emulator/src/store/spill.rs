//! The store's byte budget (`history_bytes`): past it the oldest sealed blocks go to disk as
//! they are (see `disk`), or are dropped when the window has no history file. Rows on disk
//! keep their numbers and read back like rows in memory.

use std::path::PathBuf;
use std::sync::Arc;

use super::disk::{Disk, HistoryWriter};
use super::history_file::{DiskBudget, HistoryFile, Outgoing};
use super::read::{RowBytes, RowView};
use super::{Block, Store, BLOCK};

/// Where a window's history goes past its memory budget: its file (created when first
/// needed), the shared disk budget, and the writer thread (None: blocks are packed and
/// written on the window's own thread).
#[derive(Clone, Debug)]
pub struct HistoryPlan {
    pub path: PathBuf,
    pub budget: Arc<DiskBudget>,
    pub writer: Option<HistoryWriter>,
}

impl Store {
    /// Sets the memory budget in bytes and where rows past it go (`None`: they are dropped).
    /// The file is created when the first block leaves memory, so a window that never passes
    /// its budget costs no file and no descriptor.
    pub fn set_limits(&mut self, budget: usize, plan: Option<HistoryPlan>) {
        self.budget = budget;
        self.disk = None;
        self.disk_plan = plan;
        self.heap_checked = self.heap_bytes();
        self.new_blocks = 0;
    }

    /// Whether the heap may have passed the budget: exact after `enforce_budget`, then an
    /// upper bound counting each new block as full (blocks released meanwhile not subtracted),
    /// so the check costs nothing per row.
    pub fn maybe_over_budget(&self) -> bool {
        self.heap_checked + self.new_blocks * BLOCK > self.budget
    }

    /// Brings the heap under the budget: moves the oldest sealed blocks to disk (or drops
    /// them) while it is over. Without a writer thread the sealed blocks are packed here
    /// first; with one they go as they are and the writer packs them, and while its queue is
    /// full they stay in memory, up to twice the budget, past which the window waits for room.
    /// The open block always stays.
    pub fn enforce_budget(&mut self) {
        let mut heap = self.heap_bytes();
        let writer = self.disk.as_ref().map_or_else(
            || self.disk_plan.as_ref().is_some_and(|p| p.writer.is_some()),
            Disk::has_writer,
        );
        if heap > self.budget && !writer {
            self.compact();
            heap = self.heap_bytes();
        }
        // Down to seven eighths: the next check comes an eighth of the budget later, so the
        // packing before it works on many blocks at once, not one block per check.
        let target = self.budget - self.budget / 8;
        let wait = heap > self.budget.saturating_mul(2);
        let mut spilled = false;
        while heap > target && self.blocks.len() > 1 {
            let Some(freed) = self.spill_oldest(wait) else {
                break;
            };
            heap = heap.saturating_sub(freed);
            spilled = true;
        }
        if spilled && self.rows.capacity() > 2 * self.rows.len() + 64 {
            // The row index only grows; give back what spilled rows left unused.
            self.rows
                .shrink_to(self.rows.len() + self.rows.len() / 2 + 64);
        }
        self.heap_checked = self.heap_bytes();
        self.new_blocks = 0;
    }

    /// Rows dropped for a byte budget since the last call.
    pub fn take_dropped(&mut self) -> u64 {
        std::mem::take(&mut self.dropped)
    }

    /// Moves the oldest block and its rows out of memory; returns the heap bytes freed, or
    /// None when the writer's queue is full (nothing moved).
    fn spill_oldest(&mut self, wait: bool) -> Option<usize> {
        let seq = self.first_block;
        let n = self.rows.iter().take_while(|m| m.block == seq).count();
        if let Some(plan) = self.disk_plan.take() {
            match HistoryFile::create(&plan.path, plan.budget) {
                Ok(file) => self.disk = Some(Disk::new(file, plan.writer)),
                // Not retried: the history stays bounded by memory, older lines are dropped.
                Err(e) => {
                    tracing::warn!(path = %plan.path.display(), error = %e, "cannot create a history file; lines past the memory budget are dropped")
                }
            }
        }
        let first = self.pushed - self.rows.len() as u64;
        if self.disk.is_some() {
            let table: Vec<(u16, u16)> = (0..n)
                .map(|i| (self.rows[i].len, self.width(i) as u16))
                .collect();
            let (bytes, raw_len, packed) = match self.blocks.front()? {
                Block::Open(v) => (&v[..], v.len(), false),
                Block::Packed { bytes, len } => (&bytes[..], *len, true),
            };
            let out = Outgoing {
                first,
                rows: &table,
                base: u32::from(self.rows[0].off),
                raw_len,
                bytes,
                packed,
            };
            let disk = self.disk.as_mut()?;
            self.dropped += disk.write(&out, wait)?;
        } else {
            self.dropped += n as u64;
        }
        let block = self.blocks.pop_front()?;
        let freed = block.heap_bytes();
        self.first_block = self.first_block.wrapping_add(1);
        if self
            .unpacked
            .get_mut()
            .as_ref()
            .is_some_and(|(s, _)| *s == seq)
        {
            *self.unpacked.get_mut() = None;
        }
        self.rows.drain(..n);
        let first_seq = self.pushed - self.rows.len() as u64;
        while self.widths.len() > 1 && self.widths[1].0 <= first_seq {
            self.widths.pop_front();
        }
        Some(freed)
    }

    /// Rows kept on disk.
    pub fn disk_rows(&self) -> u64 {
        self.disk.as_ref().map_or(0, Disk::rows)
    }

    /// Rows kept, on disk and in memory.
    pub fn kept(&self) -> u64 {
        self.disk_rows() + self.rows.len() as u64
    }

    /// Bytes of history on disk for this window.
    pub fn disk_bytes(&self) -> u64 {
        self.disk.as_ref().map_or(0, Disk::bytes)
    }

    /// Row number `n`, wherever it is kept; None when it is not.
    pub fn line(&self, n: u64) -> Option<RowView<'_>> {
        let mem_first = self.pushed - self.rows.len() as u64;
        if n >= self.pushed {
            return None;
        }
        if n >= mem_first {
            return Some(self.row((n - mem_first) as usize));
        }
        let (bytes, width, wrapped) = self.disk.as_ref()?.row(n)?;
        Some(RowView {
            bytes: RowBytes::Owned(bytes),
            width: usize::from(width),
            wrapped,
        })
    }

    pub(crate) fn disk(&self) -> Option<&Disk> {
        self.disk.as_ref()
    }

    /// Drops the oldest kept row (the ring is full).
    pub(super) fn drop_oldest_kept(&mut self) {
        match &mut self.disk {
            Some(disk) if disk.rows() > 0 => disk.hide_oldest(),
            _ => self.drop_oldest(),
        }
    }
}
