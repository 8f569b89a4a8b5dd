//! record-start / record-stop end to end: a shell window recorded to an asciicast v2 file
//! (header, timed events, the coloured output, a resize, 0600), a recording that stops by itself
//! at max_bytes while the window keeps working, and no input events unless asked.

use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use tuios_integration_tests::*;

/// The header and the events of a .cast file.
fn read_cast(path: &str) -> (Value, Vec<Value>) {
    let text = std::fs::read_to_string(path).expect("the .cast file");
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().expect("a header line")).expect("JSON");
    let events = lines
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("event {l:?}: {e}")))
        .collect();
    (header, events)
}

/// The output events' text, joined.
fn output_of(events: &[Value]) -> String {
    events
        .iter()
        .filter(|e| e[1] == "o")
        .map(|e| e[2].as_str().unwrap())
        .collect()
}

/// record-start for one window into `casts/` of the test's directory; the file's path.
fn record_window(
    daemon: &TestDaemon,
    conn: &mut JsonConn,
    s: &str,
    w: &str,
    extra: Value,
) -> String {
    let dir = daemon.dir().join("casts");
    let mut params = json!({"session": s, "window": w, "path": dir.display().to_string()});
    if let (Some(p), Some(more)) = (params.as_object_mut(), extra.as_object()) {
        p.extend(more.clone());
    }
    let started = conn.ok("record-start", params);
    started["files"][0].as_str().expect("a file").to_string()
}

#[test]
fn a_recording_holds_the_screen_the_coloured_output_and_a_resize() {
    let daemon = TestDaemon::start();
    let (s, w) = daemon.session_with_window("rec");
    let mut conn = daemon.conn();
    let dir = daemon.dir().join("casts");
    let started = conn.ok(
        "record-start",
        json!({"session": s, "window": w, "path": dir.display().to_string()}),
    );
    assert_eq!(started["type"], "recording_started", "{started}");
    let file = started["files"][0].as_str().expect("a file").to_string();
    assert!(file.ends_with(".cast"), "{file}");
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{file}");
    let dir_mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
    assert_eq!(dir_mode, 0o700);
    let rows = conn.ok("list-windows", json!({"session": s}));
    assert_eq!(rows["windows"][0]["recording"], true, "{rows}");

    // The echoed command line cannot contain the marker: the shell joins it.
    conn.send_text(&s, &w, "printf '\\033[31m%s\\033[0m\\n' RE\"D\"X\n");
    conn.wait_for_text(&s, &w, "REDX");
    conn.ok(
        "resize",
        json!({"session": s, "window": w, "width": 70, "height": 20}),
    );
    conn.send_text(&s, &w, "printf '%s\\n' AF\"T\"ER\n");
    conn.wait_for_text(&s, &w, "AFTER");

    let stopped = conn.ok("record-stop", json!({"session": s, "window": w}));
    assert_eq!(stopped["type"], "recording_stopped", "{stopped}");
    let rec = &stopped["files"][0];
    assert_eq!(rec["path"], file.as_str(), "{stopped}");
    assert_eq!(rec["reason"], "stopped", "{stopped}");
    let size = std::fs::metadata(&file).unwrap().len();
    assert_eq!(rec["bytes"], size, "{stopped}");

    let (header, events) = read_cast(&file);
    assert_eq!(header["version"], 2, "{header}");
    assert!(header["width"].as_u64().unwrap() > 0, "{header}");
    assert!(header["height"].as_u64().unwrap() > 0, "{header}");
    assert!(header["timestamp"].as_u64().is_some(), "{header}");
    assert!(header["env"]["TERM"].is_string(), "{header}");
    assert_eq!(events[0][0], 0.0, "the screen as it stood comes first");
    let mut last = 0.0;
    for e in &events {
        let t = e[0].as_f64().expect("a time");
        assert!(t >= last, "times go forward: {e} after {last}");
        last = t;
        assert!(
            ["o", "r"].contains(&e[1].as_str().unwrap()),
            "no input events by default: {e}"
        );
    }
    let output = output_of(&events);
    assert!(
        output.contains("\x1b[31mREDX"),
        "the coloured output: {output:?}"
    );
    assert!(
        events.iter().any(|e| e[1] == "r" && e[2] == "70x20"),
        "a resize event: {events:?}"
    );

    let rows = conn.ok("list-windows", json!({"session": s}));
    assert_eq!(rows["windows"][0]["recording"], false, "{rows}");

    // Stopped already: nothing more to stop.
    let again = conn.ok("record-stop", json!({"session": s, "window": w}));
    assert_eq!(again["files"], json!([]), "{again}");
}

#[test]
fn a_recording_stops_by_itself_at_max_bytes_and_the_window_goes_on() {
    let daemon = TestDaemon::start();
    let (s, w) = daemon.session_with_window("cap");
    let mut conn = daemon.conn();
    let dir = daemon.dir().join("casts");
    let max = 4096;
    let started = conn.ok(
        "record-start",
        json!({"session": s, "path": dir.display().to_string(), "max_bytes": max}),
    );
    let file = started["files"][0].as_str().expect("a file").to_string();

    conn.send_text(&s, &w, "seq 1 3000; echo DO\"N\"E\n");
    conn.wait_for_text(&s, &w, "DONE");
    let stopped = conn.ok("record-stop", json!({"session": s}));
    let rec = &stopped["files"][0];
    assert_eq!(rec["reason"], "max_bytes", "{stopped}");
    assert!(rec["bytes"].as_u64().unwrap() <= max, "{stopped}");
    assert!(std::fs::metadata(&file).unwrap().len() <= max);
    let (header, _) = read_cast(&file);
    assert_eq!(header["version"], 2);

    // The window never noticed.
    conn.send_text(&s, &w, "echo ST\"IL\"L\n");
    conn.wait_for_text(&s, &w, "STILL");
}

#[test]
fn a_relative_path_and_a_bad_limit_are_refused() {
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("bad");
    let mut conn = daemon.conn();
    conn.err_code(
        "record-start",
        json!({"session": s, "path": "casts"}),
        "invalid_params",
    );
    conn.err_code(
        "record-start",
        json!({"session": s, "path": "/tmp", "max_bytes": 0}),
        "invalid_params",
    );
}

#[test]
fn the_cli_records_with_record_start_and_record_stop() {
    let daemon = TestDaemon::start();
    let (s, w) = daemon.session_with_window("cli");
    let dir = daemon.dir().join("cli-casts");
    let dir_arg = dir.display().to_string();
    let out = daemon.cli(&["record", "start", "-s", &s, "-w", &w, "-o", &dir_arg]);
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        said.starts_with("recording to ") && said.contains(".cast"),
        "{said}"
    );
    let mut conn = daemon.conn();
    conn.send_text(&s, &w, "echo CL\"I\"OK\n");
    conn.wait_for_text(&s, &w, "CLIOK");
    let out = daemon.cli(&["record", "stop", "-s", &s, "-w", &w]);
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(said.contains("(stopped)"), "{said}");
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .next()
        .expect("one file")
        .unwrap()
        .path();
    let (_, events) = read_cast(file.to_str().unwrap());
    let output = output_of(&events);
    assert!(output.contains("CLIOK"), "{output:?}");
}

/// Read events until one of `kind` comes.
fn next_of(conn: &mut JsonConn, kind: &str) -> Value {
    loop {
        let line = conn.read_line();
        if is_event(&line) && line["type"] == kind {
            return line;
        }
    }
}

#[test]
fn recording_events_say_when_and_why_a_recording_ends() {
    let daemon = TestDaemon::start();
    let (s, w) = daemon.session_with_window("ev");
    let mut events = daemon.conn();
    events.subscribe(json!({"session": s, "types": ["recording-started", "recording-stopped"]}));
    let mut conn = daemon.conn();
    let dir = daemon.dir().join("casts").display().to_string();

    let started = conn.ok(
        "record-start",
        json!({"session": s, "window": w, "path": dir, "max_bytes": 4096}),
    );
    let file = started["files"][0].as_str().unwrap().to_string();
    let e = next_of(&mut events, "recording-started");
    assert_eq!(e["path"], file.as_str(), "{e}");
    assert_eq!(e["window"], w.as_str(), "{e}");
    conn.send_text(&s, &w, "seq 1 3000\n");
    let e = next_of(&mut events, "recording-stopped");
    assert_eq!(e["reason"], "max_bytes", "{e}");
    assert_eq!(e["path"], file.as_str(), "{e}");

    // A window closing ends its recording.
    let started = conn.ok(
        "record-start",
        json!({"session": s, "window": w, "path": dir}),
    );
    let file = started["files"][0].as_str().unwrap().to_string();
    next_of(&mut events, "recording-started");
    conn.ok("close-window", json!({"session": s, "window": w}));
    let e = next_of(&mut events, "recording-stopped");
    assert_eq!(e["reason"], "window_closed", "{e}");
    assert_eq!(e["path"], file.as_str(), "{e}");
}

/// The window's screen, styled, once its output has been quiet for a while.
fn settled_screen(conn: &mut JsonConn, s: &str, w: &str) -> String {
    conn.ok(
        "wait-for",
        json!({"session": s, "window": w, "condition": "window-idle", "idle": 300, "timeout": 20000}),
    );
    conn.capture(s, w, json!({"styled": true}))
}

#[test]
fn a_recording_replayed_by_tuios_play_gives_back_the_screen() {
    let daemon = TestDaemon::start();
    let (s, w) = daemon.session_with_window("replay");
    let mut conn = daemon.conn();
    // Something on the screen before the recording starts: the first frame must carry it.
    conn.send_text(&s, &w, "printf '\\033[1;33m%s\\033[0m\\n' BE\"FO\"RE\n");
    conn.wait_for_text(&s, &w, "BEFORE");
    let file = record_window(&daemon, &mut conn, &s, &w, json!({}));
    conn.send_text(
        &s,
        &w,
        "printf '\\033[31mr \\033[42;97mbg\\033[0m \\033[4mul\\033[0m %s\\n' RE\"D\"X\n",
    );
    conn.wait_for_text(&s, &w, "REDX");
    // Narrower and shorter; the lines so far are short enough not to be rewrapped (a replay
    // draws at the final size, where a rewrapped line would fall differently).
    conn.ok(
        "resize",
        json!({"session": s, "window": w, "width": 70, "height": 20}),
    );
    conn.send_text(&s, &w, "printf '\\033[7m%s\\033[0m\\n' AF\"T\"ER\n");
    conn.wait_for_text(&s, &w, "AFTER");
    let original = settled_screen(&mut conn, &s, &w);
    conn.ok("record-stop", json!({"session": s, "window": w}));
    assert!(original.contains("\x1b["), "a styled capture: {original:?}");

    // A fresh window of the same size plays it; its program waits for the size to be set.
    let tuios = tuios_bin().display().to_string();
    let script = format!(
        "read go; {} play --idle-limit 0.05 {}; exec sleep 600",
        sh_quote(&tuios),
        sh_quote(&file)
    );
    let player = conn.new_window_id(&s, json!({"command": ["/bin/sh", "-c", script]}));
    conn.ok(
        "resize",
        json!({"session": s, "window": player, "width": 70, "height": 20}),
    );
    conn.send_text(&s, &player, "\n");
    conn.wait_for_text(&s, &player, "AFTER");
    let replayed = settled_screen(&mut conn, &s, &player);
    assert_eq!(
        replayed, original,
        "the replay differs from the screen recorded"
    );
}

/// The recordings in `dir`, sorted.
fn casts_in(dir: &std::path::Path) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path().display().to_string())
                .filter(|p| p.ends_with(".cast"))
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

#[test]
fn recording_auto_and_a_session_wide_record_start_record_new_windows_from_their_start() {
    let daemon = TestDaemon::start();
    let (s, _) = daemon.session_with_window("auto");
    let mut conn = daemon.conn();
    let auto = daemon.dir().join("auto-casts");
    let refused = conn.err(
        "set-option",
        json!({"session": s, "key": "recording.auto", "value": "relative/dir"}),
    );
    assert_eq!(refused["code"], "invalid_params", "{refused}");
    conn.ok(
        "set-option",
        json!({"session": s, "key": "recording.auto", "value": auto.display().to_string()}),
    );
    let w = conn.new_window_id(
        &s,
        json!({"command": ["/bin/sh", "-c", "echo FIRST-WORDS; exec sleep 600"]}),
    );
    conn.wait_for_text(&s, &w, "FIRST-WORDS");
    let row = conn.window_row(&s, &w);
    assert_eq!(row["recording"], true, "{row}");
    let stopped = conn.ok("record-stop", json!({"session": s, "window": w}));
    let file = stopped["files"][0]["path"].as_str().unwrap().to_string();
    assert_eq!(casts_in(&auto), vec![file.clone()]);
    let (_, events) = read_cast(&file);
    let output = output_of(&events);
    assert!(output.contains("FIRST-WORDS"), "{output:?}");
    conn.ok(
        "set-option",
        json!({"session": s, "key": "recording.auto", "value": ""}),
    );

    // record-start for the whole session: the windows there now, and the ones opened later.
    let wide = daemon.dir().join("wide-casts");
    let started = conn.ok(
        "record-start",
        json!({"session": s, "path": wide.display().to_string()}),
    );
    let now = started["files"].as_array().unwrap().len();
    assert_eq!(now, 2, "{started}");
    let later = conn.new_window_id(
        &s,
        json!({"command": ["/bin/sh", "-c", "echo LATER-WORDS; exec sleep 600"]}),
    );
    conn.wait_for_text(&s, &later, "LATER-WORDS");
    assert_eq!(casts_in(&wide).len(), 3);
    // record-stop for the session stops them all, and windows opened after it are not recorded.
    let stopped = conn.ok("record-stop", json!({"session": s}));
    assert_eq!(stopped["files"].as_array().unwrap().len(), 3, "{stopped}");
    let last = conn.new_window_id(&s, json!({"command": ["/bin/sh", "-c", "exec sleep 600"]}));
    conn.wait_for_text(&s, &later, "LATER-WORDS");
    let rows = conn.ok("list-windows", json!({"session": s}));
    for r in rows["windows"].as_array().unwrap() {
        assert_eq!(r["recording"], false, "{rows}");
    }
    assert!(rows.to_string().contains(&last));
    assert_eq!(casts_in(&wide).len(), 3);
}

#[test]
fn keys_typed_in_an_attached_terminal_are_recorded_when_input_is_asked_for() {
    TmuxClient::require();
    let daemon = TestDaemon::start();
    let (s, w) = daemon.session_with_window("typed");
    let mut conn = daemon.conn();
    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    client.wait_for(&s);
    let file = record_window(&daemon, &mut conn, &s, &w, json!({"input": true}));
    client.type_line("echo TYPED-$((20+22))");
    conn.wait_for_text(&s, &w, "TYPED-42");
    conn.ok("record-stop", json!({"session": s, "window": w}));
    // After the recording, keys go straight to the program again (and are not recorded).
    client.type_line("echo AFTER-$((1+1))");
    conn.wait_for_text(&s, &w, "AFTER-2");
    let (_, events) = read_cast(&file);
    let typed: String = events
        .iter()
        .filter(|e| e[1] == "i")
        .map(|e| e[2].as_str().unwrap())
        .collect();
    assert!(typed.contains("echo TYPED-$((20+22))"), "{typed:?}");
    assert!(!typed.contains("AFTER"), "{typed:?}");
}

#[test]
fn a_recording_carries_on_through_a_live_upgrade() {
    let daemon = TestDaemon::start();
    let (s, w) = daemon.session_with_window("upgraded");
    let mut conn = daemon.conn();
    let mut events = daemon.conn();
    events.subscribe(json!({"session": s, "types": ["recording-started", "recording-stopped"]}));
    let file = record_window(&daemon, &mut conn, &s, &w, json!({}));
    next_of(&mut events, "recording-started");
    conn.send_text(&s, &w, "echo BEFORE-$((1+1))\n");
    conn.wait_for_text(&s, &w, "BEFORE-2");
    let out = daemon.cli(&["upgrade"]);
    assert!(out.status.success(), "{}", describe(&out));
    let mut conn = daemon.conn();
    // Subscriptions end with the old daemon's connections: subscribe again.
    let mut events = daemon.conn();
    events.subscribe(json!({"session": s, "types": ["recording-started", "recording-stopped"]}));
    assert_eq!(conn.window_row(&s, &w)["recording"], true);
    conn.send_text(&s, &w, "echo AFTER-$((2+2))\n");
    conn.wait_for_text(&s, &w, "AFTER-4");
    let stopped = conn.ok("record-stop", json!({"session": s, "window": w}));
    assert_eq!(stopped["files"][0]["path"], file.as_str(), "{stopped}");
    assert_eq!(
        stopped["files"][0]["bytes"],
        std::fs::metadata(&file).unwrap().len(),
        "{stopped}"
    );
    // The stop heard is the one asked for (the upgrade's pause made none).
    let e = next_of(&mut events, "recording-stopped");
    assert_eq!(e["reason"], "stopped", "{e}");

    let (header, events) = read_cast(&file);
    assert_eq!(header["version"], 2);
    let mut last = 0.0;
    for e in &events {
        assert!(e.is_array(), "one header only, then events: {e}");
        let t = e[0].as_f64().unwrap();
        assert!(
            t >= last,
            "times go forward across the upgrade: {e} after {last}"
        );
        last = t;
    }
    let output = output_of(&events);
    assert!(
        output.contains("BEFORE-2") && output.contains("AFTER-4"),
        "{output:?}"
    );
}

#[test]
fn a_session_wide_recording_goes_on_recording_new_windows_after_a_live_upgrade() {
    let daemon = TestDaemon::start();
    let (s, first) = daemon.session_with_window("wide");
    let mut conn = daemon.conn();
    let dir = daemon.dir().join("wide-casts");
    let started = conn.ok(
        "record-start",
        json!({"session": s, "path": dir.display().to_string()}),
    );
    assert_eq!(started["files"].as_array().unwrap().len(), 1, "{started}");
    let out = daemon.cli(&["upgrade"]);
    assert!(out.status.success(), "{}", describe(&out));
    let mut conn = daemon.conn();
    assert_eq!(conn.window_row(&s, &first)["recording"], true);
    let w = conn.new_window_id(
        &s,
        json!({"command": ["/bin/sh", "-c", "echo NEW-AFTER-UPGRADE; exec sleep 600"]}),
    );
    conn.wait_for_text(&s, &w, "NEW-AFTER-UPGRADE");
    let row = conn.window_row(&s, &w);
    assert_eq!(
        row["recording"], true,
        "the new daemon records new windows too: {row}"
    );
    let stopped = conn.ok("record-stop", json!({"session": s}));
    assert_eq!(stopped["files"].as_array().unwrap().len(), 2, "{stopped}");
    assert_eq!(casts_in(&dir).len(), 2);
    // The session-wide stop ends the plan: the next window goes unrecorded.
    let later = conn.new_window_id(&s, json!({"focus": false}));
    assert_eq!(conn.window_row(&s, &later)["recording"], false);
}
