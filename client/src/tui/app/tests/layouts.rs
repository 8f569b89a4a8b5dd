//! Tiling layouts other than the split tree: master-stack and the scrolling strip, chosen by
//! request and by key, and the wheel over the strip.

use super::*;
use crate::tui::layout::master_stack;

fn set_layout(app: &mut App, request: u64, layout: &str) -> String {
    app.on_request(
        request,
        RoutedRequest::Layout {
            tiling: None,
            equalize: false,
            rotate: false,
            layout: Some(layout.into()),
        },
    );
    take(app)
        .into_iter()
        .find_map(|op| match op {
            ClientOp::Reply {
                request: r,
                ok,
                message,
                data,
            } if r == request => Some(if ok {
                data.unwrap_or_default()
            } else {
                message
            }),
            _ => None,
        })
        .expect("a reply")
}

fn shown(app: &App) -> Vec<(String, Rect)> {
    app.frames.iter().map(|f| (f.id.clone(), f.rect)).collect()
}

#[test]
fn master_stack_by_request_puts_one_pane_left_and_stacks_the_rest() {
    let mut app = attached(vec![win("a", 1), win("b", 1), win("c", 1)], "a");
    take(&mut app);
    let area = app.windows_area();
    let reply = set_layout(&mut app, 1, "master-stack");
    let reply: Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(reply["layout_mode"], "master-stack", "{reply}");
    assert_eq!(reply["tiling_mode"], "tiling", "{reply}");
    assert_eq!(reply["master_ratio"], 0.5, "{reply}");
    assert_eq!(app.layout_mode(), "master-stack");
    let order = app
        .layout
        .workspace(1)
        .unwrap()
        .tree
        .as_ref()
        .unwrap()
        .leaves();
    assert_eq!(shown(&app), master_stack(&order, area, MASTER_RATIO));
    assert_eq!(app.frames[0].rect.h, area.h, "the master is full height");
    // The shared layout names the mode, which is what the daemon reports.
    let json = app.layout.to_json();
    assert!(json.contains("\"mode\":\"master-stack\""), "{json}");

    let refused = set_layout(&mut app, 2, "spiral");
    assert!(refused.contains("not a layout"), "{refused}");
}

#[test]
fn the_strip_scrolls_to_the_focused_column() {
    let mut app = attached(vec![win("a", 1), win("b", 1), win("c", 1)], "a");
    take(&mut app);
    set_layout(&mut app, 1, "scrolling");
    let order = app
        .layout
        .workspace(1)
        .unwrap()
        .tree
        .as_ref()
        .unwrap()
        .leaves();
    let ids = |app: &App| -> Vec<String> { app.frames.iter().map(|f| f.id.clone()).collect() };
    let first_view = ids(&app);
    assert_eq!(first_view.len(), 2, "two columns in view");
    assert!(
        first_view.contains(&"a".to_string()),
        "the focused one is in view"
    );
    // Walk right along the strip to its end: the view follows, one column at a time.
    let last = order.last().unwrap().clone();
    for _ in 0..order.len() {
        app.on_key(key('l'));
    }
    assert_eq!(app.session.focused.as_deref(), Some(last.as_str()));
    assert_eq!(ids(&app), order[order.len() - 2..].to_vec());
    // Only what is in view is streamed.
    app.on_key(key('h'));
    app.on_key(key('h'));
    assert_eq!(ids(&app), order[..2].to_vec());
    assert_eq!(app.session.focused.as_deref(), Some(order[0].as_str()));
}

#[test]
fn the_wheel_on_a_frame_edge_walks_the_strip_and_the_option_reverses_it() {
    let mut app = attached(vec![win("a", 1), win("b", 1), win("c", 1)], "a");
    take(&mut app);
    set_layout(&mut app, 1, "scrolling");
    let order = app
        .layout
        .workspace(1)
        .unwrap()
        .tree
        .as_ref()
        .unwrap()
        .leaves();
    app.focus(&order[0].clone());
    let wheel = |up: bool| {
        let mut buttons = MouseButtons::VERT_WHEEL;
        if up {
            buttons |= MouseButtons::WHEEL_POSITIVE;
        }
        // Row 1 (1-based) is the top border of every column.
        InputEvent::Mouse(MouseEvent {
            x: 3,
            y: 1,
            mouse_buttons: buttons,
            modifiers: Modifiers::NONE,
        })
    };
    app.on_input(wheel(false));
    assert_eq!(app.session.focused.as_deref(), Some(order[1].as_str()));
    app.on_request(
        2,
        RoutedRequest::SetOption {
            path: "appearance.niri_reverse_scroll".into(),
            value: "true".into(),
        },
    );
    assert!(app.settings.niri_reverse_scroll);
    // Reversed: the same notch goes back left.
    app.on_input(wheel(false));
    assert_eq!(app.session.focused.as_deref(), Some(order[0].as_str()));
}

#[test]
fn the_key_cycles_the_layouts_and_turns_tiling_on() {
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    take(&mut app);
    app.on_key(key('t'));
    assert!(!app.layout.tiling(1));
    assert_eq!(app.layout_mode(), "floating");
    let mut seen = Vec::new();
    for _ in 0..3 {
        app.on_key(KeyEvent {
            key: KeyCode::Char('L'),
            modifiers: Modifiers::SHIFT,
        });
        seen.push(app.layout_mode());
    }
    assert_eq!(seen, ["master-stack", "scrolling", "bsp"]);
    assert!(take(&mut app).iter().any(
        |op| matches!(op, ClientOp::Layout { layout } if layout.contains("\"mode\":\"scrolling\""))
    ));
}
