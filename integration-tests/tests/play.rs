//! `tuios play` (issue 35 item 2) in a real terminal: tmux's pane is the viewer's terminal.
//! A v2 recording with colour, a resize, a clipboard write (OSC 52) and a title shows its text
//! and colour, while the clipboard and the title stay as they were; a v3 recording plays; `q`
//! stops a long pause; `--info` reads a file without playing it. No daemon is involved.

use serde_json::Value;
use tuios_integration_tests::*;

/// The clipboard write is base64 of "pwned"; the title would be "PWNED".
const V2: &str = r#"{"version": 2, "width": 40, "height": 10, "title": "demo"}
[0.1, "o", "\u001b[1;31mred text\u001b[0m\r\n"]
[0.2, "o", "\u001b]52;c;cHduZWQ=\u0007\u001b]2;PWNED\u0007"]
[0.3, "r", "50x12"]
[0.4, "o", "\u001b[32mfinal line\u001b[0m\r\n"]
"#;

const V3: &str = r#"{"version": 3, "term": {"cols": 40, "rows": 10}}
# comment
[0.2, "o", "hello "]
[0.2, "o", "v3 world\r\n"]
[0.5, "x", "0"]
"#;

fn write(env: &TestEnv, name: &str, text: &str) -> String {
    let path = env.dir().join(name);
    std::fs::write(&path, text).expect("write the recording");
    path.to_string_lossy().into_owned()
}

/// The shell words running `tuios play ARGS...` in a pane once Enter is pressed (so options
/// can be set first), then a real OSC 52 of "ok" as a control, keeping play's exit status.
fn play_words(args: &[&str]) -> Vec<String> {
    let mut words = vec![
        "read _go;".to_string(),
        sh_quote(&tuios_bin().to_string_lossy()),
    ];
    words.push("play".into());
    words.extend(args.iter().map(|a| sh_quote(a)));
    words.push(r"; st=$?; printf '\033]52;c;b2s=\007'; (exit $st)".into());
    words
}

#[test]
fn a_v2_recording_plays_without_touching_the_clipboard_or_title() {
    TmuxClient::require();
    let env = TestEnv::new();
    let file = write(&env, "demo.cast", V2);
    let client = TmuxClient::run_words("play", &play_words(&["--speed", "100", &file]), 60, 12);
    client.tmux_ok(&["set-option", "-g", "set-clipboard", "on"]);
    client.tmux_ok(&["set-option", "-g", "allow-rename", "on"]);
    client.send_keys(&["Enter"]);
    let screen = client.wait_for("EXIT=0");
    assert!(screen.contains("red text"), "{screen}");
    assert!(screen.contains("final line"), "{screen}");
    // The colour reached the terminal.
    let out = client.tmux(&["capture-pane", "-p", "-e", "-t", "t"]);
    let styled = String::from_utf8_lossy(&out.stdout);
    let red = styled.lines().find(|l| l.contains("red text")).unwrap();
    assert!(red.contains("31m"), "{red:?}");
    // The control OSC 52 printed after play arrived, so the recording's would have come first.
    let out = client.tmux(&["list-buffers", "-F", "#{buffer_sample}"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ok\n", "{out:?}");
    let out = client.tmux(&["display-message", "-p", "-t", "t", "#{pane_title}"]);
    let title = String::from_utf8_lossy(&out.stdout);
    assert!(!title.contains("PWNED"), "{title:?}");
}

#[test]
fn a_v3_recording_plays() {
    TmuxClient::require();
    let env = TestEnv::new();
    let file = write(&env, "v3.cast", V3);
    let client = TmuxClient::run_words("play3", &play_words(&["--speed", "100", &file]), 60, 12);
    client.send_keys(&["Enter"]);
    let screen = client.wait_for("EXIT=0");
    assert!(screen.contains("hello v3 world"), "{screen}");
}

#[test]
fn q_stops_a_long_pause() {
    TmuxClient::require();
    let env = TestEnv::new();
    let cast = "{\"version\": 2, \"width\": 40, \"height\": 10}\n\
                [0.0, \"o\", \"first\\r\\n\"]\n[3600.0, \"o\", \"never shown\\r\\n\"]\n";
    let file = write(&env, "long.cast", cast);
    let client = TmuxClient::run_words("playq", &play_words(&[&file]), 60, 12);
    client.send_keys(&["Enter"]);
    // Once "first" is drawn the player reads keys (raw mode comes before any output).
    client.wait_for("first");
    client.send_keys(&["q"]);
    let screen = client.wait_for("EXIT=0");
    assert!(!screen.contains("never shown"), "{screen}");
}

#[test]
fn info_reads_without_playing() {
    let env = TestEnv::new();
    let file = write(&env, "v3.cast", V3);
    let out = env.cli(&["play", "--info", &file]);
    assert!(out.status.success(), "{}", describe(&out));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["version"], 3);
    assert_eq!(
        (v["cols"].as_u64(), v["rows"].as_u64()),
        (Some(40), Some(10))
    );
    assert_eq!(v["events"], 3);
    assert_eq!(v["output"], 2);
    assert_eq!(v["exit"], "0");
    let out = env.cli(&["play", "--check", &write(&env, "bad.cast", "not json\n")]);
    assert!(!out.status.success());
}
