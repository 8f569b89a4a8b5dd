use std::time::{Duration, Instant};

use super::*;
use crate::lumen::TestRng;

fn b64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let mut buf = [0u8; 3];
        buf[..chunk.len()].copy_from_slice(chunk);
        let n = u32::from(buf[0]) << 16 | u32::from(buf[1]) << 8 | u32::from(buf[2]);
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

fn frame(header: &str, payload: &[u8]) -> Vec<u8> {
    format!("\x1b_lumen;{header};{}\x1b\\", b64(payload)).into_bytes()
}

/// Feed `chunks` at one instant, then finish; the whole output merged.
fn scan_chunks(chunks: &[&[u8]]) -> ScanOutput {
    let now = Instant::now();
    let mut scanner = FrameScanner::new();
    let mut all = ScanOutput::default();
    for chunk in chunks {
        merge(&mut all, scanner.feed(chunk, now));
    }
    merge(&mut all, scanner.finish());
    all
}

fn scan(input: &[u8]) -> ScanOutput {
    scan_chunks(&[input])
}

fn merge(all: &mut ScanOutput, out: ScanOutput) {
    let base = all.passthrough.len();
    all.passthrough.extend(out.passthrough);
    all.frames.extend(out.frames.into_iter().map(|mut f| {
        f.offset += base;
        f
    }));
    all.failures.extend(out.failures.into_iter().map(|mut f| {
        f.offset += base;
        f
    }));
}

fn reasons(out: &ScanOutput) -> Vec<FrameFailReason> {
    out.failures.iter().map(|f| f.reason).collect()
}

#[test]
fn introducer_detection() {
    let yes: &[&[u8]] = &[
        b"\x1b_lumen;",
        b"abc\x1b_lumen;v=0",
        b"\xc2\x9flumen;",
        b"\x9flumen;",
        b"x\x9flumen;y",
        // Without the ';', and tag prefixes at the very end.
        b"\x1b_lumen",
        b"\x1b_lumenX",
        b"\x1b_lume",
        b"\x1b_l",
        b"\x1b_",
        b"\xc2\x9f",
        b"\x9f",
        b"\x9flu",
        // A 9F inside a UTF-8 character still counts here (conservative).
        "\u{1F61F}lumen;".as_bytes(),
    ];
    for input in yes {
        assert!(contains_frame_introducer(input), "{input:?}");
    }
    let no: &[&[u8]] = &[
        b"",
        b"lumen;",
        b"\x1b",
        b"\xc2",
        b"\x1b_lux",
        b"\x1b_G lumen;",
        b"\x1b lumen;",
        b"\x1b]lumen;",
        b"\x1b_LUMEN;",
        b"\x1b_ lumen;",
        b"\x1b_lu\x1b",
        b"\x9c lumen;",
        "plain text, \u{e9}t\u{e9}".as_bytes(),
    ];
    for input in no {
        assert!(!contains_frame_introducer(input), "{input:?}");
    }
}

#[test]
fn a_frame_is_taken_out_and_the_rest_passes_through() {
    let mut input = b"before ".to_vec();
    input.extend(frame("v=0,t=blk,id=17", b"{\"a\":1}"));
    input.extend(b" after");
    let out = scan(&input);
    assert_eq!(out.passthrough, b"before  after");
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    assert_eq!(out.frames.len(), 1);
    let f = &out.frames[0];
    assert_eq!(
        f.header,
        vec![
            ("v".to_string(), "0".to_string()),
            ("t".to_string(), "blk".to_string()),
            ("id".to_string(), "17".to_string())
        ]
    );
    assert_eq!(f.payload, b"{\"a\":1}");
    assert_eq!(f.offset, 7);
    assert_eq!(f.frame_type(), "blk");
    assert_eq!(f.block_id(), "17");
    assert_eq!(f.get("nope"), None);
}

#[test]
fn empty_payload_and_extra_keys_are_fine() {
    let out = scan(&frame("v=0,t=blk,id=1,n=0,m=1", b""));
    assert_eq!(out.frames.len(), 1, "{:?}", out.failures);
    assert!(out.frames[0].payload.is_empty());
    assert!(out.passthrough.is_empty());
}

/// Every split point of a frame (and so of its introducer and terminator) across two reads, and
/// every pair of split points across three, gives the same result as one read.
#[test]
fn every_split_point_of_a_frame() {
    let mut input = b"ab".to_vec();
    input.extend(frame("v=0,t=blk,id=3", b"hello"));
    input.extend(b"cd");
    let whole = scan(&input);
    assert_eq!(whole.frames.len(), 1);
    assert_eq!(whole.passthrough, b"abcd");
    for i in 0..=input.len() {
        assert_eq!(
            scan_chunks(&[&input[..i], &input[i..]]),
            whole,
            "split at {i}"
        );
        for j in i..=input.len() {
            assert_eq!(
                scan_chunks(&[&input[..i], &input[i..j], &input[j..]]),
                whole,
                "split at {i}, {j}"
            );
        }
    }
    // Byte by byte.
    let bytes: Vec<&[u8]> = input.chunks(1).collect();
    assert_eq!(scan_chunks(&bytes), whole);
}

/// The 8-bit introducers, raw 9F and C2 9F, split anywhere: recognised, swallowed, failed.
#[test]
fn eight_bit_introducers_split_anywhere_are_swallowed_and_fail() {
    for intro in [&b"\x9f"[..], b"\xc2\x9f"] {
        for st in [&b"\x1b\\"[..], b"\xc2\x9c", b"\x9c"] {
            let mut input = b"x".to_vec();
            input.extend(intro);
            input.extend(format!("lumen;v=0,t=blk,id=1;{}", b64(b"hi")).as_bytes());
            input.extend(st);
            input.extend(b"y");
            for i in 0..=input.len() {
                let out = scan_chunks(&[&input[..i], &input[i..]]);
                assert_eq!(out.passthrough, b"xy", "{input:?} split at {i}");
                assert!(out.frames.is_empty());
                assert_eq!(reasons(&out), [FrameFailReason::Malformed]);
                assert_eq!(out.failures[0].bytes, input.len() - 2);
                assert_eq!(out.failures[0].block.as_deref(), Some("1"));
            }
        }
    }
}

#[test]
fn eight_bit_terminator_fails_a_seven_bit_frame() {
    for st in [&b"\xc2\x9c"[..], b"\x9c"] {
        let mut input = format!("\x1b_lumen;v=0,t=blk,id=1;{}", b64(b"x")).into_bytes();
        input.extend(st);
        let out = scan(&input);
        assert!(out.frames.is_empty());
        assert_eq!(reasons(&out), [FrameFailReason::Malformed]);
        assert!(out.passthrough.is_empty());
    }
}

#[test]
fn near_misses_pass_through_untouched() {
    let cases: &[&[u8]] = &[
        b"\x1b_Gf=100;AAAA\x1b\\",
        b"\x1b_lumex\x1b\\",
        b"\x1b[31mred\x1b[0m",
        b"\x1b\x1b_lu\x1b_lumen",
        b"\xc2\xa9 \xc2\x9e \xc2",
        "\u{1F61F}lumen;v=0,t=blk,id=1;AA\u{1F61C}".as_bytes(),
        b"\xe2\x9flumen;",
        b"\xf0\x9f\x98\x9flumen;",
        b"\x9c\x9c",
    ];
    for input in cases {
        let out = scan(input);
        assert_eq!(&out.passthrough, input, "{input:?}");
        assert!(
            out.frames.is_empty() && out.failures.is_empty(),
            "{input:?}"
        );
    }
}

/// E0 9F is not a valid start of a character, so that 9F is a stray 8-bit APC.
#[test]
fn a_stray_9f_after_an_invalid_lead_is_an_introducer() {
    let mut input = b"\xe0\x9flumen;v=0,t=blk,id=1;".to_vec();
    input.extend(b"\x1b\\z");
    let out = scan(&input);
    assert_eq!(out.passthrough, b"\xe0z");
    assert_eq!(reasons(&out), [FrameFailReason::Malformed]);
}

#[test]
fn terminal_origin_claims_fail() {
    for header in [
        "v=0,t=blk,id=1,o=t",
        "o=t,v=0,t=blk,id=1",
        // Origin wins over other faults.
        "v=9,o=t",
        "v=0,t=focus,id=1",
        "v=0,t=resize,id=1",
        "v=0,t=key,id=1",
        "v=0,t=paste,id=1",
        "t=grant",
    ] {
        let out = scan(&frame(header, b"x"));
        assert!(out.frames.is_empty(), "{header}");
        assert_eq!(reasons(&out), [FrameFailReason::TerminalOrigin], "{header}");
        assert_eq!(out.failures[0].bytes, frame(header, b"x").len());
    }
}

#[test]
fn malformed_frames_fail_whole() {
    let bad_headers = [
        "",
        "v=0,t=blk",
        "v=0,id=1",
        "t=blk,id=1",
        "v=1,t=blk,id=1",
        "v=0,t=blk,id=1,o=a",
        "v=0,t=blk,id=1,t=x",
        "v=0,,t=blk,id=1",
        "v=0,t=,id=1",
        "v=0,t=blk,id",
        "v=0=0,t=blk,id=1",
        "1=0,t=blk,id=1",
    ];
    for header in bad_headers {
        let mut input = b"<".to_vec();
        input.extend(frame(header, b"payload"));
        input.extend(b">");
        let out = scan(&input);
        assert_eq!(out.passthrough, b"<>", "{header}");
        assert!(out.frames.is_empty(), "{header}");
        assert_eq!(reasons(&out), [FrameFailReason::Malformed], "{header}");
    }
    // Bad base64url: impossible length, padding, non-canonical trailing bits.
    for payload in ["A", "AAAAA", "QQ==", "QR", "QUF"] {
        let input = format!("\x1b_lumen;v=0,t=blk,id=1;{payload}\x1b\\");
        let out = scan(input.as_bytes());
        assert!(out.frames.is_empty(), "{payload}");
        assert_eq!(out.failures.len(), 1, "{payload}");
        assert_eq!(out.failures[0].reason, FrameFailReason::Malformed);
    }
    // No ';' between header and payload.
    let out = scan(b"\x1b_lumen;v=0,t=blk,id=1\x1b\\");
    assert_eq!(reasons(&out), [FrameFailReason::Malformed]);
    assert!(out.passthrough.is_empty());
}

#[test]
fn base64url_round_trips() {
    let mut rng = TestRng::new(7);
    for len in 0..64 {
        let data: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        assert_eq!(
            decode_base64url(b64(&data).as_bytes()).as_deref(),
            Some(&data[..])
        );
    }
    assert_eq!(decode_base64url(b"-_8").unwrap(), [0xfb, 0xff]);
}

/// ESC followed by anything but `\` ends the frame there: the frame so far is dropped, and the
/// ESC starts a new sequence, as in any VT parser. CAN and SUB end it too.
#[test]
fn escape_can_and_sub_end_a_frame() {
    let out = scan(b"\x1b_lumen;v=0,t=blk,id=4;AAAA\x1b[31mX");
    assert_eq!(out.passthrough, b"\x1b[31mX");
    assert_eq!(reasons(&out), [FrameFailReason::Malformed]);
    assert_eq!(
        out.failures[0].bytes,
        "\x1b_lumen;v=0,t=blk,id=4;AAAA".len()
    );
    assert_eq!(out.failures[0].block.as_deref(), Some("4"));
    assert_eq!(out.failures[0].offset, 0);

    for cancel in [0x18u8, 0x1a] {
        let mut input = b"\x1b_lumen;v=0,t=blk,id=4;AA".to_vec();
        input.push(cancel);
        input.extend(b"BB");
        let out = scan(&input);
        assert_eq!(reasons(&out), [FrameFailReason::Malformed]);
        assert_eq!(out.passthrough, [cancel, b'B', b'B']);
    }
}

/// A byte outside the frame alphabet dooms the frame, but like any APC string it is swallowed up
/// to its terminator: a bad frame is dropped whole, nothing of it is drawn.
#[test]
fn a_foreign_byte_dooms_the_frame_which_is_still_dropped_whole() {
    for foreign in [
        &b"\x07"[..],
        b"\0",
        b" ",
        b"=",
        b";",
        b"\x7f",
        b"\xff",
        b"\n",
        "\u{e9}".as_bytes(),
        b"\xc2\x9f",
        b"\x9f",
    ] {
        let mut input = b"<\x1b_lumen;v=0,t=blk,id=4;AA".to_vec();
        input.extend(foreign);
        input.extend(b"BB\x1b\\>");
        let out = scan(&input);
        assert_eq!(reasons(&out), [FrameFailReason::Malformed], "{foreign:?}");
        assert_eq!(out.failures[0].bytes, input.len() - 2, "{foreign:?}");
        assert_eq!(out.failures[0].block.as_deref(), Some("4"));
        assert_eq!(out.passthrough, b"<>", "{foreign:?}");
    }
    // Upper case in the header is outside its alphabet.
    let out = scan(b"\x1b_lumen;v=0,T=blk;AA\x1b\\");
    assert_eq!(reasons(&out), [FrameFailReason::Malformed]);
    assert!(out.passthrough.is_empty());
    assert_eq!(out.failures[0].block, None);
    // C2 then ST: the C2 is foreign, the terminator still counts.
    let out = scan(b"\x1b_lumen;v=0,t=blk,id=1;AA\xc2\x1b\\z");
    assert_eq!(reasons(&out), [FrameFailReason::Malformed]);
    assert_eq!(out.passthrough, b"z");
}

/// A new 7-bit introducer inside a frame ends the first (failed) and starts the second; an
/// 8-bit one is just a foreign byte of the first.
#[test]
fn nested_introducer() {
    let mut input = b"\x1b_lumen;v=0,t=blk,id=1;AAAA".to_vec();
    input.extend(frame("v=0,t=blk,id=2", b"two"));
    let out = scan(&input);
    assert_eq!(reasons(&out), [FrameFailReason::Malformed]);
    assert_eq!(out.frames.len(), 1);
    assert_eq!(out.frames[0].block_id(), "2");
    assert!(out.passthrough.is_empty());

    let mut input = b"\x1b_lumen;v=0,t=blk,id=1;AA\xc2\x9flumen;v=0,t=blk,id=2;".to_vec();
    input.extend(b"\x1b\\");
    let out = scan(&input);
    assert_eq!(reasons(&out), [FrameFailReason::Malformed]);
    assert_eq!(out.failures[0].bytes, input.len());
    assert!(out.passthrough.is_empty());
}

#[test]
fn too_large_frames_are_dropped_whole_and_scanning_goes_on() {
    let header = "v=0,t=blk,id=9";
    let payload = "A".repeat(MAX_FRAME_BYTES);
    let mut input = b"a".to_vec();
    input.extend(format!("\x1b_lumen;{header};{payload}\x1b\\").as_bytes());
    let frame_len = input.len() - 1;
    input.extend(b"b");
    input.extend(frame("v=0,t=blk,id=10", b"next"));
    input.extend(b"c");
    // Fed in 4 KiB reads, as a PTY would deliver it.
    let chunks: Vec<&[u8]> = input.chunks(4096).collect();
    let out = scan_chunks(&chunks);
    assert_eq!(out.passthrough, b"abc");
    assert_eq!(reasons(&out), [FrameFailReason::TooLarge]);
    assert_eq!(out.failures[0].bytes, frame_len);
    assert_eq!(out.failures[0].block.as_deref(), Some("9"));
    assert_eq!(out.frames.len(), 1);
    assert_eq!(out.frames[0].payload, b"next");
}

#[test]
fn the_exact_size_limit() {
    // Build a frame of exactly MAX_FRAME_BYTES: introducer (8) + header + ';' + payload + ST (2).
    let header = "v=0,t=blk,id=5";
    let room = MAX_FRAME_BYTES - 8 - header.len() - 1 - 2;
    // base64url lengths are never 1 mod 4; pad the header with digits to land exactly.
    let payload_len = room - room % 4;
    let header = format!("{header}{}", "0".repeat(room % 4));
    let input = format!("\x1b_lumen;{header};{}\x1b\\", "A".repeat(payload_len));
    assert_eq!(input.len(), MAX_FRAME_BYTES);
    let out = scan(input.as_bytes());
    assert_eq!(out.frames.len(), 1, "{:?}", out.failures);
    let over = format!("\x1b_lumen;{header}0;{}\x1b\\", "A".repeat(payload_len));
    let out = scan(over.as_bytes());
    assert_eq!(reasons(&out), [FrameFailReason::TooLarge]);
    assert_eq!(out.failures[0].bytes, MAX_FRAME_BYTES + 1);
}

#[test]
fn a_long_header_fails() {
    let header = format!("v=0,t=blk,id=1,x={}", "1".repeat(MAX_HEADER_BYTES));
    let out = scan(&frame(&header, b"p"));
    assert_eq!(reasons(&out), [FrameFailReason::Malformed]);
    assert_eq!(out.failures[0].detail, "header over 256 bytes");
    assert!(out.passthrough.is_empty());
}

#[test]
fn unterminated_frames_fail_after_five_seconds() {
    let t0 = Instant::now();
    let mut s = FrameScanner::new();
    let out = s.feed(b"a\x1b_lumen;v=0,t=blk,id=2;AAAA", t0);
    assert_eq!(out.passthrough, b"a");
    assert!(out.failures.is_empty());
    assert!(!s.is_idle());
    assert_eq!(s.check_timeout(t0 + Duration::from_millis(4999)), None);
    let out = s.feed(b"BBBB", t0 + Duration::from_millis(4999));
    assert!(out.passthrough.is_empty() && out.failures.is_empty());
    let failure = s.check_timeout(t0 + FRAME_TIMEOUT).expect("timed out");
    assert_eq!(failure.reason, FrameFailReason::Unterminated);
    assert_eq!(failure.bytes, "\x1b_lumen;v=0,t=blk,id=2;AAAABBBB".len());
    assert_eq!(failure.block.as_deref(), Some("2"));
    assert!(s.is_idle());
    assert_eq!(s.check_timeout(t0 + FRAME_TIMEOUT * 2), None);
    // What comes after the timeout is ordinary output.
    let out = s.feed(b"CC\x1b\\d", t0 + FRAME_TIMEOUT);
    assert_eq!(out.passthrough, b"CC\x1b\\d");
    assert!(out.failures.is_empty());
}

#[test]
fn feed_reports_the_timeout_itself() {
    let t0 = Instant::now();
    let mut s = FrameScanner::new();
    s.feed(b"\x1b_lumen;v=0,t=blk,id=2;AA\x1b", t0);
    let out = s.feed(b"[1mX", t0 + Duration::from_secs(6));
    assert_eq!(reasons(&out), [FrameFailReason::Unterminated]);
    // The pending ESC was given back to the output, where it starts the SGR.
    assert_eq!(out.passthrough, b"\x1b[1mX");
}

#[test]
fn a_too_large_frame_that_never_ends_is_still_bounded_by_the_timeout() {
    let t0 = Instant::now();
    let mut s = FrameScanner::new();
    s.feed(b"\x1b_lumen;v=0,t=blk,id=2;", t0);
    let chunk = vec![b'A'; 64 * 1024];
    for _ in 0..20 {
        let out = s.feed(&chunk, t0 + Duration::from_secs(1));
        assert!(out.passthrough.is_empty());
    }
    let out = s.feed(b"visible", t0 + Duration::from_secs(5));
    assert_eq!(reasons(&out), [FrameFailReason::TooLarge]);
    assert_eq!(out.passthrough, b"visible");
}

#[test]
fn finish_fails_an_open_frame_and_releases_held_bytes() {
    let now = Instant::now();
    let mut s = FrameScanner::new();
    let out = s.feed(b"x\x1b_lum", now);
    assert_eq!(out.passthrough, b"x");
    let out = s.finish();
    assert_eq!(out.passthrough, b"\x1b_lum");
    assert!(out.failures.is_empty());

    s.feed(b"\x1b_lumen;v=0,t=blk,id=3;AB\x1b", now);
    let out = s.finish();
    assert!(out.passthrough.is_empty());
    assert_eq!(reasons(&out), [FrameFailReason::Unterminated]);
    assert_eq!(
        out.failures[0].bytes,
        "\x1b_lumen;v=0,t=blk,id=3;AB\x1b".len()
    );
    assert!(s.is_idle());
}

/// Random output from an alphabet rich in introducer pieces. Whatever the input, how it is cut
/// into reads never changes the result; and input with no introducer passes through exactly.
#[test]
fn property_chunking_never_matters_and_clean_input_passes_exactly() {
    let pieces: &[&[u8]] = &[
        b"\x1b",
        b"_",
        b"lumen;",
        b"lum",
        b"en;",
        b"\xc2",
        b"\x9f",
        b"\x9c",
        b"\\",
        b"a",
        b"Z",
        b"v=0,t=blk,id=1",
        b";",
        b"AAAA",
        b"\xf0\x9f\x98",
        b"\xe2\x82\xac",
        b"\n",
        b"\x1b[1m",
        b"\x07",
        b"=",
        b",",
        b"\xff",
    ];
    let mut rng = TestRng::new(0x5eed_1234);
    let mut clean = 0;
    for _ in 0..4000 {
        let mut input = Vec::new();
        for _ in 0..rng.below(24) {
            let piece = pieces[rng.below(pieces.len())];
            input.extend_from_slice(piece);
        }
        let whole = scan(&input);
        let mut chunks = Vec::new();
        let mut rest = &input[..];
        while !rest.is_empty() {
            let n = 1 + rng.below(rest.len().min(7));
            chunks.push(&rest[..n]);
            rest = &rest[n..];
        }
        assert_eq!(scan_chunks(&chunks), whole, "{input:?} as {chunks:?}");
        if !contains_frame_introducer(&input) {
            clean += 1;
            assert_eq!(whole.passthrough, input, "{input:?}");
            assert!(whole.frames.is_empty() && whole.failures.is_empty());
        }
        // Whatever happened, nothing of a 7-bit introducer reaches the emulator.
        let passthrough = &whole.passthrough;
        assert!(
            !passthrough.windows(8).any(|w| w == b"\x1b_lumen;"),
            "{input:?}"
        );
    }
    assert!(clean > 500, "too few clean cases: {clean}");
}

/// Random bytes without introducers pass through exactly, however they are cut.
#[test]
fn property_random_bytes_pass_through() {
    let mut rng = TestRng::new(42);
    for _ in 0..3000 {
        let len = rng.below(200);
        let input: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        if contains_frame_introducer(&input) {
            continue;
        }
        let cut = rng.below(input.len() + 1);
        let out = scan_chunks(&[&input[..cut], &input[cut..]]);
        assert_eq!(out.passthrough, input);
        assert!(out.frames.is_empty() && out.failures.is_empty());
    }
}

/// Frames placed among clean text come out one by one, and the text comes out exactly.
#[test]
fn property_frames_among_text() {
    let mut rng = TestRng::new(99);
    let texts: &[&[u8]] = &[
        b"hello ",
        b"\x1b[0m",
        "\u{1F61F}".as_bytes(),
        b"\r\n",
        b"_lumen;",
        b"\x1b_G;\x1b\\",
    ];
    for _ in 0..1000 {
        let mut input = Vec::new();
        let mut text = Vec::new();
        let mut payloads = Vec::new();
        for i in 0..rng.below(6) {
            let t = rng.pick(texts);
            input.extend_from_slice(t);
            text.extend_from_slice(t);
            let payload: Vec<u8> = (0..rng.below(40)).map(|_| rng.next_u64() as u8).collect();
            input.extend(frame(&format!("v=0,t=blk,id={i}"), &payload));
            payloads.push(payload);
        }
        let cut = rng.below(input.len() + 1);
        let out = scan_chunks(&[&input[..cut], &input[cut..]]);
        assert_eq!(out.passthrough, text);
        assert!(out.failures.is_empty(), "{:?}", out.failures);
        let got: Vec<Vec<u8>> = out.frames.into_iter().map(|f| f.payload).collect();
        assert_eq!(got, payloads);
    }
}
