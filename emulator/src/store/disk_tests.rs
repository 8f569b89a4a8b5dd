use super::*;
use crate::store::history_file::{decode_record, DiskBudget};
use crate::store::{LEN_MASK, LEN_WHOLE, WRAPPED};
use std::path::PathBuf;

fn file(name: &str, limit: u64) -> (HistoryFile, Arc<DiskBudget>, PathBuf) {
    let path = std::env::temp_dir().join(format!("tuios-disk-{}-{name}.hist", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let budget = DiskBudget::new(limit);
    (
        HistoryFile::create(&path, budget.clone()).unwrap(),
        budget,
        path,
    )
}

/// A block of `rows` rows "r<n>" (row n of the window), stored raw.
fn raw_block(first: u64, rows: u64) -> (Vec<(u16, u16)>, Vec<u8>) {
    let mut table = Vec::new();
    let mut bytes = Vec::new();
    for n in first..first + rows {
        let text = format!("r{n}");
        // The row encoding: cells, runs length (0: default style), text.
        let row = [&[text.len() as u8, 0][..], text.as_bytes()].concat();
        let wrapped = if n % 3 == 0 { WRAPPED } else { 0 };
        table.push((row.len() as u16 | wrapped, 80));
        bytes.extend_from_slice(&row);
    }
    (table, bytes)
}

fn text(disk: &Disk, n: u64) -> Option<(String, bool)> {
    let (bytes, width, wrapped) = disk.row(n)?;
    assert_eq!(width, 80);
    Some((String::from_utf8(bytes[2..].to_vec()).unwrap(), wrapped))
}

#[test]
fn a_block_whose_first_rows_were_dropped_reads_back_from_where_its_rows_start() {
    let (f, _budget, path) = file("base", 1 << 20);
    let mut disk = Disk::new(f, None);
    // Rows 10..20 were in the block; 10..13 left memory past scrollback_lines before it
    // moved to disk, their bytes still at its front.
    let (table, bytes) = raw_block(10, 10);
    let base: u32 = table[..3]
        .iter()
        .map(|(l, _)| u32::from(l & LEN_MASK))
        .sum();
    for packed in [false, true] {
        let body = if packed {
            zstd::bulk::compress(&bytes, 1).unwrap()
        } else {
            bytes.clone()
        };
        disk.clear();
        disk.write(
            &Outgoing {
                first: 13,
                rows: &table[3..],
                base,
                raw_len: bytes.len(),
                bytes: &body,
                packed,
            },
            false,
        )
        .unwrap();
        assert_eq!(
            text(&disk, 13),
            Some(("r13".into(), false)),
            "packed {packed}"
        );
        assert_eq!(
            text(&disk, 19),
            Some(("r19".into(), false)),
            "packed {packed}"
        );
    }
    drop(disk);
    assert!(!path.exists());
}

#[test]
fn records_read_back_raw_and_packed_and_rows_keep_their_numbers() {
    let (f, budget, path) = file("rt", 1 << 20);
    let mut disk = Disk::new(f, None);
    let (t1, b1) = raw_block(100, 50);
    assert_eq!(
        disk.write(
            &Outgoing {
                first: 100,
                rows: &t1,
                base: 0,
                raw_len: b1.len(),
                bytes: &b1,
                packed: false
            },
            false
        )
        .unwrap(),
        0
    );
    let (t2, b2) = raw_block(150, 30);
    let packed = zstd::bulk::compress(&b2, 1).unwrap();
    disk.write(
        &Outgoing {
            first: 150,
            rows: &t2,
            base: 0,
            raw_len: b2.len(),
            bytes: &packed,
            packed: true,
        },
        false,
    )
    .unwrap();
    assert_eq!((disk.rows(), disk.first()), (80, Some(100)));
    assert_eq!(budget.used(), disk.bytes());
    assert_eq!(text(&disk, 100), Some(("r100".into(), false)));
    assert_eq!(text(&disk, 102), Some(("r102".into(), true)));
    assert_eq!(text(&disk, 179), Some(("r179".into(), false)));
    assert_eq!(text(&disk, 99), None);
    assert_eq!(text(&disk, 180), None);
    assert_eq!(disk.block_range(0, 120), 0..1);
    assert_eq!(disk.block_range(149, 151), 0..2);
    assert_eq!(disk.block_range(150, 1000), 1..2);
    // Hiding rows (the line cap) moves the first row kept, then drops the block.
    for _ in 0..49 {
        disk.hide_oldest();
    }
    assert_eq!((disk.rows(), disk.first()), (31, Some(149)));
    assert_eq!(text(&disk, 148), None);
    disk.hide_oldest();
    assert_eq!((disk.blocks(), disk.first()), (1, Some(150)));
    assert_eq!(budget.used(), disk.bytes());
    drop(disk);
    assert_eq!(budget.used(), 0);
    assert!(!path.exists());
}

#[test]
fn a_dedicated_block_row_is_the_whole_block() {
    let (f, _, _) = file("whole", 1 << 20);
    let mut disk = Disk::new(f, None);
    let long = [&[0x80, 0x01, 0][..], "x".repeat(40_000).as_bytes()].concat();
    disk.write(
        &Outgoing {
            first: 0,
            rows: &[(LEN_WHOLE, 80)],
            base: 0,
            raw_len: long.len(),
            bytes: &long,
            packed: false,
        },
        false,
    )
    .unwrap();
    let (bytes, _, _) = disk.row(0).unwrap();
    assert_eq!(bytes.len(), long.len());
}

#[test]
fn over_the_shared_budget_the_oldest_blocks_go_first() {
    let (f, budget, _) = file("budget", 2_000);
    let mut disk = Disk::new(f, None);
    let mut dropped = 0;
    for i in 0..10 {
        let (t, b) = raw_block(i * 50, 50);
        dropped += disk
            .write(
                &Outgoing {
                    first: i * 50,
                    rows: &t,
                    base: 0,
                    raw_len: b.len(),
                    bytes: &b,
                    packed: false,
                },
                false,
            )
            .unwrap();
    }
    assert!(budget.used() <= 2_000, "{}", budget.used());
    assert_eq!(disk.first(), Some(dropped));
    assert_eq!(disk.rows() + dropped, 500);
    assert_eq!(text(&disk, 499), Some(("r499".into(), false)));
    // A damaged record reads as nothing rather than failing the window.
    assert!(decode_record(0, &[1, 0, 0]).is_none());
}
