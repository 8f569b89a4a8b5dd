use super::*;

fn window(name: &str, workspace: i64, agent: &str) -> WindowFacts {
    WindowFacts {
        name: name.into(),
        workspace,
        agent_state: agent.into(),
    }
}

fn base() -> Snapshot {
    let mut windows = BTreeMap::new();
    windows.insert("w1".to_string(), window("shell", 1, ""));
    Snapshot {
        session: "work".into(),
        workspace: 1,
        focused: Some("w1".into()),
        windows,
        layout: "bsp",
        size: (80, 24),
    }
}

fn events(fires: &[Fire]) -> Vec<&'static str> {
    fires.iter().map(|f| f.event).collect()
}

#[test]
fn nothing_changed_fires_nothing() {
    assert!(changes(&base(), &base()).is_empty());
}

#[test]
fn a_new_focused_window_fires_new_then_focus() {
    let mut next = base();
    next.windows.insert("w2".into(), window("logs", 1, ""));
    next.focused = Some("w2".into());
    let fires = changes(&base(), &next);
    assert_eq!(events(&fires), ["after-new-window", "after-focus-change"]);
    assert_eq!(fires[0].get("TUIOS_WINDOW_ID"), Some("w2"));
    assert_eq!(fires[0].get("TUIOS_WINDOW_NAME"), Some("logs"));
    assert_eq!(fires[0].get("TUIOS_SESSION_ID"), Some("work"));
    assert_eq!(fires[0].get("TUIOS_EVENT"), Some("after-new-window"));
}

#[test]
fn a_closed_window_is_told_with_its_last_name() {
    let mut next = base();
    next.windows.clear();
    next.focused = None;
    let fires = changes(&base(), &next);
    assert_eq!(events(&fires), ["after-close-window"]);
    assert_eq!(fires[0].get("TUIOS_WINDOW_NAME"), Some("shell"));
}

#[test]
fn workspace_switch_carries_the_previous_one() {
    let mut next = base();
    next.workspace = 3;
    next.focused = None;
    let fires = changes(&base(), &next);
    assert_eq!(events(&fires), ["after-workspace-switch"]);
    assert_eq!(fires[0].get("TUIOS_WORKSPACE"), Some("3"));
    assert_eq!(fires[0].get("TUIOS_PREV_WORKSPACE"), Some("1"));
}

#[test]
fn layout_resize_and_agent_state_each_fire() {
    let mut next = base();
    next.layout = "floating";
    next.size = (120, 40);
    next.windows.get_mut("w1").unwrap().agent_state = "working".into();
    let fires = changes(&base(), &next);
    assert_eq!(
        events(&fires),
        ["after-layout-change", "after-resize", "after-agent-state"]
    );
    assert_eq!(fires[0].get("TUIOS_LAYOUT"), Some("floating"));
    assert_eq!(fires[1].get("TUIOS_WIDTH"), Some("120"));
    assert_eq!(fires[1].get("TUIOS_HEIGHT"), Some("40"));
    assert_eq!(fires[2].get("TUIOS_AGENT_STATE"), Some("working"));
    assert_eq!(fires[2].get("TUIOS_AGENT_PREV_STATE"), Some(""));
}

#[test]
fn another_session_is_not_a_change() {
    let mut next = base();
    next.session = "other".into();
    next.windows.clear();
    assert!(changes(&base(), &next).is_empty());
}

#[test]
fn config_takes_strings_and_lists_and_warns_about_unknown_events() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(
        &path,
        "[hooks]\nafter-new-window = \"echo one\"\nafter-resize = [\"echo a\", \"echo b\", \" \"]\n\
         after-nothing = \"echo x\"\n[keybindings]\nleader_key = \"ctrl+a\"\n",
    )
    .unwrap();
    let (hooks, warnings) = Hooks::load(Some(&path));
    assert_eq!(hooks.commands["after-new-window"], ["echo one"]);
    assert_eq!(hooks.commands["after-resize"], ["echo a", "echo b"]);
    assert_eq!(hooks.commands.len(), 2);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("after-nothing"), "{warnings:?}");
}

#[test]
fn no_file_means_no_hooks() {
    let (hooks, warnings) = Hooks::load(Some(Path::new("/nonexistent/tuios/config.toml")));
    assert!(hooks.is_empty());
    assert!(warnings.is_empty());
}
