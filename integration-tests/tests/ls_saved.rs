//! `tuios ls` with no daemon running lists the sessions a stopped daemon saved (and the saved
//! files it cannot read), with the status every control command has without a daemon (3).

use tuios_integration_tests::{describe, poll, TestEnv, DEADLINE};

#[test]
fn ls_without_a_daemon_lists_saved_sessions() {
    let env = TestEnv::new();
    let sessions = env.dir().join("state/tuios/sessions");
    let mut proc = env.spawn_daemon();
    env.wait_for_socket(&mut proc);
    for name in ["kept", "other"] {
        let out = env.cli(&["new", "-d", name]);
        assert!(out.status.success(), "{}", describe(&out));
    }
    let status = proc.terminate();
    assert!(status.success(), "{status}");
    for name in ["kept", "other"] {
        let file = sessions.join(format!("{name}.json"));
        poll(DEADLINE, &format!("{} to be saved", file.display()), || {
            file.is_file().then_some(()).ok_or_else(String::new)
        });
    }
    std::fs::write(sessions.join("broken.json"), b"{\"version\":").unwrap();

    let out = env.cli(&["ls"]);
    assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("saved (no daemon is running"), "{text}");
    assert!(text.contains("kept") && text.contains("other"), "{text}");
    assert!(text.contains("unreadable saved sessions"), "{text}");
    assert!(text.contains("broken.json"), "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no tuios daemon is running"), "{err}");
    assert!(!env.socket().exists(), "ls started a daemon");

    // --json keeps the one error envelope on stdout.
    let out = env.cli(&["ls", "--json"]);
    assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["error"]["code"], "no_daemon", "{v}");

    // A daemon started again restores them, and ls then lists them as running.
    let mut proc = env.spawn_daemon();
    env.wait_for_socket(&mut proc);
    let out = env.cli(&["ls"]);
    assert!(out.status.success(), "{}", describe(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("no daemon is running"), "{text}");
    assert!(text.contains("kept"), "{text}");
}

#[test]
fn ls_without_a_daemon_or_saved_sessions_only_says_so() {
    let env = TestEnv::new();
    let out = env.cli(&["ls"]);
    assert_eq!(out.status.code(), Some(3), "{}", describe(&out));
    assert!(out.stdout.is_empty(), "{}", describe(&out));
}
