//! Agent state end to end: the source ranks over the wire, the listings and the `agent-state`
//! event, OSC 9;4 from a real program with its anti-flicker hold, a fake agent CLI (a shell
//! script named `claude` on PATH) detected, explained, read off the screen and cleared when it
//! exits, the silence heuristic, `wait-for agent-state`, the switches, and what the detector
//! costs with 50 idle windows.
//!
//! Some daemons need environment of their own (PATH with the fake agent, a short stall
//! timeout): they are started with `TestEnv::start_daemon_with`.

use serde_json::{json, Value};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tuios_integration_tests::*;

/// A fake agent CLI: a shell script in `<dir>/bin`. It prints a banner; with `prompt` as its
/// argument it prints a Claude-style permission prompt, waits for the answer, clears the screen
/// and goes on; then it waits for a line and exits.
fn fake_agent_dir(env: &TestEnv, name: &str) -> String {
    let bin = env.dir().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join(name);
    // \342\235\257 is U+276F, the pointer Claude Code puts in front of the chosen option.
    std::fs::write(
        &script,
        "#!/bin/sh\n\
         echo \"fake agent v-$((40+2)) ready\"\n\
         if [ \"$1\" = prompt ]; then\n\
         \x20 printf 'Edit main.go\\nDo you want to proceed?\\n\\342\\235\\257 1. Yes\\n  2. No\\n'\n\
         \x20 read choice\n\
         \x20 printf '\\033[2J\\033[H'\n\
         \x20 echo \"agent works on choice $choice\"\n\
         fi\n\
         read answer\n\
         echo \"agent got $answer\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into())
    )
}

fn state_of(conn: &mut JsonConn, session: &str, window: &str) -> Value {
    let r = conn.ok(
        "get-agent-state",
        json!({"session": session, "window": window}),
    );
    assert_eq!(r["type"], "agent_state", "{r}");
    r
}

fn set(conn: &mut JsonConn, session: &str, window: &str, extra: Value) -> Value {
    let mut p = json!({"session": session, "window": window});
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    let r = conn.ok("set-agent-state", p);
    assert_eq!(r["type"], "agent_state_set", "{r}");
    r
}

fn wait_state(conn: &mut JsonConn, session: &str, window: &str, until: &str) -> Value {
    conn.set_timeout(Duration::from_secs(40));
    let r = conn.ok(
        "wait-for",
        json!({"condition": "agent-state", "session": session, "window": window,
               "until": until, "timeout": 30_000}),
    );
    assert_eq!(r["state"], until.split(',').next().unwrap(), "{r}");
    r
}

/// Subscribe a fresh connection to `types` of one session.
fn subscribe(d: &TestDaemon, session: &str, types: &[&str]) -> JsonConn {
    let mut c = d.conn();
    c.subscribe(json!({"session": session, "types": types}));
    c
}

/// Events of a subscribed connection until `stop` accepts one; returns all of them.
fn events_until(conn: &mut JsonConn, mut stop: impl FnMut(&Value) -> bool) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let line = conn.read_line();
        assert!(is_event(&line), "unexpected line on the stream: {line}");
        let done = stop(&line);
        seen.push(line);
        if done {
            return seen;
        }
    }
}

#[test]
fn list_verbs_lists_exactly_the_spec_verbs() {
    let d = TestDaemon::start();
    let r = d.conn().ok("list-verbs", json!({}));
    let names: Vec<String> = r["verbs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["verb"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(without_extensions(&names), SPEC_VERBS);
    let wait = d.conn().ok("list-verbs", json!({"verb": "wait-for"}));
    let params = wait["verbs"][0]["params"].as_array().unwrap();
    let cond = params.iter().find(|p| p["name"] == "condition").unwrap();
    assert!(strings(&cond["accepted"]).contains(&"agent-state".to_string()));
    assert!(params.iter().any(|p| p["name"] == "until"));
}

/// Every ordered pair of the sources a caller may name: the second report stands exactly when
/// its rank is not below the first's; a refused one changes nothing and raises no event.
#[test]
fn precedence_between_every_pair_of_settable_sources() {
    let d = TestDaemon::start();
    let (s, w) = d.session_with_window("prec");
    let mut c = d.conn();
    let mut events = subscribe(&d, &s, &["agent-state"]);
    // Ranked from the highest down.
    let sources = ["report", "osc", "screen", "stall"];
    let mut expected_events = 0;
    for (i, first) in sources.iter().enumerate() {
        for (j, second) in sources.iter().enumerate() {
            set(&mut c, &s, &w, json!({"state": "none"}));
            let a = set(&mut c, &s, &w, json!({"state": "working", "source": first}));
            assert_eq!(a["applied"], true, "{a}");
            let before = state_of(&mut c, &s, &w);
            let b = set(
                &mut c,
                &s,
                &w,
                json!({"state": "done", "source": second, "message": "m"}),
            );
            let stands = j <= i;
            assert_eq!(b["applied"], stands, "{second} over {first}: {b}");
            assert_eq!(b["source"], *second);
            assert_eq!(b["message"], "m", "the message as sent");
            let after = state_of(&mut c, &s, &w);
            if stands {
                assert_eq!(after["state"], "done");
                assert_eq!(after["source"], *second);
                expected_events += 3; // none -> working -> done, and the next none
            } else {
                assert_eq!(b["state"], "working", "the standing state: {b}");
                assert_eq!(after, before, "a refused report changes nothing");
                expected_events += 2;
            }
        }
    }
    // A marker, so the stream can be read to a known end.
    set(&mut c, &s, &w, json!({"state": "errored"}));
    let seen = events_until(&mut events, |e| e["state"] == "errored");
    // The first `none` of all found the window unclaimed already: no event.
    assert_eq!(seen.len(), expected_events - 1 + 1, "{seen:#?}");
    for e in &seen {
        assert_eq!(e["type"], "agent-state");
        assert_eq!(e["window"], w.as_str());
        assert!(e["pty_id"].as_str().is_some_and(|p| !p.is_empty()), "{e}");
    }
}

#[test]
fn set_agent_state_checks_its_params() {
    let d = TestDaemon::start();
    let (s, w) = d.session_with_window("checks");
    let mut c = d.conn();
    let e = c.err_code(
        "set-agent-state",
        json!({"session": s, "window": w}),
        "invalid_params",
    );
    assert_eq!(e["hint"]["param"], "state");
    let e = c.err_code(
        "set-agent-state",
        json!({"session": s, "state": "workin"}),
        "invalid_params",
    );
    assert_eq!(e["hint"]["did_you_mean"], "working");
    let e = c.err_code(
        "set-agent-state",
        json!({"session": s, "state": "idle", "source": "detect"}),
        "invalid_params",
    );
    assert_eq!(e["hint"]["param"], "source");
    assert_eq!(
        strings(&e["hint"]["available"]),
        ["report", "osc", "screen", "stall"]
    );
    c.err_code(
        "set-agent-state",
        json!({"session": s, "window": "nope", "state": "idle"}),
        "window_not_found",
    );
    c.err_code(
        "set-agent-state",
        json!({"session": "ghost", "state": "idle"}),
        "session_not_found",
    );
    // Unclaimed: state none, source report, never set.
    let st = state_of(&mut c, &s, &w);
    assert_eq!(
        (
            st["state"].as_str(),
            st["source"].as_str(),
            st["agent_state_at"].as_u64()
        ),
        (Some("none"), Some("report"), Some(0))
    );
}

#[test]
fn listings_and_events_carry_the_state() {
    let d = TestDaemon::start();
    let (s, w) = d.session_with_window("lists");
    let mut c = d.conn();
    let mut events = subscribe(&d, &s, &["agent-state"]);
    let row = c.ok("list-windows", json!({"session": s}))["windows"][0].clone();
    assert_eq!(row["agent_state"], "none");
    assert!(row.get("agent_message").is_none() && row.get("agent_state_at").is_none());

    let r = set(
        &mut c,
        &s,
        &w,
        json!({"state": "needs_input", "message": "approve the edit", "harness": "codex"}),
    );
    assert_eq!(
        (r["applied"].as_bool(), r["state"].as_str()),
        (Some(true), Some("needs_input"))
    );
    // The same state again is applied, but it is no change: no event.
    set(
        &mut c,
        &s,
        &w,
        json!({"state": "needs_input", "message": "still"}),
    );
    set(&mut c, &s, &w, json!({"state": "done"}));
    let seen = events_until(&mut events, |e| e["state"] == "done");
    let states: Vec<&str> = seen.iter().map(|e| e["state"].as_str().unwrap()).collect();
    assert_eq!(states, ["needs_input", "done"]);
    assert_eq!(seen[0]["session"], s.as_str());
    assert_eq!(seen[0]["window"], w.as_str());

    set(
        &mut c,
        &s,
        &w,
        json!({"state": "needs_input", "message": "approve the edit"}),
    );
    let row = c.ok("list-windows", json!({"session": s}))["windows"][0].clone();
    assert_eq!(row["agent_state"], "needs_input");
    assert_eq!(row["agent_message"], "approve the edit");
    assert_eq!(row["agent_harness"], "codex", "the attribution stays");
    let at = row["agent_state_at"].as_u64().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    assert!(at.abs_diff(now) < 60_000_000_000, "unix ns: {at}");

    let sessions = c.ok("list-sessions", json!({}));
    let win = sessions["sessions"][0]["windows"][0].clone();
    assert_eq!(win["id"], w.as_str());
    assert_eq!(win["agent_state"], "needs_input");
    assert_eq!(win["agent_message"], "approve the edit");
    assert_eq!(win["agent_harness"], "codex");
    assert_eq!(win["agent_state_at"].as_u64(), Some(at));

    let got = state_of(&mut c, &s, &w);
    assert_eq!(got["harness_id"], "codex");
    assert_eq!(got["source"], "report");
    assert_eq!(got["message"], "approve the edit");

    // none clears the claim and the attribution.
    set(&mut c, &s, &w, json!({"state": "none"}));
    let got = state_of(&mut c, &s, &w);
    assert_eq!(
        (got["state"].as_str(), got["harness_id"].as_str()),
        (Some("none"), Some(""))
    );
}

#[test]
fn osc_progress_from_a_real_program_moves_the_state_with_a_hold() {
    let d = TestDaemon::start();
    let (s, w) = d.session_with_window("osc");
    let mut c = d.conn();
    let mut stream = subscribe(&d, &s, &["agent-state", "output"]);
    // `date` stamps the time (unix ns, the clock the hub stamps events with) and writes the
    // quieting sequence in the same write, so the stamp is taken before the daemon can have
    // seen the sequence: the hold starts after it whatever the load, and the idle state's own
    // stamp is taken after the hold ended.
    c.ok(
        "send-text",
        json!({"session": s, "window": w,
               "text": "printf '\\033]9;4;1;20\\007'; sleep 1; date \"+quiet-at=%s%N$(printf '\\033]9;4;0\\007')\"\n"}),
    );
    let seen = events_until(&mut stream, |e| {
        e["type"] == "agent-state" && e["state"] == "idle"
    });
    let agent: Vec<&Value> = seen.iter().filter(|e| e["type"] == "agent-state").collect();
    let states: Vec<&str> = agent.iter().map(|e| e["state"].as_str().unwrap()).collect();
    assert_eq!(states, ["working", "idle"]);
    let idle = agent[1];
    let screen = c.wait_for_capture(&s, &w, "the quieting stamp", DEADLINE, |c| {
        c.lines().find_map(|l| {
            let digits = l.trim().strip_prefix("quiet-at=")?;
            (digits.len() >= 18 && digits.bytes().all(|b| b.is_ascii_digit()))
                .then(|| digits.parse::<u64>().ok())
                .flatten()
        })
    });
    let quiet_at = screen;
    let idle_at = idle["time"].as_u64().unwrap();
    assert!(
        idle_at >= quiet_at,
        "idle stamped {idle_at} before the program wrote the sequence at {quiet_at}"
    );
    // The whole hold, not less: the quieter state stood 700 ms before it was published.
    let held_ms = (idle_at - quiet_at) / 1_000_000;
    assert!(
        held_ms >= 700,
        "idle published {held_ms} ms after the program wrote the quieting sequence"
    );
    let st = state_of(&mut c, &s, &w);
    assert_eq!(
        (st["state"].as_str(), st["source"].as_str()),
        (Some("idle"), Some("osc"))
    );

    // A blink (quieter, then louder again within the hold) never publishes the quieter state.
    c.ok(
        "send-text",
        json!({"session": s, "window": w,
               "text": "printf '\\033]9;4;1\\007'; sleep 0.2; printf '\\033]9;4;0\\007'; sleep 0.2; printf '\\033]9;4;3\\007'\n"}),
    );
    wait_state(&mut c, &s, &w, "working");
    let e = c.err_code(
        "wait-for",
        json!({"condition": "agent-state", "session": s, "window": w, "until": "idle",
               "timeout": 1_500}),
        "timeout",
    );
    assert_eq!(e["hint"]["param"], "until");
    // Errored is loud: at once.
    c.ok(
        "send-text",
        json!({"session": s, "window": w, "text": "printf '\\033]9;4;2\\007'\n"}),
    );
    wait_state(&mut c, &s, &w, "errored");
    // A report outranks OSC: a later progress sequence is refused.
    set(&mut c, &s, &w, json!({"state": "done"}));
    c.ok(
        "send-text",
        json!({"session": s, "window": w,
               "text": "printf '\\033]9;4;1\\007'; echo osc-$((6*7))\n"}),
    );
    c.wait_for_text(&s, &w, "osc-42");
    assert_eq!(state_of(&mut c, &s, &w)["state"], "done");
}

#[test]
fn a_fake_agent_is_detected_explained_and_cleared() {
    let env = TestEnv::new();
    let path = fake_agent_dir(&env, "claude");
    let d = env.start_daemon_with(&[("PATH", path)]);
    let (s, w) = d.session_with_window("detect");
    let mut c = d.conn();
    c.ok(
        "send-text",
        json!({"session": s, "window": w, "text": "claude\n"}),
    );
    c.wait_for_text(&s, &w, "v-42 ready");
    wait_state(&mut c, &s, &w, "working");
    let st = state_of(&mut c, &s, &w);
    assert_eq!(st["source"], "detect", "{st}");
    assert_eq!(st["harness_id"], "claude-code", "{st}");
    let row = c.ok("list-windows", json!({"session": s}))["windows"][0].clone();
    assert_eq!(row["foreground_cmd"], "claude", "{row}");
    assert_eq!(row["agent_harness"], "claude-code", "{row}");

    let ex = c.ok("explain-agent-detect", json!({"session": s, "window": w}));
    assert_eq!(ex["type"], "agent_detect");
    assert_eq!(ex["running"], true);
    assert_eq!(ex["matched"], true, "{ex}");
    assert_eq!(ex["auto_detected"], true);
    assert_eq!(ex["matched_harness"], "claude-code");
    assert_eq!(ex["matched_rule"], "comm=claude");
    assert_eq!(ex["process"]["comm"], "claude");
    assert!(
        ex["process"]["argv"].to_string().contains("bin/claude"),
        "{ex}"
    );
    let manifests = ex["manifests"].as_array().unwrap();
    assert!(manifests.len() >= 5);
    for m in manifests {
        if m["id"] == "claude-code" {
            assert_eq!(m["matched"], true);
        } else {
            assert_eq!(m["matched"], false, "{m}");
            assert!(m["reason"].as_str().is_some_and(|r| !r.is_empty()), "{m}");
        }
    }

    // The agent exits: the window it promoted is cleared.
    c.ok(
        "send-text",
        json!({"session": s, "window": w, "text": "bye\n"}),
    );
    c.wait_for_text(&s, &w, "agent got bye");
    wait_state(&mut c, &s, &w, "none");
    let ex = c.ok("explain-agent-detect", json!({"session": s, "window": w}));
    assert_eq!(ex["matched"], false, "{ex}");
    assert_eq!(ex["auto_detected"], false);
    assert_eq!(ex["process"]["comm"], "sh", "{ex}");
    let row = c.ok("list-windows", json!({"session": s}))["windows"][0].clone();
    assert!(row.get("foreground_cmd").is_none(), "{row}");

    // A claim made by hand is never clobbered by the detector, nor cleared by it.
    set(
        &mut c,
        &s,
        &w,
        json!({"state": "idle", "message": "by hand"}),
    );
    c.ok(
        "send-text",
        json!({"session": s, "window": w, "text": "claude\n"}),
    );
    c.wait_for_capture(&s, &w, "the second banner", DEADLINE, |t| {
        (t.matches("v-42 ready").count() == 2).then_some(())
    });
    c.ok(
        "send-text",
        json!({"session": s, "window": w, "text": "x\n"}),
    );
    c.wait_for_text(&s, &w, "agent got x");
    let st = state_of(&mut c, &s, &w);
    assert_eq!(
        (st["state"].as_str(), st["message"].as_str()),
        (Some("idle"), Some("by hand"))
    );
}

#[test]
fn a_screen_rule_matches_the_prompt_the_fake_agent_prints() {
    let env = TestEnv::new();
    let path = fake_agent_dir(&env, "claude");
    let d = env.start_daemon_with(&[("PATH", path)]);
    let (s, w) = d.session_with_window("screen");
    let mut c = d.conn();
    c.ok(
        "send-text",
        json!({"session": s, "window": w, "text": "claude prompt\n"}),
    );
    wait_state(&mut c, &s, &w, "needs_input");
    let st = state_of(&mut c, &s, &w);
    assert_eq!(st["source"], "screen", "{st}");
    assert_eq!(st["harness_id"], "claude-code");
    assert!(
        st["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{st}"
    );

    let ex = c.ok("explain-agent-screen", json!({"session": s, "window": w}));
    assert_eq!(ex["type"], "agent_screen");
    assert_eq!(ex["harness_id"], "claude-code");
    assert_eq!(ex["matched"], true, "{ex}");
    assert_eq!(ex["rule"], 0);
    assert_eq!(ex["rule_state"], "needs_input");
    assert_eq!(ex["enabled"], true);
    let tail = strings(&ex["tail"]);
    assert!(
        tail.iter().any(|l| l == "Do you want to proceed?"),
        "{tail:?}"
    );
    assert!(tail.iter().any(|l| l == "❯ 1. Yes"), "{tail:?}");
    let rules = ex["rules"].as_array().unwrap();
    assert_eq!(rules[0]["matched"], true);
    assert!(rules[1].get("missing").is_some(), "{}", rules[1]);

    // Another manifest's rules, and a shorter tail.
    let other = c.ok(
        "explain-agent-screen",
        json!({"session": s, "window": w, "harness": "codex", "lines": 2}),
    );
    assert_eq!(other["harness_id"], "codex");
    assert_eq!(other["lines"], 2);
    assert_eq!(strings(&other["tail"]).len(), 2);
    assert_eq!(other["matched"], false);
    assert_eq!(other["rule"], -1);
    let e = c.err_code(
        "explain-agent-screen",
        json!({"session": s, "window": w, "harness": "claude-cod"}),
        "invalid_params",
    );
    assert_eq!(e["hint"]["param"], "harness");
    assert_eq!(e["hint"]["did_you_mean"], "claude-code");

    // Answered, the prompt is gone while the agent goes on: the screen hands the window back
    // to the claim it displaced.
    c.ok(
        "send-text",
        json!({"session": s, "window": w, "text": "1\n"}),
    );
    c.wait_for_text(&s, &w, "agent works on choice 1");
    wait_state(&mut c, &s, &w, "working");
    let st = state_of(&mut c, &s, &w);
    assert_eq!(st["source"], "detect", "{st}");
    // It exits: cleared.
    c.ok(
        "send-text",
        json!({"session": s, "window": w, "text": "q\n"}),
    );
    c.wait_for_text(&s, &w, "agent got q");
    wait_state(&mut c, &s, &w, "none");
}

#[test]
fn user_manifests_and_extra_agent_names_are_recognised() {
    let env = TestEnv::new();
    let path = fake_agent_dir(&env, "fakebot");
    fake_agent_dir(&env, "zork");
    let dir = env.dir().join("config/tuios/harnesses");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("fakebot.toml"),
        "schema_version = 1\nid = \"fakebot\"\n[detect]\ncomm = [\"fakebot\"]\n\
         [screen]\nlines = 3\n[[screen.rule]]\nstate = \"idle\"\npriority = 1\nall = [\"ready\"]\n",
    )
    .unwrap();
    let d = env.start_daemon_with(&[("PATH", path), ("TUIOS_AGENT_BINARIES", "Zork".into())]);
    let (s, w) = d.session_with_window("user");
    let mut c = d.conn();
    c.ok(
        "send-text",
        json!({"session": s, "window": w, "text": "fakebot\n"}),
    );
    // Detected as working, then its own screen rule says idle.
    wait_state(&mut c, &s, &w, "idle");
    let st = state_of(&mut c, &s, &w);
    assert_eq!(
        (st["harness_id"].as_str(), st["source"].as_str()),
        (Some("fakebot"), Some("screen"))
    );
    c.ok(
        "send-text",
        json!({"session": s, "window": w, "text": "q\n"}),
    );
    wait_state(&mut c, &s, &w, "none");

    c.ok(
        "send-text",
        json!({"session": s, "window": w, "text": "zork\n"}),
    );
    wait_state(&mut c, &s, &w, "working");
    let ex = c.ok("explain-agent-detect", json!({"session": s, "window": w}));
    assert_eq!(ex["matched_rule"], "name comm=zork", "{ex}");
    assert_eq!(ex["matched_harness"], "");
    assert!(ex["note"].as_str().is_some(), "{ex}");
    assert_eq!(state_of(&mut c, &s, &w)["harness_id"], "");
}

#[test]
fn the_autodetect_switches_are_honoured() {
    let env = TestEnv::new();
    let path = fake_agent_dir(&env, "claude");
    let d = env.start_daemon_with(&[("PATH", path)]);
    let (s, w) = d.session_with_window("switch");
    let mut c = d.conn();
    let r = c.ok(
        "set-option",
        json!({"session": s, "key": "daemon.agent_autodetect", "value": "false"}),
    );
    assert_eq!(r["key"], "daemon.agent_autodetect");
    c.ok(
        "send-text",
        json!({"session": s, "window": w, "text": "claude\n"}),
    );
    c.wait_for_text(&s, &w, "v-42 ready");
    // Off: the agent is there, yet nothing promotes the window (well past a 2 s poll).
    c.err_code(
        "wait-for",
        json!({"condition": "agent-state", "session": s, "until": "working", "timeout": 3_000}),
        "timeout",
    );
    let ex = c.ok("explain-agent-detect", json!({"session": s, "window": w}));
    assert_eq!(ex["matched"], true, "explain still reads the process: {ex}");
    assert_eq!(ex["state"], "none");
    // On again, with a one-second poll: promoted without any output from the agent.
    c.ok(
        "set-option",
        json!({"session": s, "key": "daemon.agent_detect_seconds", "value": "1"}),
    );
    c.ok(
        "set-option",
        json!({"session": s, "key": "daemon.agent_autodetect", "value": "true"}),
    );
    wait_state(&mut c, &s, &w, "working");
    // A negative interval turns it off again, and clears what it had promoted.
    c.ok(
        "set-option",
        json!({"session": s, "key": "daemon.agent_detect_seconds", "value": "-1"}),
    );
    wait_state(&mut c, &s, &w, "none");
    // As in the reference TUIOS the interval has no enforced range: any negative value is off.
    c.ok(
        "set-option",
        json!({"session": s, "key": "daemon.agent_detect_seconds", "value": "-5"}),
    );
    c.err_code(
        "set-option",
        json!({"session": s, "key": "daemon.agent_detect_seconds", "value": "soon"}),
        "invalid_params",
    );
}

#[test]
fn a_silent_working_window_is_demoted_by_the_stall_heuristic() {
    let d = TestEnv::new().start_daemon_with(&[("TUIOS_AGENT_STALL_SECONDS", "1".into())]);
    let (s, w) = d.session_with_window("stall");
    let mut c = d.conn();
    let started = Instant::now();
    set(
        &mut c,
        &s,
        &w,
        json!({"state": "working", "message": "thinking"}),
    );
    wait_state(&mut c, &s, &w, "idle");
    assert!(started.elapsed() >= Duration::from_millis(900));
    let st = state_of(&mut c, &s, &w);
    assert_eq!(st["source"], "stall", "{st}");
    // Only working is demoted: a state set now stays.
    set(&mut c, &s, &w, json!({"state": "needs_input"}));
    c.err_code(
        "wait-for",
        json!({"condition": "agent-state", "session": s, "until": "idle", "timeout": 2_500}),
        "timeout",
    );
}

#[test]
fn wait_for_agent_state_resolves_times_out_and_checks_until() {
    let d = TestDaemon::start();
    let (s, w) = d.session_with_window("waits");
    let mut c = d.conn();
    let w2 = c.new_window_id(&s, json!({"name": "second"}));

    // Already true: none is every window's state at the start.
    let r = c.ok(
        "wait-for",
        json!({"condition": "agent-state", "session": s, "window": "second", "until": "none"}),
    );
    assert_eq!(
        (r["window"].as_str(), r["state"].as_str()),
        (Some(w2.as_str()), Some("none"))
    );

    // Resolves when another connection reports: any window of the session.
    let socket = d.socket().to_path_buf();
    let waiter = std::thread::spawn(move || {
        let mut c = JsonConn::connect(&socket);
        c.ok(
            "wait-for",
            json!({"condition": "agent-state", "session": "waits", "until": "done, errored",
                   "timeout": 20_000}),
        )
    });
    // The wait is registered once the session counts it.
    wait_until(DEADLINE, "the waiter", || {
        let info = d.conn().ok("session-info", json!({"session": s}));
        (info["waiters"].as_u64() == Some(1)).then_some(())
    });
    set(&mut c, &s, &w2, json!({"state": "errored"}));
    let r = waiter.join().unwrap();
    assert_eq!(r["type"], "wait_result");
    assert_eq!(r["condition"], "agent-state");
    assert_eq!(r["matched"], true);
    assert_eq!(r["window"], w2.as_str());
    assert_eq!(r["state"], "errored");

    // Pinned to a window: another window's state does not count.
    let e = c.err_code(
        "wait-for",
        json!({"condition": "agent-state", "session": s, "window": w, "until": "errored",
               "timeout": 300}),
        "timeout",
    );
    assert_eq!(e["hint"]["verb"], "get-agent-state");
    assert!(e["message"].as_str().unwrap().contains("errored"), "{e}");

    // The pinned window closes first.
    let socket = d.socket().to_path_buf();
    let w2c = w2.clone();
    let closed = std::thread::spawn(move || {
        let mut c = JsonConn::connect(&socket);
        c.err_code(
            "wait-for",
            json!({"condition": "agent-state", "session": "waits", "window": w2c,
                   "until": "working", "timeout": 20_000}),
            "window_not_found",
        )
    });
    wait_until(DEADLINE, "the second waiter", || {
        let info = d.conn().ok("session-info", json!({"session": s}));
        (info["waiters"].as_u64() == Some(1)).then_some(())
    });
    c.ok("close-window", json!({"session": s, "window": w2}));
    let e = closed.join().unwrap();
    assert!(e["message"].as_str().unwrap().contains("closed"), "{e}");

    // until is checked first.
    for (until, needle) in [
        (json!(null), "required"),
        (json!(""), "required"),
        (json!("idle,dne"), "dne"),
    ] {
        let e = c.err_code(
            "wait-for",
            json!({"condition": "agent-state", "session": "ghost", "until": until}),
            "invalid_params",
        );
        assert_eq!(e["hint"]["param"], "until");
        assert!(e["message"].as_str().unwrap().contains(needle), "{e}");
    }
    let e = c.err_code(
        "wait-for",
        json!({"condition": "agent-state", "session": s, "until": "idle,dne"}),
        "invalid_params",
    );
    assert_eq!(e["hint"]["did_you_mean"], "done");
}

/// Run contrib/agent-hook.sh with `args`, `payload` on stdin and the pane environment of
/// `window` (or none of it), to completion.
fn run_hook(d: &TestDaemon, session: &str, window: Option<&str>, args: &[&str], payload: &str) {
    use std::io::Write;
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../contrib/agent-hook.sh");
    let mut cmd = std::process::Command::new("sh");
    cmd.arg(&script).args(args);
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("TUIOS_") {
            cmd.env_remove(&k);
        }
    }
    cmd.env("TUIOS_SOCKET", d.socket())
        .env("TUIOS_BIN", tuios_bin());
    if let Some(w) = window {
        cmd.env("TUIOS_ENV", "1")
            .env("TUIOS_SESSION", session)
            .env("TUIOS_WINDOW_ID", w);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run sh");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    let status = wait_until(DEADLINE, "the hook to finish", || child.try_wait().unwrap());
    assert!(status.success(), "agent-hook.sh {args:?}: {status}");
}

#[test]
fn the_shell_hook_reports_for_its_window() {
    let d = TestDaemon::start();
    let (s, w) = d.session_with_window("hook");
    let mut c = d.conn();
    let ev = |name: &str, extra: &str| {
        format!(r#"{{"session_id":"abc","hook_event_name":"{name}"{extra},"cwd":"/tmp"}}"#)
    };
    run_hook(
        &d,
        &s,
        Some(&w),
        &["claude-code"],
        &ev("UserPromptSubmit", ""),
    );
    let st = state_of(&mut c, &s, &w);
    assert_eq!(
        (
            st["state"].as_str(),
            st["source"].as_str(),
            st["harness_id"].as_str()
        ),
        (Some("working"), Some("report"), Some("claude-code"))
    );
    run_hook(
        &d,
        &s,
        Some(&w),
        &["claude-code"],
        &ev(
            "Notification",
            r#","message":"Claude needs your \"permission\" to use Bash""#,
        ),
    );
    let st = state_of(&mut c, &s, &w);
    assert_eq!(st["state"], "needs_input");
    assert_eq!(
        st["message"],
        "Claude needs your \"permission\" to use Bash"
    );
    run_hook(&d, &s, Some(&w), &["claude-code"], &ev("SubagentStop", ""));
    assert_eq!(state_of(&mut c, &s, &w)["state"], "needs_input", "ignored");
    run_hook(&d, &s, Some(&w), &["claude-code"], &ev("Stop", ""));
    assert_eq!(state_of(&mut c, &s, &w)["state"], "done");
    run_hook(&d, &s, Some(&w), &["errored", "tests failed"], "");
    let st = state_of(&mut c, &s, &w);
    assert_eq!(
        (st["state"].as_str(), st["message"].as_str()),
        (Some("errored"), Some("tests failed"))
    );
    // Outside a tuios window it does nothing, and still succeeds.
    run_hook(&d, &s, None, &["working"], "");
    assert_eq!(state_of(&mut c, &s, &w)["state"], "errored");
    run_hook(&d, &s, Some(&w), &["claude-code"], &ev("SessionEnd", ""));
    assert_eq!(state_of(&mut c, &s, &w)["state"], "none");
}

// The detector's CPU cost with 50 idle windows is measured by `tuios-bench` (phase idle), not
// asserted here: tests check behaviour, benchmarks report figures.
