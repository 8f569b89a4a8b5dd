//! Issue 20 items 1 and 2 end to end against the real daemon: every option of the reference
//! TUIOS is published by list-options with its type, default and range; each one round-trips
//! through set-option and get-option as the string sent; ranges still refuse; options tuios
//! does not act on say so; and list-themes reports the generated catalogue.

use serde_json::{json, Value};
use tuios_integration_tests::*;

/// The reference's 86 option paths, with type and default.
const GO_OPTIONS: [(&str, &str, &str); 86] = [
    ("appearance.alt_drag", "bool", "true"),
    ("appearance.animations_enabled", "bool", "true"),
    ("appearance.border_focused_color", "string", ""),
    ("appearance.border_style", "string", "rounded"),
    ("appearance.border_unfocused_color", "string", ""),
    ("appearance.click_to_type", "string", "single"),
    ("appearance.confirm_quit", "bool", "false"),
    ("appearance.copy_on_select", "bool", "true"),
    ("appearance.dock_pill_caps", "bool", "false"),
    ("appearance.dock_workspace_tab_format", "string", ""),
    ("appearance.dock_workspace_tabs", "bool", "true"),
    ("appearance.dock_workspace_tooltip", "bool", "true"),
    ("appearance.dockbar_position", "string", "bottom"),
    ("appearance.focus_follows_mouse", "bool", "false"),
    ("appearance.hide_clock", "bool", "false"),
    ("appearance.hide_scrollbar", "bool", "false"),
    ("appearance.hide_window_buttons", "bool", "false"),
    ("appearance.max_fps", "int", "0"),
    ("appearance.niri_reverse_scroll", "bool", "false"),
    ("appearance.preferred_shell", "string", ""),
    ("appearance.scroll_lines", "int", "3"),
    ("appearance.scrollback_lines", "int", "10000"),
    ("appearance.scrollbar.style", "string", "thin"),
    ("appearance.scrollbar.thumb", "string", ""),
    ("appearance.scrollbar.tint", "string", "quiet"),
    ("appearance.scrollbar.track", "string", ""),
    ("appearance.session_colors", "bool", "true"),
    ("appearance.shared_borders", "bool", "false"),
    ("appearance.show_clock", "bool", "false"),
    ("appearance.show_cpu", "bool", "false"),
    ("appearance.show_ram", "bool", "false"),
    ("appearance.sidebar.enabled", "bool", "false"),
    ("appearance.sidebar.marquee", "bool", "true"),
    ("appearance.sidebar.position", "string", "left"),
    ("appearance.sidebar.show_agents", "bool", "true"),
    ("appearance.sidebar.show_counts", "bool", "true"),
    ("appearance.sidebar.show_glyphs", "bool", "true"),
    ("appearance.sidebar.show_windows", "bool", "true"),
    ("appearance.sidebar.tooltips", "bool", "true"),
    ("appearance.sidebar.width", "int", "28"),
    ("appearance.sidebar.workspaces", "string", ""),
    ("appearance.sidebar_enabled", "bool", "false"),
    ("appearance.sidebar_position", "string", ""),
    ("appearance.sidebar_show_counts", "bool", "true"),
    ("appearance.sidebar_show_glyphs", "bool", "true"),
    ("appearance.sidebar_show_windows", "bool", "true"),
    ("appearance.sidebar_width", "int", "0"),
    ("appearance.theme", "string", ""),
    ("appearance.whichkey_enabled", "bool", "true"),
    ("appearance.whichkey_position", "string", ""),
    ("appearance.window_button_position", "string", "right"),
    ("appearance.window_button_style", "string", "pill"),
    ("appearance.window_title_format", "string", ""),
    ("appearance.window_title_position", "string", ""),
    ("appearance.word_characters", "string", "@-./_~?&=%+#"),
    ("appearance.zen_mode", "string", "disabled"),
    ("appearance.zoom_max_width", "int", "0"),
    ("daemon.agent_autodetect", "bool", "true"),
    ("daemon.agent_detect_seconds", "int", "0"),
    ("daemon.log_level", "string", "off"),
    ("debug.show_key_events", "bool", "false"),
    ("notifications.agent.command", "string", ""),
    ("notifications.agent.dock", "bool", "true"),
    ("notifications.agent.enabled", "bool", "true"),
    ("notifications.agent.notify", "bool", "true"),
    ("notifications.agent.quiet_hours", "string", ""),
    ("notifications.agent.settle_seconds", "int", "2"),
    ("notifications.agent.sound", "bool", "false"),
    ("notifications.agent.sound_cooldown_seconds", "int", "3"),
    ("notifications.agent.sound_mode", "string", ""),
    ("notifications.agent.states.done", "bool", "true"),
    ("notifications.agent.states.errored", "bool", "true"),
    ("notifications.agent.states.idle", "bool", "false"),
    ("notifications.agent.states.needs_input", "bool", "true"),
    ("notifications.agent.states.working", "bool", "false"),
    ("notifications.agent.suppress_focused", "bool", "true"),
    ("notifications.duration", "int", "0"),
    ("notifications.error_duration", "int", "0"),
    ("notifications.error_sticky", "bool", "true"),
    ("notifications.warning_duration", "int", "0"),
    ("startup.daemon", "bool", "false"),
    ("startup.open_default_window", "bool", "false"),
    ("startup.start_in_terminal_mode", "bool", "false"),
    ("startup.tiled", "bool", "false"),
    ("tape.auto_review", "bool", "false"),
    ("tape.autorun", "string", "ask"),
];

fn rows(result: &Value) -> Vec<Value> {
    result["options"].as_array().expect("options array").clone()
}

/// A value of the row's type that validation must accept and that differs from the default
/// where it can: the bool word `on` (recorded as sent), an in-range int, a member of the
/// closed set, a colour, a theme, or free text.
fn sample(row: &Value) -> String {
    let path = row["path"].as_str().unwrap();
    let default = row["default"].as_str().unwrap();
    match row["type"].as_str().unwrap() {
        "bool" => if default == "true" { "off" } else { "on" }.to_string(),
        "int" => match row["max"].as_i64() {
            Some(max) => max.to_string(),
            None => "7".to_string(),
        },
        _ => {
            if path == "appearance.theme" {
                return "dracula".to_string();
            }
            if path.ends_with("_color") {
                return "#12ab34".to_string();
            }
            if path == "appearance.preferred_shell" {
                return "/bin/sh".to_string();
            }
            if path == "recording.auto" {
                // A directory, absolute; the test opens no window after setting it.
                let dir = std::env::temp_dir().join(format!("tuios-parity-{}", std::process::id()));
                return dir.to_string_lossy().into_owned();
            }
            match row["accepted"].as_array() {
                Some(acc) => acc
                    .iter()
                    .map(|v| v.as_str().unwrap().to_string())
                    .find(|v| v != default)
                    .expect("a second accepted value"),
                None => "{title} x".to_string(),
            }
        }
    }
}

#[test]
fn every_reference_option_is_listed_with_type_and_default() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let all = conn.ok("list-options", Value::Null);
    let rows = rows(&all);
    assert_eq!(all["total"], rows.len(), "{all}");
    assert_eq!(
        strings(&all["sections"]),
        [
            "appearance",
            "daemon",
            "debug",
            "dock",
            "notifications",
            "recording",
            "scrollbar",
            "sidebar",
            "startup",
            "tape"
        ]
    );
    for (path, ty, default) in GO_OPTIONS {
        let row = rows
            .iter()
            .find(|r| r["path"] == path)
            .unwrap_or_else(|| panic!("{path} is not listed: {all}"));
        assert_eq!(row["type"], ty, "{row}");
        assert_eq!(row["default"], default, "{row}");
        assert!(
            ["client", "daemon", "inert"].contains(&row["applies"].as_str().unwrap_or("")),
            "{row}"
        );
        if row["applies"] == "inert" {
            assert!(
                row["inert"].as_str().is_some_and(|w| !w.is_empty()),
                "{row}"
            );
        }
    }
    // Ranges are published where enforced, and the deprecated spellings say what replaces them.
    let row = |p: &str| rows.iter().find(|r| r["path"] == p).unwrap().clone();
    let sb = row("appearance.scrollback_lines");
    assert_eq!(
        (sb["min"].as_i64(), sb["max"].as_i64()),
        // The reference stops at 1,000,000; history on disk lets tuios keep far more.
        (Some(100), Some(100_000_000))
    );
    assert!(row("appearance.zoom_max_width").get("max").is_none());
    assert!(row("appearance.hide_clock")["deprecated"]
        .as_str()
        .is_some_and(|d| d.contains("appearance.show_clock")));
    let tail = conn.ok("list-options", json!({"section": "tape"}));
    assert_eq!(tail["total"], 2, "{tail}");
}

#[test]
fn every_option_round_trips_as_sent_and_ranges_refuse() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("parity");
    let mut conn = daemon.conn();
    let all = conn.ok("list-options", Value::Null);
    for row in rows(&all) {
        let path = row["path"].as_str().unwrap().to_string();
        let value = sample(&row);
        let set = conn.ok(
            "set-option",
            json!({"session": session, "key": path, "value": value}),
        );
        assert_eq!(set["key"], path, "{set}");
        assert_eq!(set["value"], value, "recorded as sent: {set}");
        if row["applies"] == "inert" {
            assert_eq!(set["applied"], false, "{set}");
            assert!(
                set["reason"]
                    .as_str()
                    .is_some_and(|r| r.contains("nothing in tuios")),
                "{set}"
            );
        }
        let got = conn.ok("get-option", json!({"session": session, "key": path}));
        assert_eq!(got["value"], value, "{got}");
        assert_eq!(got["source"], "session", "{got}");
        assert_eq!(got["option_type"], row["type"], "{got}");

        // Out of range, and not of the type at all.
        if let (Some(min), Some(max)) = (row["min"].as_i64(), row["max"].as_i64()) {
            for bad in [min - 1, max + 1] {
                let e = conn.err_code(
                    "set-option",
                    json!({"session": session, "key": path, "value": bad.to_string()}),
                    "invalid_params",
                );
                assert!(e["message"].as_str().unwrap().contains("outside"), "{e}");
            }
        }
        let nonsense = match row["type"].as_str().unwrap() {
            "bool" => Some("maybe"),
            "int" => Some("lots"),
            _ if row["accepted"].is_array() => Some("no-such-choice"),
            _ => None,
        };
        if let Some(bad) = nonsense {
            conn.err_code(
                "set-option",
                json!({"session": session, "key": path, "value": bad}),
                "invalid_params",
            );
        }
        // A refused value recorded nothing.
        let again = conn.ok("get-option", json!({"session": session, "key": path}));
        assert_eq!(again["value"], value, "{again}");
    }
    // The overrides show in list-options.
    let listed = conn.ok(
        "list-options",
        json!({"session": session, "prefix": "tape."}),
    );
    assert_eq!(rows(&listed)[0]["path"], "tape.auto_review", "{listed}");
    assert_eq!(rows(&listed)[0]["session_value"], "on", "{listed}");
}

#[test]
fn list_themes_reports_the_generated_catalogue() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.conn();
    let all = conn.ok("list-themes", Value::Null);
    let total = all["total"].as_u64().unwrap();
    assert!(total >= 330, "{all}");
    assert_eq!(all["truncated"], true, "{all}");
    for id in [
        "adventure_time",
        "i_term_2_dark_background",
        "solarized_dark___patched",
        "zenburn",
    ] {
        let one = conn.ok("list-themes", json!({"theme": id}));
        let palette = &one["palette"];
        assert_eq!(palette["id"], id, "{one}");
        assert_eq!(
            palette["swatches"].as_array().map(Vec::len),
            Some(18),
            "{one}"
        );
    }
    let cobalt = conn.ok("list-themes", json!({"filter": "cobalt"}));
    assert_eq!(
        strings(&cobalt["themes"]),
        ["cobalt_2", "cobalt_neon"],
        "{cobalt}"
    );
}

/// Options the attached client acts on, seen through a real client in tmux: the dock's memory
/// figure, the window-title template, and an agent alert that runs its command.
#[test]
fn the_attached_client_acts_on_reference_options() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("acts");
    let mut conn = daemon.conn();
    let out = daemon.dir().join("alert.txt");
    let command = format!(
        "printf '%s %s %s' \"$TUIOS_AGENT_STATE\" \"$TUIOS_AGENT_PREV_STATE\" \"$TUIOS_WINDOW_ID\" > {}",
        out.display()
    );
    for (key, value) in [
        ("appearance.show_ram", "on"),
        ("appearance.window_title_format", "#{index} {title}"),
        ("notifications.agent.settle_seconds", "0"),
        ("notifications.agent.suppress_focused", "off"),
        ("notifications.agent.command", command.as_str()),
    ] {
        conn.ok(
            "set-option",
            json!({"session": session, "key": key, "value": value}),
        );
    }
    let client = TmuxClient::start(daemon.env(), &session, 100, 30);
    // The figure sits after the mode badge, at the dock's right end.
    let screen = client.wait_screen("the dock's memory figure", |s| {
        s.lines()
            .any(|l| l.contains(" TERM ") && l.contains(" ram ") && l.ends_with('%'))
    });
    assert!(screen.contains("#1 "), "the title template:\n{screen}");

    conn.ok(
        "set-agent-state",
        json!({"session": session, "window": window, "state": "needs_input"}),
    );
    let said = poll(READ_TIMEOUT, "the alert command's file", || {
        std::fs::read_to_string(&out).map_err(|e| e.to_string())
    });
    assert_eq!(said, format!("needs_input none {window}"));
    // The dock shows the alert too, in the title's words.
    client.wait_for(": needs input");
}
