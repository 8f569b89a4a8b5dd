//! `tuios paste-check` on paste corpora: benign text, multi-line text, the known
//! bracketed-paste escapes, frame introducers, invalid UTF-8. It needs no daemon.

use serde_json::Value;
use std::process::Output;
use tuios_integration_tests::*;

/// `tuios ARGS...` reading `stdin` (from a file, so no pipe can fill up) as its input.
fn with_stdin(env: &TestEnv, args: &[&str], stdin: &[u8]) -> Output {
    let file = env.dir().join("stdin.bin");
    std::fs::write(&file, stdin).expect("write the input file");
    let mut cmd = env.command(args);
    cmd.stdin(std::fs::File::open(&file).expect("open the input file"));
    run_with_deadline(cmd, DEADLINE)
}

#[test]
fn benign_text_is_sent_as_it_is() {
    let env = TestEnv::new();
    let v = paste_check(&env, b"git status --short", false);
    assert_eq!(v["action"], "send");
    assert_eq!(v["bytes"], "git status --short");
    assert!(v.get("preview").is_none() && v.get("reason").is_none());
    let v = paste_check(&env, "caf\u{e9}".as_bytes(), false);
    assert_eq!(v["bytes"], "caf\\xc3\\xa9");
}

#[test]
fn bracketed_pastes_are_wrapped_once_with_no_escape_inside() {
    let env = TestEnv::new();
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
        let v = paste_check(&env, paste, true);
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
    let env = TestEnv::new();
    let v = paste_check(&env, b"cd /tmp\nrm -rf *\n", false);
    assert_eq!(v["action"], "hold");
    assert_eq!(v["preview"], "cd /tmp\\nrm -rf *\\n");
    assert_eq!(v["one_line"], "cd /tmp rm -rf *");
    assert_eq!(v["bytes"], "cd /tmp\\x0arm -rf *\\x0a");
    assert_eq!(v["has_controls"], false);

    let v = paste_check(&env, b"vim\x1b:!id\r", false);
    assert_eq!(v["action"], "hold");
    assert_eq!(v["preview"], "vim\\x1b:!id\\r");
    assert_eq!(v["bytes"], "vim:!id\\x0d");
    assert_eq!(v["keep_controls"], "vim\\x1b:!id\\x0d");
    assert_eq!(v["has_controls"], true);

    let v = paste_check(&env, b"ok\xff", false);
    assert_eq!(v["action"], "hold");
    assert_eq!(v["invalid_utf8"], true);
    assert_eq!(v["bytes"], "ok\\xef\\xbf\\xbd");
}

#[test]
fn frame_introducers_are_rejected() {
    let env = TestEnv::new();
    for paste in [
        &b"hi\x1b_lumen;v=0,t=focus,id=1;AA\x1b\\"[..],
        b"\xc2\x9flumen;v=0,t=blk,id=1;\xc2\x9c",
        b"\x9flumen;",
        b"trailing \x1b_lum",
    ] {
        for bracketed in [false, true] {
            let v = paste_check(&env, paste, bracketed);
            assert_eq!(v["action"], "reject", "{paste:?}");
            assert_eq!(v["bytes"], "");
            assert!(v["reason"].as_str().unwrap().contains("introducer"));
        }
    }
}

#[test]
fn reads_stdin_and_reports_unreadable_files() {
    let env = TestEnv::new();
    let out = with_stdin(&env, &["paste-check", "--bracketed"], b"a\x1bb");
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["bytes"], "\\x1b[200~ab\\x1b[201~");
    let out = with_stdin(&env, &["paste-check", "-"], b"x");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["bytes"], "x");

    let missing = env.dir().join("missing.txt");
    let out = env.cli(&["paste-check", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("missing.txt"), "{err}");
}
