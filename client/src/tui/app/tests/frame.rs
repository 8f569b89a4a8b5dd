//! Title-bar buttons, the scrollbar, shared borders and pill caps, as drawn and clicked.

use super::*;
use crate::tui::model::WinButton;

fn set(app: &mut App, path: &str, value: &str) {
    app.on_request(
        1,
        RoutedRequest::SetOption {
            path: path.into(),
            value: value.into(),
        },
    );
}

fn click(app: &mut App, x: u16, y: u16) {
    // Reports are 1-based.
    for b in [MouseButtons::LEFT, MouseButtons::NONE] {
        app.on_input(InputEvent::Mouse(MouseEvent {
            x: x + 1,
            y: y + 1,
            mouse_buttons: b,
            modifiers: Modifiers::NONE,
        }));
    }
}

/// Draws a frame and keeps its click targets, as the run loop does.
fn frame(app: &mut App) -> Vec<String> {
    let (lines, hits) = draw(app);
    app.end_frame(Some(hits));
    lines
}

fn button(hits: &Hits, id: &str, k: WinButton) -> Option<Rect> {
    hits.targets
        .iter()
        .find(|(_, t)| *t == Target::Button(id.into(), k))
        .map(|(r, _)| *r)
}

#[test]
fn title_bar_buttons_are_drawn_and_act_on_their_window() {
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    take(&mut app);
    let (lines, hits) = draw(&app);
    // b spans columns 50-99: the pill ends two cells before its right edge.
    assert_eq!(
        button(&hits, "b", WinButton::Close),
        Some(Rect::new(95, 0, 3, 1))
    );
    assert_eq!(
        &lines[0].chars().skip(89).take(9).collect::<String>(),
        " −  □  × "
    );
    app.end_frame(Some(hits));

    // Close asks first, as the key does, about the button's window.
    click(&mut app, 96, 0);
    assert!(take(&mut app).contains(&ClientOp::Command {
        name: "FocusWindow".into(),
        args: vec!["b".into()]
    }));
    assert!(matches!(
        &app.overlay,
        Overlay::Confirm { yes: Confirmed::Close(id), .. } if id == "b"
    ));
    app.overlay = Overlay::None;

    frame(&mut app);
    let min = button(&app.hits, "a", WinButton::Minimize).unwrap();
    click(&mut app, min.x, min.y);
    assert!(take(&mut app).contains(&ClientOp::Command {
        name: "MinimizeWindow".into(),
        args: vec!["a".into()]
    }));

    frame(&mut app);
    let zoom = button(&app.hits, "b", WinButton::Zoom).unwrap();
    click(&mut app, zoom.x, zoom.y);
    let ws = app.session.current_workspace;
    assert_eq!(
        app.layout.workspace(ws).unwrap().zoomed.as_deref(),
        Some("b")
    );
}

#[test]
fn buttons_follow_their_options() {
    let mut app = attached(vec![win("a", 1)], "a");
    set(&mut app, "appearance.window_button_position", "left");
    set(&mut app, "appearance.window_button_style", "dots");
    let (lines, hits) = draw(&app);
    assert_eq!(
        button(&hits, "a", WinButton::Close),
        Some(Rect::new(2, 0, 1, 1))
    );
    assert!(lines[0].starts_with("╭─● ● ●─ a "), "{}", lines[0]);
    set(&mut app, "appearance.hide_window_buttons", "true");
    let (lines, hits) = draw(&app);
    assert!(hits
        .targets
        .iter()
        .all(|(_, t)| !matches!(t, Target::Button(..))));
    assert!(!lines[0].contains('●'), "{}", lines[0]);
}

#[test]
fn the_scrollbar_sits_at_the_bottom_live_and_moves_in_copy_mode() {
    let mut app = attached(vec![win("a", 1)], "a");
    take(&mut app);
    // The frame is rows 0-28: the track is rows 1-27 of column 99.
    let col = |lines: &[String], y: usize| lines[y].chars().nth(99).unwrap();
    let lines = frame(&mut app);
    assert_eq!(col(&lines, 27), '┃');
    assert_eq!(col(&lines, 26), '│');

    app.on_key(key('['));
    take(&mut app);
    let rows: Vec<Row> = (0..500).map(|_| Row::default()).collect();
    app.on_op(DaemonOp::Scrollback {
        window: "a".into(),
        first: 500,
        rows,
        more: true,
        oldest: Some(0),
    });
    // 1027 rows kept, the view on the last 27: still at the bottom.
    let lines = frame(&mut app);
    assert_eq!(col(&lines, 27), '┃');
    app.on_key(key('g'));
    // At the top of what is loaded, which is half way back.
    let lines = frame(&mut app);
    let at: Vec<usize> = (1..28).filter(|y| col(&lines, *y) == '┃').collect();
    assert_eq!(at.len(), 1, "{at:?}");
    assert!((12..=15).contains(&at[0]), "{at:?}");

    set(&mut app, "appearance.scrollbar.style", "track");
    set(&mut app, "appearance.scrollbar.thumb", "#");
    let lines = frame(&mut app);
    assert_eq!(col(&lines, at[0]), '#');
    assert_eq!(col(&lines, 1), '░');
    set(&mut app, "appearance.hide_scrollbar", "true");
    let lines = frame(&mut app);
    assert!((1..28).all(|y| col(&lines, y) == '│'));
}

#[test]
fn shared_borders_overlap_tiles_by_one_line() {
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    assert_eq!(app.frames[0].rect, Rect::new(0, 0, 50, 29));
    set(&mut app, "appearance.shared_borders", "true");
    assert_eq!(app.frames[0].rect, Rect::new(0, 0, 51, 29));
    assert_eq!(app.frames[1].rect, Rect::new(50, 0, 50, 29));
    let (lines, _) = draw(&app);
    assert_eq!(lines[5].chars().filter(|c| *c == '│').count(), 3);
    assert_eq!(lines[0].chars().nth(50), Some('┬'), "{}", lines[0]);
    assert_eq!(lines[28].chars().nth(50), Some('┴'), "{}", lines[28]);
}

#[test]
fn pill_caps_round_the_current_workspace_and_the_badge() {
    let mut app = attached(vec![win("a", 1)], "a");
    let (lines, _) = draw(&app);
    assert!(!lines[29].contains('▐'), "{}", lines[29]);
    set(&mut app, "appearance.dock_pill_caps", "true");
    let (lines, _) = draw(&app);
    assert_eq!(lines[29].matches('▐').count(), 2, "{}", lines[29]);
    assert!(lines[29].contains("▐WM▌"), "{}", lines[29]);
}

#[test]
fn a_cut_workspace_name_shows_in_full_under_the_pointer() {
    let mut app = attached(vec![win("a", 1)], "a");
    let mut s = state(vec![win("a", 1)], "a", 2);
    s.workspace_names
        .insert(1, "a workspace with a long name".into());
    app.on_op(DaemonOp::State { state: s });
    let lines = frame(&mut app);
    assert!(
        lines[29].contains(" 1:a workspace wit… "),
        "cut to 16 columns: {}",
        lines[29]
    );
    let tab = app
        .hits
        .targets
        .iter()
        .find(|(_, t)| *t == Target::Workspace(1))
        .map(|(r, _)| *r)
        .unwrap();
    let hover = |app: &mut App, x: u16, y: u16| {
        app.on_input(InputEvent::Mouse(MouseEvent {
            x: x + 1,
            y: y + 1,
            mouse_buttons: MouseButtons::NONE,
            modifiers: Modifiers::NONE,
        }))
    };
    app.dirty = false;
    hover(&mut app, tab.x + 2, tab.y);
    assert!(app.dirty, "entering a tab redraws");
    let lines = frame(&mut app);
    assert!(
        lines[28].contains(" 1:a workspace with a long name "),
        "{}",
        lines[28]
    );
    // Moving within the tab draws nothing new; leaving it takes the tooltip away.
    app.dirty = false;
    hover(&mut app, tab.x + 3, tab.y);
    assert!(!app.dirty);
    hover(&mut app, 50, 10);
    assert!(app.dirty);
    let lines = frame(&mut app);
    assert!(!lines[28].contains("long name"), "{}", lines[28]);
    // Off: the name stays cut whatever the pointer does.
    set(&mut app, "appearance.dock_workspace_tooltip", "false");
    frame(&mut app);
    hover(&mut app, tab.x + 2, tab.y);
    let lines = frame(&mut app);
    assert!(!lines[28].contains("long name"), "{}", lines[28]);
}
