//! Copy mode's search in a real `tuios attach` (inside tmux): `?` finds a line that lies far
//! up a history kept mostly on disk, `n` says when nothing is left, `G` goes back to the
//! screen, and `/` finds a line below.

use serde_json::json;
use tuios_integration_tests::*;

/// The text of each row inside a window's borders, trimmed.
fn rows_shown(screen: &str) -> Vec<String> {
    screen
        .lines()
        .filter_map(|l| {
            let inside = l.split('│').nth(1)?;
            Some(inside.trim().to_string())
        })
        .collect()
}

fn shows_row(screen: &str, text: &str) -> bool {
    rows_shown(screen).iter().any(|r| r == text)
}

#[test]
fn copy_mode_searches_the_whole_history_and_comes_back() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let s = daemon.new_session("cs");
    let mut conn = daemon.conn();
    // 64 KiB of memory per window: most of the 100,000 lines below go to disk.
    for (key, value) in [
        ("appearance.scrollback_lines", "1000000"),
        ("appearance.history_bytes", "65536"),
    ] {
        conn.ok(
            "set-option",
            json!({"session": s, "key": key, "value": value}),
        );
    }
    conn.set_timeout(std::time::Duration::from_secs(120));
    let w = conn.new_window_id(
        &s,
        json!({"command": ["sh", "-c", "seq 0 99999; echo DONE; exec cat"], "focus": true}),
    );
    let waited = conn.ok(
        "wait-for",
        json!({"condition": "window-output", "session": s, "window": w,
               "pattern": "(?m)^DONE$", "source": "visible", "timeout": 110000}),
    );
    assert_eq!(waited["matched"], true, "{waited}");
    // Others' windows would share the screen: only the numbers are left.
    conn.close_windows_but(&s, &w);

    let client = TmuxClient::start(daemon.env(), &s, 80, 24);
    client.wait_mode("TERM");
    client.wait_screen("DONE on the screen", |sc| shows_row(sc, "DONE"));
    client.leader("[");
    client.wait_screen("the dock in copy mode", |sc| {
        sc.lines().any(|l| l.ends_with(" COPY"))
    });

    // Line 17 is 99,983 lines above the screen: far past what the view loads on its way.
    client.send_keys(&["?"]);
    client.type_line("^17$");
    let screen = client.wait_screen("line 17 found", |sc| shows_row(sc, "17"));
    assert!(
        shows_row(&screen, "16"),
        "the lines before it show:\n{screen}"
    );
    assert!(
        !shows_row(&screen, "DONE"),
        "the screen is not joined:\n{screen}"
    );

    client.send_keys(&["n"]);
    client.wait_for("no match for ^17$ above");

    client.send_keys(&["G"]);
    client.wait_screen("back at the screen", |sc| shows_row(sc, "DONE"));

    // A near line: loaded with everything between, and the cursor lands on it.
    client.send_keys(&["?"]);
    client.type_line("^99950$");
    let screen = client.wait_screen("line 99950 found", |sc| shows_row(sc, "99950"));
    assert!(shows_row(&screen, "99949"), "{screen}");

    // Downwards from there.
    client.send_keys(&["/"]);
    client.type_line("^99990$");
    client.wait_screen("line 99990 found", |sc| shows_row(sc, "99990"));

    client.send_keys(&["q"]);
    client.wait_mode("TERM");
}
