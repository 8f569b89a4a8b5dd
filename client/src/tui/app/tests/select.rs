//! Mouse selection (`appearance.copy_on_select`, `word_characters`), focus following the mouse,
//! windows opening (`animations_enabled`).

use super::*;

fn mouse(x: u16, y: u16, buttons: MouseButtons, mods: Modifiers) -> InputEvent {
    InputEvent::Mouse(MouseEvent {
        x,
        y,
        mouse_buttons: buttons,
        modifiers: mods,
    })
}

/// Window a alone (content from column 1, row 1; 1-based 2, 2) showing `text` on its first row.
fn one_window(options: &[(&str, &str)], text: &str, mouse_app: bool) -> App {
    let mut a = win("a", 1);
    a.modes.mouse = mouse_app;
    a.modes.sgr_mouse = mouse_app;
    let mut st = state(vec![a], "a", 1);
    st.options = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut app = App::new(keys(), (100, 30));
    app.on_op(DaemonOp::Attached { state: st });
    let DaemonOp::Screen(mut u) = full_screen("a", 98, 27, ' ') else {
        unreachable!()
    };
    u.lines[0].1.runs[0].text = format!("{text:<98}");
    app.on_op(DaemonOp::Screen(u));
    take(&mut app);
    app
}

fn drag(app: &mut App, from: (u16, u16), to: (u16, u16), mods: Modifiers) {
    app.on_input(mouse(from.0, from.1, MouseButtons::LEFT, mods));
    app.on_input(mouse(to.0, to.1, MouseButtons::LEFT, mods));
    app.on_input(mouse(to.0, to.1, MouseButtons::NONE, mods));
}

#[test]
fn a_drag_selects_and_copies_on_release() {
    let mut app = one_window(&[], "hello brave world", false);
    // Columns 6..=10 of the content: "brave".
    app.on_input(mouse(8, 2, MouseButtons::LEFT, Modifiers::NONE));
    assert!(app.copy.is_none(), "a press alone selects nothing");
    app.on_input(mouse(12, 2, MouseButtons::LEFT, Modifiers::NONE));
    // Highlighted while dragging.
    assert_eq!(app.copy.as_ref().unwrap().selection_on(0), Some((6, 11)));
    app.on_input(mouse(12, 2, MouseButtons::NONE, Modifiers::NONE));
    assert_eq!(app.clipboard, vec!["brave".to_string()]);
    assert!(app.copy.is_none());
    // Nothing reached the program.
    assert!(!take(&mut app)
        .iter()
        .any(|op| matches!(op, ClientOp::Input { .. })));
}

#[test]
fn without_copy_on_select_the_selection_waits_for_y() {
    let mut app = one_window(&[("appearance.copy_on_select", "false")], "hello", false);
    drag(&mut app, (2, 2), (6, 2), Modifiers::NONE);
    assert!(app.clipboard.is_empty());
    assert!(app.copy.as_ref().is_some_and(|c| c.has_selection()));
    app.on_key(key('y'));
    assert_eq!(app.clipboard, vec!["hello".to_string()]);
}

#[test]
fn a_mouse_app_gets_the_drag_unless_shift_is_held() {
    let mut app = one_window(&[], "hello", true);
    drag(&mut app, (2, 2), (6, 2), Modifiers::NONE);
    assert!(app.clipboard.is_empty());
    assert!(take(&mut app)
        .iter()
        .any(|op| matches!(op, ClientOp::Input { .. })));
    drag(&mut app, (2, 2), (6, 2), Modifiers::SHIFT);
    assert_eq!(app.clipboard, vec!["hello".to_string()]);
    assert!(!take(&mut app)
        .iter()
        .any(|op| matches!(op, ClientOp::Input { .. })));
}

#[test]
fn a_double_click_selects_a_word_with_the_word_characters() {
    let click = |app: &mut App| {
        app.on_input(mouse(12, 2, MouseButtons::LEFT, Modifiers::NONE));
        app.on_input(mouse(12, 2, MouseButtons::NONE, Modifiers::NONE));
    };
    let mut app = one_window(&[], "see a-b/c.d now", false);
    click(&mut app);
    assert!(app.clipboard.is_empty());
    click(&mut app);
    assert_eq!(app.clipboard, vec!["a-b/c.d".to_string()]);
    let mut app = one_window(
        &[("appearance.word_characters", "")],
        "see a-b/c.d now",
        false,
    );
    click(&mut app);
    click(&mut app);
    assert_eq!(app.clipboard, vec!["d".to_string()]);
}

#[test]
fn focus_follows_the_mouse_only_when_on() {
    let motion = |app: &mut App, x| app.on_input(mouse(x, 5, MouseButtons::NONE, Modifiers::NONE));
    let focus_b = ClientOp::Command {
        name: "FocusWindow".into(),
        args: vec!["b".into()],
    };
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    take(&mut app);
    motion(&mut app, 70);
    assert!(!take(&mut app).contains(&focus_b));
    let mut st = app.session.clone();
    st.version += 1;
    st.options
        .insert("appearance.focus_follows_mouse".into(), "true".into());
    app.on_op(DaemonOp::State { state: st });
    take(&mut app);
    motion(&mut app, 70);
    assert!(take(&mut app).contains(&focus_b));
    // Moving within the focused window sends nothing more.
    motion(&mut app, 72);
    assert!(not_sizes(take(&mut app)).is_empty());
}

#[test]
fn a_new_window_opens_animated_unless_animations_are_off() {
    for (animations, expect) in [("true", true), ("false", false)] {
        let mut st = state(vec![win("a", 1)], "a", 1);
        st.options
            .insert("appearance.animations_enabled".into(), animations.into());
        let mut app = App::new(keys(), (100, 30));
        app.on_op(DaemonOp::Attached { state: st.clone() });
        // Nothing opens at attach.
        assert!(app.view().opening.is_empty());
        st.version += 1;
        st.windows.push(win("b", 1));
        app.on_op(DaemonOp::State { state: st });
        let opening = app.view().opening;
        assert_eq!(!opening.is_empty(), expect, "animations {animations}");
        if expect {
            let frame = app.frames.iter().find(|f| f.id == "b").unwrap().rect;
            let (_, now) = &opening[0];
            assert!(now.w < frame.w && now.h <= frame.h, "{now:?} {frame:?}");
            // The timer asks for frames while it runs, and ends it.
            let soon = Instant::now();
            assert!(app
                .tick(soon)
                .is_some_and(|t| t <= soon + Duration::from_millis(16)));
            app.tick(soon + Duration::from_secs(1));
            assert!(app.view().opening.is_empty());
        }
    }
}
