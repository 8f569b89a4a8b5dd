//! History past a window's memory budget: kept on disk (0600, removed with the window), searched
//! with `search` (first and last line, pagination), read back by `capture-pane` line ranges,
//! and bounded by the disk budget with `history-dropped` events and stable line numbers.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use serde_json::{json, Value};
use tuios_integration_tests::*;

const LINES: u64 = 200_000;

/// A session whose new windows keep up to 10,000,000 lines in 64 KiB of memory, plus extra
/// options; returns the session.
fn small_memory_session(daemon: &TestDaemon, name: &str, extra: &[(&str, &str)]) -> String {
    let s = daemon.new_session(name);
    let mut conn = daemon.conn();
    let options = [
        ("appearance.scrollback_lines", "10000000"),
        ("appearance.history_bytes", "65536"),
    ];
    for (key, value) in options.iter().chain(extra) {
        conn.ok(
            "set-option",
            json!({"session": s, "key": key, "value": value}),
        );
    }
    s
}

/// A window printing 0..LINES, one number a line (line n of the window is `n`), then DONE;
/// returns its id once DONE is on its screen.
fn numbers_window(conn: &mut JsonConn, s: &str) -> String {
    let script = format!("seq 0 {}; echo DONE", LINES - 1);
    // A debug daemon on a loaded machine takes a while over 200,000 lines.
    conn.set_timeout(std::time::Duration::from_secs(120));
    let w = conn.new_window_id(
        s,
        json!({"command": ["sh", "-c", script], "remain": true, "focus": false}),
    );
    let waited = conn.ok(
        "wait-for",
        json!({"condition": "window-output", "session": s, "window": w,
               "pattern": "(?m)^DONE$", "source": "visible", "timeout": 110000}),
    );
    assert_eq!(waited["matched"], true, "{waited}");
    w
}

fn search(conn: &mut JsonConn, s: &str, w: &str, extra: Value) -> Value {
    let mut p = json!({"session": s, "window": w});
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    let r = conn.ok("search", p);
    assert_eq!(r["type"], "search_result", "{r}");
    r
}

fn lines_of(r: &Value) -> Vec<(u64, String)> {
    r["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["line"].as_u64().unwrap(),
                m["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn history_files(daemon: &TestDaemon) -> Vec<PathBuf> {
    let dir = daemon.dir().join("state/tuios/history");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "hist"))
        .collect()
}

#[test]
fn history_forced_onto_disk_is_searched_captured_and_removed_with_its_window() {
    let daemon = TestDaemon::start();
    let s = small_memory_session(&daemon, "hist", &[]);
    let mut conn = daemon.conn();
    let w = numbers_window(&mut conn, &s);

    // The history went to disk: one file, 0600, in a 0700 directory.
    let files = history_files(&daemon);
    assert_eq!(files.len(), 1, "{files:?}");
    let mode = std::fs::metadata(&files[0]).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let dir = daemon.dir().join("state/tuios/history");
    let dir_mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
    assert_eq!(dir_mode, 0o700);
    let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with(&format!("{}-", daemon.pid())), "{name}");

    // The first line (on disk) and the last one (in memory), each under its number.
    let first = search(
        &mut conn,
        &s,
        &w,
        json!({"pattern": "^0$", "order": "oldest"}),
    );
    assert_eq!(lines_of(&first), [(0, "0".to_owned())], "{first}");
    assert_eq!(first["next"], Value::Null);
    let last = LINES - 1;
    let r = search(&mut conn, &s, &w, json!({"pattern": format!("^{last}$")}));
    assert_eq!(lines_of(&r), [(last, last.to_string())], "{r}");
    // Newest first by default: DONE, then the numbers.
    let r = search(
        &mut conn,
        &s,
        &w,
        json!({"pattern": "^(DONE|\\d+)$", "limit": 2}),
    );
    assert_eq!(
        lines_of(&r),
        [(LINES, "DONE".to_owned()), (last, last.to_string())]
    );
    assert_eq!(r["next"], last);

    // Pagination: 12340..=12349 four at a time, oldest first, then newest first.
    let mut seen = Vec::new();
    let mut from = Value::Null;
    loop {
        let r = search(
            &mut conn,
            &s,
            &w,
            json!({"pattern": "^1234\\d$", "order": "oldest", "limit": 4, "from": from}),
        );
        seen.extend(lines_of(&r).into_iter().map(|(n, _)| n));
        from = r["next"].clone();
        if from.is_null() {
            break;
        }
    }
    assert_eq!(seen, (12_340..12_350).collect::<Vec<u64>>());
    let r = search(
        &mut conn,
        &s,
        &w,
        json!({"pattern": "^1234\\d$", "limit": 4, "from": 12_346}),
    );
    assert_eq!(
        lines_of(&r).into_iter().map(|(n, _)| n).collect::<Vec<_>>(),
        [12_345, 12_344, 12_343, 12_342]
    );

    // capture-pane line ranges read from disk (content line k is window line k - 1; as with
    // any range, the newline ending the text is kept since the screen's last row is empty).
    let c = conn.ok(
        "capture-pane",
        json!({"session": s, "window": w, "source": "recent", "start": 101, "end": 103}),
    );
    assert_eq!(c["content"], "100\n101\n102\n", "{c}");
    let c = conn.ok(
        "capture-pane",
        json!({"session": s, "window": w, "source": "recent", "start": 150_001, "end": 150_001}),
    );
    assert_eq!(c["content"], "150000\n", "{c}");

    // A bad pattern is refused with a stable code, naming the parameter.
    let e = conn.err(
        "search",
        json!({"session": s, "window": w, "pattern": "(unclosed"}),
    );
    assert_eq!(e["code"], "invalid_params", "{e}");
    assert_eq!(e["hint"]["param"], "pattern", "{e}");

    // The file goes with its window.
    conn.ok("close-window", json!({"session": s, "window": w}));
    poll(DEADLINE, "the history file removed", || {
        let left = history_files(&daemon);
        if left.is_empty() {
            Ok(())
        } else {
            Err(format!("{left:?}"))
        }
    });
}

#[test]
fn the_disk_budget_drops_the_oldest_lines_with_an_event_and_keeps_numbers() {
    let daemon = TestDaemon::start();
    let s = small_memory_session(
        &daemon,
        "budget",
        &[("appearance.history_disk_bytes", "131072")],
    );
    let mut events = daemon.conn();
    events.set_timeout(std::time::Duration::from_secs(120));
    events.subscribe(json!({"session": s, "types": ["history-dropped"]}));
    let mut conn = daemon.conn();
    let w = numbers_window(&mut conn, &s);

    let event = loop {
        let line = events.read_line();
        if is_event(&line) && line["type"] == "history-dropped" {
            break line;
        }
    };
    assert_eq!(event["session"], s.as_str(), "{event}");
    assert_eq!(event["window"], w.as_str(), "{event}");
    assert!(event["lines"].as_u64().unwrap() > 0, "{event}");

    // The oldest line kept moved on, and every line still carries its own number.
    let r = search(
        &mut conn,
        &s,
        &w,
        json!({"pattern": ".", "order": "oldest", "limit": 3}),
    );
    let found = lines_of(&r);
    assert!(found[0].0 > 0, "{r}");
    for (n, text) in &found {
        assert_eq!(text, &n.to_string(), "{r}");
    }
    let gone = search(
        &mut conn,
        &s,
        &w,
        json!({"pattern": "^0$", "order": "oldest"}),
    );
    assert_eq!(lines_of(&gone), [], "{gone}");
    let r = search(&mut conn, &s, &w, json!({"pattern": "^199999$"}));
    assert_eq!(lines_of(&r), [(LINES - 1, "199999".to_owned())]);
    // On disk: never more than the budget.
    let used: u64 = history_files(&daemon)
        .iter()
        .map(|f| {
            use std::os::unix::fs::MetadataExt;
            std::fs::metadata(f).unwrap().blocks() * 512
        })
        .sum();
    assert!(used <= 131_072 + 64 * 1024, "{used} bytes on disk");
}
