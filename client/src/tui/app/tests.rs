use super::*;
use crate::tui::keys::{DEFAULT_FOCUS_RETURN, DEFAULT_LEADER};
use protocol::attach::{Row, Run, ScreenUpdate, WindowModes};
use termwiz::surface::Surface;

mod chrome;
mod damage;
mod frame;
mod layouts;
mod links;
mod mouse;
mod rail;
mod select;
mod startup;

fn keys() -> KeyConfig {
    KeyConfig {
        leader: DEFAULT_LEADER,
        focus_return: vec![DEFAULT_FOCUS_RETURN],
        warnings: Vec::new(),
    }
}

fn win(id: &str, ws: i64) -> WindowView {
    WindowView {
        id: id.into(),
        title: "sh".into(),
        display_name: id.into(),
        workspace: ws,
        alive: true,
        cols: 80,
        rows: 24,
        ..Default::default()
    }
}

fn state(windows: Vec<WindowView>, focused: &str, version: u64) -> SessionView {
    SessionView {
        name: "w".into(),
        width: 100,
        height: 30,
        current_workspace: 1,
        num_workspaces: 9,
        focused: Some(focused.into()),
        windows,
        version,
        ..Default::default()
    }
}

/// An attached client, switched to window-management mode (where most of these tests start).
fn attached(windows: Vec<WindowView>, focused: &str) -> App {
    let mut app = App::new(keys(), (100, 30));
    app.on_op(DaemonOp::Attached {
        state: state(windows, focused, 1),
    });
    assert_eq!(
        app.mode(),
        InputMode::Terminal,
        "a client starts in terminal mode"
    );
    app.router.mode = InputMode::WindowManagement;
    app
}

#[test]
fn a_new_client_types_into_the_focused_window() {
    let mut app = App::new(keys(), (100, 30));
    app.on_op(DaemonOp::Attached {
        state: state(vec![win("a", 1)], "a", 1),
    });
    take(&mut app);
    app.on_key(key('c'));
    assert_eq!(
        take(&mut app),
        vec![ClientOp::Input {
            window: "a".into(),
            data: b"c".to_vec()
        }]
    );
}

fn key(c: char) -> KeyEvent {
    KeyEvent {
        key: KeyCode::Char(c),
        modifiers: Modifiers::NONE,
    }
}

fn take(app: &mut App) -> Vec<ClientOp> {
    std::mem::take(&mut app.out)
}

/// The window sizes among `ops`, as (window, cols, rows).
fn sizes(ops: &[ClientOp]) -> Vec<(String, u16, u16)> {
    ops.iter()
        .filter_map(|op| match op {
            ClientOp::WindowSize { window, cols, rows } => Some((window.clone(), *cols, *rows)),
            _ => None,
        })
        .collect()
}

/// `ops` without the window sizes and boxes.
fn not_sizes(ops: Vec<ClientOp>) -> Vec<ClientOp> {
    ops.into_iter()
        .filter(|op| !matches!(op, ClientOp::WindowSize { .. } | ClientOp::Geometry { .. }))
        .collect()
}

/// A reported box: (window, x, y, width, height).
type BoxRow = (String, u16, u16, u16, u16);

/// The window boxes of the last geometry report among `ops`.
fn boxes(ops: &[ClientOp]) -> Option<Vec<BoxRow>> {
    ops.iter().rev().find_map(|op| match op {
        ClientOp::Geometry { boxes } => Some(
            boxes
                .iter()
                .map(|b| (b.window.clone(), b.x, b.y, b.width, b.height))
                .collect(),
        ),
        _ => None,
    })
}

#[test]
fn the_client_reports_its_leader_once_and_window_boxes_when_they_change() {
    let mut app = App::new(keys(), (100, 30));
    app.on_op(DaemonOp::Attached {
        state: state(vec![win("a", 1)], "a", 1),
    });
    let out = take(&mut app);
    let leaders: Vec<&ClientOp> = out
        .iter()
        .filter(|op| matches!(op, ClientOp::Leader { .. }))
        .collect();
    assert_eq!(
        leaders,
        vec![&ClientOp::Leader {
            key: "ctrl+b".into()
        }]
    );
    // The outer box, border included: the content size plus the border on each side.
    let first = boxes(&out).expect("a geometry report after attaching");
    assert_eq!(first.len(), 1);
    let (id, _, _, w, h) = first[0].clone();
    assert_eq!(id, "a");
    assert_eq!(sizes(&out), vec![("a".into(), w - 2, h - 2)]);

    // A second window splits the area: both boxes are reported, once.
    app.on_op(DaemonOp::State {
        state: state(vec![win("a", 1), win("b", 1)], "b", 2),
    });
    let out = take(&mut app);
    let two = boxes(&out).expect("a report for the new arrangement");
    assert_eq!(two.len(), 2, "{two:?}");
    assert!(two.iter().all(|b| b.3 < w || b.4 < h), "{two:?}");
    assert!(!out.iter().any(|op| matches!(op, ClientOp::Leader { .. })));
    // Nothing moved: nothing is reported.
    app.on_op(DaemonOp::State {
        state: state(vec![win("a", 1), win("b", 1)], "b", 3),
    });
    assert_eq!(boxes(&take(&mut app)), None);
    // A new connection hears both again.
    app.forget_connection();
    app.on_op(DaemonOp::State {
        state: state(vec![win("a", 1), win("b", 1)], "b", 4),
    });
    let out = take(&mut app);
    assert_eq!(boxes(&out), Some(two));
    assert!(out.iter().any(|op| matches!(op, ClientOp::Leader { .. })));
}

fn draw(app: &App) -> (Vec<String>, Hits) {
    let (w, h) = app.term;
    let mut surface = Surface::new(usize::from(w), usize::from(h));
    let drawn = crate::tui::render::draw(&app.view(), &mut surface);
    let text = surface.screen_chars_to_string();
    (text.lines().map(str::to_string).collect(), drawn.hits)
}

/// A full screen of `fill` for window `id`, as the daemon would send it.
fn full_screen(id: &str, cols: u16, rows: u16, fill: char) -> DaemonOp {
    let line: String = std::iter::repeat_n(fill, usize::from(cols)).collect();
    DaemonOp::Screen(ScreenUpdate {
        window: id.into(),
        cols,
        rows,
        cursor_x: 0,
        cursor_y: 0,
        cursor_visible: true,
        full: true,
        lines: (0..rows)
            .map(|i| {
                (
                    i,
                    Row {
                        runs: vec![Run {
                            text: line.clone(),
                            style: Default::default(),
                            link: None,
                        }],
                    },
                )
            })
            .collect(),
    })
}

#[test]
fn attaching_sends_layout_view_and_sizes() {
    let mut app = attached(vec![win("a", 1), win("b", 2)], "a");
    let out = take(&mut app);
    assert!(matches!(&out[0], ClientOp::Layout { .. }), "{out:?}");
    assert!(out.contains(&ClientOp::View {
        windows: vec!["a".into()]
    }));
    // 100x30 terminal, dock on the bottom row, borders around the window.
    assert!(out.contains(&ClientOp::WindowSize {
        window: "a".into(),
        cols: 98,
        rows: 27
    }));
    // The same state again sends nothing.
    app.on_op(DaemonOp::State {
        state: state(vec![win("a", 1), win("b", 2)], "a", 2),
    });
    assert!(take(&mut app).is_empty());
    // A stale state is dropped.
    app.on_op(DaemonOp::State {
        state: state(vec![win("a", 1)], "a", 1),
    });
    assert_eq!(app.session.windows.len(), 2);
}

#[test]
fn a_smaller_session_limits_the_area() {
    let mut app = App::new(keys(), (120, 40));
    let mut s = state(vec![win("a", 1)], "a", 1);
    s.width = 80;
    s.height = 24;
    app.on_op(DaemonOp::Attached { state: s });
    assert_eq!(app.area(), Rect::new(0, 0, 80, 24));
    assert!(take(&mut app).contains(&ClientOp::WindowSize {
        window: "a".into(),
        cols: 78,
        rows: 21
    }));
}

#[test]
fn typing_in_terminal_mode_goes_to_the_focused_window() {
    let mut app = attached(vec![win("a", 1)], "a");
    take(&mut app);
    app.on_key(key('i'));
    assert_eq!(app.mode(), InputMode::Terminal);
    for c in "ls".chars() {
        app.on_key(key(c));
    }
    app.on_key(KeyEvent {
        key: KeyCode::Enter,
        modifiers: Modifiers::NONE,
    });
    assert_eq!(
        take(&mut app),
        vec![ClientOp::Input {
            window: "a".into(),
            data: b"ls\r".to_vec()
        }]
    );
    // Application cursor mode changes the arrows.
    let mut w = win("a", 1);
    w.modes = WindowModes {
        app_cursor: true,
        ..Default::default()
    };
    app.on_op(DaemonOp::State {
        state: state(vec![w], "a", 2),
    });
    take(&mut app);
    app.on_key(KeyEvent {
        key: KeyCode::UpArrow,
        modifiers: Modifiers::NONE,
    });
    assert_eq!(
        take(&mut app),
        vec![ClientOp::Input {
            window: "a".into(),
            data: b"\x1bOA".to_vec()
        }]
    );
}

#[test]
fn focus_return_chord_is_never_typed() {
    let mut app = attached(vec![win("a", 1)], "a");
    app.on_key(key('i'));
    take(&mut app);
    app.on_key(KeyEvent {
        key: KeyCode::Escape,
        modifiers: Modifiers::CTRL | Modifiers::SHIFT,
    });
    assert_eq!(app.mode(), InputMode::WindowManagement);
    assert!(take(&mut app).is_empty());
}

#[test]
fn leader_bindings_send_commands() {
    let mut app = attached(vec![win("a", 1)], "a");
    app.on_key(key('i'));
    take(&mut app);
    app.on_key(KeyEvent {
        key: KeyCode::Char('b'),
        modifiers: Modifiers::CTRL,
    });
    app.on_key(key('n'));
    assert_eq!(
        take(&mut app),
        vec![ClientOp::Command {
            name: "NextWindow".into(),
            args: vec![]
        }]
    );
    app.on_key(KeyEvent {
        key: KeyCode::Char('b'),
        modifiers: Modifiers::CTRL,
    });
    app.on_key(key('3'));
    assert_eq!(
        take(&mut app),
        vec![ClientOp::Command {
            name: "SwitchWorkspace".into(),
            args: vec!["3".into()]
        }]
    );
    // Close asks first, in the tray (rule, question, choices: the window gives up three
    // rows); only y closes.
    app.on_key(KeyEvent {
        key: KeyCode::Char('b'),
        modifiers: Modifiers::CTRL,
    });
    app.on_key(key('x'));
    let out = take(&mut app);
    assert_eq!(sizes(&out), vec![("a".into(), 98, 24)]);
    assert!(not_sizes(out).is_empty());
    app.on_key(key('y'));
    let out = take(&mut app);
    assert_eq!(
        not_sizes(out.clone()),
        vec![ClientOp::Command {
            name: "CloseWindow".into(),
            args: vec!["a".into()]
        }]
    );
    assert_eq!(sizes(&out), vec![("a".into(), 98, 27)]);
    // Any other key is no.
    app.on_key(KeyEvent {
        key: KeyCode::Char('b'),
        modifiers: Modifiers::CTRL,
    });
    app.on_key(key('x'));
    app.on_key(key('q'));
    assert!(not_sizes(take(&mut app)).is_empty());
    assert_eq!(app.overlay, Overlay::None);
}

#[test]
fn routed_split_places_the_new_window_and_replies_with_its_id() {
    let mut app = attached(vec![win("a", 1)], "a");
    take(&mut app);
    app.on_request(
        7,
        RoutedRequest::Split {
            window: None,
            direction: "horizontal".into(),
            name: Some("logs".into()),
        },
    );
    assert_eq!(
        take(&mut app),
        vec![ClientOp::Command {
            name: "NewWindow".into(),
            args: vec!["logs".into()]
        }]
    );
    app.on_op(DaemonOp::State {
        state: state(vec![win("a", 1), win("n", 1)], "n", 2),
    });
    let out = take(&mut app);
    let reply = out
        .iter()
        .find_map(|op| match op {
            ClientOp::Reply {
                request: 7,
                ok,
                data,
                ..
            } => Some((*ok, data.clone())),
            _ => None,
        })
        .expect("a reply");
    assert!(reply.0);
    let data: Value = serde_json::from_str(&reply.1.unwrap()).unwrap();
    assert_eq!(data["window_id"], "n");
    assert_eq!(data["name"], "logs");
    // Stacked, as asked: a on top, n below.
    let rects: Vec<(String, Rect)> = app.frames.iter().map(|f| (f.id.clone(), f.rect)).collect();
    assert_eq!(rects[0], ("a".into(), Rect::new(0, 0, 100, 15)));
    assert_eq!(rects[1].0, "n");
}

#[test]
fn directional_focus_and_unknown_commands() {
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    take(&mut app);
    app.on_request(
        1,
        RoutedRequest::FocusDirection {
            direction: "left".into(),
        },
    );
    app.on_request(
        2,
        RoutedRequest::FocusDirection {
            direction: "right".into(),
        },
    );
    app.on_request(
        3,
        RoutedRequest::Command {
            name: "Bogus".into(),
            args: vec![],
        },
    );
    let out = take(&mut app);
    let replies: Vec<(u64, bool, String)> = out
        .iter()
        .filter_map(|op| match op {
            ClientOp::Reply {
                request,
                ok,
                message,
                ..
            } => Some((*request, *ok, message.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(replies[0], (1, false, "no window to the left".into()));
    assert!(replies[1].1);
    assert!(!replies[2].1);
    assert!(out.contains(&ClientOp::Command {
        name: "FocusWindow".into(),
        args: vec!["b".into()]
    }));
}

#[test]
fn layout_requests_and_layouts_from_other_clients() {
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    take(&mut app);
    app.on_request(
        4,
        RoutedRequest::Layout {
            layout: None,
            tiling: Some(false),
            equalize: false,
            rotate: false,
        },
    );
    let out = take(&mut app);
    assert!(out.iter().any(|op| matches!(op, ClientOp::Layout { .. })));
    assert!(!app.layout.tiling(1));
    assert!(out.iter().any(|op| matches!(op,
        ClientOp::Reply { request: 4, ok: true, data: Some(d), .. } if d.contains("floating"))));
    // Another client's layout replaces ours.
    let mut other = Layout::default();
    other.reconcile(
        &[
            Member {
                id: "a".into(),
                workspace: 1,
            },
            Member {
                id: "b".into(),
                workspace: 1,
            },
        ],
        None,
        Some(&Placement {
            target: "a".into(),
            axis: Axis::Horizontal,
            new_first: true,
        }),
        app.windows_area(),
    );
    let mut s = state(vec![win("a", 1), win("b", 1)], "a", 5);
    s.layout = Some(other.to_json());
    app.on_op(DaemonOp::State { state: s });
    assert!(app.layout.tiling(1));
    // Stacked, b on top, as the other client arranged them.
    assert_eq!(app.frames[0].id, "b");
    assert_eq!(app.frames[0].rect.w, 100);
    assert!(
        !take(&mut app)
            .iter()
            .any(|op| matches!(op, ClientOp::Layout { .. })),
        "an adopted layout is not sent back"
    );
}
