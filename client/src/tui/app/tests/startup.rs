//! Options that act when a client starts or closes windows: `startup.start_in_terminal_mode`,
//! `startup.tiled`, `appearance.confirm_quit`, `appearance.zen_mode`.

use super::*;

fn attach_with(options: &[(&str, &str)], layout: Option<String>) -> App {
    let mut st = state(vec![win("a", 1), win("b", 1)], "a", 1);
    st.options = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    st.layout = layout;
    let mut app = App::new(keys(), (100, 30));
    app.on_op(DaemonOp::Attached { state: st });
    app
}

#[test]
fn start_in_terminal_mode_false_starts_in_window_management() {
    assert_eq!(attach_with(&[], None).mode(), InputMode::Terminal);
    let app = attach_with(&[("startup.start_in_terminal_mode", "false")], None);
    assert_eq!(app.mode(), InputMode::WindowManagement);
    let app = attach_with(&[("startup.start_in_terminal_mode", "true")], None);
    assert_eq!(app.mode(), InputMode::Terminal);
}

#[test]
fn tiled_false_floats_a_session_no_client_arranged() {
    assert!(attach_with(&[], None).layout.tiling(1));
    let app = attach_with(&[("startup.tiled", "false")], None);
    assert!(!app.layout.tiling(1));
    // A session some client already arranged keeps its arrangement.
    let arranged = attach_with(&[], None).layout.to_json();
    let app = attach_with(&[("startup.tiled", "false")], Some(arranged));
    assert!(app.layout.tiling(1));
}

fn leader_x(app: &mut App) {
    app.on_key(KeyEvent {
        key: KeyCode::Char('b'),
        modifiers: Modifiers::CTRL,
    });
    app.on_key(key('x'));
}

#[test]
fn an_ended_program_closes_at_once_unless_confirm_quit() {
    let mut st = state(vec![win("a", 1)], "a", 1);
    st.windows[0].alive = false;
    let mut app = App::new(keys(), (100, 30));
    app.on_op(DaemonOp::Attached { state: st.clone() });
    take(&mut app);
    leader_x(&mut app);
    assert_eq!(
        not_sizes(take(&mut app)),
        vec![ClientOp::Command {
            name: "CloseWindow".into(),
            args: vec!["a".into()]
        }]
    );
    assert!(matches!(app.overlay, Overlay::None));

    st.options
        .insert("appearance.confirm_quit".into(), "true".into());
    st.version = 2;
    app.on_op(DaemonOp::State { state: st });
    take(&mut app);
    leader_x(&mut app);
    assert!(matches!(app.overlay, Overlay::Confirm { .. }));
    assert!(not_sizes(take(&mut app)).is_empty());
}

#[test]
fn zen_mode_always_hides_the_borders() {
    assert!(attach_with(&[], None).bordered());
    assert!(!attach_with(&[("appearance.zen_mode", "always")], None).bordered());
    assert!(attach_with(&[("appearance.zen_mode", "mouse")], None).bordered());
}

#[test]
fn whichkey_opens_when_the_leader_waits_and_goes_with_the_next_key() {
    let mut app = attach_with(&[], None);
    let leader = KeyEvent {
        key: KeyCode::Char('b'),
        modifiers: Modifiers::CTRL,
    };
    app.on_key(leader.clone());
    let now = Instant::now();
    app.tick(now);
    assert!(app.view().whichkey.is_none(), "not at once");
    assert!(app.tick(now).is_some(), "a timer for the popup");
    app.tick(now + Duration::from_millis(600));
    assert_eq!(app.view().whichkey, Some("bottom-right"));
    app.on_key(key('n'));
    assert!(app.view().whichkey.is_none());

    let mut off = attach_with(&[("appearance.whichkey_enabled", "false")], None);
    off.on_key(leader);
    off.tick(Instant::now() + Duration::from_secs(2));
    assert!(off.view().whichkey.is_none());
}

#[test]
fn open_default_window_opens_one_in_an_empty_session() {
    let attach = |options: &[(&str, &str)], windows: Vec<WindowView>| {
        let mut st = state(windows, "", 1);
        st.focused = None;
        st.options = options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut app = App::new(keys(), (100, 30));
        app.on_op(DaemonOp::Attached { state: st });
        not_sizes(take(&mut app))
    };
    let new_window = ClientOp::Command {
        name: "NewWindow".into(),
        args: vec![],
    };
    let on = [("startup.open_default_window", "true")];
    assert!(attach(&on, vec![]).contains(&new_window));
    assert!(!attach(&[], vec![]).contains(&new_window));
    assert!(!attach(&on, vec![win("a", 1)]).contains(&new_window));
}
