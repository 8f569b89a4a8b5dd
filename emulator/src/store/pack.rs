//! Packing sealed blocks with zstd (`compact`), and reading rows back through the one-block
//! unpacked cache.

use std::cell::Ref;

use super::read::RowBytes;
use super::{Block, Store};

/// zstd level for packing: level 1 packs as tightly as 3–6 on terminal text, several times
/// faster.
pub(super) const PACK_LEVEL: i32 = 1;

impl Store {
    /// A row's bytes from packed block `seq`, through the one-block cache.
    pub(super) fn unpack<'a>(
        &'a self,
        seq: u32,
        packed: &[u8],
        len: usize,
        range: impl Fn(usize) -> std::ops::Range<usize>,
    ) -> RowBytes<'a> {
        let unpack = || {
            // Packed by `compact` from exactly `len` bytes; a failure would be a bug, and the
            // row then reads as empty rather than taking the daemon down.
            zstd::bulk::decompress(packed, len).unwrap_or_else(|e| {
                tracing::error!(error = %e, "cannot unpack a scrollback block");
                Vec::new()
            })
        };
        let Ok(mut cache) = self.unpacked.try_borrow_mut() else {
            // Another view holds the cache: this one unpacks on its own.
            let bytes = unpack();
            return RowBytes::Owned(bytes.get(range(bytes.len())).unwrap_or(&[]).to_vec());
        };
        if cache.as_ref().is_none_or(|(s, _)| *s != seq) {
            *cache = Some((seq, unpack()));
        }
        drop(cache);
        let cache = self.unpacked.borrow();
        RowBytes::Cached(Ref::map(cache, |c| {
            let bytes = c.as_ref().map_or(&[][..], |(_, v)| v.as_slice());
            bytes.get(range(bytes.len())).unwrap_or(&[])
        }))
    }

    /// Packs every sealed block not packed yet; returns the heap bytes saved. A block that
    /// does not shrink by at least an eighth stays as it is (already dense, or tiny).
    pub fn compact(&mut self) -> usize {
        let sealed = self.blocks.len().saturating_sub(1);
        let mut saved = 0;
        let mut compressor = None;
        let mut scratch = Vec::new();
        for block in self.blocks.iter_mut().take(sealed) {
            let Block::Open(raw) = block else { continue };
            if raw.is_empty() {
                continue;
            }
            let c = match &mut compressor {
                Some(c) => c,
                None => match zstd::bulk::Compressor::new(PACK_LEVEL) {
                    Ok(c) => compressor.insert(c),
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot pack scrollback");
                        return saved;
                    }
                },
            };
            // Packed into scratch space first, then copied into an allocation of exactly its
            // size: shrinking a bound-sized buffer in place would leave a free tail behind
            // every packed block.
            scratch.clear();
            scratch.reserve(zstd::zstd_safe::compress_bound(raw.len()));
            let Ok(n) = c.compress_to_buffer(raw.as_slice(), &mut scratch) else {
                continue;
            };
            if n > raw.len() - raw.len() / 8 {
                continue;
            }
            saved += raw.capacity() - n;
            *block = Block::Packed {
                len: raw.len(),
                bytes: Box::from(&scratch[..n]),
            };
        }
        saved
    }
}
