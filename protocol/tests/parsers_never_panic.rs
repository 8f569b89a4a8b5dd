//! Property tests over every parser a peer reaches: whatever bytes a client sends or a program
//! prints, the parsers answer (with a value or an error) and never panic; formats that go both
//! ways round-trip.
use std::time::{Duration, Instant};

use bytes::BytesMut;
use proptest::prelude::*;
use serde_json::{json, Value};
use tuios_protocol::attach::{ClientOp, Color, DaemonOp, Row, Run, ScreenUpdate, Style};
use tuios_protocol::binary::{
    kind, split_client_frame, split_frame, ClientMessage, DaemonMessage, DecodeError,
    MAX_SESSION_NAME_BYTES,
};
use tuios_protocol::envelope::{parse_request, parse_request_bytes, parse_response, RequestLine};
use tuios_protocol::limits::{self, EscapeStringCap};
use tuios_protocol::lumen::{self, FrameScanner};
use tuios_protocol::{keys, registry, ErrorCode};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 512,
        // Failures are reported by the test's own output; no files written into the source tree.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Bytes biased toward what parsers care about: JSON punctuation, escapes, UTF-8 lead bytes.
fn hostile_bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            any::<u8>(),
            prop::sample::select(vec![
                b'{', b'}', b'[', b']', b'"', b'\\', b':', b',', 0x1b, 0x07, 0x9b, 0x9d, 0xc3,
                0xff, b'\n', b'\r', 0x00, b'P', b'_', b']', b';',
            ]),
        ],
        0..max,
    )
}

/// Arbitrary JSON values, a few levels deep.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        // Binary fractions: serde_json's default float parsing is exact for these (not for
        // every f64, which is a property of serde_json rather than of the envelope).
        any::<i32>().prop_map(|i| Value::from(f64::from(i) / 8.0)),
        ".{0,20}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::btree_map("[a-z_]{0,10}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn request_lines_never_panic(line in hostile_bytes(300)) {
        let _ = parse_request_bytes(&line);
        let text = String::from_utf8_lossy(&line);
        let _ = parse_request(&text);
        let _ = parse_response(&text);
    }

    #[test]
    fn invalid_utf8_is_named_never_replaced(prefix in "[ -~]{0,20}", tail in hostile_bytes(20)) {
        let mut line = format!(r#"{{"id":1,"verb":"send-text","params":{{"text":"{}"#, prefix.replace(['"', '\\'], "")).into_bytes();
        line.push(0xff);
        line.extend_from_slice(&tail);
        let (_, err) = parse_request_bytes(&line).unwrap_err();
        prop_assert!(err.message.contains("UTF-8"), "{}", err.message);
    }

    #[test]
    fn requests_round_trip(id in proptest::option::of(json_value()), verb in "[a-z-]{1,20}", params in json_value()) {
        let params = match params {
            Value::Null => Value::Null,
            Value::Object(m) => Value::Object(m),
            other => json!({"p": other}),
        };
        let req = RequestLine::new(id, verb, params);
        let back = parse_request(&req.to_line()).unwrap();
        prop_assert_eq!(back, req);
    }

    #[test]
    fn every_verb_validates_and_decodes_any_params(verb_index in 0usize..64, params in json_value()) {
        let verbs = registry::verbs();
        let verb = verbs[verb_index % verbs.len()].name;
        let req = RequestLine::new(Some(json!(1)), verb, params.clone());
        if registry::validate(&req).is_ok() {
            // Whatever validate passed must decode as some verb's params without panicking.
            let _ = registry::decode::<tuios_protocol::verbs::new_window::Params>(&params);
            let _ = registry::decode::<tuios_protocol::verbs::resize::Params>(&params);
            let _ = registry::decode::<tuios_protocol::verbs::capture_pane::Params>(&params);
        }
    }

    #[test]
    fn resize_sizes_are_bounded(w in any::<i64>(), h in any::<i64>()) {
        let req = RequestLine::new(None, "resize", json!({"width": w, "height": h}));
        let ok = (1..=limits::MAX_COLS as i64).contains(&w) && (1..=limits::MAX_ROWS as i64).contains(&h);
        match registry::validate(&req) {
            Ok(_) => prop_assert!(ok),
            Err(e) => {
                prop_assert!(!ok);
                prop_assert_eq!(e.code, ErrorCode::InvalidParams);
            }
        }
    }

    #[test]
    fn binary_frames_never_panic(bytes in hostile_bytes(400)) {
        for split in [split_frame as fn(&mut BytesMut) -> _, split_client_frame] {
            let mut buf = BytesMut::from(&bytes[..]);
            // Each call either takes a frame off, waits, or fails; a loop over it ends.
            for _ in 0..bytes.len() + 1 {
                match split(&mut buf) {
                    Ok(Some((k, payload))) => {
                        let _ = ClientMessage::decode(k, &payload);
                        let _ = DaemonMessage::decode(k, &payload);
                    }
                    Ok(None) | Err(_) => break,
                }
            }
        }
    }

    #[test]
    fn messagepack_payloads_never_panic(k in any::<u8>(), payload in hostile_bytes(300)) {
        let _ = ClientMessage::decode(k, &payload);
        let _ = DaemonMessage::decode(k, &payload);
    }

    #[test]
    fn a_declared_length_reserves_little(len in 1u32..=16 * 1024 * 1024) {
        let mut buf = BytesMut::new();
        buf.extend_from_slice(&len.to_be_bytes());
        buf.extend_from_slice(&[kind::CLIENT_OP]);
        let _ = split_client_frame(&mut buf);
        prop_assert!(buf.capacity() <= 5 + limits::FRAME_RESERVE_STEP + 64);
    }

    #[test]
    fn client_messages_round_trip(
        name in proptest::option::of("[^/\\\\]{0,40}"),
        width in 0u16..=limits::MAX_COLS,
        height in 0u16..=limits::MAX_ROWS,
        detach in any::<bool>(),
        data in prop::collection::vec(any::<u8>(), 0..200),
        window in ".{0,30}",
        count in 0u32..=limits::MAX_SCROLLBACK_PAGE_ROWS,
    ) {
        let msgs = vec![
            ClientMessage::Hello { version: 1, client_version: window.clone() },
            ClientMessage::NewSession { name: name.clone(), width, height, detach },
            ClientMessage::KillSession { name: name.clone().unwrap_or_default() },
            ClientMessage::ListSessions,
            ClientMessage::KillServer,
            ClientMessage::Op(ClientOp::Attach { session: name, create: detach, width, height, max_fps: 60, read_only: false, via: String::new() }),
            ClientMessage::Op(ClientOp::Input { window: window.clone(), data: data.clone() }),
            ClientMessage::Op(ClientOp::Paste { window: window.clone(), data, choice: String::new() }),
            ClientMessage::Op(ClientOp::WindowSize { window: window.clone(), cols: width, rows: height }),
            ClientMessage::Op(ClientOp::Scrollback { window, before: Some(3), count }),
        ];
        let mut buf = BytesMut::new();
        for m in &msgs {
            m.encode(&mut buf);
        }
        for want in msgs {
            let (k, payload) = split_client_frame(&mut buf).unwrap().unwrap();
            prop_assert_eq!(ClientMessage::decode(k, &payload).unwrap(), want);
        }
        prop_assert!(buf.is_empty());
    }

    #[test]
    fn oversized_binary_sizes_are_refused(w in (limits::MAX_COLS + 1)..=u16::MAX, h in 1u16..=limits::MAX_ROWS) {
        for msg in [
            ClientMessage::NewSession { name: None, width: w, height: h, detach: true },
            ClientMessage::Op(ClientOp::Attach { session: None, create: true, width: w, height: h, max_fps: 0, read_only: false, via: String::new() }),
            ClientMessage::Op(ClientOp::Resize { width: w, height: h }),
            ClientMessage::Op(ClientOp::WindowSize { window: "a".into(), cols: w, rows: h }),
        ] {
            let mut buf = BytesMut::new();
            msg.encode(&mut buf);
            let (k, payload) = split_client_frame(&mut buf).unwrap().unwrap();
            match ClientMessage::decode(k, &payload) {
                Err(e @ DecodeError::Limit(_)) => {
                    prop_assert_eq!(e.code().as_str(), "invalid_params");
                    prop_assert!(e.to_string().contains(&w.to_string()));
                }
                other => prop_assert!(false, "{:?} was not refused: {:?}", msg, other),
            }
        }
    }

    #[test]
    fn daemon_screens_round_trip(text in ".{0,40}", fg in any::<u8>(), link in proptest::option::of(".{0,20}")) {
        let msg = DaemonMessage::Op(DaemonOp::Screen(ScreenUpdate {
            window: "w".into(),
            cols: 80,
            rows: 24,
            full: true,
            lines: vec![(0, Row { runs: vec![Run { text, style: Style { fg: Color::Indexed(fg), ..Style::default() }, link }] })],
            ..ScreenUpdate::default()
        }));
        let mut buf = BytesMut::new();
        msg.encode(&mut buf);
        let (k, payload) = split_frame(&mut buf).unwrap().unwrap();
        prop_assert_eq!(DaemonMessage::decode(k, &payload).unwrap(), msg);
    }

    #[test]
    fn key_tokens_never_panic(keys in ".{0,60}", literal in any::<bool>(), raw in any::<bool>()) {
        if let Err(e) = keys::keys_to_bytes(&keys, literal, raw) {
            let _ = e.to_verb_error();
        }
    }

    #[test]
    fn key_token_lists_never_panic(tokens in prop::collection::vec(prop_oneof![
        Just("Enter".to_owned()), Just("C-c".to_owned()), Just("M-x".to_owned()), Just("0x1b".to_owned()),
        Just("F12".to_owned()), Just("S-Tab".to_owned()), "[ -~]{0,6}".prop_map(|s| s),
    ], 0..8)) {
        let joined = tokens.join(",");
        let _ = keys::keys_to_bytes(&joined, false, false);
        let _ = keys::keys_to_bytes(&joined, false, true);
        let _ = lumen::parse_chord(&joined);
    }

    #[test]
    fn chord_matching_on_terminal_input_never_panics(input in hostile_bytes(60)) {
        // Every byte the outer terminal sends is matched against the focus-return chord.
        for macos in [false, true] {
            let chord = lumen::default_focus_return_chord(macos);
            if let Some((used, _)) = chord.match_input(&input) {
                prop_assert!(used <= input.len());
            }
        }
    }

    #[test]
    fn lumen_scanner_never_panics(chunks in prop::collection::vec(hostile_bytes(200), 0..6), header in "[a-z=,]{0,40}", payload in "[A-Za-z0-9_-]{0,40}") {
        let t0 = Instant::now();
        let mut scanner = FrameScanner::new();
        let frame = format!("\x1b_lumen;{header};{payload}\x1b\\");
        let mut all: Vec<&[u8]> = chunks.iter().map(|c| &c[..]).collect();
        all.insert(all.len() / 2, frame.as_bytes());
        for (i, chunk) in all.iter().enumerate() {
            let _ = scanner.feed(chunk, t0 + Duration::from_millis(i as u64));
            let _ = lumen::contains_frame_introducer(chunk);
        }
        let _ = scanner.check_timeout(t0 + Duration::from_secs(60));
        let _ = scanner.finish();
    }

    #[test]
    fn paste_pipeline_never_panics(raw in hostile_bytes(300), bracketed in any::<bool>()) {
        let _ = lumen::decide_paste(&raw, bracketed);
        let text = String::from_utf8_lossy(&raw);
        let sanitized = lumen::sanitize_bracketed(&text);
        // What goes out bracketed can never close the bracket early.
        prop_assert!(!sanitized.contains("\x1b[201~"));
        let _ = lumen::visible_controls(&text);
        let _ = lumen::visible_lines(&text);
    }

    #[test]
    fn escape_string_cap_bounds_every_string(chunks in prop::collection::vec(hostile_bytes(300), 0..8), cap in 0usize..50) {
        let mut filter = EscapeStringCap::with_cap(cap);
        let mut out = Vec::new();
        let mut total = 0;
        for c in &chunks {
            filter.filter(c, &mut out);
            total += c.len();
        }
        prop_assert!(out.len() <= total);
        // No run of string body in the output is longer than the cap: the same filter with a
        // cap of usize::MAX finds nothing to drop in it.
        let mut again = EscapeStringCap::with_cap(cap);
        let mut out2 = Vec::new();
        again.filter(&out, &mut out2);
        prop_assert_eq!(out2, out);
    }
}

#[test]
fn session_name_limit_is_enforced_in_binary() {
    let msg = ClientMessage::KillSession {
        name: "n".repeat(MAX_SESSION_NAME_BYTES + 1),
    };
    let mut buf = BytesMut::new();
    msg.encode(&mut buf);
    let (k, payload) = split_client_frame(&mut buf).unwrap().unwrap();
    assert!(matches!(
        ClientMessage::decode(k, &payload),
        Err(DecodeError::Limit(_))
    ));
}

#[test]
fn invalid_utf8_in_messagepack_names_the_field() {
    // {"op":"input","window":<ff>,"data":<bin "x">}
    let mut p = vec![0x83, 0xa2, b'o', b'p', 0xa5];
    p.extend_from_slice(b"input");
    p.push(0xa6);
    p.extend_from_slice(b"window");
    p.extend_from_slice(&[0xa1, 0xff]);
    p.push(0xa4);
    p.extend_from_slice(b"data");
    p.extend_from_slice(&[0xc4, 0x01, b'x']);
    let err = ClientMessage::decode(kind::CLIENT_OP, &p).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("window") && text.contains("UTF-8"), "{text}");
}
