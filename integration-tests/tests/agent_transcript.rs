//! The transcript tier end to end: a fake Claude Code (a copy of `sleep` installed the way
//! Claude Code's native installer installs itself, as `share/claude/versions/<version>`) runs in
//! a window; the test writes its session JSONL under the daemon's HOME and watches the window's
//! state follow it, the join end when the file goes, a report win over it, and the joins the
//! daemon must refuse.

use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use tuios_integration_tests::*;

const VERSION: &str = "2.0.14";

/// A daemon that looks for transcripts often, and a fake agent started in a window with its
/// working directory in `my.proj`. Returns the daemon, session, window, the agent's cwd and the
/// directory its transcripts go to.
fn agent_in_window(name: &str) -> (TestDaemon, String, String, String, PathBuf) {
    let env = TestEnv::new();
    let versions = env.dir().join("share/claude/versions");
    std::fs::create_dir_all(&versions).unwrap();
    let exe = versions.join(VERSION);
    std::fs::copy("/bin/sleep", &exe).unwrap();
    let project = env.dir().join("my.proj");
    std::fs::create_dir_all(&project).unwrap();
    // /proc reports the cwd with links resolved.
    let cwd = project
        .canonicalize()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let dashed: String = cwd
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let dir = env.dir().join("home/.claude/projects").join(dashed);
    let d = env.start_daemon_with(&[("TUIOS_AGENT_TRANSCRIPT_SECONDS", "0.2".into())]);
    let (s, w) = d.session_with_window(name);
    let mut c = d.conn();
    c.send_text(
        &s,
        &w,
        &format!("cd '{}' && '{}' 600\n", cwd, exe.display()),
    );
    wait_state(&mut c, &s, &w, "working");
    let st = state_of(&mut c, &s, &w);
    assert_eq!(
        (st["source"].as_str(), st["harness_id"].as_str()),
        (Some("detect"), Some("claude-code")),
        "{st}"
    );
    std::fs::create_dir_all(&dir).unwrap();
    (d, s, w, cwd, dir)
}

fn user(cwd: &str, version: &str) -> String {
    json!({"parentUuid": null, "isSidechain": false, "userType": "external", "cwd": cwd,
        "sessionId": "5c1e", "version": version, "gitBranch": "main", "type": "user",
        "message": {"role": "user", "content": "fix the bug"}, "uuid": "a1",
        "timestamp": "2025-10-09T10:00:00.000Z"})
    .to_string()
}

fn assistant(cwd: &str, stop: &str) -> String {
    json!({"parentUuid": "a1", "isSidechain": false, "userType": "external", "cwd": cwd,
        "sessionId": "5c1e", "version": VERSION, "type": "assistant", "uuid": "b2",
        "message": {"id": "msg_01", "type": "message", "role": "assistant",
            "content": [{"type": "text", "text": "Fixed."}], "stop_reason": stop},
        "timestamp": "2025-10-09T10:00:05.000Z"})
    .to_string()
}

fn append(path: &Path, line: &str) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    writeln!(f, "{line}").unwrap();
}

fn state_of(c: &mut JsonConn, s: &str, w: &str) -> Value {
    c.ok("get-agent-state", json!({"session": s, "window": w}))
}

fn wait_state(c: &mut JsonConn, s: &str, w: &str, until: &str) {
    c.set_timeout(std::time::Duration::from_secs(40));
    let r = c.ok(
        "wait-for",
        json!({"condition": "agent-state", "session": s, "window": w,
               "until": until, "timeout": 30_000}),
    );
    assert_eq!(r["state"], until, "{r}");
}

/// Poll explain-agent-detect until its `transcript` satisfies `ok`.
fn wait_transcript(c: &mut JsonConn, s: &str, w: &str, what: &str, ok: impl Fn(&Value) -> bool) {
    poll(DEADLINE, what, || {
        let e = c.ok("explain-agent-detect", json!({"session": s, "window": w}));
        if ok(&e["transcript"]) {
            Ok(())
        } else {
            Err(e["transcript"].to_string())
        }
    });
}

#[test]
fn the_transcript_moves_the_state_and_a_report_still_wins() {
    let (d, s, w, cwd, dir) = agent_in_window("transcript");
    let mut c = d.conn();
    let file = dir.join("5c1e0000-1111-2222-3333-444455556666.jsonl");
    append(&file, &user(&cwd, VERSION));
    poll(DEADLINE, "a working claim from the transcript", || {
        let st = state_of(&mut c, &s, &w);
        if st["source"] == "transcript" && st["state"] == "working" {
            Ok(())
        } else {
            Err(st.to_string())
        }
    });
    let e = c.ok("explain-agent-detect", json!({"session": s, "window": w}));
    assert_eq!(e["transcript"]["joined"], true, "{e}");
    assert_eq!(e["transcript"]["path"], file.to_string_lossy().as_ref());

    append(&file, &assistant(&cwd, "tool_use"));
    append(&file, &assistant(&cwd, "end_turn"));
    wait_state(&mut c, &s, &w, "done");
    assert_eq!(state_of(&mut c, &s, &w)["source"], "transcript");

    // The file goes: after three looks the join ends and the claim is yielded (it stands, as
    // the detector's). A new session file is joined in its turn.
    std::fs::remove_file(&file).unwrap();
    wait_transcript(&mut c, &s, &w, "the join to end", |t| t["joined"] == false);
    let st = state_of(&mut c, &s, &w);
    assert_eq!(
        (st["state"].as_str(), st["source"].as_str()),
        (Some("done"), Some("detect")),
        "{st}"
    );
    let file = dir.join("7d2f0000-1111-2222-3333-444455556666.jsonl");
    append(&file, &user(&cwd, VERSION));
    wait_state(&mut c, &s, &w, "working");
    assert_eq!(state_of(&mut c, &s, &w)["source"], "transcript");

    // A report outranks the transcript: what the file says next is refused.
    let r = c.ok(
        "set-agent-state",
        json!({"session": s, "window": w, "state": "needs_input", "message": "asked"}),
    );
    assert_eq!(r["applied"], true, "{r}");
    append(&file, &user(&cwd, VERSION));
    append(&file, &assistant(&cwd, "end_turn"));
    let len = std::fs::metadata(&file).unwrap().len();
    wait_transcript(&mut c, &s, &w, "the new records read", |t| {
        t["offset"].as_u64() == Some(len)
    });
    let st = state_of(&mut c, &s, &w);
    assert_eq!(
        (st["state"].as_str(), st["source"].as_str()),
        (Some("needs_input"), Some("report")),
        "{st}"
    );

    // The file goes again: the join ends, the report's claim is left alone.
    std::fs::remove_file(&file).unwrap();
    wait_transcript(&mut c, &s, &w, "the join to end", |t| t["joined"] == false);
    assert_eq!(state_of(&mut c, &s, &w)["source"], "report");
}

#[test]
fn a_mismatched_version_or_two_matching_files_make_no_join() {
    let (d, s, w, cwd, dir) = agent_in_window("refused");
    let mut c = d.conn();
    append(&dir.join("old.jsonl"), &user(&cwd, "1.0.0"));
    wait_transcript(&mut c, &s, &w, "the search to refuse the file", |t| {
        t["joined"] == false
            && t["reason"]
                .as_str()
                .is_some_and(|r| r.starts_with("no transcript names"))
    });
    // Both files appear at once (a directory renamed into place), so no search sees only one.
    let staged = dir.with_extension("staged");
    std::fs::create_dir_all(&staged).unwrap();
    append(&staged.join("a.jsonl"), &user(&cwd, VERSION));
    append(&staged.join("b.jsonl"), &user(&cwd, VERSION));
    std::fs::rename(&dir, dir.with_extension("old")).unwrap();
    std::fs::rename(&staged, &dir).unwrap();
    wait_transcript(&mut c, &s, &w, "the search to call it ambiguous", |t| {
        t["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("ambiguous: 2"))
    });
    let st = state_of(&mut c, &s, &w);
    assert_eq!(
        (st["state"].as_str(), st["source"].as_str()),
        (Some("working"), Some("detect")),
        "{st}"
    );
}
