//! Runs the real `tuios paste-check` on paste corpora: benign text, multi-line text, the known
//! bracketed-paste escapes, frame introducers, invalid UTF-8.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn tuios(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tuios"));
    // Never near a real daemon or the user's files, although paste-check needs neither.
    cmd.args(args)
        .env("TUIOS_SOCKET", dir.join("tuios.sock"))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the tuios binary runs");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    if let Some(bytes) = stdin {
        pipe.write_all(bytes).expect("write stdin");
    }
    drop(pipe);
    child.wait_with_output().expect("tuios finishes")
}

/// Write `paste` to a file and check it; the parsed JSON report.
fn check(dir: &Path, paste: &[u8], bracketed: bool) -> Value {
    let file = dir.join("paste.bin");
    std::fs::write(&file, paste).unwrap();
    let path = file.to_str().unwrap();
    let mut args = vec!["paste-check", path];
    if bracketed {
        args.push("--bracketed");
    }
    let out = tuios(dir, &args, None);
    assert!(
        out.status.success(),
        "{paste:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{paste:?}: not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Undo the `\xNN` escaping of `bytes`.
fn unescape(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = s.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b == b'\\' {
            assert_eq!(tail[0], b'x', "only \\xNN escapes in {s:?}");
            let hex = std::str::from_utf8(&tail[1..3]).unwrap();
            out.push(u8::from_str_radix(hex, 16).unwrap());
            rest = &tail[3..];
        } else {
            assert!((0x20..0x7f).contains(&b), "raw byte {b:#x} in {s:?}");
            out.push(b);
            rest = tail;
        }
    }
    out
}

#[test]
fn benign_text_is_sent_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let v = check(dir.path(), b"git status --short", false);
    assert_eq!(v["action"], "send");
    assert_eq!(v["bytes"], "git status --short");
    assert!(v.get("preview").is_none() && v.get("reason").is_none());
    let v = check(dir.path(), "caf\u{e9}".as_bytes(), false);
    assert_eq!(v["bytes"], "caf\\xc3\\xa9");
}

#[test]
fn bracketed_pastes_are_wrapped_once_with_no_escape_inside() {
    let dir = tempfile::tempdir().unwrap();
    let corpus: &[(&[u8], &[u8])] = &[
        (b"make test\n", b"make test\n"),
        (
            b"echo foo; echo malicious command\x1b\x1b[201~[201~\n",
            b"echo foo; echo malicious command[201~[201~\n",
        ),
        (b"x\x1b[201~id\n", b"x[201~id\n"),
        (b"\xc2\x9b201~id\n", b"201~id\n"),
        (b"sleep 9\x03\x1a; id\r\n", b"sleep 9; id\r\n"),
        (b"\xc0\x9b[201~", "\u{fffd}\u{fffd}[201~".as_bytes()),
        (b"a\\b", b"a\\b"),
    ];
    for (paste, inner) in corpus {
        let v = check(dir.path(), paste, true);
        assert_eq!(v["action"], "send", "{paste:?}");
        let mut expected = b"\x1b[200~".to_vec();
        expected.extend_from_slice(inner);
        expected.extend_from_slice(b"\x1b[201~");
        assert_eq!(
            unescape(v["bytes"].as_str().unwrap()),
            expected,
            "{paste:?}"
        );
    }
}

#[test]
fn multi_line_and_control_pastes_are_held_without_brackets() {
    let dir = tempfile::tempdir().unwrap();
    let v = check(dir.path(), b"cd /tmp\nrm -rf *\n", false);
    assert_eq!(v["action"], "hold");
    assert_eq!(v["preview"], "cd /tmp\\nrm -rf *\\n");
    assert_eq!(v["one_line"], "cd /tmp rm -rf *");
    assert_eq!(v["bytes"], "cd /tmp\\x0arm -rf *\\x0a");
    assert_eq!(v["has_controls"], false);

    let v = check(dir.path(), b"vim\x1b:!id\r", false);
    assert_eq!(v["action"], "hold");
    assert_eq!(v["preview"], "vim\\x1b:!id\\r");
    assert_eq!(v["bytes"], "vim:!id\\x0d");
    assert_eq!(v["keep_controls"], "vim\\x1b:!id\\x0d");
    assert_eq!(v["has_controls"], true);

    let v = check(dir.path(), b"ok\xff", false);
    assert_eq!(v["action"], "hold");
    assert_eq!(v["invalid_utf8"], true);
    assert_eq!(v["bytes"], "ok\\xef\\xbf\\xbd");
}

#[test]
fn frame_introducers_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    for paste in [
        &b"hi\x1b_lumen;v=0,t=focus,id=1;AA\x1b\\"[..],
        b"\xc2\x9flumen;v=0,t=blk,id=1;\xc2\x9c",
        b"\x9flumen;",
        b"trailing \x1b_lum",
    ] {
        for bracketed in [false, true] {
            let v = check(dir.path(), paste, bracketed);
            assert_eq!(v["action"], "reject", "{paste:?}");
            assert_eq!(v["bytes"], "");
            assert!(v["reason"].as_str().unwrap().contains("introducer"));
        }
    }
}

#[test]
fn reads_stdin_and_reports_unreadable_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = tuios(dir.path(), &["paste-check", "--bracketed"], Some(b"a\x1bb"));
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["bytes"], "\\x1b[200~ab\\x1b[201~");
    let out = tuios(dir.path(), &["paste-check", "-"], Some(b"x"));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["bytes"], "x");

    let missing = dir.path().join("missing.txt");
    let out = tuios(
        dir.path(),
        &["paste-check", missing.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("missing.txt"), "{err}");
}
