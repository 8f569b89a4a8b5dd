use super::*;
use crate::tui::keys::{DEFAULT_FOCUS_RETURN, DEFAULT_LEADER};
use protocol::attach::{Run, WindowModes};
use termwiz::surface::Surface;

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
        Mode::Terminal,
        "a client starts in terminal mode"
    );
    app.router.mode = Mode::WindowManagement;
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

/// `ops` without the window sizes.
fn not_sizes(ops: Vec<ClientOp>) -> Vec<ClientOp> {
    ops.into_iter()
        .filter(|op| !matches!(op, ClientOp::WindowSize { .. }))
        .collect()
}

fn draw(app: &App) -> (Vec<String>, Hits) {
    let (w, h) = app.term;
    let mut surface = Surface::new(usize::from(w), usize::from(h));
    let drawn = super::super::render::draw(app, &mut surface);
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
    assert_eq!(app.view.windows.len(), 2);
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
    assert_eq!(app.mode(), Mode::Terminal);
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
    assert_eq!(app.mode(), Mode::WindowManagement);
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
    assert_eq!(
        take(&mut app),
        vec![ClientOp::WindowSize {
            window: "a".into(),
            cols: 98,
            rows: 24
        }]
    );
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

#[test]
fn held_paste_is_confirmed_in_chrome() {
    let mut app = attached(vec![win("a", 1)], "a");
    app.on_key(key('i'));
    take(&mut app);
    app.on_input(InputEvent::Paste("ls\nrm -rf x\n".into()));
    assert_eq!(
        take(&mut app),
        vec![ClientOp::Paste {
            window: "a".into(),
            data: b"ls\nrm -rf x\n".to_vec(),
            choice: String::new()
        }]
    );
    // The program has filled its window, then the paste is held.
    app.on_op(full_screen("a", 98, 27, 'X'));
    app.on_op(DaemonOp::PasteHeld {
        window: "a".into(),
        preview: "ls⏎rm -rf x⏎".into(),
        one_line: "ls rm -rf x ".into(),
        has_controls: false,
    });
    assert!(matches!(app.overlay, Overlay::Paste(_)));
    // The dialog takes five rows from the windows (rule, two of prose, the text, choices).
    assert_eq!(sizes(&take(&mut app)), vec![("a".into(), 98, 22)]);
    let tray = app.tray_rect().expect("the tray is up");
    assert_eq!(tray, Rect::new(0, 24, 100, 5));
    assert_eq!(app.frames[0].rect, Rect::new(0, 0, 100, 24));
    // Keys go to the dialog, not the window: k means nothing without controls.
    app.on_key(key('k'));
    app.on_key(key('x'));
    assert!(take(&mut app).is_empty());

    // Drawn in the tray, between the window's bottom border and the dock; no program output
    // there, although the daemon has not yet sent the smaller screen.
    let (lines, hits) = draw(&app);
    assert!(lines[23].starts_with('╰'), "{}", lines[23]);
    assert!(lines[24].contains(" held paste "), "{}", lines[24]);
    assert!(lines[24].starts_with("──"), "{}", lines[24]);
    assert!(lines[25].starts_with("┃ This window has not turned on bracketed paste"));
    assert!(lines[27].contains("ls⏎rm -rf x⏎"), "{}", lines[27]);
    assert!(lines[28].contains("[p] paste   [o] paste as one line   [esc] cancel"));
    assert!(
        lines[29].contains(" TERM "),
        "the dock stays: {}",
        lines[29]
    );
    for l in &lines[24..] {
        assert!(!l.contains('X'), "program output in the tray: {l}");
    }
    assert!(!lines[..24].iter().any(|l| l.contains("held paste")));
    let choices: Vec<&Target> = hits
        .targets
        .iter()
        .filter(|(r, _)| r.y == 28)
        .map(|(_, t)| t)
        .collect();
    assert_eq!(
        choices,
        vec![
            &Target::PasteChoice("send"),
            &Target::PasteChoice("one-line"),
            &Target::PasteChoice("")
        ]
    );
    assert_eq!(draw(&app).0[27], lines[27], "drawing twice draws the same");

    app.on_key(key('o'));
    let out = take(&mut app);
    assert_eq!(
        not_sizes(out.clone()),
        vec![ClientOp::Paste {
            window: "a".into(),
            data: b"ls\nrm -rf x\n".to_vec(),
            choice: "one-line".into()
        }]
    );
    // The window gets its rows back.
    assert_eq!(sizes(&out), vec![("a".into(), 98, 27)]);
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.tray_rect(), None);
}

#[test]
fn a_long_held_paste_scrolls_in_the_tray_and_choices_are_clickable() {
    let mut app = attached(vec![win("a", 1)], "a");
    app.on_key(key('i'));
    app.on_input(InputEvent::Paste("x".into()));
    let preview: String = (0..40).map(|i| format!("line {i:02}\\n")).collect();
    app.on_op(DaemonOp::PasteHeld {
        window: "a".into(),
        preview: preview.clone(),
        one_line: String::new(),
        has_controls: true,
    });
    take(&mut app);
    // 360 columns of text in 97: four preview lines.
    let (lines, hits) = draw(&app);
    let tray = app.tray_rect().unwrap();
    assert_eq!(tray.h, 1 + 2 + 4 + 1);
    assert!(lines[28].contains("[k] keep controls"), "{}", lines[28]);
    // Scrolling changes what is shown, not the tray's size.
    app.on_key(KeyEvent {
        key: KeyCode::DownArrow,
        modifiers: Modifiers::NONE,
    });
    assert!(take(&mut app).is_empty());
    assert_eq!(app.tray_rect(), Some(tray));
    // A click on a choice answers the dialog.
    app.hits = hits.clone();
    let (r, _) = hits
        .targets
        .iter()
        .find(|(_, t)| *t == Target::PasteChoice("keep-controls"))
        .cloned()
        .expect("the keep-controls choice");
    app.on_input(InputEvent::Mouse(MouseEvent {
        x: r.x + 1,
        y: r.y + 1,
        mouse_buttons: MouseButtons::LEFT,
        modifiers: Modifiers::NONE,
    }));
    assert!(not_sizes(take(&mut app)).contains(&ClientOp::Paste {
        window: "a".into(),
        data: b"x".to_vec(),
        choice: "keep-controls".into()
    }));
    assert_eq!(app.overlay, Overlay::None);

    // In a short terminal the preview shrinks to what fits, and scrolls.
    let mut app = App::new(keys(), (100, 14));
    let mut s = state(vec![win("a", 1)], "a", 1);
    s.height = 14;
    app.on_op(DaemonOp::Attached { state: s });
    app.on_key(key('i'));
    app.on_input(InputEvent::Paste("x".into()));
    app.on_op(DaemonOp::PasteHeld {
        window: "a".into(),
        preview: preview.repeat(4),
        one_line: String::new(),
        has_controls: false,
    });
    // 13 rows under the dock, 3 kept for the window: rule, prose, 6 lines, choices.
    assert_eq!(app.tray_rect(), Some(Rect::new(0, 3, 100, 10)));
    let (lines, _) = draw(&app);
    assert!(
        lines[12].contains("lines 1-6 of 15 (up/down scroll)"),
        "{}",
        lines[12]
    );
}

#[test]
fn notices_take_rows_of_the_tray_and_give_them_back() {
    let mut app = attached(vec![win("a", 1)], "a");
    take(&mut app);
    app.on_op(full_screen("a", 98, 27, 'X'));
    app.on_op(DaemonOp::Notice {
        level: NoticeLevel::Warning,
        text: "dropped a Lumen frame from a: terminal_origin".into(),
    });
    assert_eq!(sizes(&take(&mut app)), vec![("a".into(), 98, 26)]);
    let long = "the paste holds a Lumen frame introducer (ESC _ lumen; or an 8-bit form of it), so nothing was pasted";
    app.on_op(DaemonOp::Notice {
        level: NoticeLevel::Error,
        text: long.into(),
    });
    assert_eq!(sizes(&take(&mut app)), vec![("a".into(), 98, 24)]);
    let (lines, _) = draw(&app);
    assert!(
        lines[26].starts_with("┃ warning  dropped a Lumen frame from a"),
        "{}",
        lines[26]
    );
    assert!(
        lines[27].starts_with("┃ error    the paste holds a Lumen frame"),
        "{}",
        lines[27]
    );
    assert!(lines[28].starts_with("┃          "), "{}", lines[28]);
    assert!(lines[29].contains(" WM "));
    for l in &lines[26..29] {
        assert!(!l.contains('X'), "program output in the tray: {l}");
    }
    // A confirmation sits between the notices and the dock.
    app.on_key(key('x'));
    let (lines, _) = draw(&app);
    assert!(lines[23].starts_with("┃ warning"), "{}", lines[23]);
    assert!(lines[26].contains(" confirm "), "{}", lines[26]);
    assert!(lines[27].contains("close window a?"), "{}", lines[27]);
    assert!(lines[28].contains("[y] yes   [n] no"), "{}", lines[28]);
    app.on_key(key('n'));
    take(&mut app);
    // Expired notices give their rows back.
    app.tick(Instant::now() + Duration::from_secs(3600));
    assert_eq!(sizes(&take(&mut app)), vec![("a".into(), 98, 27)]);
    assert_eq!(app.tray_rect(), None);
}

#[test]
fn the_tray_follows_the_dock() {
    let mut app = attached(vec![win("a", 1)], "a");
    app.on_request(
        1,
        RoutedRequest::SetOption {
            path: "appearance.dockbar_position".into(),
            value: "top".into(),
        },
    );
    app.on_key(key('x'));
    take(&mut app);
    // Dock, then the question, then the window.
    assert_eq!(app.tray_rect(), Some(Rect::new(0, 1, 100, 3)));
    assert_eq!(app.frames[0].rect, Rect::new(0, 4, 100, 26));
    let (lines, hits) = draw(&app);
    assert!(lines[0].contains(" WM "), "{}", lines[0]);
    assert!(lines[1].contains(" confirm "), "{}", lines[1]);
    assert!(lines[4].starts_with('╭'), "{}", lines[4]);
    // Clicking yes closes.
    app.hits = hits;
    let (r, _) = app
        .hits
        .targets
        .iter()
        .find(|(_, t)| *t == Target::Confirm(true))
        .cloned()
        .expect("the yes choice");
    app.on_input(InputEvent::Mouse(MouseEvent {
        x: r.x + 1,
        y: r.y + 1,
        mouse_buttons: MouseButtons::LEFT,
        modifiers: Modifiers::NONE,
    }));
    assert!(not_sizes(take(&mut app)).contains(&ClientOp::Command {
        name: "CloseWindow".into(),
        args: vec!["a".into()]
    }));

    // Without a dock the tray is the bottom rows, and the prompt gets one of them.
    app.on_request(
        2,
        RoutedRequest::SetOption {
            path: "appearance.dockbar_position".into(),
            value: "hidden".into(),
        },
    );
    app.on_key(key(':'));
    assert!(
        matches!(app.overlay, Overlay::Prompt(_)),
        "{:?}",
        app.overlay
    );
    assert_eq!(app.tray_rect(), Some(Rect::new(0, 29, 100, 1)));
    assert_eq!(app.frames[0].rect, Rect::new(0, 0, 100, 29));
    let (lines, _) = draw(&app);
    assert!(lines[29].starts_with(" command "), "{}", lines[29]);
}

#[test]
fn screens_draw_and_dock_tabs_are_clickable() {
    let mut app = attached(vec![win("a", 1), win("b", 2)], "a");
    take(&mut app);
    app.on_op(DaemonOp::Screen(ScreenUpdate {
        window: "a".into(),
        cols: 98,
        rows: 27,
        cursor_x: 2,
        cursor_y: 0,
        cursor_visible: true,
        full: true,
        lines: vec![(
            0,
            Row {
                runs: vec![Run {
                    text: "$ hi-2".into(),
                    style: Default::default(),
                    link: None,
                }],
            },
        )],
    }));
    let mut surface = Surface::new(100, 30);
    let drawn = super::super::render::draw(&app, &mut surface);
    let text = surface.screen_chars_to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("╭─ a "), "{}", lines[0]);
    assert!(lines[1].starts_with("│$ hi-2"), "{}", lines[1]);
    assert!(lines[29].contains(" WM "), "{}", lines[29]);
    // The cursor shows only in terminal mode.
    assert_eq!(drawn.cursor, None);
    app.hits = drawn.hits;
    let (r, _) = app
        .hits
        .targets
        .iter()
        .find(|(_, t)| *t == Target::Workspace(2))
        .cloned()
        .expect("tab 2");
    app.on_input(InputEvent::Mouse(MouseEvent {
        x: r.x + 1,
        y: r.y + 1,
        mouse_buttons: MouseButtons::LEFT,
        modifiers: Modifiers::NONE,
    }));
    assert_eq!(
        take(&mut app),
        vec![ClientOp::Command {
            name: "SwitchWorkspace".into(),
            args: vec!["2".into()]
        }]
    );
}

#[test]
fn clicks_on_content_focus_and_reach_mouse_apps_only() {
    let mut b = win("b", 1);
    b.modes = WindowModes {
        mouse: true,
        sgr_mouse: true,
        ..Default::default()
    };
    let mut app = attached(vec![win("a", 1), b], "a");
    take(&mut app);
    let press = |x, y| {
        InputEvent::Mouse(MouseEvent {
            x,
            y,
            mouse_buttons: MouseButtons::LEFT,
            modifiers: Modifiers::NONE,
        })
    };
    let release = |x, y| {
        InputEvent::Mouse(MouseEvent {
            x,
            y,
            mouse_buttons: MouseButtons::NONE,
            modifiers: Modifiers::NONE,
        })
    };
    // b sits at columns 50-99; its content starts at column 51, row 1 (1-based: 52, 2).
    app.on_input(press(53, 3));
    app.on_input(release(53, 3));
    assert_eq!(
        take(&mut app),
        vec![ClientOp::Command {
            name: "FocusWindow".into(),
            args: vec!["b".into()]
        }]
    );
    assert_eq!(app.mode(), Mode::Terminal);
    app.on_input(press(53, 3));
    app.on_input(release(53, 3));
    assert_eq!(
        take(&mut app),
        vec![ClientOp::Input {
            window: "b".into(),
            data: b"\x1b[<0;2;2M\x1b[<0;2;2m".to_vec()
        }]
    );
    // Clicking the border never reaches the program.
    app.on_input(press(51, 10));
    app.on_input(release(51, 10));
    assert!(take(&mut app).is_empty());
}

#[test]
fn dragging_a_divider_resizes_the_split() {
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    take(&mut app);
    let ev = |x, buttons| {
        InputEvent::Mouse(MouseEvent {
            x,
            y: 10,
            mouse_buttons: buttons,
            modifiers: Modifiers::NONE,
        })
    };
    // The right border of a is column 49 (1-based 50).
    app.on_input(ev(50, MouseButtons::LEFT));
    app.on_input(ev(70, MouseButtons::LEFT));
    app.on_input(ev(70, MouseButtons::NONE));
    assert_eq!(app.frames[0].rect.w, 70);
    let out = take(&mut app);
    assert!(out.iter().any(|op| matches!(op, ClientOp::Layout { .. })));
    assert!(out.contains(&ClientOp::WindowSize {
        window: "a".into(),
        cols: 68,
        rows: 27
    }));
}

#[test]
fn send_keys_types_in_terminal_mode_and_prefix_reaches_bindings() {
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    take(&mut app);
    app.on_request(
        9,
        RoutedRequest::SendKeys {
            window: Some("b".into()),
            keys: "echo,hi Enter".into(),
            literal: false,
            raw: false,
        },
    );
    let out = take(&mut app);
    assert_eq!(
        out[0],
        ClientOp::Input {
            window: "b".into(),
            data: b"echohi\r".to_vec()
        }
    );
    assert!(matches!(
        out[1],
        ClientOp::Reply {
            request: 9,
            ok: true,
            ..
        }
    ));
    assert_eq!(
        app.mode(),
        Mode::WindowManagement,
        "the user's mode is kept"
    );
    app.on_request(
        10,
        RoutedRequest::SendKeys {
            window: None,
            keys: "PREFIX n".into(),
            literal: false,
            raw: false,
        },
    );
    assert_eq!(
        take(&mut app)[0],
        ClientOp::Command {
            name: "NextWindow".into(),
            args: vec![]
        }
    );
}

#[test]
fn options_apply_live() {
    let mut app = attached(vec![win("a", 1)], "a");
    take(&mut app);
    app.on_request(
        11,
        RoutedRequest::SetOption {
            path: "appearance.border_style".into(),
            value: "double".into(),
        },
    );
    app.on_request(
        12,
        RoutedRequest::SetOption {
            path: "appearance.border_style".into(),
            value: "wavy".into(),
        },
    );
    app.on_request(
        13,
        RoutedRequest::Command {
            name: "SetDockbarPosition".into(),
            args: vec!["hidden".into()],
        },
    );
    assert_eq!(
        app.settings.border,
        super::super::settings::BorderStyle::Double
    );
    assert_eq!(app.settings.dock, Edge::Hidden);
    let out = take(&mut app);
    let oks: Vec<bool> = out
        .iter()
        .filter_map(|op| match op {
            ClientOp::Reply { ok, .. } => Some(*ok),
            _ => None,
        })
        .collect();
    assert_eq!(oks, vec![true, false, true]);
    // Without the dock the window gets the whole height.
    assert!(out.contains(&ClientOp::WindowSize {
        window: "a".into(),
        cols: 98,
        rows: 28
    }));
}

#[test]
fn copy_mode_fetches_scrollback_and_yanks() {
    let mut app = attached(vec![win("a", 1)], "a");
    take(&mut app);
    app.on_key(key('['));
    assert!(app.copy.is_some());
    assert_eq!(
        take(&mut app),
        vec![ClientOp::Scrollback {
            window: "a".into(),
            before: None,
            count: 500
        }]
    );
    app.on_op(DaemonOp::Scrollback {
        window: "a".into(),
        first: 0,
        rows: vec![Row {
            runs: vec![Run {
                text: "older line".into(),
                style: Default::default(),
                link: None,
            }],
        }],
        more: false,
    });
    app.on_key(key('g'));
    app.on_key(key('y'));
    assert!(app.copy.is_none());
    assert_eq!(app.clipboard, vec!["older line".to_string()]);
}

#[test]
fn session_end_and_detach_stop_the_client() {
    let mut app = attached(vec![win("a", 1)], "a");
    app.on_op(DaemonOp::Detached);
    assert_eq!(app.exit, Some(Exit::Detached));
    let mut app = attached(vec![win("a", 1)], "a");
    app.on_op(DaemonOp::SessionEnded {
        session: "w".into(),
        reason: "killed".into(),
    });
    assert!(matches!(app.exit, Some(Exit::Ended { .. })));
}

#[test]
fn command_lines_split_into_words() {
    assert_eq!(
        split_words("RenameWindow a 'my logs'"),
        vec!["RenameWindow", "a", "my logs"]
    );
    assert_eq!(split_words("  Type \"\"  "), vec!["Type", ""]);
    assert!(split_words("   ").is_empty());
}

#[test]
fn floating_windows_move_by_their_title() {
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    app.on_key(key('t'));
    assert!(!app.layout.tiling(1));
    take(&mut app);
    let a = app.frames.iter().find(|f| f.id == "a").unwrap().rect;
    let ev = |x: u16, y: u16, buttons| {
        InputEvent::Mouse(MouseEvent {
            x: x + 1,
            y: y + 1,
            mouse_buttons: buttons,
            modifiers: Modifiers::NONE,
        })
    };
    // Grab a's title bar two cells in, drag it 5 right and 3 down.
    app.on_input(ev(a.x + 2, a.y, MouseButtons::LEFT));
    app.on_input(ev(a.x + 7, a.y + 3, MouseButtons::LEFT));
    app.on_input(ev(a.x + 7, a.y + 3, MouseButtons::NONE));
    let moved = app.frames.iter().find(|f| f.id == "a").unwrap().rect;
    assert_eq!((moved.x, moved.y), (a.x + 5, a.y + 3));
    assert!(take(&mut app).iter().any(
        |op| matches!(op, ClientOp::Layout { layout } if layout.contains("\"tiling\":false"))
    ));
}

#[test]
fn minimizing_hands_focus_to_a_visible_window() {
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    take(&mut app);
    app.on_key(key('-'));
    let out = take(&mut app);
    assert_eq!(
        out[0],
        ClientOp::Command {
            name: "MinimizeWindow".into(),
            args: vec!["a".into()]
        }
    );
    assert!(out.contains(&ClientOp::Command {
        name: "FocusWindow".into(),
        args: vec!["b".into()]
    }));
}

#[test]
fn tiny_terminals_draw_without_panicking() {
    for (w, h) in [(1, 1), (3, 2), (10, 4), (23, 7), (30, 9)] {
        let mut app = App::new(keys(), (w, h));
        let mut s = state(vec![win("a", 1), win("b", 1)], "a", 1);
        s.width = w;
        s.height = h;
        app.on_op(DaemonOp::Attached { state: s });
        app.notice(
            NoticeLevel::Error,
            "a notice that is longer than the terminal is wide",
        );
        app.notice(NoticeLevel::Info, "another one");
        for overlay in [
            Overlay::Help,
            Overlay::Confirm {
                text: "close?".into(),
                yes: Confirmed::Close("a".into()),
            },
            Overlay::Paste(PasteDialog {
                window: "a".into(),
                preview: "x⏎y".into(),
                one_line: "x y".into(),
                has_controls: true,
                data: b"x\ny".to_vec(),
                scroll: 3,
            }),
            Overlay::Prompt(Prompt {
                kind: PromptKind::Command,
                buffer: "NewWindow".into(),
            }),
        ] {
            app.overlay = overlay;
            app.sync_tray();
            let mut surface = Surface::new(usize::from(w), usize::from(h));
            super::super::render::draw(&app, &mut surface);
            // The windows and the tray share the rows under the dock, without overlap.
            let below = app.below_dock();
            let win = app.windows_area();
            let tray_h = app.tray_rect().map_or(0, |t| t.h);
            assert_eq!(win.h + tray_h, below.h, "{w}x{h}");
        }
        app.copy = None;
        app.on_key(key('['));
        let mut surface = Surface::new(usize::from(w), usize::from(h));
        super::super::render::draw(&app, &mut surface);
    }
}

const SPOOF_URL: &str = "https://example.com/\u{202E}evil";

/// Window `a`'s screen: "ab", then "LINK" linked to `url`, then "cd".
fn linked_screen(url: &str) -> DaemonOp {
    let run = |text: &str, link: Option<&str>| Run {
        text: text.into(),
        style: Default::default(),
        link: link.map(str::to_owned),
    };
    DaemonOp::Screen(ScreenUpdate {
        window: "a".into(),
        cols: 98,
        rows: 27,
        cursor_x: 0,
        cursor_y: 1,
        cursor_visible: true,
        full: true,
        lines: vec![(
            0,
            Row {
                runs: vec![run("ab", None), run("LINK", Some(url)), run("cd", None)],
            },
        )],
    })
}

/// A left press and release at content column `col` of window `a`'s first row.
fn click_content(app: &mut App, col: u16, mods: Modifiers) {
    // The window's content starts at column 1, row 1; reports are 1-based.
    for buttons in [MouseButtons::LEFT, MouseButtons::NONE] {
        app.on_input(InputEvent::Mouse(MouseEvent {
            x: col + 2,
            y: 2,
            mouse_buttons: buttons,
            modifiers: mods,
        }));
    }
}

fn inputs(ops: &[ClientOp]) -> usize {
    ops.iter()
        .filter(|op| matches!(op, ClientOp::Input { .. } | ClientOp::Paste { .. }))
        .count()
}

#[test]
fn link_at_counts_columns() {
    let row = Row {
        runs: vec![
            Run {
                text: "字a".into(),
                style: Default::default(),
                link: None,
            },
            Run {
                text: "x\u{301}y".into(),
                style: Default::default(),
                link: Some("https://t/".into()),
            },
        ],
    };
    assert_eq!(link_at(&row, 0), None);
    assert_eq!(link_at(&row, 1), None);
    assert_eq!(link_at(&row, 2), None);
    assert_eq!(link_at(&row, 3), Some("https://t/"));
    assert_eq!(link_at(&row, 4), Some("https://t/"));
    assert_eq!(link_at(&row, 5), None);
}

#[test]
fn ctrl_click_on_a_link_asks_then_opens() {
    let mut app = attached(vec![win("a", 1)], "a");
    app.on_op(linked_screen(SPOOF_URL));
    take(&mut app);
    app.router.mode = Mode::Terminal;
    // A plain click in terminal mode is an ordinary click.
    click_content(&mut app, 3, Modifiers::NONE);
    assert_eq!(app.overlay, Overlay::None);
    // Ctrl+click on the unlinked text does nothing special either.
    click_content(&mut app, 0, Modifiers::CTRL);
    assert_eq!(app.overlay, Overlay::None);
    click_content(&mut app, 3, Modifiers::CTRL);
    let Overlay::Link(d) = &app.overlay else {
        panic!("no link dialog: {:?}", app.overlay);
    };
    assert_eq!(d.url, SPOOF_URL);
    assert_eq!(d.shown, "https://example.com/\\u{202E}evil");
    // The tray shows the escaped URL and the choices; the override itself is drawn nowhere.
    let (lines, hits) = draw(&app);
    let all = lines.join("\n");
    assert!(all.contains("https://example.com/\\u{202E}evil"), "{all}");
    assert!(!all.contains('\u{202E}'));
    assert!(
        all.contains("[o] open") && all.contains("[c] copy"),
        "{all}"
    );
    assert!(hits
        .targets
        .iter()
        .any(|(_, t)| *t == Target::LinkChoice("open")));
    // Keys go to the dialog while it is open, never to the window.
    app.on_key(key('x'));
    assert!(matches!(app.overlay, Overlay::Link(_)));
    assert_eq!(inputs(&take(&mut app)), 0);
    app.on_key(key('o'));
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.open_links, vec![SPOOF_URL.to_string()]);
    assert!(app.clipboard.is_empty());
    assert_eq!(inputs(&take(&mut app)), 0);
}

#[test]
fn link_dialog_copies_or_cancels() {
    let mut app = attached(vec![win("a", 1)], "a");
    app.on_op(linked_screen("https://example.com/x"));
    click_content(&mut app, 2, Modifiers::CTRL);
    app.on_key(key('c'));
    assert_eq!(app.clipboard, vec!["https://example.com/x".to_string()]);
    assert!(app.open_links.is_empty());
    assert_eq!(app.overlay, Overlay::None);

    app.clipboard.clear();
    click_content(&mut app, 5, Modifiers::CTRL);
    assert!(matches!(app.overlay, Overlay::Link(_)));
    app.on_key(KeyEvent {
        key: KeyCode::Escape,
        modifiers: Modifiers::NONE,
    });
    assert_eq!(app.overlay, Overlay::None);
    assert!(app.clipboard.is_empty() && app.open_links.is_empty());
    assert_eq!(inputs(&take(&mut app)), 0);
}

#[test]
fn wm_mode_click_on_a_link_asks_and_mouse_apps_do_not_see_it() {
    let mut a = win("a", 1);
    a.modes = WindowModes {
        mouse: true,
        sgr_mouse: true,
        ..Default::default()
    };
    let mut app = attached(vec![a], "a");
    app.on_op(linked_screen("mailto:x@y"));
    take(&mut app);
    app.router.mode = Mode::WindowManagement;
    click_content(&mut app, 4, Modifiers::NONE);
    assert!(matches!(&app.overlay, Overlay::Link(d) if d.url == "mailto:x@y"));
    app.on_key(KeyEvent {
        key: KeyCode::Escape,
        modifiers: Modifiers::NONE,
    });
    // A ctrl+click on a link in a mouse program asks too; the program gets no report of it.
    click_content(&mut app, 4, Modifiers::CTRL);
    assert!(matches!(app.overlay, Overlay::Link(_)));
    assert_eq!(inputs(&take(&mut app)), 0);
}

#[test]
fn disallowed_schemes_are_refused_with_a_notice() {
    let mut app = attached(vec![win("a", 1)], "a");
    for url in [
        "javascript:alert(1)",
        "FILE:///etc/passwd",
        "data:text/html,x",
    ] {
        app.notices.clear();
        app.on_op(linked_screen(url));
        click_content(&mut app, 3, Modifiers::CTRL);
        assert_eq!(app.overlay, Overlay::None, "{url}");
        let n = app.notices.last().expect("a notice");
        let scheme = protocol::lumen::link_scheme(url).unwrap();
        assert!(n.text.contains(&format!("\"{scheme}:\"")), "{}", n.text);
        assert!(n.text.contains("policy.toml"), "{}", n.text);
        assert!(app.open_links.is_empty() && app.clipboard.is_empty());
    }
    // The user's policy decides: with only gemini allowed, https is refused too.
    app.set_link_policy(
        LinkPolicy {
            schemes: vec!["gemini".into()],
            opener: vec!["xdg-open".into()],
        },
        vec!["a warning".into()],
    );
    assert_eq!(app.notices.last().unwrap().text, "a warning");
    app.on_op(linked_screen("https://example.com/"));
    click_content(&mut app, 3, Modifiers::CTRL);
    assert_eq!(app.overlay, Overlay::None);
    app.on_op(linked_screen("gemini://x/"));
    click_content(&mut app, 3, Modifiers::CTRL);
    assert!(matches!(app.overlay, Overlay::Link(_)));
}

#[test]
fn click_to_type_decides_what_a_content_click_does_in_window_management() {
    let click = |app: &mut App| {
        for buttons in [MouseButtons::LEFT, MouseButtons::NONE] {
            app.on_input(InputEvent::Mouse(MouseEvent {
                x: 10,
                y: 5,
                mouse_buttons: buttons,
                modifiers: Modifiers::NONE,
            }));
        }
    };
    // single (the default): one click starts typing into the window.
    let mut app = attached(vec![win("a", 1)], "a");
    click(&mut app);
    assert_eq!(app.mode(), Mode::Terminal);
    // off: clicks only focus.
    let mut app = attached(vec![win("a", 1)], "a");
    app.set_option("appearance.click_to_type", "off", true)
        .unwrap();
    click(&mut app);
    assert_eq!(app.mode(), Mode::WindowManagement);
    click(&mut app);
    assert_eq!(app.mode(), Mode::WindowManagement);
    // double: a first click alone does not.
    let mut app = attached(vec![win("a", 1)], "a");
    app.set_option("appearance.click_to_type", "double", true)
        .unwrap();
    click(&mut app);
    assert_eq!(app.mode(), Mode::WindowManagement);
}

#[test]
fn a_zoomed_window_is_drawn_no_wider_than_zoom_max_width() {
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    app.set_option("appearance.zoom_max_width", "60", true)
        .unwrap();
    let before = app.frames.clone();
    assert!(
        before.iter().all(|f| f.rect.w <= 60),
        "not zoomed: tiled as usual"
    );
    app.run_command("ToggleZoom", &[], None).unwrap();
    assert_eq!(app.frames.len(), 1);
    assert_eq!(app.frames[0].rect.w, 60);
    assert_eq!(app.frames[0].rect.x, 20, "centred in the 100 columns");
}

#[test]
fn the_keycast_keeps_the_last_keys_only_when_asked() {
    let mut app = attached(vec![win("a", 1)], "a");
    app.on_key(key('x'));
    assert!(app.keycast.is_empty(), "off by default");
    app.set_option("debug.show_key_events", "on", true).unwrap();
    for c in "abcdefghij".chars() {
        app.on_key(key(c));
    }
    app.on_key(KeyEvent {
        key: KeyCode::Char('b'),
        modifiers: Modifiers::CTRL,
    });
    let shown: Vec<&str> = app.keycast.iter().map(String::as_str).collect();
    assert_eq!(shown, ["d", "e", "f", "g", "h", "i", "j", "ctrl+b"]);
}

#[test]
fn alt_drag_moves_a_floating_window_by_its_content() {
    let drag = |app: &mut App, mods: Modifiers| {
        let a = app.frames.iter().find(|f| f.id == "a").unwrap().rect;
        let ev = |x: u16, y: u16, buttons| {
            InputEvent::Mouse(MouseEvent {
                x: x + 1,
                y: y + 1,
                mouse_buttons: buttons,
                modifiers: mods,
            })
        };
        // Inside the content, well clear of the title and the borders.
        app.on_input(ev(a.x + 3, a.y + 3, MouseButtons::LEFT));
        app.on_input(ev(a.x + 6, a.y + 5, MouseButtons::LEFT));
        app.on_input(ev(a.x + 6, a.y + 5, MouseButtons::NONE));
        let moved = app.frames.iter().find(|f| f.id == "a").unwrap().rect;
        (moved.x - a.x, moved.y - a.y)
    };
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    app.on_key(key('t'));
    assert!(!app.layout.tiling(1));
    assert_eq!(drag(&mut app, Modifiers::ALT), (3, 2));
    assert_eq!(
        drag(&mut app, Modifiers::NONE),
        (0, 0),
        "a plain drag does not move it"
    );
    app.router.mode = Mode::WindowManagement;
    app.set_option("appearance.alt_drag", "off", true).unwrap();
    assert_eq!(drag(&mut app, Modifiers::ALT), (0, 0), "switched off");
}
