//! `[hooks]` of config.toml (issue 34 item 5) through a real `tuios attach` hosted in tmux: each
//! Go TUIOS event runs its command with `sh -c` and the `TUIOS_*` variables, and a hook that
//! hangs delays nothing.

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use tuios_integration_tests::*;

const DEADLINE: Duration = Duration::from_secs(30);

/// Lines of the hooks' log that start with `event`.
fn lines_of(log: &Path, event: &str) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with(event))
        .map(str::to_string)
        .collect()
}

/// Waits for a line of `event` that `want` accepts, and returns it.
fn wait_line(log: &Path, event: &str, want: impl Fn(&str) -> bool) -> String {
    poll(DEADLINE, &format!("a {event} hook line"), || {
        lines_of(log, event)
            .into_iter()
            .find(|l| want(l))
            .ok_or_else(|| std::fs::read_to_string(log).unwrap_or_default())
    })
}

#[test]
fn every_hook_event_runs_its_command_with_the_go_variables() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, first) = daemon.session_with_window("hk");
    let log = daemon.dir().join("hooks.log");
    let config_dir = daemon.dir().join("config/tuios");
    std::fs::create_dir_all(&config_dir).unwrap();
    let line = |vars: &str| format!("echo \"$TUIOS_EVENT {vars}\" >> '{}'", log.display());
    let config = format!(
        "[hooks]\n\
         after-attach = {attach:?}\n\
         after-new-window = [{hang:?}, {new:?}]\n\
         after-close-window = {close:?}\n\
         after-focus-change = {focus:?}\n\
         after-workspace-switch = {ws:?}\n\
         after-layout-change = {layout:?}\n\
         after-resize = {resize:?}\n\
         after-agent-state = {agent:?}\n\
         after-detach = {detach:?}\n",
        hang = format!("sleep 300; echo late >> '{}'", log.display()),
        attach = line("$TUIOS_SESSION_ID $TUIOS_WINDOW_ID"),
        new = line("$TUIOS_WINDOW_ID $TUIOS_WINDOW_NAME"),
        close = line("$TUIOS_WINDOW_ID $TUIOS_WINDOW_NAME"),
        focus = line("$TUIOS_WINDOW_ID"),
        ws = line("$TUIOS_WORKSPACE $TUIOS_PREV_WORKSPACE"),
        layout = line("$TUIOS_LAYOUT"),
        resize = line("$TUIOS_WIDTH $TUIOS_HEIGHT"),
        agent = line("$TUIOS_WINDOW_ID $TUIOS_AGENT_STATE $TUIOS_AGENT_PREV_STATE"),
        detach = line("$TUIOS_SESSION_ID"),
    );
    std::fs::write(config_dir.join("config.toml"), config).unwrap();

    let mut conn = daemon.conn();
    let client = TmuxClient::start(daemon.env(), &s, 100, 30);
    client.wait_mode("TERM");
    wait_line(&log, "after-attach", |l| {
        l == format!("after-attach hk {first}")
    });

    // A new window: its hook runs although the other command of the same event hangs.
    let made = conn.ok("new-window", json!({"session": s, "name": "logs"}));
    let second = made["window_id"].as_str().unwrap().to_string();
    wait_line(&log, "after-new-window", |l| {
        l == format!("after-new-window {second} logs")
    });
    conn.ok("focus-window", json!({"session": s, "window": first}));
    wait_line(&log, "after-focus-change", |l| {
        l == format!("after-focus-change {first}")
    });

    conn.ok(
        "set-agent-state",
        json!({"session": s, "window": first, "state": "working"}),
    );
    wait_line(&log, "after-agent-state", |l| {
        l.starts_with(&format!("after-agent-state {first} working"))
    });

    conn.ok("close-window", json!({"session": s, "window": second}));
    wait_line(&log, "after-close-window", |l| {
        l == format!("after-close-window {second} logs")
    });

    conn.ok("select-workspace", json!({"session": s, "workspace": 2}));
    wait_line(&log, "after-workspace-switch", |l| {
        l == "after-workspace-switch 2 1"
    });
    conn.ok("select-workspace", json!({"session": s, "workspace": 1}));

    let tiling = lines_of(&log, "after-layout-change").len();
    conn.ok(
        "run-command",
        json!({"session": s, "command": "ToggleTiling", "args": []}),
    );
    let changed = wait_line(&log, "after-layout-change", |_| {
        lines_of(&log, "after-layout-change").len() > tiling
    });
    assert!(
        changed == "after-layout-change floating" || changed == "after-layout-change bsp",
        "{changed}"
    );

    client.resize(120, 40);
    wait_line(&log, "after-resize", |l| l == "after-resize 120 40");

    client.leader("d");
    client.wait_for("EXIT=");
    wait_line(&log, "after-detach", |l| l == "after-detach hk");
    // The hung hook did not outlive the client: it was ended as the client exited.
    let marker = log.display().to_string();
    wait_until(DEADLINE, "the hung hook to be ended", || {
        (!hung_hook_runs(&marker)).then_some(())
    });
    assert!(lines_of(&log, "late").is_empty());
}

/// Whether a process whose command line holds `marker` (the hung hook's shell) still runs.
fn hung_hook_runs(marker: &str) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return false;
    };
    dir.filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .any(|c| {
            let c = String::from_utf8_lossy(&c);
            c.contains("sleep 300") && c.contains(marker)
        })
}
